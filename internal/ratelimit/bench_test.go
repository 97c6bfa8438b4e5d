package ratelimit_test

import (
	"context"
	"fmt"
	"sync/atomic"
	"testing"
	"time"

	"github.com/tablesmith/tablesmith/internal/plans"
	"github.com/tablesmith/tablesmith/internal/ratelimit"
	"github.com/tablesmith/tablesmith/internal/store"
)

// benchLimiter has 100 projects on the pro plan, so requests spread over
// keys as real traffic does and are never refused.
func benchLimiter(b *testing.B, redisURL string) (*ratelimit.Limiter, []string) {
	o := &owners{}
	var projects []string
	for i := range 100 {
		id := fmt.Sprintf("bench%07d", i)
		o.set(id, int64(i), "pro")
		projects = append(projects, id)
	}
	// Built once, as the service's settings are: testPlans makes a map per call.
	set, def := testPlans()
	l := newLimiter(b, o, ratelimit.Config{RedisURL: redisURL, Prefix: "tsbench:" + store.RandomID(8),
		Plans: newResolver(b, o, func() (plans.Set, string) { return set, def })})
	for _, p := range projects { // warm the owner cache
		if _, err := l.Take(context.Background(), p, time.Now()); err != nil {
			b.Fatal(err)
		}
	}
	return l, projects
}

func runTakes(b *testing.B, l *ratelimit.Limiter, projects []string) {
	var n atomic.Int64
	b.ReportAllocs()
	b.ResetTimer()
	b.RunParallel(func(pb *testing.PB) {
		for pb.Next() {
			p := projects[n.Add(1)%int64(len(projects))]
			if _, err := l.Take(context.Background(), p, time.Now()); err != nil {
				b.Error(err)
				return
			}
		}
	})
}

// BenchmarkLimiterTakeMemory is the limiter's cost per request on one
// node: cached owner, plan lookup, ulule memory store.
func BenchmarkLimiterTakeMemory(b *testing.B) {
	l, projects := benchLimiter(b, "")
	runTakes(b, l, projects)
}

// BenchmarkLimiterTakeRedis is the cost per request with counts shared in
// Redis: one round trip (a Lua script) per request.
func BenchmarkLimiterTakeRedis(b *testing.B) {
	l, projects := benchLimiter(b, redisURL(b))
	runTakes(b, l, projects)
}
