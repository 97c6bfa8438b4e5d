package apihttp_test

import (
	"context"
	"database/sql"
	"encoding/json"
	"io"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/tablesmith/tablesmith/internal/fairshare"
	"github.com/tablesmith/tablesmith/internal/plans"
	"github.com/tablesmith/tablesmith/internal/service"
	"github.com/tablesmith/tablesmith/internal/testserver"
	"github.com/tablesmith/tablesmith/schema"
)

const slowSchema = `{"tables": [{"name": "items", "columns": [{"name": "title", "type": "text"}]}]}`

// answer is one request's outcome, read off the test goroutine.
type answer struct {
	status int
	header http.Header
	code   string
	msg    string
	took   time.Duration
	err    error
}

// get sends a GET with the project's key, giving up after limit.
func get(url, key string, limit time.Duration) answer {
	ctx, cancel := context.WithTimeout(context.Background(), limit)
	defer cancel()
	req, _ := http.NewRequestWithContext(ctx, "GET", url, nil)
	req.Header.Set("Authorization", "Bearer "+key)
	start := time.Now()
	res, err := http.DefaultClient.Do(req)
	if err != nil {
		return answer{err: err, took: time.Since(start)}
	}
	defer res.Body.Close()
	raw, _ := io.ReadAll(res.Body)
	var body struct {
		Error struct{ Code, Message string } `json:"error"`
	}
	_ = json.Unmarshal(raw, &body)
	return answer{status: res.StatusCode, header: res.Header, code: body.Error.Code, msg: body.Error.Message, took: time.Since(start)}
}

// lockItems takes an ACCESS EXCLUSIVE lock on a project's items table on
// the control pool, so every statement of the project on it waits in
// PostgreSQL: a slow statement that lasts until release is called. It
// first runs the requests the test sends, so that their statements are
// prepared: a statement's first preparing is not cut by its request's
// context (pgexec.Statements), only its runs are.
//
// Preparing is setup, and s may run under a tight plan: on a loaded
// machine its first read (a fresh pool, the catalog read cold) can
// outlast a 400 ms statement timeout (CI, cold build, load 12). So a 503
// there is tried again, for up to 20 s; once prepared, the reads are
// quick and the step under test meets the tight plan as intended.
func lockItems(t *testing.T, s *testserver.Server, p *testserver.Project) (release func()) {
	t.Helper()
	for _, path := range []string{"/items", "/items/1"} {
		deadline := time.Now().Add(20 * time.Second)
		for {
			r := s.API(p, "GET", path, nil)
			if r.Status == 200 {
				break
			}
			if r.Status != 503 || time.Now().After(deadline) {
				t.Fatalf("preparing GET %s: %d %s", path, r.Status, r.Raw)
			}
			time.Sleep(50 * time.Millisecond)
		}
	}
	tx, err := s.Svc.DB.BeginTx(context.Background(), nil)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := tx.Exec(`LOCK TABLE ` + schema.QuoteIdent(schema.ProjectSchema(p.ID)) + `.items IN ACCESS EXCLUSIVE MODE`); err != nil {
		t.Fatal(err)
	}
	done := false
	release = func() {
		if !done {
			done = true
			_ = tx.Rollback()
		}
	}
	t.Cleanup(release)
	return release
}

// waitForLockWaiters waits until n statements wait for a lock on the
// project's items table.
func waitForLockWaiters(t *testing.T, db *sql.DB, p *testserver.Project, n int) {
	t.Helper()
	deadline := time.Now().Add(20 * time.Second)
	for {
		var waiting int
		err := db.QueryRow(`SELECT count(*) FROM pg_locks l JOIN pg_class c ON c.oid = l.relation
			JOIN pg_namespace ns ON ns.oid = c.relnamespace
			WHERE NOT l.granted AND c.relname = 'items' AND ns.nspname = $1`, schema.ProjectSchema(p.ID)).Scan(&waiting)
		if err != nil {
			t.Fatal(err)
		}
		if waiting >= n {
			return
		}
		if time.Now().After(deadline) {
			t.Fatalf("%d statements wait on the lock, want %d", waiting, n)
		}
		time.Sleep(20 * time.Millisecond)
	}
}

