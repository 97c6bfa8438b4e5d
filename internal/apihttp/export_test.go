package apihttp_test

import (
	"bufio"
	"bytes"
	"context"
	"encoding/csv"
	"encoding/json"
	"io"
	"net/http"
	"reflect"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/tablesmith/tablesmith/internal/plans"
	"github.com/tablesmith/tablesmith/internal/service"
	"github.com/tablesmith/tablesmith/internal/testserver"
	"github.com/tablesmith/tablesmith/schema"
)

// csvIDs parses an RFC 4180 export and returns its header and the id
// column of its records.
func csvIDs(t *testing.T, raw []byte) (header []string, ids []int, records [][]string) {
	t.Helper()
	recs, err := csv.NewReader(bytes.NewReader(raw)).ReadAll()
	if err != nil {
		t.Fatalf("not CSV: %v\n%.500s", err, raw)
	}
	if len(recs) == 0 {
		t.Fatal("no header row")
	}
	header = recs[0]
	for _, rec := range recs[1:] {
		id, err := strconv.Atoi(rec[0])
		if err != nil {
			t.Fatalf("record %v: id %q", rec, rec[0])
		}
		ids = append(ids, id)
	}
	return header, ids, recs[1:]
}

// An export streams every matching row past the page cap, in the list's
// sort, with its filters and fields, as CSV (format=csv or Accept:
// text/csv) or NDJSON (format=ndjson or Accept: application/x-ndjson).
func TestExportStreamsEveryMatchingRowAsCSVOrNDJSON(t *testing.T) {
	t.Parallel()
	s := testserver.New(t)
	p := s.NewProject(cursorSchema)
	seedItems(t, s, p, 230)
	// a text that needs quoting, a NULL, and a decimal that must stay exact
	s.API(p, "POST", "/items", map[string]any{"name": "a \"quoted\", multi\nline", "label": "l0", "price": "12345678901234567890.01"}).Must(t, 201)

	for _, raw := range []string{"sort=-score", "sort=name,-score&" + query("filter[label]", "l0"), "search=n1&sort=seen", ""} {
		want := byPages(t, s, p, "/items", raw)
		r := s.API(p, "GET", "/items?format=csv&"+raw, nil).Must(t, 200)
		if ct := r.Header.Get("Content-Type"); !strings.HasPrefix(ct, "text/csv") {
			t.Errorf("Content-Type %q", ct)
		}
		if !bytes.Contains(r.Raw, []byte("\r\n")) || bytes.Count(r.Raw, []byte("\n")) != bytes.Count(r.Raw, []byte("\r\n")) {
			t.Errorf("%s: RFC 4180 ends records with CRLF, and so does the quoted newline's record", raw)
		}
		header, got, _ := csvIDs(t, r.Raw)
		if !reflect.DeepEqual(header, []string{"id", "score", "name", "label", "price", "seen", "created_at", "updated_at"}) {
			t.Errorf("header %v", header)
		}
		if !reflect.DeepEqual(got, want) {
			t.Errorf("csv ?%s: ids\n got %v\nwant %v", raw, got, want)
		}
		n := s.Do("GET", "/v1/"+p.ID+"/items?"+raw, p.Key, nil, "Accept", "application/x-ndjson").Must(t, 200)
		var nd []int
		for _, line := range strings.Split(strings.TrimSuffix(string(n.Raw), "\n"), "\n") {
			if line == "" {
				continue
			}
			var rec map[string]any
			if err := json.Unmarshal([]byte(line), &rec); err != nil {
				t.Fatalf("ndjson line %q: %v", line, err)
			}
			nd = append(nd, int(rec["id"].(float64)))
		}
		if !reflect.DeepEqual(nd, want) {
			t.Errorf("ndjson ?%s: ids\n got %v\nwant %v", raw, nd, want)
		}
	}

	// values: the quoted text survives, NULL is empty, the decimal exact
	r := s.Do("GET", "/v1/"+p.ID+"/items?"+query("filter[label]", "l0", "fields", "name,price,seen", "sort", "-id", "count", "none"), p.Key, nil, "Accept", "text/csv").Must(t, 200)
	header, _, recs := csvIDs(t, r.Raw)
	if !reflect.DeepEqual(header, []string{"id", "name", "price", "seen"}) || recs[0][1] != "a \"quoted\", multi\nline" ||
		recs[0][2] != "12345678901234567890.01" || recs[0][3] != "" {
		t.Errorf("fields=name,price,seen: header %v first record %q", header, recs[0])
	}
	// The JSON of every record is the list's: timestamps in the API's format.
	r = s.API(p, "GET", "/items?format=ndjson&fields=seen&"+query("filter[seen][null]", "false")+"&sort=id", nil).Must(t, 200)
	first := strings.SplitN(string(r.Raw), "\n", 2)[0]
	list := s.API(p, "GET", "/items?fields=seen&"+query("filter[seen][null]", "false")+"&sort=id&limit=1", nil).Must(t, 200)
	var rec map[string]any
	if err := json.Unmarshal([]byte(first), &rec); err != nil || rec["seen"] != list.List()[0]["seen"] {
		t.Errorf("ndjson record %s; the list shows %v", first, list.List()[0])
	}
	// no rows: a CSV of its header alone, an empty NDJSON
	r = s.API(p, "GET", "/tags?format=csv", nil).Must(t, 200)
	if string(r.Raw) != "id,word,created_at,updated_at\r\n" {
		t.Errorf("empty export %q", r.Raw)
	}
	if r = s.API(p, "GET", "/tags?format=ndjson", nil).Must(t, 200); len(r.Raw) != 0 {
		t.Errorf("empty ndjson %q", r.Raw)
	}
}

