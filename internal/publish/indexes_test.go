package publish_test

import (
	"context"
	"database/sql"
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/tablesmith/tablesmith/internal/service"
	"github.com/tablesmith/tablesmith/internal/store"
	"github.com/tablesmith/tablesmith/internal/testpg"
	"github.com/tablesmith/tablesmith/internal/testserver"
	"github.com/tablesmith/tablesmith/schema"
)

func TestMain(m *testing.M) { testpg.Main(m, "publish") }

// These tests do not run in parallel: every server's builder builds the
// package database's indexes, and each test wants its own options.

const itemsV1 = `{"tables": [{"name": "items", "columns": [{"name": "title", "type": "text"}, {"name": "score", "type": "integer"}]}]}`

const itemsV2 = `{"tables": [{"name": "items", "columns": [{"name": "title", "type": "text", "searchable": true}, {"name": "score", "type": "integer", "index": true}]}]}`

func exec(t *testing.T, db interface {
	ExecContext(context.Context, string, ...any) (sql.Result, error)
}, q string, args ...any) {
	t.Helper()
	if _, err := db.ExecContext(context.Background(), q, args...); err != nil {
		t.Fatalf("%s: %v", q, err)
	}
}

func rel(p *testserver.Project) string {
	return schema.QuoteIdent(schema.ProjectSchema(p.ID)) + ".items"
}

// holdWrite opens a transaction that has written to items and keeps it
// open: CREATE INDEX CONCURRENTLY creates its (INVALID) index, then waits
// for it to end.
func holdWrite(t *testing.T, s *testserver.Server, p *testserver.Project) *sql.Tx {
	t.Helper()
	tx, err := s.Svc.DB.Begin()
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { tx.Rollback() })
	exec(t, tx, `UPDATE `+rel(p)+` SET score = score WHERE id = 1`)
	return tx
}

// holdSnapshot opens a transaction that keeps a snapshot and locks
// nothing: CREATE INDEX CONCURRENTLY builds its (INVALID) index, then
// waits for it to end, while DDL on the table is free to go.
func holdSnapshot(t *testing.T, s *testserver.Server) *sql.Tx {
	t.Helper()
	tx, err := s.Svc.DB.BeginTx(context.Background(), &sql.TxOptions{Isolation: sql.LevelRepeatableRead})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { tx.Rollback() })
	exec(t, tx, `SELECT 1`)
	return tx
}

// generateWithin generates doc and fails the test if the answer takes
// longer than limit.
func generateWithin(t *testing.T, s *testserver.Server, p *testserver.Project, doc string, limit time.Duration) map[string]any {
	t.Helper()
	s.Do("PUT", "/api/projects/"+p.ID+"/schema", p.Session, doc).Must(t, 200)
	done := make(chan *testserver.Response, 1)
	go func() {
		done <- s.Do("POST", "/api/projects/"+p.ID+"/generate", p.Session, map[string]any{})
	}()
	select {
	case r := <-done:
		if r.Status != 200 {
			t.Fatalf("generate answered %d: %s", r.Status, r.Raw)
		}
		return r.Data()
	case <-time.After(limit):
		t.Fatalf("generate did not answer within %s: it waits for the index builds", limit)
	}
	return nil
}

// indexesOf reads a version's index status through the platform API.
func indexesOf(t *testing.T, s *testserver.Server, p *testserver.Project, version int) map[string]any {
	t.Helper()
	v := s.Do("GET", fmt.Sprintf("/api/projects/%s/schema/versions/%d", p.ID, version), p.Session, nil).Must(t, 200).Data()
	ix, ok := v["indexes"].(map[string]any)
	if !ok {
		t.Fatalf("version %d has no indexes: %v", version, v)
	}
	return ix
}

