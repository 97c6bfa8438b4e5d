package ratelimit_test

import (
	"context"
	"io"
	"log/slog"
	"net"
	"net/url"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/redis/go-redis/v9"

	"github.com/tablesmith/tablesmith/internal/plans"
	"github.com/tablesmith/tablesmith/internal/ratelimit"
	"github.com/tablesmith/tablesmith/internal/store"
	"github.com/tablesmith/tablesmith/internal/testcaddy"
	"github.com/tablesmith/tablesmith/internal/testpg"
	"github.com/tablesmith/tablesmith/internal/testproxy"
)

// testPlans has a tiny free plan so that tests reach the limit quickly.
func testPlans() (plans.Set, string) {
	return plans.Set{
		"free":      {Name: "free", RatePerHour: 3, Projects: 1},
		"pro":       {Name: "pro", RatePerHour: 100_000, Projects: 20},
		"unlimited": {Name: "unlimited", RatePerHour: plans.Unlimited, Projects: plans.Unlimited},
	}, "free"
}

// owners is a stand-in for the database: project → owner, with a count
// of lookups.
type owners struct {
	mu      sync.Mutex
	byID    map[string]plans.Owner
	lookups atomic.Int64
}

func (o *owners) set(project string, accountID int64, plan string) {
	o.mu.Lock()
	defer o.mu.Unlock()
	if o.byID == nil {
		o.byID = map[string]plans.Owner{}
	}
	o.byID[project] = plans.Owner{AccountID: accountID, Plan: plan}
}

func (o *owners) lookup(ctx context.Context, project string) (plans.Owner, error) {
	o.lookups.Add(1)
	o.mu.Lock()
	defer o.mu.Unlock()
	ow, ok := o.byID[project]
	if !ok {
		return ow, store.ErrNotFound
	}
	return ow, nil
}

// newResolver resolves the plans of o's projects among set's plans.
func newResolver(t testing.TB, o *owners, set func() (plans.Set, string)) *plans.Resolver {
	t.Helper()
	r, err := plans.NewResolver(plans.ResolverConfig{Owner: o.lookup, Plans: set})
	if err != nil {
		t.Fatal(err)
	}
	return r
}

// newLimiter starts a limiter on cfg; without cfg.Plans, o's projects
// are on testPlans.
func newLimiter(t testing.TB, o *owners, cfg ratelimit.Config) *ratelimit.Limiter {
	t.Helper()
	if cfg.Plans == nil {
		cfg.Plans = newResolver(t, o, testPlans)
	}
	if cfg.Logger == nil {
		cfg.Logger = slog.New(slog.NewTextHandler(io.Discard, nil))
	}
	l, err := ratelimit.New(cfg)
	if err != nil {
		t.Fatal(err)
	}
	l.Start(context.Background())
	t.Cleanup(l.Close)
	if cfg.RedisURL != "" && cfg.Prefix != "" {
		t.Cleanup(func() { deleteKeys(cfg.RedisURL, cfg.Prefix+":*") })
	}
	return l
}

// deleteKeys removes what a test left in Redis (best effort).
func deleteKeys(u, pattern string) {
	opt, err := redis.ParseURL(u)
	if err != nil {
		return
	}
	c := redis.NewClient(opt)
	defer c.Close()
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Second)
	defer cancel()
	it := c.Scan(ctx, 0, pattern, 100).Iterator()
	for it.Next(ctx) {
		c.Del(ctx, it.Val())
	}
}

func redisURL(t testing.TB) string { return testpg.RedisURL(t) }

func mustTake(t *testing.T, l *ratelimit.Limiter, project string) ratelimit.Decision {
	t.Helper()
	d, err := l.Take(context.Background(), project, time.Now())
	if err != nil {
		t.Fatal(err)
	}
	return d
}

func TestFixedWindowStartsAtTheFirstRequestAndThenResets(t *testing.T) {
	t.Parallel()
	o := &owners{}
	o.set("p1", 1, "free")
	l := newLimiter(t, o, ratelimit.Config{Window: 2 * time.Second})
	first := time.Now()
	var last ratelimit.Decision
	for i := 1; i <= 3; i++ {
		last = mustTake(t, l, "p1")
		if !last.Allowed || last.Limit != 3 || last.Remaining != int64(3-i) || last.Used != int64(i) {
			t.Fatalf("request %d: %+v, want allowed with %d remaining", i, last, 3-i)
		}
	}
	// The window began with the first request and lasts Window.
	if end := first.Add(2 * time.Second); last.Reset.After(end) || last.Reset.Before(end.Add(-2*time.Second)) {
		t.Fatalf("reset %v, want about %v", last.Reset, end)
	}
	d := mustTake(t, l, "p1")
	if d.Allowed || d.Remaining != 0 || d.Limit != 3 {
		t.Fatalf("4th request: %+v, want refused", d)
	}
	if msg := d.Message(time.Now(), 2*time.Second); !strings.Contains(msg, "the free plan allows 3 requests per 2s per project") ||
		!strings.Contains(msg, "resets at") {
		t.Fatalf("message = %q", msg)
	}
	// Reset is in whole seconds (rounded down): wait past it.
	time.Sleep(time.Until(d.Reset) + 1100*time.Millisecond)
	if d := mustTake(t, l, "p1"); !d.Allowed || d.Remaining != 2 {
		t.Fatalf("first request of the next window: %+v, want allowed with 2 remaining", d)
	}
}

