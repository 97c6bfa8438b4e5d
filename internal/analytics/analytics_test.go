package analytics_test

import (
	"context"
	"database/sql"
	"math"
	"net/url"
	"slices"
	"testing"
	"time"

	"github.com/tablesmith/tablesmith/internal/analytics"
	"github.com/tablesmith/tablesmith/internal/store"
	"github.com/tablesmith/tablesmith/internal/testpg"
)

func TestMain(m *testing.M) { testpg.Main(m, "analytics") }

// openDB opens the package's test database with the control schema.
func openDB(t *testing.T) *sql.DB {
	t.Helper()
	return openDBAt(t, testpg.URL(t))
}

// openDBAt opens a database and migrates it.
func openDBAt(t *testing.T, dbURL string) *sql.DB {
	t.Helper()
	db, err := sql.Open("postgres", dbURL)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { db.Close() })
	if err := store.Migrate(context.Background(), db); err != nil {
		t.Fatal(err)
	}
	return db
}

// newProject creates an account and a project row (retention deletes the
// analytics of projects that do not exist).
func newProject(t *testing.T, db *sql.DB) string {
	t.Helper()
	st := &store.Store{DB: db}
	ctx := context.Background()
	acc, err := st.CreateAccount(ctx, "a-"+store.RandomID(8)+"@example.com", "A", "x", "free")
	if err != nil {
		t.Fatal(err)
	}
	p, err := st.CreateProject(ctx, acc.ID, "P", store.EngineManaged, nil, nil, -1, "")
	if err != nil {
		t.Fatal(err)
	}
	return p.ID
}

// mixEntry is a group of identical requests with latencies base, base+step, ...
type mixEntry struct {
	table, op, method string
	status, n         int
	base, step        time.Duration
}

// knownMix is a request mix with every status class, a rate-limited
// group, an unknown table, and PUT and PATCH on the same route template.
var knownMix = []mixEntry{
	{"items", "list", "GET", 200, 40, time.Millisecond, time.Millisecond},
	{"items", "create", "POST", 201, 10, 20 * time.Millisecond, 500 * time.Microsecond},
	{"items", "get", "GET", 200, 15, 2 * time.Millisecond, 10 * time.Microsecond},
	{"items", "get", "GET", 404, 5, 900 * time.Microsecond, 0},
	{"items", "update", "PATCH", 200, 4, 6 * time.Millisecond, time.Millisecond},
	{"items", "update", "PUT", 200, 3, 7 * time.Millisecond, time.Millisecond},
	{"items", "delete", "DELETE", 200, 2, 5 * time.Millisecond, 0},
	{"items", "create", "POST", 400, 6, 800 * time.Microsecond, 20 * time.Microsecond},
	{"items", "list", "GET", 429, 7, 150 * time.Microsecond, 0},
	{"", "", "GET", 404, 3, 200 * time.Microsecond, 0},
	{"items", "list", "GET", 500, 2, 1200 * time.Millisecond, 300 * time.Millisecond},
	{"items", "list", "GET", 304, 1, 700 * time.Microsecond, 0},
}

// expandMix turns the mix into samples spread over the 50 minutes before
// now, and returns their latencies.
func expandMix(project string, now time.Time) ([]analytics.Sample, []time.Duration) {
	var out []analytics.Sample
	var lat []time.Duration
	i := 0
	for _, e := range knownMix {
		for k := range e.n {
			d := e.base + time.Duration(k)*e.step
			out = append(out, analytics.Sample{ProjectID: project, Table: e.table, Operation: e.op, Method: e.method,
				Credential: "key", Status: e.status, Latency: d, At: now.Add(-time.Duration(i%50)*time.Minute - 10*time.Second)})
			lat = append(lat, d)
			i++
		}
	}
	return out, lat
}

func nearestRank(sorted []time.Duration, q float64) time.Duration {
	rank := int(math.Ceil(q * float64(len(sorted))))
	return sorted[max(1, min(rank, len(sorted)))-1]
}

// checkPercentile fails unless got (ms, rounded to µs) is within the
// sketch's bound of the exact latency at that rank.
func checkPercentile(t *testing.T, name string, gotMs float64, exact time.Duration) {
	t.Helper()
	want := float64(exact) / float64(time.Millisecond)
	if math.Abs(gotMs-want) > analytics.RelativeAccuracy*want+0.0005 {
		t.Errorf("%s = %.3fms, exact %.3fms: beyond the %.0f%% bound", name, gotMs, want, 100*analytics.RelativeAccuracy)
	}
}