// What an export cannot do is refused before anything streams.
func TestExportRefusesPagesAndBadFormats(t *testing.T) {
	t.Parallel()
	s := testserver.New(t)
	p := s.NewProject(cursorSchema)
	for path, param := range map[string]string{
		"/items?format=xml":                    "format",
		"/items?format=csv&page=2":             "page",
		"/items?format=ndjson&limit=5":         "limit",
		"/items?format=csv&offset=5":           "offset",
		"/items?format=csv&after=x":            "after",
		"/items?format=csv&include=whatever":   "include",
		"/items?format=ndjson&sort=nope":       "sort",
		"/items?format=csv&filter[nope][eq]=1": "filter[nope][eq]",
	} {
		r := s.API(p, "GET", path, nil).Must(t, 400)
		if r.ErrorCode() != "INVALID_QUERY" || r.Details()[param] == nil {
			t.Errorf("%s: %s %v; want INVALID_QUERY naming %s", path, r.ErrorCode(), r.Details(), param)
		}
	}
	// format=json is the ordinary list whatever Accept says
	r := s.Do("GET", "/v1/"+p.ID+"/items?format=json", p.Key, nil, "Accept", "text/csv").Must(t, 200)
	if r.Body["success"] != true {
		t.Errorf("format=json: %s", r.Raw)
	}
}

// An end user's export holds their own rows only: the owner scope
// applies as it does to lists.
func TestExportKeepsTheOwnerScope(t *testing.T) {
	t.Parallel()
	e := newPermsEnv(t)
	for i := 0; i < 3; i++ {
		e.row(t, "own_notes", e.annID)
	}
	e.row(t, "own_notes", e.bobID)
	r := e.do("GET", "/own_notes?format=csv&fields=author_id", e.bob, nil).Must(t, 200)
	_, ids, recs := csvIDs(t, r.Raw)
	if len(ids) != 1 || recs[0][1] != strconv.Itoa(int(e.bobID)) {
		t.Errorf("bob's export: %q", r.Raw)
	}
	r = e.do("GET", "/own_notes?format=ndjson", e.ann, nil).Must(t, 200)
	if n := strings.Count(string(r.Raw), "\n"); n != 3 {
		t.Errorf("ann's export has %d records, want 3:\n%s", n, r.Raw)
	}
}

// An export may outlast the request timeout (and the plan's statement
// timeout, which bounds each of its batches): it is bounded by
// export_timeout instead, and reaches the client in chunks while the
// client is still reading.
func TestExportOutlastsTheRequestTimeout(t *testing.T) {
	t.Parallel()
	setup := testserver.New(t)
	p := setup.NewProject(cursorSchema)
	ns := schema.QuoteIdent(schema.ProjectSchema(p.ID))
	if _, err := setup.Svc.DB.ExecContext(context.Background(), `INSERT INTO `+ns+`.items (score, name, label)
		SELECT g % 100, repeat('x', 100) || g, 'l' FROM generate_series(1, 150000) g`); err != nil {
		t.Fatal(err)
	}
	// The step under test, beside the setup: a request deadline of a
	// second, which the export outlasts by far.
	s := setup.Beside(testserver.WithConfig(func(c *service.Config) {
		c.RequestTimeout = time.Second
		c.ExportTimeout = time.Minute
	}))
	req, _ := http.NewRequest("GET", s.URL+"/v1/"+p.ID+"/items?format=ndjson&sort=score", nil)
	req.Header.Set("Authorization", "Bearer "+p.Key)
	res, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer res.Body.Close()
	if res.StatusCode != 200 {
		t.Fatalf("status %d", res.StatusCode)
	}
	// read slowly: the server waits on the client, well past the second
	br := bufio.NewReader(res.Body)
	lines := 0
	start := time.Now()
	for {
		_, err := br.ReadBytes('\n')
		if err == io.EOF {
			break
		}
		if err != nil {
			t.Fatalf("after %d lines, %v: %v", lines, time.Since(start), err)
		}
		if lines++; lines%30000 == 0 {
			time.Sleep(500 * time.Millisecond)
		}
	}
	if lines != 150000 || time.Since(start) < 2*time.Second {
		t.Errorf("read %d lines in %v; want all 150000, over more than the request timeout", lines, time.Since(start))
	}
}

