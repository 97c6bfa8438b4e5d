package endusers

import (
	"context"
	"testing"
	"time"
)

// BenchmarkAccessTokenCheckWhenCached is the per-request cost of an
// end-user token once its session's status is cached: the JWT checks and
// one map lookup, no database.
func BenchmarkAccessTokenCheckWhenCached(b *testing.B) {
	a := New(Config{Secret: func(context.Context) (string, error) { return "bench-secret", nil }})
	ctx := context.Background()
	now := time.Now()
	tok, err := a.issueAccess(ctx, "abcdefabcdef", "42", "ses_bench", now)
	if err != nil {
		b.Fatal(err)
	}
	if _, err := a.status.Load(ctx, "ses_bench", now, func(context.Context) (statusEntry, error) { return statusEntry{user: "42"}, nil }); err != nil {
		b.Fatal(err)
	}
	b.ReportAllocs()
	for b.Loop() {
		c, err := a.parseAccess(ctx, "abcdefabcdef", tok)
		if err != nil {
			b.Fatal(err)
		}
		if e, ok := a.status.Lookup(c.SessionID, now); !ok || e.user != c.Subject || e.verdict != nil {
			b.Fatal("not cached")
		}
	}
}
