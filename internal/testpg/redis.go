package testpg

import (
	"context"
	"os"
	"testing"
	"time"

	"github.com/redis/go-redis/v9"
)

// RedisURL is the test Redis (TABLESMITH_TEST_REDIS_URL, default the
// local service); a test that needs it skips without it unless
// TABLESMITH_TEST_REQUIRE_ALL=1, when it fails.
func RedisURL(t testing.TB) string {
	t.Helper()
	u := os.Getenv("TABLESMITH_TEST_REDIS_URL")
	if u == "" {
		u = "redis://127.0.0.1:6379/0"
	}
	opt, err := redis.ParseURL(u)
	if err != nil {
		t.Fatal(err)
	}
	c := redis.NewClient(opt)
	defer c.Close()
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Second)
	defer cancel()
	if err := c.Ping(ctx).Err(); err != nil {
		if RequireAll() {
			t.Fatalf("Redis is required (TABLESMITH_TEST_REQUIRE_ALL=1) but not reachable at %s: %v", u, err)
		}
		t.Skipf("Redis not reachable at %s (%v); set TABLESMITH_TEST_REDIS_URL", u, err)
	}
	return u
}