func TestReportMatchesAKnownRequestMixExactly(t *testing.T) {
	t.Parallel()
	db := openDB(t)
	project := newProject(t, db)
	now := time.Date(2026, 5, 1, 12, 30, 20, 0, time.UTC)
	samples, latencies := expandMix(project, now)

	// Two nodes, each flushing twice: the same minute buckets are upserted
	// four times and their sketches merged in SQL.
	nodes := []*analytics.Recorder{
		analytics.New(analytics.Config{DB: db, FlushEvery: time.Hour, CompactEvery: -1}),
		analytics.New(analytics.Config{DB: db, FlushEvery: time.Hour, CompactEvery: -1}),
	}
	for _, n := range nodes {
		n.Start()
		defer n.Close()
	}
	ctx := context.Background()
	for half := range 2 {
		for i, s := range samples {
			if i%2 == half {
				nodes[i%3%2].Record(s)
			}
		}
		for _, n := range nodes {
			if err := n.Flush(ctx); err != nil {
				t.Fatal(err)
			}
		}
	}

	win, problems := analytics.ParseWindow(url.Values{"range": {"1h"}}, now)
	if problems != nil {
		t.Fatal(problems)
	}
	rep, err := analytics.Query(ctx, db, project, win)
	if err != nil {
		t.Fatal(err)
	}

	var want analytics.Summary
	for _, e := range knownMix {
		want.TotalRequests += int64(e.n)
		switch e.status / 100 {
		case 2:
			want.Count2xx += int64(e.n)
		case 3:
			want.Count3xx += int64(e.n)
		case 4:
			want.Count4xx += int64(e.n)
		case 5:
			want.Count5xx += int64(e.n)
		}
		if e.status == 429 {
			want.RateLimited += int64(e.n)
		}
	}
	s := rep.Summary
	if s.TotalRequests != want.TotalRequests || s.Count2xx != want.Count2xx || s.Count3xx != want.Count3xx ||
		s.Count4xx != want.Count4xx || s.Count5xx != want.Count5xx || s.RateLimited != want.RateLimited {
		t.Fatalf("summary counts = %+v, want %+v", s, want)
	}
	wantRate := math.Round(float64(want.Count4xx+want.Count5xx)/float64(want.TotalRequests)*1e4) / 1e4
	if s.ErrorRate != wantRate {
		t.Errorf("error_rate = %v, want %v", s.ErrorRate, wantRate)
	}
	slices.Sort(latencies)
	checkPercentile(t, "p50", s.P50Ms, nearestRank(latencies, 0.50))
	checkPercentile(t, "p95", s.P95Ms, nearestRank(latencies, 0.95))
	checkPercentile(t, "p99", s.P99Ms, nearestRank(latencies, 0.99))

	// Per endpoint: PUT and PATCH stay apart, the unknown table is grouped.
	type ep struct{ count, errors int64 }
	wantEP := map[[2]string]*ep{}
	epLat := map[[2]string][]time.Duration{}
	for _, e := range knownMix {
		k := [2]string{e.method, analytics.PathOf(e.table, e.op)}
		if wantEP[k] == nil {
			wantEP[k] = &ep{}
		}
		wantEP[k].count += int64(e.n)
		if e.status >= 400 {
			wantEP[k].errors += int64(e.n)
		}
		for j := range e.n {
			epLat[k] = append(epLat[k], e.base+time.Duration(j)*e.step)
		}
	}
	if len(rep.TopEndpoints) != len(wantEP) {
		t.Fatalf("top_endpoints has %d entries, want %d: %+v", len(rep.TopEndpoints), len(wantEP), rep.TopEndpoints)
	}
	for i, got := range rep.TopEndpoints {
		k := [2]string{got.Method, got.Path}
		w := wantEP[k]
		if w == nil {
			t.Fatalf("unexpected endpoint %v", k)
		}
		if got.Count != w.count || got.ErrorRate != math.Round(float64(w.errors)/float64(w.count)*1e4)/1e4 {
			t.Errorf("%v: count %d error_rate %v, want %d and %d errors", k, got.Count, got.ErrorRate, w.count, w.errors)
		}
		if i > 0 && rep.TopEndpoints[i-1].Count < got.Count {
			t.Errorf("top_endpoints not sorted by count: %+v", rep.TopEndpoints)
		}
		l := epLat[k]
		slices.Sort(l)
		checkPercentile(t, k[0]+" "+k[1]+" p95", got.P95Ms, nearestRank(l, 0.95))
	}
	if rep.TopEndpoints[0].Method != "GET" || rep.TopEndpoints[0].Path != "/items" || rep.TopEndpoints[0].Count != 50 {
		t.Errorf("busiest endpoint = %+v, want GET /items with 50", rep.TopEndpoints[0])
	}

	// The series: 60 one-minute points ending with the current minute, and
	// each sample in the point of its minute.
	if len(rep.Series) != 60 || !rep.Series[59].T.Equal(now.Truncate(time.Minute)) {
		t.Fatalf("series has %d points, last %v; want 60 ending %v", len(rep.Series), rep.Series[len(rep.Series)-1].T, now.Truncate(time.Minute))
	}
	perMinute := map[time.Time][4]int64{}
	for _, smp := range samples {
		m := smp.At.Truncate(time.Minute)
		c := perMinute[m]
		c[smp.Status/100-2]++
		perMinute[m] = c
	}
	for _, p := range rep.Series {
		c := perMinute[p.T]
		if p.Count2xx != c[0] || p.Count3xx != c[1] || p.Count4xx != c[2] || p.Count5xx != c[3] {
			t.Errorf("point %v = %d/%d/%d/%d, want %v", p.T, p.Count2xx, p.Count3xx, p.Count4xx, p.Count5xx, c)
		}
	}
}

