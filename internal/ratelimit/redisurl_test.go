package ratelimit_test

import (
	"strings"
	"testing"

	"github.com/tablesmith/tablesmith/internal/ratelimit"
)

func TestAnInvalidRedisURLFailsSayingWhatIsWrongWithoutThePassword(t *testing.T) {
	for raw, want := range map[string]string{
		"redis://app:s3cret-pw@cache:notaport/0": `invalid port ":notaport" after host`,
		"http://app:s3cret-pw@cache:6379/0":      "invalid URL scheme: http",
		"redis://app:s3cret-pw@cache:6379/zero":  `invalid database number: "zero"`,
	} {
		_, err := ratelimit.New(ratelimit.Config{RedisURL: raw, Plans: newResolver(t, &owners{}, testPlans)})
		if err == nil {
			t.Fatalf("%s: no error", raw)
		}
		msg := err.Error()
		if !strings.Contains(msg, "redis_url is not a valid Redis URL") || !strings.Contains(msg, want) || strings.Contains(msg, "s3cret") {
			t.Errorf("%s: error %q, want one that says %q and hides the password", raw, msg, want)
		}
	}
}
