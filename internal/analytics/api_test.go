package analytics_test

import (
	"context"
	"testing"
	"time"

	"github.com/tablesmith/tablesmith/internal/testserver"
)

const itemsSchema = `{"tables": [{"name": "items", "columns": [
	{"name": "name", "type": "text", "required": true},
	{"name": "qty", "type": "integer", "min": 0}]}]}`

// waitRecorded waits until the service's recorder has taken n samples:
// the generated API records a request after writing its answer, so the
// client can see the answer a moment before the sample exists.
func waitRecorded(t *testing.T, s *testserver.Server, n uint64) {
	t.Helper()
	deadline := time.Now().Add(5 * time.Second)
	for s.Svc.AnalyticsStats().Recorded < n {
		if time.Now().After(deadline) {
			t.Fatalf("recorder took %d samples, want %d", s.Svc.AnalyticsStats().Recorded, n)
		}
		time.Sleep(5 * time.Millisecond)
	}
}

func TestAnalyticsEndpointCountsARealRequestMixPerStatusClassAndEndpoint(t *testing.T) {
	t.Parallel()
	s := testserver.New(t)
	p := s.NewProject(itemsSchema)

	for i := range 5 {
		s.API(p, "POST", "/items", map[string]any{"name": "item", "qty": i}).Must(t, 201)
	}
	for range 2 {
		s.API(p, "POST", "/items", map[string]any{"qty": -1}).Must(t, 400)
	}
	for range 7 {
		s.API(p, "GET", "/items", nil).Must(t, 200)
	}
	for range 3 {
		s.API(p, "GET", "/items/1", nil).Must(t, 200)
	}
	for range 2 {
		s.API(p, "GET", "/items/999", nil).Must(t, 404)
	}
	s.API(p, "GET", "/nope", nil).Must(t, 404)
	s.API(p, "PATCH", "/items/1", map[string]any{"qty": 9}).Must(t, 200)
	s.API(p, "PUT", "/items/1", map[string]any{"name": "renamed"}).Must(t, 200)
	s.API(p, "DELETE", "/items/2", nil).Must(t, 200)
	for range 2 {
		s.Do("GET", "/v1/"+p.ID+"/items", "", nil).Must(t, 401)
	}
	const total = 5 + 2 + 7 + 3 + 2 + 1 + 1 + 1 + 1 + 2
	waitRecorded(t, s, total)
	if err := s.Svc.FlushAnalytics(context.Background()); err != nil {
		t.Fatal(err)
	}

	r := s.Do("GET", "/api/projects/"+p.ID+"/analytics?range=1h", p.Session, nil).Must(t, 200)
	data := r.Data()
	sum := data["summary"].(map[string]any)
	for k, want := range map[string]float64{
		"total_requests": total, "count_2xx": 5 + 7 + 3 + 3, "count_3xx": 0, "count_4xx": 2 + 2 + 1 + 2, "count_5xx": 0,
		"rate_limited": 0, "dropped_samples": 0, "error_rate": 0.28,
	} {
		if sum[k] != want {
			t.Errorf("summary.%s = %v, want %v", k, sum[k], want)
		}
	}
	for _, k := range []string{"p50_ms", "p95_ms", "p99_ms"} {
		if v, _ := sum[k].(float64); v <= 0 {
			t.Errorf("summary.%s = %v, want a positive latency", k, sum[k])
		}
	}
	if !(sum["p50_ms"].(float64) <= sum["p95_ms"].(float64) && sum["p95_ms"].(float64) <= sum["p99_ms"].(float64)) {
		t.Errorf("percentiles out of order: %v", sum)
	}

	want := map[string][2]float64{ // count, error_rate
		"GET /items":          {7 + 2, 0.2222},
		"POST /items":         {5 + 2, 0.2857},
		"GET /items/{id}":     {3 + 2, 0.4},
		"PATCH /items/{id}":   {1, 0},
		"PUT /items/{id}":     {1, 0},
		"DELETE /items/{id}":  {1, 0},
		"GET (unknown table)": {1, 1},
	}
	top := data["top_endpoints"].([]any)
	if len(top) != len(want) {
		t.Fatalf("top_endpoints = %v, want %d entries", top, len(want))
	}
	for _, e := range top {
		m := e.(map[string]any)
		k := m["method"].(string) + " " + m["path"].(string)
		w, ok := want[k]
		if !ok || m["count"] != w[0] || m["error_rate"] != w[1] {
			t.Errorf("endpoint %s: count %v error_rate %v, want %v", k, m["count"], m["error_rate"], w)
		}
		if _, ok := m["p95_ms"].(float64); !ok {
			t.Errorf("endpoint %s has no p95_ms", k)
		}
	}

	series := data["series"].([]any)
	if len(series) != 60 {
		t.Fatalf("series has %d points, want 60", len(series))
	}
	var seriesTotal float64
	for _, pt := range series {
		m := pt.(map[string]any)
		if _, err := time.Parse(time.RFC3339, m["t"].(string)); err != nil {
			t.Fatalf("t = %v is not RFC 3339", m["t"])
		}
		for _, k := range []string{"count_2xx", "count_3xx", "count_4xx", "count_5xx", "p50_ms", "p95_ms", "p99_ms"} {
			if _, ok := m[k].(float64); !ok {
				t.Fatalf("series point lacks %s: %v", k, m)
			}
		}
		seriesTotal += m["count_2xx"].(float64) + m["count_3xx"].(float64) + m["count_4xx"].(float64) + m["count_5xx"].(float64)
	}
	if seriesTotal != total {
		t.Errorf("series adds up to %v requests, want %d", seriesTotal, total)
	}

	// Every request is counted by the limiter except the one for a table
	// that does not exist (routing answers it before admission).
	usage := data["plan_usage"].(map[string]any)
	if usage["plan"] != "unlimited" || usage["limit"] != float64(-1) || usage["used"] != float64(total-1) {
		t.Errorf("plan_usage = %v, want unlimited, -1, %d", usage, total-1)
	}
	if _, err := time.Parse(time.RFC3339, usage["resets_at"].(string)); err != nil {
		t.Errorf("resets_at = %v", usage["resets_at"])
	}

	bad := s.Do("GET", "/api/projects/"+p.ID+"/analytics?range=2h", p.Session, nil).Must(t, 400)
	if bad.ErrorCode() != "INVALID_QUERY" || bad.Details()["range"] == "" {
		t.Errorf("range=2h: %s", bad.Raw)
	}
	// A span longer than a time.Duration used to panic (makeslice).
	huge := s.Do("GET", "/api/projects/"+p.ID+"/analytics?from=0001-01-01T00:00:00Z&interval=1m", p.Session, nil).Must(t, 400)
	if huge.ErrorCode() != "INVALID_QUERY" || huge.Details()["interval"] == nil {
		t.Errorf("from=0001-01-01: %s", huge.Raw)
	}
	other := s.NewProject(itemsSchema)
	s.Do("GET", "/api/projects/"+p.ID+"/analytics", other.Session, nil).Must(t, 404)
}