func TestRecorderDropsAndCountsSamplesWhenItsBufferIsFull(t *testing.T) {
	t.Parallel()
	db := openDB(t)
	project := newProject(t, db)
	now := time.Now()
	rec := analytics.New(analytics.Config{DB: db, Buffer: 4, FlushEvery: time.Hour, CompactEvery: -1})
	// Not started yet: nothing drains the buffer, and Record must still
	// return at once.
	start := time.Now()
	for range 10 {
		rec.Record(analytics.Sample{ProjectID: project, Table: "items", Operation: "list", Method: "GET", Status: 200,
			Latency: time.Millisecond, At: now})
	}
	if d := time.Since(start); d > 100*time.Millisecond {
		t.Fatalf("Record blocked for %v", d)
	}
	if st := rec.Stats(); st.Recorded != 4 || st.Dropped != 6 {
		t.Fatalf("stats = %+v, want 4 recorded and 6 dropped", st)
	}
	rec.Start()
	defer rec.Close()
	if err := rec.Flush(context.Background()); err != nil {
		t.Fatal(err)
	}
	if st := rec.Stats(); st.Written != 4 {
		t.Fatalf("stats after flush = %+v, want 4 written", st)
	}
	win, _ := analytics.ParseWindow(url.Values{"range": {"1h"}}, now)
	rep, err := analytics.Query(context.Background(), db, project, win)
	if err != nil {
		t.Fatal(err)
	}
	if rep.Summary.TotalRequests != 4 || rep.Summary.DroppedSamples != 6 {
		t.Fatalf("summary = %+v, want 4 requests and 6 dropped samples", rep.Summary)
	}
}

func TestRecorderTakesSamplesAfterAnIdlePeriodWithoutAFlush(t *testing.T) {
	t.Parallel()
	db := openDB(t)
	project := newProject(t, db)
	now := time.Now()
	// A buffer of 4: the 12 samples fit only if the aggregator keeps
	// taking them, while they come and after it went idle.
	rec := analytics.New(analytics.Config{DB: db, Buffer: 4, FoldEvery: time.Millisecond, FlushEvery: time.Hour, CompactEvery: -1})
	rec.Start()
	defer rec.Close()
	for range 4 {
		for range 3 {
			rec.Record(analytics.Sample{ProjectID: project, Table: "items", Operation: "list", Method: "GET", Status: 200,
				Latency: time.Millisecond, At: now})
		}
		time.Sleep(50 * time.Millisecond)
	}
	if st := rec.Stats(); st.Recorded != 12 || st.Dropped != 0 {
		t.Fatalf("stats = %+v, want 12 recorded and none dropped", st)
	}
	if err := rec.Flush(context.Background()); err != nil {
		t.Fatal(err)
	}
	if st := rec.Stats(); st.Written != 12 {
		t.Fatalf("stats after flush = %+v, want 12 written", st)
	}
}