// fillItems inserts n rows of about 200 bytes into a project's items, in
// statements short enough for a 1 s statement_timeout.
func fillItems(t *testing.T, s *testserver.Server, p *testserver.Project, n int) {
	t.Helper()
	ns := schema.QuoteIdent(schema.ProjectSchema(p.ID))
	for from := 1; from <= n; from += 20000 {
		if _, err := s.Svc.DB.ExecContext(context.Background(), `INSERT INTO `+ns+`.items (score, name, label)
			SELECT g % 100, repeat('x', 200) || g, 'l' FROM generate_series($1::int, least($1::int + 19999, $2)) g`, from, n); err != nil {
			t.Fatal(err)
		}
	}
}

// exportRunning counts the backends doing something for an export of the
// project's items: a statement running, or a transaction kept open.
func exportRunning(t *testing.T, s *testserver.Server, p *testserver.Project) int {
	t.Helper()
	var n int
	if err := s.Svc.DB.QueryRow(`SELECT count(*) FROM pg_stat_activity WHERE datname = current_database()
		AND pid <> pg_backend_pid() AND state <> 'idle' AND (query LIKE '%tablesmith_export_' || $1 || '%' OR query LIKE '%' || $2 || '%')`,
		p.ID, schema.ProjectSchema(p.ID)).Scan(&n); err != nil {
		t.Fatal(err)
	}
	return n
}

// openExport starts an NDJSON export of the project's items and returns
// its answer with the body unread.
func openExport(t *testing.T, ctx context.Context, s *testserver.Server, p *testserver.Project) *http.Response {
	t.Helper()
	req, _ := http.NewRequestWithContext(ctx, "GET", s.URL+"/v1/"+p.ID+"/items?format=ndjson", nil)
	req.Header.Set("Authorization", "Bearer "+p.Key)
	res, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	if res.StatusCode != 200 {
		raw, _ := io.ReadAll(res.Body)
		t.Fatalf("export: %d %s", res.StatusCode, raw)
	}
	return res
}

// An export ends with its request: when its bound passes while the client
// has stopped reading, and when the client leaves, nothing of it is left
// in pg_stat_activity a moment later, and its hold is free for the next
// export (the write the stalled client held up is cut, rather than
// waiting its 30 s).
func TestAnExportsStatementEndsSoonAfterItsRequestEnds(t *testing.T) {
	t.Parallel()
	const bound = 2 * time.Second
	setup := testserver.New(t)
	p := setup.NewProject(cursorSchema)
	// ~50 MB of NDJSON: far more than the sockets between server and
	// client hold, so a client that stops reading stops the server.
	fillItems(t, setup, p, 200000)
	s := setup.Beside(testserver.WithConfig(func(c *service.Config) {
		c.RequestTimeout = time.Second
		c.ExportTimeout = bound
		// One export per project at once (half a share of 2), and a
		// short wait for it.
		c.ProjectConcurrency = 2
		c.ProjectQueueWait = 100 * time.Millisecond
	}))
	// "Soon": a second for scheduling on a loaded machine; the writes a
	// stalled client holds up each had 30 s.
	const soon = time.Second

	t.Run("its bound passes while the client does not read", func(t *testing.T) {
		start := time.Now()
		res := openExport(t, context.Background(), s, p)
		defer res.Body.Close()
		if _, err := io.ReadFull(res.Body, make([]byte, 64<<10)); err != nil {
			t.Fatal(err)
		}
		time.Sleep(time.Until(start.Add(bound))) // the client stalls past the bound
		waitUntil(t, start.Add(bound+soon), func() bool { return exportRunning(t, s, p) == 0 },
			"the export still runs in PostgreSQL %v after its bound", soon)
		waitUntil(t, start.Add(bound+soon), func() bool {
			return get(s.URL+"/v1/"+p.ID+"/items?format=csv&filter[score]=-1", p.Key, 10*time.Second).status == 200
		}, "the next export of the project is refused %v after the stalled one's bound", soon)
	})
	t.Run("the client leaves", func(t *testing.T) {
		ctx, cancel := context.WithCancel(context.Background())
		res := openExport(t, ctx, s, p)
		if _, err := io.ReadFull(res.Body, make([]byte, 64<<10)); err != nil {
			t.Fatal(err)
		}
		if exportRunning(t, s, p) == 0 {
			t.Fatal("no export in pg_stat_activity while it runs: the check sees nothing")
		}
		cancel()
		res.Body.Close()
		waitUntil(t, time.Now().Add(soon), func() bool { return exportRunning(t, s, p) == 0 },
			"the export still runs in PostgreSQL %v after its client left", soon)
	})
}