// waitFor polls a version's index status until cond holds (bounded).
func waitFor(t *testing.T, s *testserver.Server, p *testserver.Project, version int, what string, cond func(map[string]any) bool) map[string]any {
	t.Helper()
	deadline := time.Now().Add(60 * time.Second)
	for {
		ix := indexesOf(t, s, p, version)
		if cond(ix) {
			return ix
		}
		if time.Now().After(deadline) {
			t.Fatalf("index builds never became %s: %v", what, ix)
		}
		time.Sleep(25 * time.Millisecond)
	}
}

func itemStates(ix map[string]any) map[string]string {
	out := map[string]string{}
	items, _ := ix["items"].([]any)
	for _, it := range items {
		m := it.(map[string]any)
		out[m["name"].(string)] = m["state"].(string)
	}
	return out
}

// invalidIndexes lists the INVALID indexes of a project's schema.
func invalidIndexes(t *testing.T, s *testserver.Server, p *testserver.Project) []string {
	t.Helper()
	rows, err := s.Svc.DB.Query(`SELECT c.relname FROM pg_index i JOIN pg_class c ON c.oid = i.indexrelid
		WHERE c.relnamespace = $1::regnamespace AND NOT i.indisvalid`, schema.ProjectSchema(p.ID))
	if err != nil {
		t.Fatal(err)
	}
	defer rows.Close()
	var out []string
	for rows.Next() {
		var n string
		if err := rows.Scan(&n); err != nil {
			t.Fatal(err)
		}
		out = append(out, n)
	}
	return out
}

func validIndex(t *testing.T, s *testserver.Server, p *testserver.Project, name string) bool {
	t.Helper()
	var ok bool
	err := s.Svc.DB.QueryRow(`SELECT i.indisvalid FROM pg_index i JOIN pg_class c ON c.oid = i.indexrelid
		WHERE c.relnamespace = $1::regnamespace AND c.relname = $2`, schema.ProjectSchema(p.ID), name).Scan(&ok)
	if err == sql.ErrNoRows {
		return false
	}
	if err != nil {
		t.Fatal(err)
	}
	return ok
}

func fill(t *testing.T, s *testserver.Server, p *testserver.Project, n int) {
	t.Helper()
	exec(t, s.Svc.DB, `INSERT INTO `+rel(p)+` (title, score)
		SELECT (ARRAY['red', 'green', 'blue', 'amber'])[g % 4 + 1] || ' item ' || g, g % 100 FROM generate_series(1, $1) g`, n)
}

func TestGenerateAnswersBeforeItsIndexBuildsFinish(t *testing.T) {
	s := testserver.New(t)
	if !store.TrigramAvailable(context.Background(), s.Svc.DB) {
		t.Fatal("pg_trgm is not installed: searchable indexes cannot be tested")
	}
	p := s.NewProject(itemsV1)
	fill(t, s, p, 5000)
	tx := holdWrite(t, s, p)

	data := generateWithin(t, s, p, itemsV2, 20*time.Second)
	ix, _ := data["indexes"].(map[string]any)
	if ix["state"] != "building" || ix["total"] != float64(2) {
		t.Fatalf("generate's indexes = %v, want 2 builds under way", ix)
	}
	// The builder started and waits for the open write.
	building := waitFor(t, s, p, 2, "building", func(ix map[string]any) bool {
		return strings.Contains(fmt.Sprint(itemStates(ix)), "building")
	})
	if building["state"] != "building" || building["ready"] != float64(0) {
		t.Fatalf("status while building = %v", building)
	}
	// Requests are served meanwhile, on the new version.
	s.API(p, "GET", "/items?search=item&limit=1", nil).Must(t, 200)

	tx.Rollback()
	ready := waitFor(t, s, p, 2, "ready", func(ix map[string]any) bool { return ix["state"] == "ready" })
	if ready["ready"] != float64(2) || ready["failed"] != float64(0) {
		t.Fatalf("status when done = %v", ready)
	}
	for _, name := range []string{"items_title_trgm", "items_score_sort"} {
		if st := itemStates(ready)[name]; st != "ready" || !validIndex(t, s, p, name) {
			t.Errorf("%s: state %q, valid %v", name, st, validIndex(t, s, p, name))
		}
	}
	// The list of versions carries the same status.
	list := s.Do("GET", "/api/projects/"+p.ID+"/schema/versions", p.Session, nil).Must(t, 200).List()
	if got := list[0]["indexes"].(map[string]any)["state"]; list[0]["version"] != float64(2) || got != "ready" {
		t.Errorf("versions[0] = %v", list[0])
	}
	if got := list[1]["indexes"].(map[string]any); got["state"] != "ready" || got["total"] != float64(0) {
		t.Errorf("version 1 (nothing to build) = %v", got)
	}
}