func TestCompactRollsMinutesOlderThanADayIntoHoursAndExpiresOldRows(t *testing.T) {
	t.Parallel()
	// A database of its own: compaction works on every project's rows.
	db := openDBAt(t, testpg.NewDatabase(t))
	project := newProject(t, db)
	ctx := context.Background()
	now := time.Date(2026, 6, 10, 9, 41, 0, 0, time.UTC)
	hourAgo50 := now.Add(-50 * time.Hour).Truncate(time.Hour)
	rec := analytics.New(analytics.Config{DB: db, FlushEvery: time.Hour, CompactEvery: -1})
	rec.Start()
	defer rec.Close()
	var old []time.Duration
	for i := range 30 {
		d := time.Duration(i+1) * time.Millisecond
		old = append(old, d)
		// Three different minutes of the same hour, two days ago.
		rec.Record(analytics.Sample{ProjectID: project, Table: "items", Operation: "list", Method: "GET", Status: 200,
			Latency: d, At: hourAgo50.Add(time.Duration(i%3)*time.Minute + 5*time.Second)})
	}
	rec.Record(analytics.Sample{ProjectID: project, Table: "items", Operation: "list", Method: "GET", Status: 200,
		Latency: time.Millisecond, At: now.Add(-10 * time.Minute)})
	rec.Record(analytics.Sample{ProjectID: project, Table: "items", Operation: "list", Method: "GET", Status: 200,
		Latency: time.Millisecond, At: now.Add(-100 * 24 * time.Hour)})
	rec.Record(analytics.Sample{ProjectID: "gone" + store.RandomID(8), Table: "items", Operation: "list", Method: "GET", Status: 200,
		Latency: time.Millisecond, At: now.Add(-10 * time.Minute)})
	if err := rec.Flush(ctx); err != nil {
		t.Fatal(err)
	}
	before := reportFor(t, db, project, hourAgo50, now)

	if err := analytics.Compact(ctx, db, now); err != nil {
		t.Fatal(err)
	}
	count := func(q string, args ...any) int {
		var n int
		if err := db.QueryRowContext(ctx, q, args...).Scan(&n); err != nil {
			t.Fatal(err)
		}
		return n
	}
	if n := count(`SELECT count(*) FROM tablesmith.analytics_minute WHERE project_id = $1`, project); n != 1 {
		t.Errorf("%d minute rows left, want only the recent one", n)
	}
	if n := count(`SELECT count(*) FROM tablesmith.analytics_hour WHERE project_id = $1`, project); n != 1 {
		t.Errorf("%d hour rows, want one (the 100-day-old one expired)", n)
	}
	if n := count(`SELECT coalesce(sum(requests), 0)::int FROM tablesmith.analytics_hour WHERE project_id = $1 AND bucket = $2`, project, hourAgo50); n != 30 {
		t.Errorf("hour bucket holds %d requests, want 30", n)
	}
	if n := count(`SELECT count(*) FROM tablesmith.analytics_minute m
		WHERE NOT EXISTS (SELECT 1 FROM tablesmith.projects p WHERE p.id = m.project_id)`); n != 0 {
		t.Errorf("%d rows of deleted projects left", n)
	}

	after := reportFor(t, db, project, hourAgo50, now)
	if after.Summary.TotalRequests != 31 || after.Summary.TotalRequests != before.Summary.TotalRequests {
		t.Fatalf("requests before %d, after roll-up %d; want 31", before.Summary.TotalRequests, after.Summary.TotalRequests)
	}
	// Rolling up adds sketches exactly: the percentiles do not move.
	if after.Summary.P50Ms != before.Summary.P50Ms || after.Summary.P99Ms != before.Summary.P99Ms {
		t.Fatalf("percentiles moved by the roll-up: before %+v, after %+v", before.Summary, after.Summary)
	}
	slices.Sort(old)
	old = append(old, time.Millisecond)
	slices.Sort(old)
	checkPercentile(t, "p50 after roll-up", after.Summary.P50Ms, nearestRank(old, 0.5))
	if p := after.Series[0]; p.Count2xx != 30 || !p.T.Equal(hourAgo50) {
		t.Fatalf("first hourly point = %+v, want 30 requests at %v", p, hourAgo50)
	}
}

func reportFor(t *testing.T, db *sql.DB, project string, from, to time.Time) *analytics.Report {
	t.Helper()
	win, problems := analytics.ParseWindow(url.Values{"from": {from.Format(time.RFC3339)}, "to": {to.Format(time.RFC3339)}, "interval": {"1h"}}, to)
	if problems != nil {
		t.Fatal(problems)
	}
	rep, err := analytics.Query(context.Background(), db, project, win)
	if err != nil {
		t.Fatal(err)
	}
	return rep
}

