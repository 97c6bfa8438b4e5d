package ratelimit_test

import (
	"context"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/tablesmith/tablesmith/internal/plans"
	"github.com/tablesmith/tablesmith/internal/store"
	"github.com/tablesmith/tablesmith/internal/testserver"
)

const itemsSchema = `{"tables": [{"name": "items", "columns": [
	{"name": "name", "type": "text", "required": true}]}]}`

func headerInt(t *testing.T, r *testserver.Response, name string) int64 {
	t.Helper()
	v, err := strconv.ParseInt(r.Header.Get(name), 10, 64)
	if err != nil {
		t.Fatalf("%s = %q, want a number (status %d)", name, r.Header.Get(name), r.Status)
	}
	return v
}

func TestFreeProjectGets429OnThe101stRequestWithRateLimitHeaders(t *testing.T) {
	t.Parallel()
	s := testserver.New(t, testserver.WithPlans(plans.Defaults(), "free"))
	p := s.NewProject(itemsSchema)
	start := time.Now()
	var reset int64
	for i := 1; i <= 100; i++ {
		r := s.API(p, "GET", "/items", nil).Must(t, 200)
		if l := headerInt(t, r, "X-RateLimit-Limit"); l != 100 {
			t.Fatalf("request %d: X-RateLimit-Limit %d, want 100", i, l)
		}
		if rem := headerInt(t, r, "X-RateLimit-Remaining"); rem != int64(100-i) {
			t.Fatalf("request %d: X-RateLimit-Remaining %d, want %d", i, rem, 100-i)
		}
		rs := headerInt(t, r, "X-RateLimit-Reset")
		if i == 1 {
			// The hour starts with the first request.
			if want := start.Add(time.Hour).Unix(); rs < want-1 || rs > want+1 {
				t.Fatalf("X-RateLimit-Reset %d, want about %d (an hour after the first request)", rs, want)
			}
			reset = rs
		} else if rs != reset {
			t.Fatalf("request %d: X-RateLimit-Reset moved from %d to %d", i, reset, rs)
		}
	}

	r := s.API(p, "GET", "/items", nil).Must(t, 429)
	if r.ErrorCode() != "RATE_LIMITED" {
		t.Fatalf("101st request: %s", r.Raw)
	}
	if headerInt(t, r, "X-RateLimit-Limit") != 100 || headerInt(t, r, "X-RateLimit-Remaining") != 0 || headerInt(t, r, "X-RateLimit-Reset") != reset {
		t.Fatalf("429 headers: %v", r.Header)
	}
	retry := headerInt(t, r, "Retry-After")
	if until := reset - time.Now().Unix(); retry < 1 || retry < until || retry > until+2 {
		t.Fatalf("Retry-After %d, want the %d seconds until the reset (+1)", retry, until)
	}
	resetAt := time.Unix(reset, 0).UTC().Format(time.RFC3339)
	if msg := r.Message(); !strings.Contains(msg, "the free plan allows 100 requests per hour per project") || !strings.Contains(msg, "resets at "+resetAt) {
		t.Fatalf("message %q should name the plan's limit and the reset time %s", msg, resetAt)
	}

	// The project view and the analytics report show the usage; analytics
	// counts the rejected request too.
	proj := s.Do("GET", "/api/projects/"+p.ID, p.Session, nil).Must(t, 200)
	usage := proj.Data()["usage"].(map[string]any)
	if usage["used"] != float64(100) || usage["limit"] != float64(100) {
		t.Fatalf("project usage = %v, want 100 of 100", usage)
	}
	deadline := time.Now().Add(5 * time.Second)
	for s.Svc.AnalyticsStats().Recorded < 101 && time.Now().Before(deadline) {
		time.Sleep(5 * time.Millisecond)
	}
	if err := s.Svc.FlushAnalytics(context.Background()); err != nil {
		t.Fatal(err)
	}
	rep := s.Do("GET", "/api/projects/"+p.ID+"/analytics?range=1h", p.Session, nil).Must(t, 200).Data()
	sum, pu := rep["summary"].(map[string]any), rep["plan_usage"].(map[string]any)
	if sum["total_requests"] != float64(101) || sum["rate_limited"] != float64(1) || sum["count_4xx"] != float64(1) {
		t.Fatalf("analytics summary = %v, want 101 requests, 1 rate-limited", sum)
	}
	if pu["plan"] != "free" || pu["limit"] != float64(100) || pu["used"] != float64(100) || pu["resets_at"] != resetAt {
		t.Fatalf("plan_usage = %v, want free, 100 of 100, resets at %s", pu, resetAt)
	}
	if st := s.Svc.LimitStats(); st.Rejected != 1 || st.Allowed != 100 {
		t.Fatalf("limiter stats = %+v, want 100 allowed and 1 rejected", st)
	}
}

