package analytics

import (
	"cmp"
	"context"
	"database/sql"
	"encoding/json"
	"fmt"
	"math"
	"net/url"
	"slices"
	"strings"
	"time"
)

// Report is the body of GET /api/projects/{id}/analytics (CONTRACT 7).
type Report struct {
	Range        Window     `json:"range"`
	Summary      Summary    `json:"summary"`
	Series       []Point    `json:"series"`
	TopEndpoints []Endpoint `json:"top_endpoints"`
	PlanUsage    PlanUsage  `json:"plan_usage"`
	// Dashboard is the owner's own traffic from the dashboard (Data, Test,
	// API Docs), kept out of everything above (docs/limits-and-analytics.md).
	Dashboard DashboardUsage `json:"dashboard"`
	// FileStorage is what the project's stored files hold now against its
	// plan (docs/files.md); nil when the server keeps no files.
	FileStorage *FileStorage `json:"file_storage,omitempty"`
}

// FileStorage is the bytes a project's files hold and its plan's bound
// (-1: none).
type FileStorage struct {
	UsedBytes  int64 `json:"used_bytes"`
	LimitBytes int64 `json:"limit_bytes"`
}

// DashboardUsage counts the requests the project owner's dashboard made
// in the window: not customer traffic, and never counted against the plan.
type DashboardUsage struct {
	Requests int64 `json:"requests"`
}

// CredentialDashboard is the credential kind of the owner's dashboard
// requests (access.Dashboard), which reports keep apart.
const CredentialDashboard = "dashboard"

// Summary covers the whole range. ErrorRate is the share of answers with
// a 4xx or 5xx status (rate-limited ones included); percentiles are within
// RelativeAccuracy. Realtime streams and their events are counted but stay
// out of the error rate, the average and the percentiles (Timed).
type Summary struct {
	TotalRequests  int64   `json:"total_requests"`
	ErrorRate      float64 `json:"error_rate"`
	P50Ms          float64 `json:"p50_ms"`
	P95Ms          float64 `json:"p95_ms"`
	P99Ms          float64 `json:"p99_ms"`
	AvgMs          float64 `json:"avg_ms"`
	RateLimited    int64   `json:"rate_limited"`
	DroppedSamples int64   `json:"dropped_samples"`
	Count2xx       int64   `json:"count_2xx"`
	Count3xx       int64   `json:"count_3xx"`
	Count4xx       int64   `json:"count_4xx"`
	Count5xx       int64   `json:"count_5xx"`
}

// Point is one interval of the series; T is its start.
type Point struct {
	T           time.Time `json:"t"`
	Total       int64     `json:"total"`
	Count2xx    int64     `json:"count_2xx"`
	Count3xx    int64     `json:"count_3xx"`
	Count4xx    int64     `json:"count_4xx"`
	Count5xx    int64     `json:"count_5xx"`
	RateLimited int64     `json:"rate_limited"`
	P50Ms       float64   `json:"p50_ms"`
	P95Ms       float64   `json:"p95_ms"`
	P99Ms       float64   `json:"p99_ms"`
}

// Endpoint is one route template of the generated API, e.g. GET /users/{id}.
type Endpoint struct {
	Method    string  `json:"method"`
	Path      string  `json:"path"`
	Table     string  `json:"table"`
	Operation string  `json:"operation"`
	Count     int64   `json:"count"`
	ErrorRate float64 `json:"error_rate"`
	P95Ms     float64 `json:"p95_ms"`
}

// PlanUsage is this window's generated-API requests against the plan.
// Limit is -1 for an unlimited plan.
type PlanUsage struct {
	Plan     string    `json:"plan"`
	Limit    int64     `json:"limit"`
	Used     int64     `json:"used"`
	ResetsAt time.Time `json:"resets_at"`
}

// Window is the time range of a report: [From, To) cut into intervals
// aligned on multiples of Interval since the Unix epoch.
type Window struct {
	From     time.Time `json:"from"`
	To       time.Time `json:"to"`
	Interval Duration  `json:"interval"`
	Name     string    `json:"name,omitempty"` // 1h, 24h, 7d or 30d
}

// Duration marshals as a string such as "15m" or "6h".
type Duration time.Duration

// MarshalJSON writes the duration in the units the query takes.
func (d Duration) MarshalJSON() ([]byte, error) {
	return json.Marshal(formatInterval(time.Duration(d)))
}

// Ranges are the named ranges and their default interval.
var Ranges = map[string]struct{ Span, Interval time.Duration }{
	"1h":  {time.Hour, time.Minute},
	"24h": {24 * time.Hour, 15 * time.Minute},
	"7d":  {7 * 24 * time.Hour, time.Hour},
	"30d": {30 * 24 * time.Hour, 6 * time.Hour},
}

// MaxPoints bounds the length of a series.
const MaxPoints = 1500

