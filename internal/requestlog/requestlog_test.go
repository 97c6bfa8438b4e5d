package requestlog_test

import (
	"context"
	"encoding/json"
	"net/url"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/tablesmith/tablesmith/internal/plans"
	"github.com/tablesmith/tablesmith/internal/requestlog"
	"github.com/tablesmith/tablesmith/internal/service"
	"github.com/tablesmith/tablesmith/internal/testpg"
	"github.com/tablesmith/tablesmith/internal/testserver"
)

const itemsSchema = `{"tables": [{"name": "items", "columns": [
	{"name": "name", "type": "text", "required": true},
	{"name": "qty", "type": "integer", "min": 0}]}]}`

// logged flushes what the service recorded and reads the project's log
// with the query given, as the dashboard does.
func logged(t *testing.T, s *testserver.Server, p *testserver.Project, query string, want int) *testserver.Response {
	t.Helper()
	deadline := time.Now().Add(5 * time.Second)
	for {
		if err := s.Svc.FlushAnalytics(context.Background()); err != nil {
			t.Fatal(err)
		}
		r := s.Do("GET", "/api/projects/"+p.ID+"/logs"+query, p.Session, nil).Must(t, 200)
		// The handler hands its entry over after the answer went out:
		// wait for the entries the test made.
		if len(r.List()) >= want || time.Now().After(deadline) {
			return r
		}
		time.Sleep(10 * time.Millisecond)
	}
}

func TestTheLogKeepsEveryRequestWithItsOutcomeAndCredentialNewestFirst(t *testing.T) {
	t.Parallel()
	s := testserver.New(t)
	p := s.NewProject(itemsSchema)

	s.API(p, "POST", "/items", map[string]any{"name": "first", "qty": 1}).Must(t, 201)
	bad := s.API(p, "POST", "/items", map[string]any{"qty": -1}).Must(t, 400)
	s.Do("GET", "/v1/"+p.ID+"/items?status=draft", p.Key, nil, "Origin", "https://app.example.com", "X-Request-Id", "trace-42").Must(t, 400)
	s.Do("GET", "/v1/"+p.ID+"/items", p.Session, nil).Must(t, 200)
	s.Do("PATCH", "/v1/"+p.ID+"/items?filter[qty][gte]=0", p.Key, map[string]any{"qty": 3}).Must(t, 200)
	s.Do("GET", "/v1/"+p.ID+"/items", "", nil).Must(t, 401)

	rows := logged(t, s, p, "", 6).List()
	if len(rows) != 6 {
		t.Fatalf("%d entries, want 6: %v", len(rows), rows)
	}
	// Newest first: the anonymous 401 last made, the create first.
	if rows[0]["status"] != 401.0 || rows[5]["status"] != 201.0 || rows[5]["method"] != "POST" || rows[5]["path"] != "/items" {
		t.Fatalf("order or fields wrong: first %v, last %v", rows[0], rows[5])
	}
	if c := rows[0]["credential"].(map[string]any); c["kind"] != "none" {
		t.Errorf("anonymous request logged as %v", c)
	}
	create := rows[5]
	if create["error"] != nil || create["rows"] != 1.0 || create["bytes"].(float64) <= 0 || create["latency_ms"].(float64) <= 0 {
		t.Errorf("create entry %v: want no error, 1 row, bytes and a latency", create)
	}
	if c := create["credential"].(map[string]any); c["kind"] != "key" || c["key_prefix"] == "" || c["key_name"] == "" {
		t.Errorf("create credential %v: want the key's prefix and name", c)
	}
	invalid := rows[4]["error"].(map[string]any)
	if invalid["code"] != "VALIDATION_ERROR" || invalid["message"] != bad.Message() || !strings.Contains(invalid["body"].(string), `"qty"`) {
		t.Errorf("400 entry's error %v, want the answer's code, message and body", invalid)
	}
	unknown := rows[3]
	if unknown["query"] != "status=draft" || unknown["origin"] != "https://app.example.com" || unknown["request_id"] != "trace-42" ||
		unknown["rows"] != nil {
		t.Errorf("unknown-parameter entry %v", unknown)
	}
	if c := rows[2]["credential"].(map[string]any); c["kind"] != "dashboard" {
		t.Errorf("session request logged as %v", c)
	}
	if rows[1]["rows"] != 1.0 || rows[1]["method"] != "PATCH" {
		t.Errorf("update by filter entry %v: want 1 row affected", rows[1])
	}
}