func TestSecondProjectOnTheFreePlanIsRefusedWithPlanLimit(t *testing.T) {
	t.Parallel()
	s := testserver.New(t, testserver.WithPlans(plans.Defaults(), "free"))
	email := "solo-" + store.RandomID(6) + "@example.com"
	tok := s.Signup(email)
	acc := s.Do("GET", "/api/account", tok, nil).Must(t, 200).Data()
	limits := acc["limits"].(map[string]any)
	if acc["plan"] != "free" || limits["rate_per_hour"] != float64(100) || limits["projects"] != float64(1) {
		t.Fatalf("account = %v, want the free plan with 100/hour and 1 project", acc)
	}
	s.Do("POST", "/api/projects", tok, map[string]any{"name": "First"}).Must(t, 201)
	r := s.Do("POST", "/api/projects", tok, map[string]any{"name": "Second"}).Must(t, 403)
	if r.ErrorCode() != "PLAN_LIMIT" || !strings.Contains(r.Message(), "free plan allows 1 project;") {
		t.Fatalf("second project: %s", r.Raw)
	}
	if n := len(s.Do("GET", "/api/projects", tok, nil).Must(t, 200).List()); n != 1 {
		t.Fatalf("%d projects after the refusal, want 1", n)
	}
	if _, err := plans.ChangePlan(context.Background(), s.Svc.DB, email, "pro"); err != nil {
		t.Fatal(err)
	}
	s.Do("POST", "/api/projects", tok, map[string]any{"name": "Second"}).Must(t, 201)
	if u := s.Do("GET", "/api/account", tok, nil).Must(t, 200).Data()["usage"].(map[string]any); u["projects"] != float64(2) {
		t.Fatalf("usage = %v, want 2 projects", u)
	}
}

func TestSetPlanRaisesTheLimitOnEveryRunningNode(t *testing.T) {
	t.Parallel()
	// Two services on one database stand for two nodes (without Redis,
	// each counts on its own); the plan change reaches both by NOTIFY.
	a := testserver.New(t, testserver.WithPlans(plans.Defaults(), "free"))
	b := testserver.New(t, testserver.WithPlans(plans.Defaults(), "free"))
	p := a.NewProject(itemsSchema)
	for _, n := range []*testserver.Server{a, b} {
		if l := headerInt(t, n.API(p, "GET", "/items", nil).Must(t, 200), "X-RateLimit-Limit"); l != 100 {
			t.Fatalf("limit before = %d, want 100", l)
		}
	}
	acc := a.Do("GET", "/api/account", p.Session, nil).Must(t, 200).Data()
	prev, err := plans.ChangePlan(context.Background(), a.Svc.DB, acc["email"].(string), "pro")
	if err != nil || prev.Plan != "free" {
		t.Fatalf("ChangePlan = %+v, %v", prev, err)
	}
	for name, n := range map[string]*testserver.Server{"a": a, "b": b} {
		deadline := time.Now().Add(5 * time.Second)
		for {
			r := n.API(p, "GET", "/items", nil).Must(t, 200)
			if headerInt(t, r, "X-RateLimit-Limit") == 100_000 {
				// The window's count carries over: each node counted a
				// request before the change and this one after it.
				if rem := headerInt(t, r, "X-RateLimit-Remaining"); rem >= 100_000-1 {
					t.Fatalf("node %s: remaining %d, want the window's requests still counted", name, rem)
				}
				break
			}
			if time.Now().After(deadline) {
				t.Fatalf("node %s still shows the free limit 5s after set-plan", name)
			}
			time.Sleep(20 * time.Millisecond)
		}
	}
}