func TestParseWindowReadsRangesAndFromToAndRejectsBadValues(t *testing.T) {
	now := time.Date(2026, 5, 1, 12, 30, 20, 0, time.UTC)
	for _, tc := range []struct {
		query    string
		points   int
		interval time.Duration
		from     string
		bad      string
	}{
		{query: "", points: 96, interval: 15 * time.Minute, from: "2026-04-30T12:45:00Z"},
		{query: "range=1h", points: 60, interval: time.Minute, from: "2026-05-01T11:31:00Z"},
		{query: "range=24h", points: 96, interval: 15 * time.Minute},
		{query: "range=7d", points: 168, interval: time.Hour},
		{query: "range=30d", points: 120, interval: 6 * time.Hour},
		{query: "range=1h&interval=5m", points: 12, interval: 5 * time.Minute},
		{query: "from=2026-05-01T00:00:00Z&to=2026-05-01T06:00:00Z", points: 72, interval: 5 * time.Minute, from: "2026-05-01T00:00:00Z"},
		{query: "from=2026-04-01T00:00:00Z&to=2026-05-01T00:00:00Z&interval=1d", points: 30, interval: 24 * time.Hour},
		{query: "range=2h", bad: "range"},
		{query: "range=1h&from=2026-05-01T00:00:00Z", bad: "range"},
		{query: "from=yesterday", bad: "from"},
		{query: "from=2026-05-01T06:00:00Z&to=2026-05-01T00:00:00Z", bad: "from"},
		{query: "range=30d&interval=1m", bad: "interval"},
		{query: "range=1h&interval=30s", bad: "interval"},
		{query: "range=1h&interval=x", bad: "interval"},
	} {
		q, _ := url.ParseQuery(tc.query)
		w, problems := analytics.ParseWindow(q, now)
		if tc.bad != "" {
			if problems[tc.bad] == "" {
				t.Errorf("%q: want a problem with %s, got %v (window %+v)", tc.query, tc.bad, problems, w)
			}
			continue
		}
		if problems != nil {
			t.Errorf("%q: unexpected problems %v", tc.query, problems)
			continue
		}
		iv := time.Duration(w.Interval)
		n := int((w.To.Sub(w.From) + iv - 1) / iv)
		if iv != tc.interval || n != tc.points {
			t.Errorf("%q: interval %v and %d points, want %v and %d (window %v..%v)", tc.query, iv, n, tc.interval, tc.points, w.From, w.To)
		}
		if tc.from != "" && w.From.Format(time.RFC3339) != tc.from {
			t.Errorf("%q: from %v, want %s", tc.query, w.From, tc.from)
		}
	}
}

// benchSample is a typical sample.
var benchSample = analytics.Sample{ProjectID: "abcdefghijkl", Table: "items", Operation: "list", Method: "GET",
	Credential: "key", Status: 200, Latency: 3 * time.Millisecond, At: time.Now()}

// BenchmarkRecorderRecord is what a request pays: one non-blocking send
// on the buffer, drained by the aggregator as in production (without the
// database writes). One goroutine records faster than the aggregator
// folds, so most samples are dropped (%dropped): the send's cost is the
// in-process metering benchmark's business (bench/metering_test.go).
func BenchmarkRecorderRecord(b *testing.B) {
	rec := analytics.New(analytics.Config{FlushEvery: time.Hour, CompactEvery: -1, Buffer: 1 << 16})
	stop := make(chan struct{})
	go rec.DrainForBenchmark(stop)
	defer close(stop)
	b.ReportAllocs()
	for b.Loop() {
		rec.Record(benchSample)
	}
	b.StopTimer()
	st := rec.Stats()
	b.ReportMetric(float64(st.Dropped)/float64(st.Recorded+st.Dropped)*100, "%dropped")
}

// BenchmarkRecorderRecordSaturated has every core record as fast as it
// can, far beyond what the aggregator folds: Record stays cheap and
// non-blocking, and the excess is dropped and counted (%dropped).
func BenchmarkRecorderRecordSaturated(b *testing.B) {
	rec := analytics.New(analytics.Config{FlushEvery: time.Hour, CompactEvery: -1, Buffer: 1 << 16})
	stop := make(chan struct{})
	go rec.DrainForBenchmark(stop)
	defer close(stop)
	b.ReportAllocs()
	b.RunParallel(func(pb *testing.PB) {
		for pb.Next() {
			rec.Record(benchSample)
		}
	})
	b.StopTimer()
	st := rec.Stats()
	b.ReportMetric(float64(st.Dropped)/float64(st.Recorded+st.Dropped)*100, "%dropped")
}