func TestTheLogFiltersAndPagesWithACursor(t *testing.T) {
	t.Parallel()
	s := testserver.New(t, testserver.WithPlans(plans.Defaults(), "free"))
	p := s.NewProject(itemsSchema)
	for i := range 5 {
		s.API(p, "GET", "/items/"+string(rune('1'+i)), nil).Must(t, 404)
	}
	s.API(p, "GET", "/items", nil).Must(t, 200)
	s.Do("GET", "/v1/"+p.ID+"/items", p.Key, nil, "X-Request-Id", "find-me").Must(t, 200)
	logged(t, s, p, "", 7)

	for query, want := range map[string]int{
		"?status=404": 5, "?status=4xx": 5, "?status=error": 5, "?status=2xx": 2, "?status=500": 0,
		"?path=/items/": 5, "?path=/items": 7, "?method=get": 7, "?method=POST": 0,
		"?credential=key": 7, "?credential=dashboard": 0, "?request_id=find-me": 1,
		"?to=" + url.QueryEscape(time.Now().Add(-time.Hour).Format(time.RFC3339)): 0,
	} {
		if got := len(s.Do("GET", "/api/projects/"+p.ID+"/logs"+query, p.Session, nil).Must(t, 200).List()); got != want {
			t.Errorf("%s: %d entries, want %d", query, got, want)
		}
	}

	var seen []float64
	query := "?limit=3"
	for page := 0; ; page++ {
		r := s.Do("GET", "/api/projects/"+p.ID+"/logs"+query, p.Session, nil).Must(t, 200)
		for _, row := range r.List() {
			seen = append(seen, row["id"].(float64))
		}
		var env struct {
			Meta struct {
				NextCursor     *string `json:"next_cursor"`
				RetentionHours float64 `json:"retention_hours"`
			} `json:"meta"`
		}
		if err := json.Unmarshal(r.Raw, &env); err != nil {
			t.Fatal(err)
		}
		if env.Meta.RetentionHours != 24 {
			t.Errorf("retention %v hours, want the free plan's 24", env.Meta.RetentionHours)
		}
		if env.Meta.NextCursor == nil || page > 5 {
			break
		}
		query = "?limit=3&cursor=" + *env.Meta.NextCursor
	}
	if len(seen) != 7 {
		t.Fatalf("pages gave %d entries, want 7: %v", len(seen), seen)
	}
	for i := 1; i < len(seen); i++ {
		if seen[i] >= seen[i-1] {
			t.Fatalf("pages not newest first or repeat an entry: %v", seen)
		}
	}
}

func TestTheLogsQueryIsStrict(t *testing.T) {
	t.Parallel()
	s := testserver.New(t)
	p := s.NewProject(itemsSchema)
	for query, param := range map[string]string{
		"?status=teapot": "status", "?statuses=4xx": "statuses", "?limit=0": "limit", "?limit=201": "limit",
		"?cursor=nope": "cursor", "?from=yesterday": "from", "?method=BREW": "method", "?status=4xx&status=5xx": "status",
	} {
		r := s.Do("GET", "/api/projects/"+p.ID+"/logs"+query, p.Session, nil).Must(t, 400)
		if r.ErrorCode() != "INVALID_QUERY" || r.Details()[param] == nil {
			t.Errorf("%s: %s %v, want INVALID_QUERY naming %s", query, r.ErrorCode(), r.Details(), param)
		}
	}
	// A raw ';' is refused, not dropped (which would widen the filter).
	if r := s.Do("GET", "/api/projects/"+p.ID+"/logs?status=404;x", p.Session, nil).Must(t, 400); r.ErrorCode() != "INVALID_QUERY" {
		t.Errorf("raw ';': %s", r.ErrorCode())
	}
	// Another account's session, and the project's own API key, read nothing.
	other := s.Signup("other-" + p.ID + "@example.com")
	s.Do("GET", "/api/projects/"+p.ID+"/logs", other, nil).Must(t, 404)
	s.Do("GET", "/api/projects/"+p.ID+"/logs", p.Key, nil).Must(t, 401)
}