func TestPlanChangeAppliesAtTheNextRequestAndKeepsTheWindowCount(t *testing.T) {
	t.Parallel()
	o := &owners{}
	o.set("p1", 7, "free")
	r := newResolver(t, o, testPlans)
	l := newLimiter(t, o, ratelimit.Config{Plans: r})
	for range 3 {
		mustTake(t, l, "p1")
	}
	if d := mustTake(t, l, "p1"); d.Allowed {
		t.Fatalf("4th request on free: %+v, want refused", d)
	}
	o.set("p1", 7, "pro")
	r.ForgetAccount(8) // someone else's plan: the cache keeps p1
	if d := mustTake(t, l, "p1"); d.Allowed {
		t.Fatalf("after another account's change: %+v, want still refused", d)
	}
	r.ForgetAccount(7)
	d := mustTake(t, l, "p1")
	if !d.Allowed || d.Limit != 100_000 || d.Used != 6 || d.Plan.Name != "pro" {
		t.Fatalf("after moving to pro: %+v, want allowed, limit 100000, 6 used", d)
	}
}

func TestUnlimitedPlanIsNeverRefusedButStillCounted(t *testing.T) {
	t.Parallel()
	o := &owners{}
	o.set("p1", 1, "unlimited")
	l := newLimiter(t, o, ratelimit.Config{})
	for range 50 {
		if d := mustTake(t, l, "p1"); !d.Allowed || d.Limit != -1 {
			t.Fatalf("%+v, want allowed without a limit", d)
		}
	}
	d, err := l.Peek(context.Background(), "p1")
	if err != nil || d.Used != 50 {
		t.Fatalf("peek = %+v, %v; want 50 used", d, err)
	}
}

func TestOwnerIsLookedUpOncePerProjectNotOncePerRequest(t *testing.T) {
	t.Parallel()
	o := &owners{}
	o.set("p1", 1, "pro")
	r := newResolver(t, o, testPlans)
	l := newLimiter(t, o, ratelimit.Config{Plans: r})
	var wg sync.WaitGroup
	for range 8 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for range 50 {
				if _, err := l.Take(context.Background(), "p1", time.Now()); err != nil {
					t.Error(err)
				}
			}
		}()
	}
	wg.Wait()
	if n := o.lookups.Load(); n != 1 {
		t.Fatalf("%d owner lookups for 400 requests, want 1", n)
	}
	r.ForgetAll()
	mustTake(t, l, "p1")
	if n := o.lookups.Load(); n != 2 {
		t.Fatalf("%d lookups after ForgetAll, want 2", n)
	}
	if _, err := l.Take(context.Background(), "missing", time.Now()); err == nil {
		t.Fatal("a project without an owner should be an error")
	}
}

func TestTwoLimitersOnOneRedisShareOneCount(t *testing.T) {
	t.Parallel()
	u := redisURL(t)
	prefix := "tstest:" + store.RandomID(8)
	o := &owners{}
	o.set("p1", 1, "free")
	a := newLimiter(t, o, ratelimit.Config{RedisURL: u, Prefix: prefix})
	b := newLimiter(t, o, ratelimit.Config{RedisURL: u, Prefix: prefix})
	allowed := 0
	for i := range 10 {
		l := a
		if i%2 == 1 {
			l = b
		}
		if mustTake(t, l, "p1").Allowed {
			allowed++
		}
	}
	if allowed != 3 {
		t.Fatalf("%d of 10 requests allowed across two nodes, want 3", allowed)
	}
	for _, l := range []*ratelimit.Limiter{a, b} {
		if st := l.Stats(); !st.RedisConfigured || !st.RedisUp || st.FallbackDecisions != 0 {
			t.Fatalf("stats = %+v, want Redis up and no fallback", st)
		}
	}
}