func TestAFailedIndexBuildIsRetriedThenReportedFailedWithNoInvalidIndexLeft(t *testing.T) {
	s := testserver.New(t, testserver.WithConfig(func(c *service.Config) {
		c.IndexBuilds = store.BuildOptions{MaxAttempts: 3, Backoff: 20 * time.Millisecond}
	}))
	p := s.NewProject(itemsV1)
	fill(t, s, p, 100)
	// A title too long for a btree entry (random hex does not compress):
	// every build of a plain index on title fails. Generate refuses such a
	// row when it sees it (issue 35.6), so it arrives in a transaction
	// generate cannot see, committed once the build waits for it: a row
	// written behind the API's back, the one way left to fail a build.
	tx, err := s.Svc.DB.Begin()
	if err != nil {
		t.Fatal(err)
	}
	defer tx.Rollback()
	exec(t, tx, `INSERT INTO `+rel(p)+` (title, score) SELECT string_agg(md5(g::text), ''), 1 FROM generate_series(1, 300) g`)
	doc := `{"tables": [{"name": "items", "columns": [{"name": "title", "type": "text", "index": true}, {"name": "score", "type": "integer", "index": true}]}]}`
	generateWithin(t, s, p, doc, 20*time.Second)
	if err := tx.Commit(); err != nil {
		t.Fatal(err)
	}

	ix := waitFor(t, s, p, 2, "finished", func(ix map[string]any) bool { return ix["state"] != "building" })
	if ix["state"] != "failed" || ix["failed"] != float64(1) || ix["ready"] != float64(1) {
		t.Fatalf("status = %v, want one failed and one ready", ix)
	}
	for _, it := range ix["items"].([]any) {
		m := it.(map[string]any)
		if m["name"] != "items_title_sort" {
			continue
		}
		if m["state"] != "failed" || m["attempts"] != float64(3) || !strings.Contains(m["error"].(string), "index row") {
			t.Errorf("failed build = %v, want 3 attempts and PostgreSQL's error", m)
		}
	}
	if bad := invalidIndexes(t, s, p); len(bad) != 0 {
		t.Errorf("INVALID indexes left behind: %v", bad)
	}
	if validIndex(t, s, p, "items_title_sort") {
		t.Error("items_title_sort exists")
	}
	s.API(p, "POST", "/items", map[string]any{"title": "still writable", "score": 1}).Must(t, 201)
}