// waitUntil polls ok until deadline and fails with the message after it.
func waitUntil(t *testing.T, deadline time.Time, ok func() bool, msg string, args ...any) {
	t.Helper()
	for !ok() {
		if time.Now().After(deadline) {
			t.Fatalf(msg, args...)
		}
		time.Sleep(20 * time.Millisecond)
	}
}

// An export's statements run under the plan's statement timeout like any
// statement: one that waits longer (here on a lock) is cut and answers
// 503 before anything is sent, while the export as a whole may take
// longer than the timeout (TestExportOutlastsTheRequestTimeout).
func TestAnExportsBatchLongerThanItsPlanAllowsIsCancelled(t *testing.T) {
	t.Parallel()
	const timeout = 400 * time.Millisecond
	tight := plans.Plan{Name: "tight", RatePerHour: plans.Unlimited, Projects: plans.Unlimited, StatementTimeout: timeout}
	setup := testserver.New(t, testserver.WithPlans(roomy("tight"), "tight"))
	p := setup.NewProject(slowSchema)
	setup.API(p, "POST", "/items", map[string]any{"title": "x"}).Must(t, 201)
	s := setup.Beside(testserver.WithPlans(plans.Set{"tight": tight}, "tight"))
	release := lockItems(t, s, p)
	defer release()
	got := get(s.URL+"/v1/"+p.ID+"/items?format=csv", p.Key, 20*time.Second)
	if got.err != nil || got.status != 503 || !strings.Contains(got.msg, "longer than the 400ms its plan allows") {
		t.Fatalf("an export past its plan's timeout: %d %s %q %v", got.status, got.code, got.msg, got.err)
	}
	// Cancelled in PostgreSQL, not left waiting on the lock.
	waitForNoLockWaiters(t, s.Svc.DB, p)
}

// Exports have their own fair share: a project runs at most half its
// share of exports at once per node (one of a share of two), and an
// export keeps no statement slot between its batches, so the project's
// other requests go on; another project exports meanwhile.
func TestExportsOfAProjectAreBoundedWithoutStoppingItsOtherRequests(t *testing.T) {
	t.Parallel()
	s := testserver.New(t, testserver.WithConfig(func(c *service.Config) {
		c.ProjectConcurrency = 2
		c.ProjectQueueWait = 200 * time.Millisecond
	}))
	p := s.NewProject(cursorSchema)
	other := s.NewProject(cursorSchema)
	fillItems(t, s, p, 200000)
	fillItems(t, s, other, 10)
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	res := openExport(t, ctx, s, p) // held open: the client reads nothing more
	defer res.Body.Close()

	second := get(s.URL+"/v1/"+p.ID+"/items?format=csv", p.Key, 20*time.Second)
	if second.status != 503 || second.code != "SERVICE_UNAVAILABLE" || second.header.Get("Retry-After") != "5" ||
		!strings.Contains(second.msg, "has 1 exports running") {
		t.Fatalf("a second export of the project: %d %s %q (Retry-After %q), want 503 with Retry-After 5", second.status, second.code, second.msg, second.header.Get("Retry-After"))
	}
	for range 5 { // more than the project's share of 2
		s.API(p, "GET", "/items?limit=5", nil).Must(t, 200)
	}
	if got := get(s.URL+"/v1/"+other.ID+"/items?format=csv", other.Key, 20*time.Second); got.status != 200 {
		t.Fatalf("another project's export: %d %s", got.status, got.msg)
	}
}