func TestRouteTemplatesNameEveryKindOfGeneratedAPIPath(t *testing.T) {
	for _, tc := range []struct{ table, op, method, want string }{
		{"items", "list", "GET", "GET /items"},
		{"items", "create", "POST", "POST /items"},
		{"items", "get", "GET", "GET /items/{id}"},
		{"items", "update", "PUT", "PUT /items/{id}"},
		{"items", "update", "", "PATCH /items/{id}"},
		{"items", "delete", "DELETE", "DELETE /items/{id}"},
		{"items", "aggregate", "GET", "GET /items/aggregate"},
		{"items", "", "TRACE", "TRACE /items"},
		{"auth", "login", "POST", "POST /auth/login"},
		{"auth", "me", "GET", "GET /auth/me"},
		{"openapi.json", "openapi", "GET", "GET /openapi.json"},
		{"docs", "docs", "GET", "GET /docs"},
		{"", "", "GET", "GET (unknown table)"},
	} {
		if got := analytics.MethodOf(tc.method, tc.op) + " " + analytics.PathOf(tc.table, tc.op); got != tc.want {
			t.Errorf("%s %s %s: %q, want %q", tc.method, tc.table, tc.op, got, tc.want)
		}
	}
}

func TestParseWindowRefusesASpanTooLongForADuration(t *testing.T) {
	now := time.Date(2026, 5, 1, 12, 30, 20, 0, time.UTC)
	for _, query := range []string{
		"from=0001-01-01T00:00:00Z&interval=1m",
		"from=0001-01-01T00:00:00Z",
		"from=0001-01-01T00:00:00Z&to=9999-12-31T23:59:59Z&interval=30d",
	} {
		q, _ := url.ParseQuery(query)
		w, problems := analytics.ParseWindow(q, now)
		if problems["interval"] == "" {
			t.Errorf("%q: want a problem with interval, got %v (window %+v)", query, problems, w)
		}
	}
}

// A stream's sample is recorded when it ends, with its lifetime as its
// latency, and each delivered event is a sample of no latency: neither
// may move the percentiles, the average or the error rate of the API's
// answers, though both are counted.
func TestStreamLifetimesAndEventsStayOutOfLatencyAndErrorRate(t *testing.T) {
	t.Parallel()
	db := openDB(t)
	project := newProject(t, db)
	now := time.Date(2026, 5, 1, 12, 30, 20, 0, time.UTC)
	rec := analytics.New(analytics.Config{DB: db, FlushEvery: time.Hour, CompactEvery: -1})
	rec.Start()
	defer rec.Close()
	at := now.Add(-5 * time.Minute)
	sample := func(op, method string, status int, latency time.Duration) analytics.Sample {
		return analytics.Sample{ProjectID: project, Table: "items", Operation: op, Method: method, Credential: "key", Status: status, Latency: latency, At: at}
	}
	// 8 answers of 10 ms, 2 of them errors: error rate 0.25, every percentile 10 ms.
	for i := range 8 {
		status := 200
		if i < 2 {
			status = 500
		}
		rec.Record(sample("list", "GET", status, 10*time.Millisecond))
	}
	// Streams watched for 20 minutes, and 30 events delivered.
	for range 3 {
		rec.Record(analytics.Sample{ProjectID: project, Operation: analytics.OperationStream, Method: "GET", Credential: "key", Status: 200, Latency: 20 * time.Minute, At: at})
	}
	for range 30 {
		rec.Record(sample(analytics.OperationEvent, "EVENT", 200, 0))
	}
	if err := rec.Flush(context.Background()); err != nil {
		t.Fatal(err)
	}
	win, problems := analytics.ParseWindow(url.Values{"range": {"1h"}}, now)
	if problems != nil {
		t.Fatal(problems)
	}
	rep, err := analytics.Query(context.Background(), db, project, win)
	if err != nil {
		t.Fatal(err)
	}
	s := rep.Summary
	if s.TotalRequests != 41 {
		t.Errorf("total = %d, want 41 (8 answers, 3 streams, 30 events are all counted)", s.TotalRequests)
	}
	if s.ErrorRate != 0.25 {
		t.Errorf("error rate = %v, want 0.25 (2 errors of 8 answers; streams and events left out)", s.ErrorRate)
	}
	for name, got := range map[string]float64{"p50": s.P50Ms, "p95": s.P95Ms, "p99": s.P99Ms, "avg": s.AvgMs} {
		checkPercentile(t, name, got, 10*time.Millisecond)
	}
}
