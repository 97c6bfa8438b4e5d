package caddymodule

import (
	"errors"
	"strconv"
	"sync"

	"github.com/caddyserver/caddy/v2"
	"github.com/prometheus/client_golang/prometheus"
	"github.com/prometheus/client_golang/prometheus/collectors"

	"github.com/tablesmith/tablesmith/internal/analytics"
	"github.com/tablesmith/tablesmith/internal/service"
)

// Request metrics live as long as the process, not a config: a reload
// gives Caddy a new registry, and the same collectors are registered on
// it, so counters never restart at a reload.
var (
	metricsOnce     sync.Once
	requestsTotal   *prometheus.CounterVec
	requestDuration *prometheus.HistogramVec
)

func initRequestMetrics() {
	metricsOnce.Do(func() {
		requestsTotal = prometheus.NewCounterVec(prometheus.CounterOpts{
			Namespace: "tablesmith",
			Name:      "requests_total",
			Help:      "Generated-API requests by project, route (method and path template) and status code.",
		}, []string{"project", "route", "status"})
		requestDuration = prometheus.NewHistogramVec(prometheus.HistogramOpts{
			Namespace: "tablesmith",
			Name:      "request_duration_seconds",
			Help:      "Generated-API request latency by project, route and status class.",
			Buckets:   []float64{.001, .0025, .005, .01, .025, .05, .1, .25, .5, 1, 2.5, 5, 10},
		}, []string{"project", "route", "status_class"})
	})
}

var statusClasses = [...]string{"0xx", "1xx", "2xx", "3xx", "4xx", "5xx"}

// observeRequest feeds one generated-API sample into the request metrics;
// it runs on the analytics recorder's aggregator goroutine, not the
// request's (analytics.Recorder.Observe). The two series of a label set
// are looked up once and kept (like the vectors, for the life of the
// process), so a sample costs a map lookup and two atomic adds instead of
// building and hashing its label strings.
func observeRequest(s analytics.Sample) {
	k := seriesKey{project: s.ProjectID, method: s.Method, operation: s.Operation, table: s.Table, status: s.Status}
	v, ok := requestSeries.Load(k)
	if !ok {
		v, _ = requestSeries.LoadOrStore(k, newRequestSeries(s))
	}
	rs := v.(*requestSeriesPair)
	rs.total.Inc()
	rs.duration.Observe(s.Latency.Seconds())
}

// seriesKey is what a sample's labels are made from.
type seriesKey struct {
	project, method, operation, table string
	status                            int
}

type requestSeriesPair struct {
	total    prometheus.Counter
	duration prometheus.Observer
}

var requestSeries sync.Map // seriesKey → *requestSeriesPair

func newRequestSeries(s analytics.Sample) *requestSeriesPair {
	route := analytics.MethodOf(s.Method, s.Operation) + " " + analytics.PathOf(s.Table, s.Operation)
	class := "5xx"
	if c := s.Status / 100; c >= 0 && c < len(statusClasses) {
		class = statusClasses[c]
	}
	return &requestSeriesPair{
		total:    requestsTotal.WithLabelValues(s.ProjectID, route, strconv.Itoa(s.Status)),
		duration: requestDuration.WithLabelValues(s.ProjectID, route, class),
	}
}

