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
		"tablesmith_webhook_deliveries_total", "tablesmith_webhook_failures_total", "tablesmith_webhooks_active",
		"tablesmith_webhook_lag_seconds",
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

// TestReplicaMetricsNameEachReplica: with replica_url set, each replica
// has its up, lag and reads series; before the first health check (the
// service here never starts) it is out.
func TestReplicaMetricsNameEachReplica(t *testing.T) {
	svc, err := service.New(service.Config{DatabaseURL: "postgres://nobody@127.0.0.1:1/none?sslmode=disable",
		ReplicaURLs: []string{"postgres://reader:secret@127.0.0.1:2/none?sslmode=disable"}})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { svc.Close() })
	ctx, cancel := caddy.NewContext(caddy.Context{Context: context.Background()})
	defer cancel()
	if err := registerMetrics(ctx, svc); err != nil {
		t.Fatal(err)
	}
	fams := gather(t, ctx)
	replica := map[string]string{"replica": "127.0.0.1:2/none"}
	if m := labelled(fams["tablesmith_replica_up"], replica); m == nil || m.GetGauge().GetValue() != 0 {
		t.Errorf("replica_up = %v, want 0 for an unchecked replica", m)
	}
	if m := labelled(fams["tablesmith_replica_reads_total"], replica); m == nil || m.GetCounter().GetValue() != 0 {
		t.Errorf("replica_reads_total = %v", m)
	}
	if labelled(fams["tablesmith_replica_lag_seconds"], replica) == nil || fams["tablesmith_replica_primary_reads_total"] == nil {
		t.Error("replica_lag_seconds or replica_primary_reads_total missing")
	}
	if m := labelled(fams["tablesmith_replica_up"], nil); m != nil && strings.Contains(m.String(), "secret") {
		t.Error("a replica's label shows its password")
	}
	// Without replicas, no replica series at all.
	ctx2, cancel2 := caddy.NewContext(caddy.Context{Context: context.Background()})
	defer cancel2()
	if err := registerMetrics(ctx2, lazyService(t)); err != nil {
		t.Fatal(err)
	}
	if f := gather(t, ctx2)["tablesmith_replica_up"]; f != nil {
		t.Errorf("replica_up without replicas: %v", f)
	}
}