// ParseWindow reads range=1h|24h|7d|30d (default 24h), or from/to (RFC
// 3339; to defaults to now), and an optional interval (1m, 5m, 15m, 1h,
// 1d, or any whole number of minutes). A problem is reported per parameter.
func ParseWindow(q url.Values, now time.Time) (Window, map[string]string) {
	problems := map[string]string{}
	name := q.Get("range")
	var interval time.Duration
	if v := q.Get("interval"); v != "" {
		d, err := parseInterval(v)
		if err != nil {
			problems["interval"] = err.Error()
		}
		interval = d
	}
	var from, to time.Time
	if q.Has("from") || q.Has("to") {
		if name != "" {
			problems["range"] = "give either range or from/to, not both"
		}
		to = now
		if v := q.Get("to"); v != "" {
			t, err := time.Parse(time.RFC3339, v)
			if err != nil {
				problems["to"] = "must be an RFC 3339 time, e.g. 2026-05-01T00:00:00Z"
			}
			to = t
		}
		if v := q.Get("from"); v != "" {
			t, err := time.Parse(time.RFC3339, v)
			if err != nil {
				problems["from"] = "must be an RFC 3339 time, e.g. 2026-05-01T00:00:00Z"
			}
			from = t
		} else {
			from = to.Add(-24 * time.Hour)
		}
		if len(problems) == 0 && !from.Before(to) {
			problems["from"] = "must be before to"
		}
		if interval == 0 {
			interval = defaultInterval(to.Sub(from))
		}
	} else {
		if name == "" {
			name = "24h"
		}
		r, ok := Ranges[name]
		if !ok {
			problems["range"] = "must be one of 1h, 24h, 7d, 30d"
			return Window{}, problems
		}
		if interval == 0 {
			interval = r.Interval
		}
		to = now
		// The last interval is the one now falls in; the window holds
		// exactly span/interval of them.
		from = alignDown(now, interval).Add(interval - r.Span)
	}
	if len(problems) > 0 {
		return Window{}, problems
	}
	from = alignDown(from, interval)
	if n := points(from, to, interval); n > MaxPoints {
		problems["interval"] = fmt.Sprintf("gives %d points; choose a larger interval (at most %d points)", n, MaxPoints)
		return Window{}, problems
	}
	return Window{From: from.UTC(), To: to.UTC(), Interval: Duration(interval), Name: name}, nil
}

func defaultInterval(span time.Duration) time.Duration {
	for _, iv := range []time.Duration{time.Minute, 5 * time.Minute, 15 * time.Minute, time.Hour, 6 * time.Hour, 24 * time.Hour} {
		if span/iv <= 120 {
			return iv
		}
	}
	return 7 * 24 * time.Hour
}

func parseInterval(v string) (time.Duration, error) {
	var d time.Duration
	var err error
	if n, ok := strings.CutSuffix(v, "d"); ok {
		var days int
		if _, err = fmt.Sscanf(n, "%d", &days); err == nil && fmt.Sprint(days) == n {
			d = time.Duration(days) * 24 * time.Hour
		} else {
			err = fmt.Errorf("bad day count")
		}
	} else {
		d, err = time.ParseDuration(v)
	}
	if err != nil || d < time.Minute || d%time.Minute != 0 || d > 30*24*time.Hour {
		return 0, fmt.Errorf("must be a whole number of minutes between 1m and 30d, e.g. 1m, 15m, 1h, 1d")
	}
	return d, nil
}

func formatInterval(d time.Duration) string {
	switch {
	case d%(24*time.Hour) == 0:
		return fmt.Sprintf("%dd", d/(24*time.Hour))
	case d%time.Hour == 0:
		return fmt.Sprintf("%dh", d/time.Hour)
	default:
		return fmt.Sprintf("%dm", d/time.Minute)
	}
}

// alignDown returns the start of the interval t falls in, counting
// intervals from the Unix epoch (so days start at 00:00 UTC).
func alignDown(t time.Time, iv time.Duration) time.Time {
	s := int64(iv / time.Second)
	u := t.Unix()
	return time.Unix(u-mod(u, s), 0).UTC()
}

// points counts the intervals in [from, to). It counts in seconds, not
// time.Duration: a span longer than ~292 years (from=0001-01-01) saturates
// a Duration, and rounding it up then overflowed into a negative count
// that passed the MaxPoints check.
func points(from, to time.Time, iv time.Duration) int {
	if !from.Before(to) {
		return 0
	}
	span, s := to.Unix()-from.Unix(), int64(iv/time.Second)
	if to.Nanosecond() > from.Nanosecond() {
		span++
	}
	return int((span + s - 1) / s)
}