func TestAProjectWhoseStatementsFillItsShareQueuesThen503sWhileAnotherProjectAnswers(t *testing.T) {
	t.Parallel()
	// A pool of 8 gives each project 2 statements at once (a quarter).
	s := testserver.New(t, testserver.WithConfig(func(c *service.Config) { c.ProjectQueueWait = 300 * time.Millisecond }))
	a := s.NewProject(slowSchema)
	b := s.NewProject(slowSchema)
	s.API(a, "POST", "/items", map[string]any{"title": "a"}).Must(t, 201)
	s.API(b, "POST", "/items", map[string]any{"title": "b"}).Must(t, 201)
	release := lockItems(t, s, a)

	// A's two slow statements take its whole share (and wait in PostgreSQL).
	held := make(chan answer, 2)
	for range 2 {
		go func() { held <- get(s.URL+"/v1/"+a.ID+"/items", a.Key, 30*time.Second) }()
	}
	waitForLockWaiters(t, s.Svc.DB, a, 2)
	// Once they have run for a while they count as slow, and A borrows
	// no idle connections beyond its share (fairshare.BorrowAge).
	time.Sleep(2 * fairshare.BorrowAge)

	// More of A's requests, as many as the whole pool, wait their turn
	// for the queue wait and are turned away instead of taking B's
	// connections.
	more := make(chan answer, 8)
	for range 8 {
		go func() { more <- get(s.URL+"/v1/"+a.ID+"/items/1", a.Key, 10*time.Second) }()
	}
	for range 8 {
		busy := <-more
		if busy.err != nil || busy.status != 503 || busy.code != "SERVICE_UNAVAILABLE" {
			t.Fatalf("A beyond its share: %d %s %v, want 503 SERVICE_UNAVAILABLE", busy.status, busy.code, busy.err)
		}
		if busy.header.Get("Retry-After") != "1" || !strings.Contains(busy.msg, "too many slow requests") {
			t.Fatalf("A beyond its share: Retry-After %q, message %q", busy.header.Get("Retry-After"), busy.msg)
		}
		if busy.took < 300*time.Millisecond {
			t.Fatalf("turned away after %v, before the 300 ms queue wait", busy.took)
		}
	}

	if n := s.Svc.FairShareStats().Rejected; n != 8 {
		t.Fatalf("rejections counted: %d, want 8", n)
	}

	// B still finds connections in the shared pool.
	for _, path := range []string{"/items", "/items/1"} {
		if got := get(s.URL+"/v1/"+b.ID+path, b.Key, 5*time.Second); got.err != nil || got.status != 200 {
			t.Fatalf("B %s while A is saturated: %d %v", path, got.status, got.err)
		}
	}

	// When A's slow statements end, its slots are free again.
	release()
	for range 2 {
		if got := <-held; got.err != nil || got.status != 200 {
			t.Fatalf("A's held statement: %d %v", got.status, got.err)
		}
	}
	if got := get(s.URL+"/v1/"+a.ID+"/items/1", a.Key, 5*time.Second); got.status != 200 {
		t.Fatalf("A after its slow statements ended: %d %s", got.status, got.msg)
	}
}

// roomy is a plan set whose plan name has the default plans' generous
// statement timeout: the setup of a test whose step under test runs
// beside it under a tight plan of the same name (testserver.Beside).
func roomy(name string) plans.Set {
	return plans.Set{name: {Name: name, RatePerHour: plans.Unlimited, Projects: plans.Unlimited, StatementTimeout: 30 * time.Second}}
}

func TestAStatementLongerThanItsPlanAllowsIsCancelledAndAnswers503(t *testing.T) {
	t.Parallel()
	const timeout = 400 * time.Millisecond
	tight := plans.Plan{Name: "tight", RatePerHour: plans.Unlimited, Projects: plans.Unlimited, StatementTimeout: timeout}
	setup := testserver.New(t, testserver.WithPlans(roomy("tight"), "tight"))
	p := setup.NewProject(slowSchema)
	setup.API(p, "POST", "/items", map[string]any{"title": "x"}).Must(t, 201)
	s := setup.Beside(testserver.WithPlans(plans.Set{"tight": tight}, "tight"))
	release := lockItems(t, s, p)

	// A write cut by the timeout answers the same and writes nothing.
	cut := s.API(p, "POST", "/items", map[string]any{"title": "cut"})
	if cut.Status != 503 || !strings.Contains(cut.Message(), "its plan allows") {
		t.Fatalf("POST past the plan's timeout: %d %s", cut.Status, cut.Raw)
	}

	for _, path := range []string{"/items", "/items/1"} {
		got := get(s.URL+"/v1/"+p.ID+path, p.Key, 20*time.Second)
		if got.err != nil || got.status != 503 || got.code != "SERVICE_UNAVAILABLE" {
			t.Fatalf("GET %s past the plan's timeout: %d %s %v", path, got.status, got.code, got.err)
		}
		if !strings.Contains(got.msg, "longer than the 400ms its plan allows") {
			t.Fatalf("GET %s: message %q does not say the plan's timeout cut it", path, got.msg)
		}
		if got.took > timeout+5*time.Second {
			t.Fatalf("GET %s answered after %v", path, got.took)
		}
	}
	if n := s.Svc.FairShareStats().TimedOut; n != 3 {
		t.Fatalf("statement timeouts counted: %d, want 3", n)
	}
	// The query was cancelled in PostgreSQL, not left waiting on the lock.
	waitForNoLockWaiters(t, s.Svc.DB, p)
	release()
	s.API(p, "GET", "/items/1", nil).Must(t, 200)
	if n := len(s.API(p, "GET", "/items", nil).Must(t, 200).List()); n != 1 {
		t.Fatalf("%d items after the cut create, want 1", n)
	}
}

// waitForNoLockWaiters fails unless, within a few seconds, nothing waits
// for a lock on the project's items table.
func waitForNoLockWaiters(t *testing.T, db *sql.DB, p *testserver.Project) {
	t.Helper()
	deadline := time.Now().Add(5 * time.Second)
	for {
		var waiting int
		if err := db.QueryRow(`SELECT count(*) FROM pg_locks l JOIN pg_class c ON c.oid = l.relation
			JOIN pg_namespace ns ON ns.oid = c.relnamespace
			WHERE NOT l.granted AND c.relname = 'items' AND ns.nspname = $1`, schema.ProjectSchema(p.ID)).Scan(&waiting); err != nil {
			t.Fatal(err)
		}
		if waiting == 0 {
			return
		}
		if time.Now().After(deadline) {
			t.Fatalf("%d statements still wait on the lock after their plan's timeout", waiting)
		}
		time.Sleep(20 * time.Millisecond)
	}
}