func TestIndexBuildsADeadNodeLeftArePickedUpByTheNextNodeToStart(t *testing.T) {
	a := testserver.New(t)
	p := a.NewProject(itemsV1)
	fill(t, a, p, 2000)
	doc := `{"tables": [{"name": "items", "columns": [{"name": "title", "type": "text"}, {"name": "score", "type": "integer", "index": true}]}]}`
	tx := holdWrite(t, a, p)
	generateWithin(t, a, p, doc, 20*time.Second)
	waitFor(t, a, p, 2, "building", func(ix map[string]any) bool { return itemStates(ix)["items_score_sort"] == "building" })

	// Node a dies in the middle of the build: its connection goes, the
	// concurrent build leaves an INVALID index and a row that says
	// building.
	var killed int
	deadline := time.Now().Add(30 * time.Second)
	for killed == 0 && time.Now().Before(deadline) {
		if err := a.Svc.DB.QueryRow(`SELECT count(pg_terminate_backend(pid)) FROM pg_stat_activity
			WHERE datname = current_database() AND query LIKE 'CREATE INDEX CONCURRENTLY%items_score_sort%'`).Scan(&killed); err != nil {
			t.Fatal(err)
		}
	}
	if killed == 0 {
		t.Fatal("no concurrent build to interrupt")
	}
	tx.Rollback()
	for time.Now().Before(deadline) && len(invalidIndexes(t, a, p)) == 0 {
		time.Sleep(10 * time.Millisecond)
	}
	if bad := invalidIndexes(t, a, p); len(bad) != 1 || bad[0] != "items_score_sort" {
		t.Fatalf("after the interruption INVALID indexes are %v", bad)
	}
	if st := itemStates(indexesOf(t, a, p, 2))["items_score_sort"]; st != "building" {
		t.Fatalf("the interrupted build says %q", st)
	}

	// A node that starts picks the build up, drops the INVALID index and
	// builds it again.
	b := testserver.New(t)
	ix := waitFor(t, b, p, 2, "ready", func(ix map[string]any) bool { return ix["state"] == "ready" })
	if ix["ready"] != float64(1) {
		t.Fatalf("status = %v", ix)
	}
	if !validIndex(t, b, p, "items_score_sort") || len(invalidIndexes(t, b, p)) != 0 {
		t.Fatalf("items_score_sort valid %v; INVALID: %v", validIndex(t, b, p, "items_score_sort"), invalidIndexes(t, b, p))
	}
}

func TestANewerGenerateSupersedesUnfinishedBuilds(t *testing.T) {
	s := testserver.New(t)
	p := s.NewProject(itemsV1)
	fill(t, s, p, 500)
	tx := holdWrite(t, s, p)
	v2 := `{"tables": [{"name": "items", "columns": [{"name": "title", "type": "text", "index": true}, {"name": "score", "type": "integer"}]}]}`
	generateWithin(t, s, p, v2, 20*time.Second)
	waitFor(t, s, p, 2, "building", func(ix map[string]any) bool { return itemStates(ix)["items_title_sort"] == "building" })
	// Version 3 (a new table) publishes while version 2's build waits:
	// that build is superseded and version 3 records the index it still
	// lacks.
	v3 := `{"tables": [{"name": "items", "columns": [{"name": "title", "type": "text", "index": true}, {"name": "score", "type": "integer"}]},
		{"name": "tags", "columns": [{"name": "label", "type": "text", "index": true}]}]}`
	data := generateWithin(t, s, p, v3, 20*time.Second)
	if got := itemStates(data["indexes"].(map[string]any)); len(got) != 1 || got["items_title_sort"] != "pending" {
		t.Fatalf("version 3 builds %v, want only items_title_sort pending (the new table's index is built with it)", got)
	}
	tx.Rollback()
	ix := waitFor(t, s, p, 3, "ready", func(ix map[string]any) bool { return ix["state"] == "ready" })
	if itemStates(ix)["items_title_sort"] != "ready" {
		t.Fatalf("version 3 = %v", ix)
	}
	if st := itemStates(indexesOf(t, s, p, 2))["items_title_sort"]; st != "superseded" {
		t.Fatalf("version 2's build is %q, want superseded", st)
	}
	if !validIndex(t, s, p, "items_title_sort") || len(invalidIndexes(t, s, p)) != 0 {
		t.Fatalf("items_title_sort valid %v; INVALID: %v", validIndex(t, s, p, "items_title_sort"), invalidIndexes(t, s, p))
	}
}