// registerMetrics puts Tablesmith's collectors on the config's registry,
// which Caddy serves at the admin endpoint's /metrics (or through the
// metrics handler when the admin endpoint is off).
func registerMetrics(ctx caddy.Context, svc *service.Service) error {
	reg := ctx.GetMetricsRegistry()
	if reg == nil {
		return nil
	}
	initRequestMetrics()
	svc.ObserveRequests(observeRequest)

	counter := func(name, help string, f func() uint64) prometheus.Collector {
		return prometheus.NewCounterFunc(prometheus.CounterOpts{Namespace: "tablesmith", Name: name, Help: help},
			func() float64 { return float64(f()) })
	}
	gauge := func(name, help string, f func() bool) prometheus.Collector {
		return prometheus.NewGaugeFunc(prometheus.GaugeOpts{Namespace: "tablesmith", Name: name, Help: help},
			func() float64 {
				if f() {
					return 1
				}
				return 0
			})
	}
	cs := []prometheus.Collector{
		requestsTotal,
		requestDuration,
		counter("ratelimit_allowed_total", "Generated-API requests the rate limiter let through.",
			func() uint64 { return svc.LimitStats().Allowed }),
		counter("ratelimit_rejections_total", "Generated-API requests answered 429 RATE_LIMITED.",
			func() uint64 { return svc.LimitStats().Rejected }),
		counter("ratelimit_redis_errors_total", "Failed Redis commands of the rate limiter.",
			func() uint64 { return svc.LimitStats().RedisErrors }),
		counter("ratelimit_fallback_decisions_total", "Requests counted in this node's memory because Redis was configured but unreachable.",
			func() uint64 { return svc.LimitStats().FallbackDecisions }),
		gauge("ratelimit_redis_configured", "1 when redis_url is set, so that nodes should share their counts.",
			func() bool { return svc.LimitStats().RedisConfigured }),
		gauge("ratelimit_redis_up", "1 while the rate limiter counts in Redis; 0 while it counts in memory.",
			func() bool { return svc.LimitStats().RedisUp }),
		counter("analytics_samples_recorded_total", "Generated-API samples accepted by the analytics recorder.",
			func() uint64 { return svc.AnalyticsStats().Recorded }),
		counter("analytics_samples_dropped_total", "Samples dropped because the analytics buffer was full.",
			func() uint64 { return svc.AnalyticsStats().Dropped }),
		counter("analytics_samples_written_total", "Samples whose buckets were written to PostgreSQL.",
			func() uint64 { return svc.AnalyticsStats().Written }),
		counter("analytics_flush_errors_total", "Failed writes of analytics buckets (retried with the next flush).",
			func() uint64 { return svc.AnalyticsStats().FlushErrors }),
		counter("project_queue_rejections_total", "Generated-API requests answered 503 because their project had project_concurrency statements running for the whole project_queue_wait.",
			func() uint64 { return svc.FairShareStats().Rejected }),
		counter("statement_timeouts_total", "Generated-API statements cancelled by their plan's statement_timeout.",
			func() uint64 { return svc.FairShareStats().TimedOut }),
		counter("export_pauses_total", "Pauses CSV and NDJSON exports made between their batches because other projects' statements started meanwhile.",
			func() uint64 { return svc.FairShareStats().ExportPauses }),
		counter("webhook_deliveries_total", "Webhook deliveries this node made that the receiver answered 2xx.",
			func() uint64 { return svc.Webhooks.Stats().Delivered }),
		counter("webhook_failures_total", "Webhook delivery attempts of this node that failed (another status, no answer, a refused target).",
			func() uint64 { return svc.Webhooks.Stats().Failed }),
		prometheus.NewGaugeFunc(prometheus.GaugeOpts{Namespace: "tablesmith", Name: "webhooks_active",
			Help: "Webhooks this node delivers now (it holds their leases)."},
			func() float64 { return float64(svc.Webhooks.Stats().Active) }),
		prometheus.NewGaugeFunc(prometheus.GaugeOpts{Namespace: "tablesmith", Name: "webhook_lag_seconds",
			Help: "How long the oldest change this node has read for a webhook and not delivered yet has waited since it was made."},
			func() float64 { return svc.Webhooks.Stats().Lag.Seconds() }),
		// go_sql_* metrics of the pool: open, in use, idle, waits.
		collectors.NewDBStatsCollector(svc.DB, "tablesmith"),
		replicaCollector{svc},
	}
	for _, c := range cs {
		if err := reg.Register(c); err != nil {
			var already prometheus.AlreadyRegisteredError
			if !errors.As(err, &already) {
				return err
			}
		}
	}
	return nil
}

// replicaCollector reports each read replica's health and use, labelled
// by replica (host:port/database), read when scraped; it reports nothing
// without replica_url.
type replicaCollector struct{ svc *service.Service }

var (
	replicaUpDesc = prometheus.NewDesc("tablesmith_replica_up",
		"1 while the read replica serves reads (reachable, replaying, within max_replica_lag); 0 while it is out.", []string{"replica"}, nil)
	replicaLagDesc = prometheus.NewDesc("tablesmith_replica_lag_seconds",
		"How far the read replica's data was behind the primary at its last health check.", []string{"replica"}, nil)
	replicaReadsDesc = prometheus.NewDesc("tablesmith_replica_reads_total",
		"Generated-API reads the read replica served.", []string{"replica"}, nil)
	replicaPrimaryReadsDesc = prometheus.NewDesc("tablesmith_replica_primary_reads_total",
		"Generated-API reads that went to the primary although replicas are configured: none was fit, or none had replayed the client's own write yet, or one failed under the read.", nil, nil)
)

func (replicaCollector) Describe(ch chan<- *prometheus.Desc) {
	ch <- replicaUpDesc
	ch <- replicaLagDesc
	ch <- replicaReadsDesc
	ch <- replicaPrimaryReadsDesc
}

func (c replicaCollector) Collect(ch chan<- prometheus.Metric) {
	stats, primaryReads := c.svc.ReplicaStats()
	if stats == nil {
		return
	}
	for _, st := range stats {
		up := 0.0
		if st.Up {
			up = 1
		}
		ch <- prometheus.MustNewConstMetric(replicaUpDesc, prometheus.GaugeValue, up, st.Name)
		ch <- prometheus.MustNewConstMetric(replicaLagDesc, prometheus.GaugeValue, st.Lag.Seconds(), st.Name)
		ch <- prometheus.MustNewConstMetric(replicaReadsDesc, prometheus.CounterValue, float64(st.Reads), st.Name)
	}
	ch <- prometheus.MustNewConstMetric(replicaPrimaryReadsDesc, prometheus.CounterValue, float64(primaryReads))
}