// No statement of an export runs longer than its plan's statement timeout
// (issue 35.9: an export ran one statement for as long as it lasted, 76 s
// past the request deadline): it reads its rows in batches, each a short
// statement, and the export as a whole may still take as long as
// export_timeout while a slow client reads it.
func TestNoStatementOfASlowExportRunsLongerThanItsPlanAllows(t *testing.T) {
	t.Parallel()
	// A batch (at most 1,000 rows) takes milliseconds; 3 s is the margin
	// for a machine loaded by the whole suite under -race, where a 1 s
	// timeout once ended a batch and with it the export.
	const timeout = 3 * time.Second
	tight := plans.Plan{Name: "tight", RatePerHour: plans.Unlimited, Projects: plans.Unlimited, StatementTimeout: timeout}
	setup := testserver.New(t, testserver.WithPlans(roomy("tight"), "tight"))
	p := setup.NewProject(cursorSchema)
	fillItems(t, setup, p, 100000)
	s := setup.Beside(testserver.WithPlans(plans.Set{"tight": tight}, "tight"), testserver.WithConfig(func(c *service.Config) {
		c.RequestTimeout = timeout
		c.ExportTimeout = time.Minute
	}))

	// The longest-running statement of the export, sampled while it runs.
	stop := make(chan struct{})
	longest := make(chan time.Duration, 1)
	go func() {
		var most time.Duration
		defer func() { longest <- most }()
		for {
			select {
			case <-stop:
				return
			case <-time.After(50 * time.Millisecond):
			}
			var secs float64
			if err := s.Svc.DB.QueryRow(`SELECT coalesce(max(extract(epoch FROM clock_timestamp() - query_start)), 0)
				FROM pg_stat_activity WHERE state = 'active' AND pid <> pg_backend_pid()
				AND (query LIKE '%tablesmith_export_' || $1 || '%' OR query LIKE '%' || $2 || '%')`, p.ID, schema.ProjectSchema(p.ID)).Scan(&secs); err != nil {
				t.Error(err)
				return
			}
			most = max(most, time.Duration(secs*float64(time.Second)))
		}
	}()
	res := openExport(t, context.Background(), s, p)
	defer res.Body.Close()
	br := bufio.NewReader(res.Body)
	lines := 0
	start := time.Now()
	for {
		_, err := br.ReadBytes('\n')
		if err == io.EOF {
			break
		}
		if err != nil {
			t.Fatalf("after %d lines: %v", lines, err)
		}
		if lines++; lines%25000 == 0 {
			time.Sleep(timeout) // a slow client: the export outlasts the plan's timeout four times
		}
	}
	took := time.Since(start)
	close(stop)
	most := <-longest
	if lines != 100000 || took < 3*timeout {
		t.Fatalf("read %d lines in %v; want all 100000 over more than three plan timeouts", lines, took)
	}
	// The margin is for sampling and scheduling; a statement cut at the
	// plan's timeout would have failed the export instead.
	if most > timeout {
		t.Errorf("a statement of the export ran %v, longer than the %v its plan allows", most, timeout)
	}
}

// An export gives way to other tenants (issue 35.9): after a batch during
// which another project started a statement it pauses, so that on a node
// with few cores the other project's requests find a CPU; alone on the
// node it never pauses. Either way it sends every row.
func TestAnExportGivesWayToAnotherProjectsRequestsAndRunsAloneAtFullSpeed(t *testing.T) {
	t.Parallel()
	s := testserver.New(t)
	p := s.NewProject(cursorSchema)
	other := s.NewProject(cursorSchema)
	const rows = 20000 // about twenty batches
	fillItems(t, s, p, rows)
	fillItems(t, s, other, 10)
	exportLines := func() int {
		res := openExport(t, context.Background(), s, p)
		defer res.Body.Close()
		raw, err := io.ReadAll(res.Body)
		if err != nil {
			t.Fatal(err)
		}
		return bytes.Count(raw, []byte("\n"))
	}

	if n := exportLines(); n != rows {
		t.Fatalf("the export alone sent %d rows, want %d", n, rows)
	}
	if n := s.Svc.FairShareStats().ExportPauses; n != 0 {
		t.Fatalf("the export alone on the node paused %d times, want none", n)
	}

	// Another project reads without a break while the same export runs.
	stop := make(chan struct{})
	var reads sync.WaitGroup
	reads.Add(1)
	go func() {
		defer reads.Done()
		for {
			select {
			case <-stop:
				return
			default:
			}
			if a := get(s.URL+"/v1/"+other.ID+"/items?limit=5", other.Key, 10*time.Second); a.status != 200 {
				t.Errorf("the other project's read: %d %s %v", a.status, a.msg, a.err)
				return
			}
		}
	}()
	n := exportLines()
	close(stop)
	reads.Wait()
	if n != rows {
		t.Fatalf("the export beside another project's reads sent %d rows, want %d", n, rows)
	}
	if n := s.Svc.FairShareStats().ExportPauses; n == 0 {
		t.Fatal("the export beside another project's reads never paused for them")
	}
}