func TestTheLogNeverKeepsASecretAndCapsErrorBodies(t *testing.T) {
	t.Parallel()
	s := testserver.New(t)
	p := s.NewProject(itemsSchema)
	s.Do("GET", "/v1/"+p.ID+"/items?apikey="+p.Key+"&access_token=abc.def&name=x", p.Key, nil).Must(t, 400)
	// A NUL and invalid UTF-8 in the path: stored replaced, and they do not
	// cost the batch its other entries.
	s.Do("GET", "/v1/"+p.ID+"/items/%00%ff", p.Key, nil)
	long := strings.Repeat("é", 5000)
	s.API(p, "POST", "/items", map[string]any{"name": long, "qty": -1, long: 1}).Must(t, 400)
	rows := logged(t, s, p, "", 3).List()
	if len(rows) != 3 {
		t.Fatalf("%d entries", len(rows))
	}
	if path := rows[1]["path"]; path != "/items/\uFFFD\uFFFD" {
		t.Errorf("path stored as %q", path)
	}
	rows = append(rows[:1], rows[2:]...)
	raw, _ := json.Marshal(rows)
	if strings.Contains(string(raw), p.Key) || strings.Contains(string(raw), "abc.def") || strings.Contains(string(raw), p.Session) {
		t.Fatalf("a credential reached the log: %s", raw)
	}
	if q := rows[1]["query"]; q != "apikey=[redacted]&access_token=[redacted]&name=x" {
		t.Errorf("query kept as %v", q)
	}
	body := rows[0]["error"].(map[string]any)["body"].(string)
	if len(body) > 4096 || !strings.HasSuffix(body, "…") {
		t.Errorf("error body of %d bytes, want at most 4096 and marked as cut", len(body))
	}
}

func TestRetentionFollowsThePlanAndTheRowCapKeepsTheNewest(t *testing.T) {
	t.Parallel()
	var ahead atomic.Int64 // how far the service's clock runs ahead
	now := func() time.Time { return time.Now().Add(time.Duration(ahead.Load())) }
	// A database of its own: a retention pass 25 hours ahead deletes every
	// free project's entries, the other tests' too.
	s := testserver.New(t, testserver.WithPlans(plans.Defaults(), "free"), testserver.WithNow(now),
		testserver.WithConfig(func(cfg *service.Config) { cfg.DatabaseURL = testpg.NewDatabase(t) }))
	p := s.NewProject(itemsSchema)
	for range 3 {
		s.API(p, "GET", "/items", nil).Must(t, 200)
	}
	logged(t, s, p, "", 3)
	// 23 hours on, the free plan's entries stay; 25 hours on, they go.
	ahead.Store(int64(23 * time.Hour))
	if err := s.Svc.PruneRequestLog(context.Background()); err != nil {
		t.Fatal(err)
	}
	if n := len(logged(t, s, p, "", 3).List()); n != 3 {
		t.Fatalf("%d entries after 23 h, want 3", n)
	}
	ahead.Store(int64(25 * time.Hour))
	if err := s.Svc.PruneRequestLog(context.Background()); err != nil {
		t.Fatal(err)
	}
	if n := len(logged(t, s, p, "?path=/items", 0).List()); n != 0 {
		t.Fatalf("%d entries after 25 h, want 0", n)
	}

	// The row cap, on a log of its own with a cap of 10: the newest stay.
	l := requestlog.New(requestlog.Config{DB: s.Svc.DB, MaxRows: 10, PruneEvery: -1})
	l.Start()
	defer l.Close()
	start := time.Now()
	for i := range 25 {
		l.Record(requestlog.Entry{ProjectID: p.ID, At: start.Add(time.Duration(i) * time.Millisecond), Method: "GET",
			Path: "/capped", Status: 200 + i, Principal: "none", Rows: -1})
	}
	if err := l.Flush(context.Background()); err != nil {
		t.Fatal(err)
	}
	if err := l.Prune(context.Background()); err != nil {
		t.Fatal(err)
	}
	rows, _, err := requestlog.Query(context.Background(), s.Svc.DB, p.ID, requestlog.Filter{PathPrefix: "/capped", Limit: 50})
	if err != nil {
		t.Fatal(err)
	}
	if len(rows) != 10 || rows[0].Status != 224 || rows[9].Status != 215 {
		t.Fatalf("%d entries kept (first %v), want the newest 10, statuses 224 down to 215", len(rows), rows)
	}
}