// rowsIn selects the customer traffic (every credential but the owner's
// dashboard) in the buckets of both resolutions in [$2, $3) of project $1.
const rowsIn = `
WITH rows AS (
    SELECT bucket, table_name, operation, method, status, requests, latency_sum_us, sketch
    FROM tablesmith.analytics_minute WHERE project_id = $1 AND bucket >= $2 AND bucket < $3 AND credential <> 'dashboard'
    UNION ALL
    SELECT bucket, table_name, operation, method, status, requests, latency_sum_us, sketch
    FROM tablesmith.analytics_hour WHERE project_id = $1 AND bucket >= $2 AND bucket < $3 AND credential <> 'dashboard'
)`

// dashboardIn counts the owner's dashboard requests in [$2, $3) of project $1.
const dashboardIn = `
SELECT coalesce(sum(requests), 0)::bigint FROM (
    SELECT requests FROM tablesmith.analytics_minute
    WHERE project_id = $1 AND bucket >= $2 AND bucket < $3 AND credential = 'dashboard'
    UNION ALL
    SELECT requests FROM tablesmith.analytics_hour
    WHERE project_id = $1 AND bucket >= $2 AND bucket < $3 AND credential = 'dashboard'
) d`

const seriesQuery = rowsIn + `
SELECT floor((extract(epoch FROM bucket) - $4) / $5)::bigint AS slot,
       sum(requests)::bigint,
       coalesce(sum(requests) FILTER (WHERE status BETWEEN 200 AND 299), 0)::bigint,
       coalesce(sum(requests) FILTER (WHERE status BETWEEN 300 AND 399), 0)::bigint,
       coalesce(sum(requests) FILTER (WHERE status BETWEEN 400 AND 499), 0)::bigint,
       coalesce(sum(requests) FILTER (WHERE status >= 500), 0)::bigint,
       coalesce(sum(requests) FILTER (WHERE status = 429), 0)::bigint,
       coalesce(sum(requests) FILTER (WHERE operation NOT IN ('` + OperationStream + `', '` + OperationEvent + `')), 0)::bigint,
       coalesce(sum(requests) FILTER (WHERE status >= 400 AND operation NOT IN ('` + OperationStream + `', '` + OperationEvent + `')), 0)::bigint,
       sum(latency_sum_us)::bigint,
       tablesmith.sketch_sum(sketch)
FROM rows GROUP BY slot ORDER BY slot`

const endpointQuery = rowsIn + `
SELECT table_name, operation, method, sum(requests)::bigint,
       coalesce(sum(requests) FILTER (WHERE status >= 400), 0)::bigint,
       tablesmith.sketch_sum(sketch)
FROM rows GROUP BY table_name, operation, method`

// TopEndpoints is how many endpoints a report lists.
const TopEndpoints = 10

// Query builds a report of one project over a window (PlanUsage is left
// for the caller, who knows the plan).
func Query(ctx context.Context, db *sql.DB, projectID string, w Window) (*Report, error) {
	iv := time.Duration(w.Interval)
	n := points(w.From, w.To, iv)
	rep := &Report{Range: w, Series: make([]Point, n), TopEndpoints: []Endpoint{}}
	for i := range rep.Series {
		rep.Series[i].T = w.From.Add(time.Duration(i) * iv).UTC()
	}
	total := NewSketch()
	// timed and timedErrors leave out the realtime stream and its events
	// (Timed): the error rate and the average are of answers.
	var latencyUS, timed, timedErrors int64
	rows, err := db.QueryContext(ctx, seriesQuery, projectID, w.From, w.To, w.From.Unix(), int64(iv/time.Second))
	if err != nil {
		return nil, fmt.Errorf("analytics series: %w", err)
	}
	for rows.Next() {
		var slot, sumUS, timedHere, timedErrorsHere int64
		var p Point
		var raw []byte
		if err := rows.Scan(&slot, &p.Total, &p.Count2xx, &p.Count3xx, &p.Count4xx, &p.Count5xx, &p.RateLimited, &timedHere, &timedErrorsHere, &sumUS, &raw); err != nil {
			rows.Close()
			return nil, err
		}
		sk := NewSketch()
		if err := sk.UnmarshalJSON(raw); err != nil {
			rows.Close()
			return nil, err
		}
		if slot < 0 || slot >= int64(n) {
			continue
		}
		p.T = rep.Series[slot].T
		p.P50Ms, p.P95Ms, p.P99Ms = ms(sk.Quantile(0.50)), ms(sk.Quantile(0.95)), ms(sk.Quantile(0.99))
		rep.Series[slot] = p
		total.Merge(sk)
		latencyUS += sumUS
		timed += timedHere
		timedErrors += timedErrorsHere
		s := &rep.Summary
		s.TotalRequests += p.Total
		s.Count2xx, s.Count3xx, s.Count4xx, s.Count5xx = s.Count2xx+p.Count2xx, s.Count3xx+p.Count3xx, s.Count4xx+p.Count4xx, s.Count5xx+p.Count5xx
		s.RateLimited += p.RateLimited
	}
	if err := rows.Close(); err != nil {
		return nil, err
	}
	if err := rows.Err(); err != nil {
		return nil, err
	}
	s := &rep.Summary
	if timed > 0 {
		s.ErrorRate = ratio(timedErrors, timed)
		s.AvgMs = round3(float64(latencyUS) / 1000 / float64(timed))
	}
	s.P50Ms, s.P95Ms, s.P99Ms = ms(total.Quantile(0.50)), ms(total.Quantile(0.95)), ms(total.Quantile(0.99))

	if err := db.QueryRowContext(ctx, `SELECT coalesce(sum(dropped), 0)::bigint FROM tablesmith.analytics_dropped
		WHERE project_id = $1 AND bucket >= $2 AND bucket < $3`, projectID, alignDown(w.From, time.Hour), w.To).Scan(&s.DroppedSamples); err != nil {
		return nil, fmt.Errorf("analytics drops: %w", err)
	}
	if err := db.QueryRowContext(ctx, dashboardIn, projectID, w.From, w.To).Scan(&rep.Dashboard.Requests); err != nil {
		return nil, fmt.Errorf("analytics dashboard requests: %w", err)
	}
	if rep.TopEndpoints, err = topEndpoints(ctx, db, projectID, w); err != nil {
		return nil, err
	}
	return rep, nil
}

