package ratelimit_test

import (
	"context"
	"strings"
	"testing"
	"time"

	"github.com/tablesmith/tablesmith/internal/plans"
	"github.com/tablesmith/tablesmith/internal/testserver"
)

// The owner's dashboard (Data, Test, API Docs) calls the generated API
// with the platform session: the same handlers, but nothing taken from
// the plan and nothing in the customer's analytics.
func TestDashboardSessionRequestsSpendNothingOfThePlanAndStayOutOfCustomerAnalytics(t *testing.T) {
	t.Parallel()
	s := testserver.New(t, testserver.WithPlans(plans.Defaults(), "free"))
	p := s.NewProject(itemsSchema)
	dashboard := func(method, path string, body any) *testserver.Response {
		return s.Do(method, "/v1/"+p.ID+path, p.Session, body)
	}

	for range 3 {
		s.API(p, "GET", "/items", nil).Must(t, 200)
	}
	if rem := headerInt(t, s.API(p, "GET", "/items", nil).Must(t, 200), "X-RateLimit-Remaining"); rem != 96 {
		t.Fatalf("after 4 key requests X-RateLimit-Remaining = %d, want 96", rem)
	}

	// More than the free plan's 100 an hour, through every kind of route.
	const n = 120
	for i := range n {
		var r *testserver.Response
		switch i % 4 {
		case 0:
			r = dashboard("POST", "/items", map[string]any{"name": "from the dashboard"}).Must(t, 201)
		case 1:
			r = dashboard("GET", "/items?limit=5", nil).Must(t, 200)
		case 2:
			r = dashboard("PATCH", "/items/1", map[string]any{"name": "edited"}).Must(t, 200)
		default:
			r = dashboard("POST", "/items", []any{map[string]any{"name": "a"}, map[string]any{"name": "b"}}).Must(t, 201)
		}
		if r.Header.Get("X-RateLimit-Remaining") != "" {
			t.Fatalf("a dashboard request carries X-RateLimit-Remaining %s", r.Header.Get("X-RateLimit-Remaining"))
		}
	}
	// The same validation as for a key.
	if r := dashboard("POST", "/items", map[string]any{"nope": 1}).Must(t, 400); r.ErrorCode() != "VALIDATION_ERROR" {
		t.Fatalf("invalid body from the dashboard: %s", r.Raw)
	}
	// The API description and Swagger UI are never counted or listed.
	for range 5 {
		s.Do("GET", "/v1/"+p.ID+"/openapi.json", "", nil).Must(t, 200)
		s.Do("GET", "/v1/"+p.ID+"/docs", "", nil) // 200, or 503 in a build without Swagger UI
	}

	r := s.API(p, "GET", "/items", nil).Must(t, 200)
	if rem := headerInt(t, r, "X-RateLimit-Remaining"); rem != 95 {
		t.Fatalf("after %d dashboard requests X-RateLimit-Remaining = %d, want 95 (only the 5 key requests)", n+1, rem)
	}

	// Someone else's session, and a malformed key, are told the
	// credential is not valid for this project.
	stranger := s.Signup("stranger-" + p.ID + "@example.com")
	for _, tok := range []string{stranger, "ts_wrong", "not-a-token"} {
		r := s.Do("GET", "/v1/"+p.ID+"/items", tok, nil).Must(t, 401)
		if r.ErrorCode() != "UNAUTHORIZED" || !strings.Contains(r.Message(), "not valid for this project") {
			t.Errorf("credential %.12s…: %s", tok, r.Raw)
		}
	}

	const customer = 5 + 3 // key requests, then the three refused credentials
	total := uint64(customer + n + 1)
	deadline := time.Now().Add(5 * time.Second)
	for s.Svc.AnalyticsStats().Recorded < total && time.Now().Before(deadline) {
		time.Sleep(5 * time.Millisecond)
	}
	if err := s.Svc.FlushAnalytics(context.Background()); err != nil {
		t.Fatal(err)
	}
	rep := s.Do("GET", "/api/projects/"+p.ID+"/analytics?range=1h", p.Session, nil).Must(t, 200).Data()
	sum := rep["summary"].(map[string]any)
	if sum["total_requests"] != float64(customer) {
		t.Errorf("customer total_requests = %v, want %d", sum["total_requests"], customer)
	}
	if d := rep["dashboard"].(map[string]any); d["requests"] != float64(n+1) {
		t.Errorf("dashboard.requests = %v, want %d", d["requests"], n+1)
	}
	for _, e := range rep["top_endpoints"].([]any) {
		m := e.(map[string]any)
		if path := m["path"].(string); path != "/items" {
			t.Errorf("top endpoint %s %s (%v requests): only GET /items was customer traffic", m["method"], path, m["count"])
		}
	}
	pu := rep["plan_usage"].(map[string]any)
	if pu["used"] != float64(5) {
		t.Errorf("plan_usage.used = %v, want 5", pu["used"])
	}
}
