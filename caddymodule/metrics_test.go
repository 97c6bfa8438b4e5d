package caddymodule

import (
	"context"
	"strings"
	"testing"
	"time"

	"github.com/caddyserver/caddy/v2"
	dto "github.com/prometheus/client_model/go"

	"github.com/tablesmith/tablesmith/internal/analytics"
	"github.com/tablesmith/tablesmith/internal/service"
)

// lazyService is a service whose pool was never used: enough for metrics.
func lazyService(t *testing.T) *service.Service {
	t.Helper()
	svc, err := service.New(service.Config{DatabaseURL: "postgres://nobody@127.0.0.1:1/none?sslmode=disable"})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { svc.Close() })
	return svc
}

func gather(t *testing.T, ctx caddy.Context) map[string]*dto.MetricFamily {
	t.Helper()
	fams, err := ctx.GetMetricsRegistry().Gather()
	if err != nil {
		t.Fatal(err)
	}
	out := map[string]*dto.MetricFamily{}
	for _, f := range fams {
		out[f.GetName()] = f
	}
	return out
}

// labelled returns the metric of a family with exactly these label values.
func labelled(f *dto.MetricFamily, labels map[string]string) *dto.Metric {
	if f == nil {
		return nil
	}
next:
	for _, m := range f.GetMetric() {
		for _, lp := range m.GetLabel() {
			if want, ok := labels[lp.GetName()]; ok && want != lp.GetValue() {
				continue next
			}
		}
		return m
	}
	return nil
}

func TestMetricsRegisterOnCaddysRegistryOncePerConfigAndCountRequests(t *testing.T) {
	svc := lazyService(t)
	ctx, cancel := caddy.NewContext(caddy.Context{Context: context.Background()})
	defer cancel()
	if err := registerMetrics(ctx, svc); err != nil {
		t.Fatal(err)
	}
	// Provisioning twice in one config (or a reload's new registry) is fine.
	if err := registerMetrics(ctx, svc); err != nil {
		t.Fatalf("second registration: %v", err)
	}
	project := "metricsproj1"
	for _, s := range []analytics.Sample{
		{ProjectID: project, Table: "items", Operation: "get", Method: "GET", Status: 200, Latency: 2 * time.Millisecond},
		{ProjectID: project, Table: "items", Operation: "get", Method: "GET", Status: 200, Latency: 40 * time.Millisecond},
		{ProjectID: project, Table: "items", Operation: "list", Method: "GET", Status: 429, Latency: 100 * time.Microsecond},
		{ProjectID: project, Table: "", Operation: "", Method: "GET", Status: 404, Latency: 100 * time.Microsecond},
	} {
		observeRequest(s)
	}
	fams := gather(t, ctx)
	for _, name := range []string{
		"tablesmith_requests_total", "tablesmith_request_duration_seconds",
		"tablesmith_ratelimit_allowed_total", "tablesmith_ratelimit_rejections_total",
		"tablesmith_ratelimit_redis_configured", "tablesmith_ratelimit_redis_up",
		"tablesmith_ratelimit_redis_errors_total", "tablesmith_ratelimit_fallback_decisions_total",
		"tablesmith_analytics_samples_recorded_total", "tablesmith_analytics_samples_dropped_total",
		"tablesmith_analytics_samples_written_total", "tablesmith_analytics_flush_errors_total",
		"go_sql_open_connections", "go_sql_in_use_connections", "go_sql_wait_count_total",
	} {
		if fams[name] == nil {
			t.Errorf("metric %s is not registered", name)
		}
	}
	if m := labelled(fams["tablesmith_requests_total"], map[string]string{"project": project, "route": "GET /items/{id}", "status": "200"}); m.GetCounter().GetValue() != 2 {
		t.Errorf("requests_total for GET /items/{id} 200 = %v, want 2", m)
	}
	if m := labelled(fams["tablesmith_requests_total"], map[string]string{"project": project, "route": "GET (unknown table)", "status": "404"}); m.GetCounter().GetValue() != 1 {
		t.Errorf("requests_total for the unknown table = %v, want 1", m)
	}
	h := labelled(fams["tablesmith_request_duration_seconds"], map[string]string{"project": project, "route": "GET /items/{id}", "status_class": "2xx"}).GetHistogram()
	if h.GetSampleCount() != 2 || h.GetSampleSum() < 0.041 || h.GetSampleSum() > 0.043 {
		t.Errorf("duration histogram = %v, want 2 samples summing to 42ms", h)
	}

	// A reload gets a new registry: the same counters go on there.
	ctx2, cancel2 := caddy.NewContext(caddy.Context{Context: context.Background()})
	defer cancel2()
	if err := registerMetrics(ctx2, svc); err != nil {
		t.Fatal(err)
	}
	if m := labelled(gather(t, ctx2)["tablesmith_requests_total"], map[string]string{"project": project, "route": "GET /items/{id}", "status": "200"}); m.GetCounter().GetValue() != 2 {
		t.Errorf("after a reload requests_total = %v, want it kept at 2", m)
	}
	var dbNames []string
	for _, l := range labelled(fams["go_sql_max_open_connections"], nil).GetLabel() {
		dbNames = append(dbNames, l.GetName()+"="+l.GetValue())
	}
	if strings.Join(dbNames, ",") != "db_name=tablesmith" {
		t.Errorf("pool metrics labels = %v", dbNames)
	}
}

// BenchmarkObserveRequest is what the Prometheus metrics add to a request.
func BenchmarkObserveRequest(b *testing.B) {
	initRequestMetrics()
	s := analytics.Sample{ProjectID: "benchproject", Table: "items", Operation: "get", Method: "GET", Status: 200, Latency: 3 * time.Millisecond}
	b.ReportAllocs()
	b.RunParallel(func(pb *testing.PB) {
		for pb.Next() {
			observeRequest(s)
		}
	})
}