func TestUnreachableRedisFallsBackToMemoryAndSaysSo(t *testing.T) {
	t.Parallel()
	logs := &testcaddy.SyncBuffer{}
	o := &owners{}
	o.set("p1", 1, "free")
	l := newLimiter(t, o, ratelimit.Config{RedisURL: "redis://127.0.0.1:" + closedPort(t), RedisTimeout: 100 * time.Millisecond,
		Logger: slog.New(slog.NewTextHandler(logs, nil))})
	allowed := 0
	for range 5 {
		if mustTake(t, l, "p1").Allowed {
			allowed++
		}
	}
	if allowed != 3 {
		t.Fatalf("%d allowed, want the plan's 3, counted in memory", allowed)
	}
	st := l.Stats()
	if !st.RedisConfigured || st.RedisUp || st.FallbackDecisions != 5 {
		t.Fatalf("stats = %+v, want Redis configured, down, 5 fallback decisions", st)
	}
	if !strings.Contains(logs.String(), "Redis is unreachable; counting on this node only") {
		t.Fatalf("logs do not say Redis is unreachable:\n%s", logs)
	}
}

func TestRedisOutageSwitchesToMemoryAndBack(t *testing.T) {
	t.Parallel()
	u := redisURL(t)
	opt, _ := redis.ParseURL(u)
	proxy := testproxy.Start(t, opt.Addr)
	logs := &testcaddy.SyncBuffer{}
	o := &owners{}
	o.set("p1", 1, "pro")
	viaProxy, _ := url.Parse(u)
	viaProxy.Host = proxy.Addr
	l := newLimiter(t, o, ratelimit.Config{RedisURL: viaProxy.String(),
		Prefix: "tstest:" + store.RandomID(8), RedisTimeout: 200 * time.Millisecond, ProbeEvery: 50 * time.Millisecond,
		Logger: slog.New(slog.NewTextHandler(logs, nil))})
	mustTake(t, l, "p1")
	mustTake(t, l, "p1")
	if st := l.Stats(); !st.RedisUp {
		t.Fatalf("stats = %+v, want Redis up", st)
	}

	proxy.Stop()
	d := mustTake(t, l, "p1")
	if !d.Allowed || d.Used != 1 {
		t.Fatalf("during the outage: %+v, want allowed and counted afresh in memory", d)
	}
	if st := l.Stats(); st.RedisUp || st.FallbackDecisions != 1 || st.RedisErrors == 0 {
		t.Fatalf("stats during the outage = %+v", st)
	}
	if !strings.Contains(logs.String(), "Redis failed; counting on this node only") {
		t.Fatalf("logs do not report the outage:\n%s", logs)
	}

	proxy.Restart(t)
	deadline := time.Now().Add(5 * time.Second)
	for !l.Stats().RedisUp {
		if time.Now().After(deadline) {
			t.Fatalf("Redis not used again after it came back; logs:\n%s", logs)
		}
		time.Sleep(20 * time.Millisecond)
	}
	if d := mustTake(t, l, "p1"); d.Used != 3 {
		t.Fatalf("after the outage: %+v, want the shared count to go on (3 used)", d)
	}
	if !strings.Contains(logs.String(), "Redis answers again") {
		t.Fatalf("logs do not report the recovery:\n%s", logs)
	}
}

// closedPort returns a local port nothing listens on.
func closedPort(t *testing.T) string {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	_, port, _ := net.SplitHostPort(ln.Addr().String())
	ln.Close()
	return port
}

// A bulk request counts as its items on the shared Redis count too, so
// every node sees what a bulk create on another node spent.
func TestBulkRequestsCountTheirItemsOnTheSharedRedisCount(t *testing.T) {
	t.Parallel()
	u := redisURL(t)
	prefix := "tstest:" + store.RandomID(8)
	o := &owners{}
	o.set("p1", 1, "free")
	a := newLimiter(t, o, ratelimit.Config{RedisURL: u, Prefix: prefix})
	b := newLimiter(t, o, ratelimit.Config{RedisURL: u, Prefix: prefix})
	takeN := func(l *ratelimit.Limiter, n int64) ratelimit.Decision {
		t.Helper()
		d, err := l.TakeN(context.Background(), "p1", n, time.Now())
		if err != nil {
			t.Fatal(err)
		}
		return d
	}
	if d := takeN(a, 2); !d.Allowed || d.Remaining != 1 {
		t.Fatalf("a bulk of 2 on node a: %+v, want allowed with 1 remaining", d)
	}
	if d := mustTake(t, b, "p1"); !d.Allowed || d.Remaining != 0 {
		t.Fatalf("one request on node b after it: %+v, want allowed with 0 remaining", d)
	}
	if d := takeN(b, 2); d.Allowed {
		t.Fatalf("a bulk of 2 past the limit: %+v, want refused", d)
	}
	for _, l := range []*ratelimit.Limiter{a, b} {
		if st := l.Stats(); !st.RedisUp || st.FallbackDecisions != 0 {
			t.Fatalf("stats = %+v, want every decision made on Redis", st)
		}
	}
}