func topEndpoints(ctx context.Context, db *sql.DB, projectID string, w Window) ([]Endpoint, error) {
	rows, err := db.QueryContext(ctx, endpointQuery, projectID, w.From, w.To)
	if err != nil {
		return nil, fmt.Errorf("analytics endpoints: %w", err)
	}
	defer rows.Close()
	type acc struct {
		Endpoint
		errors int64
		sketch *Sketch
	}
	byRoute := map[[2]string]*acc{}
	for rows.Next() {
		var table, op, method string
		var count, errs int64
		var raw []byte
		if err := rows.Scan(&table, &op, &method, &count, &errs, &raw); err != nil {
			return nil, err
		}
		sk := NewSketch()
		if err := sk.UnmarshalJSON(raw); err != nil {
			return nil, err
		}
		method = MethodOf(method, op)
		path := PathOf(table, op)
		k := [2]string{method, path}
		a := byRoute[k]
		if a == nil {
			a = &acc{Endpoint: Endpoint{Method: method, Path: path, Table: table, Operation: op}, sketch: NewSketch()}
			byRoute[k] = a
		}
		a.Count += count
		a.errors += errs
		a.sketch.Merge(sk)
	}
	if err := rows.Err(); err != nil {
		return nil, err
	}
	out := make([]Endpoint, 0, len(byRoute))
	for _, a := range byRoute {
		e := a.Endpoint
		e.ErrorRate = ratio(a.errors, a.Count)
		e.P95Ms = ms(a.sketch.Quantile(0.95))
		out = append(out, e)
	}
	slices.SortFunc(out, func(x, y Endpoint) int {
		return cmp.Or(cmp.Compare(y.Count, x.Count), cmp.Compare(x.Path, y.Path), cmp.Compare(x.Method, y.Method))
	})
	if len(out) > TopEndpoints {
		out = out[:TopEndpoints]
	}
	return out, nil
}

// Operations with a record id in their path.
var itemOps = map[string]bool{"get": true, "update": true, "delete": true}

// PathOf is the route template of a table and operation, relative to the
// project's API base: /users, /users/{id}, /auth/login, /openapi.json.
// Requests for a table that does not exist are grouped under
// "(unknown table)".
func PathOf(table, op string) string {
	switch {
	case table == "":
		return "(unknown table)"
	case itemOps[op]:
		return "/" + table + "/{id}"
	case op == "aggregate":
		return "/" + table + "/aggregate"
	case table == "auth" && op != "":
		// End-user auth names its operation after the path: login, me, ...
		return "/auth/" + op
	default:
		// list, create, an unresolved operation (405), or a route of its
		// own such as /openapi.json or /docs.
		return "/" + table
	}
}

// MethodOf returns the recorded HTTP method, or the usual one of the
// operation when none was recorded.
func MethodOf(method, op string) string {
	if method != "" {
		return method
	}
	switch op {
	case "create":
		return "POST"
	case "update":
		return "PATCH"
	case "delete":
		return "DELETE"
	default:
		return "GET"
	}
}

func ratio(a, b int64) float64 {
	if b == 0 {
		return 0
	}
	return math.Round(float64(a)/float64(b)*1e4) / 1e4
}

func ms(d time.Duration) float64 { return round3(float64(d) / float64(time.Millisecond)) }

func round3(f float64) float64 { return math.Round(f*1000) / 1000 }