func TestDeletingAProjectCancelsItsRunningIndexBuild(t *testing.T) {
	s := testserver.New(t)
	p := s.NewProject(itemsV1)
	fill(t, s, p, 500)
	tx := holdSnapshot(t, s)
	generateWithin(t, s, p, `{"tables": [{"name": "items", "columns": [{"name": "title", "type": "text", "index": true}, {"name": "score", "type": "integer"}]}]}`, 20*time.Second)
	waitFor(t, s, p, 2, "building", func(ix map[string]any) bool { return itemStates(ix)["items_title_sort"] == "building" })

	done := make(chan int, 1)
	go func() { done <- s.Do("DELETE", "/api/projects/"+p.ID, p.Session, nil).Status }()
	select {
	case code := <-done:
		if code != 200 && code != 204 {
			t.Fatalf("delete answered %d", code)
		}
	case <-time.After(20 * time.Second):
		t.Fatal("delete waited for the index build")
	}
	tx.Rollback()
	var rows int
	if err := s.Svc.DB.QueryRow(`SELECT count(*) FROM tablesmith.index_builds WHERE project_id = $1`, p.ID).Scan(&rows); err != nil || rows != 0 {
		t.Fatalf("%d builds left (%v)", rows, err)
	}
	var schemas int
	if err := s.Svc.DB.QueryRow(`SELECT count(*) FROM pg_namespace WHERE nspname = $1`, schema.ProjectSchema(p.ID)).Scan(&schemas); err != nil || schemas != 0 {
		t.Fatalf("schema still there (%v)", err)
	}
}

// A project generated before plain indexes covered (column, id) has
// "<table>_<column>_idx" on the column alone. Its next generate, with
// the document unchanged, builds the (column, id) index in the
// background and drops the old one once the new one is valid.
func TestTheNextGenerateReplacesAColumnOnlyIndexWithItsColumnAndIdIndex(t *testing.T) {
	s := testserver.New(t)
	p := s.NewProject(itemsV2)
	fill(t, s, p, 500)
	waitFor(t, s, p, 1, "ready", func(ix map[string]any) bool { return ix["state"] == "ready" })
	// Make the schema what an older generate left.
	exec(t, s.Svc.DB, `DROP INDEX `+schema.QuoteIdent(schema.ProjectSchema(p.ID))+`.items_score_sort`)
	exec(t, s.Svc.DB, `CREATE INDEX items_score_idx ON `+rel(p)+` (score)`)

	data := generateWithin(t, s, p, itemsV2, 20*time.Second)
	if data["version"] != float64(2) {
		t.Fatalf("generate = %v", data)
	}
	ix := waitFor(t, s, p, 2, "ready", func(ix map[string]any) bool { return ix["state"] == "ready" })
	if st := itemStates(ix); st["items_score_sort"] != "ready" || len(st) != 1 {
		t.Fatalf("version 2 builds %v, want items_score_sort ready and nothing else", st)
	}
	if !validIndex(t, s, p, "items_score_sort") {
		t.Fatal("items_score_sort is not valid")
	}
	var def string
	if err := s.Svc.DB.QueryRow(`SELECT pg_get_indexdef(($1 || '.items_score_sort')::regclass)`, schema.QuoteIdent(schema.ProjectSchema(p.ID))).Scan(&def); err != nil {
		t.Fatal(err)
	}
	if !strings.HasSuffix(def, "(score, id)") {
		t.Errorf("items_score_sort = %s, want it on (score, id)", def)
	}
	var old int
	if err := s.Svc.DB.QueryRow(`SELECT count(*) FROM pg_class WHERE relname = 'items_score_idx' AND relnamespace = $1::regnamespace`, schema.ProjectSchema(p.ID)).Scan(&old); err != nil || old != 0 {
		t.Fatalf("items_score_idx still there (%d, %v)", old, err)
	}
	// A third generate has nothing left to build.
	generateWithin(t, s, p, itemsV2, 20*time.Second)
	if st := itemStates(indexesOf(t, s, p, 3)); len(st) != 0 {
		t.Errorf("version 3 builds %v, want none", st)
	}
}
