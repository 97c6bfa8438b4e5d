package service_test

import (
	"context"
	"database/sql"
	"net/http"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/tablesmith/tablesmith/internal/move"
	"github.com/tablesmith/tablesmith/internal/service"
	"github.com/tablesmith/tablesmith/internal/testcluster"
	"github.com/tablesmith/tablesmith/internal/testpg"
	"github.com/tablesmith/tablesmith/internal/testserver"
	"github.com/tablesmith/tablesmith/schema"
)

const booksSchema = `{"tables": [{"name": "books", "columns": [
	{"name": "title", "type": "text", "required": true},
	{"name": "year", "type": "integer", "index": true}]}]}`

// twoServers is a control database with two data servers: "east", the
// private cluster's primary (another PostgreSQL server, with its
// streaming replica), and "west", a database of the local server.
type twoServers struct {
	control, east, west string
	cluster             *testcluster.Cluster
}

func newTwoServers(t *testing.T) twoServers {
	t.Helper()
	c := testcluster.Get(t)
	return twoServers{control: testpg.NewDatabase(t), east: c.PrimaryURL(testcluster.Database), west: testpg.NewDatabase(t), cluster: c}
}

// node starts a node of the topology; replicas gives east its replica.
func (ts twoServers) node(t *testing.T, replicas bool) *testserver.Server {
	t.Helper()
	east := service.DataServer{Name: "east", URL: ts.east}
	if replicas {
		east.ReplicaURLs = []string{ts.cluster.ReplicaURL(testcluster.Database)}
	}
	return testserver.New(t, testserver.WithConfig(func(cfg *service.Config) {
		cfg.DatabaseURL = ts.control
		cfg.DataServers = []service.DataServer{east, {Name: "west", URL: ts.west}}
	}))
}

func open(t *testing.T, url string) *sql.DB {
	t.Helper()
	db, err := sql.Open("postgres", url)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { db.Close() })
	return db
}

// tableOn says whether the project's books table exists in the database.
func tableOn(t *testing.T, db *sql.DB, projectID string) bool {
	t.Helper()
	var ok bool
	if err := db.QueryRow(`SELECT to_regclass($1) IS NOT NULL`, schema.ProjectSchema(projectID)+".books").Scan(&ok); err != nil {
		t.Fatal(err)
	}
	return ok
}

func placement(t *testing.T, control *sql.DB, projectID string) string {
	t.Helper()
	var name sql.NullString
	if err := control.QueryRow(`SELECT data_server FROM tablesmith.projects WHERE id = $1`, projectID).Scan(&name); err != nil {
		t.Fatal(err)
	}
	return name.String
}

// TestProjectsArePlacedOnTheDataServerWithFewestAndServedFromIt: new
// projects go to the data server with the fewest projects (by name among
// equals), never to database_url; their tables are created there and only
// there, and the generated API writes and reads them there, from any node.
func TestProjectsArePlacedOnTheDataServerWithFewestAndServedFromIt(t *testing.T) {
	ts := newTwoServers(t)
	a, b := ts.node(t, false), ts.node(t, false)
	control, east, west := open(t, ts.control), open(t, ts.east), open(t, ts.west)

	var ps []*testserver.Project
	for range 3 {
		ps = append(ps, a.NewProject(booksSchema))
	}
	want := []string{"east", "west", "east"}
	for i, p := range ps {
		if got := placement(t, control, p.ID); got != want[i] {
			t.Fatalf("project %d placed on %q, want %q", i, got, want[i])
		}
		onEast, onWest, onControl := tableOn(t, east, p.ID), tableOn(t, west, p.ID), tableOn(t, control, p.ID)
		if onEast != (want[i] == "east") || onWest != (want[i] == "west") || onControl {
			t.Fatalf("project %d (%s): table on east %v, west %v, control %v", i, want[i], onEast, onWest, onControl)
		}
		// Written through one node, read through the other.
		rec := a.API(p, "POST", "/books", map[string]any{"title": "Dune", "year": 1965}).Must(t, 201).Data()
		got := b.API(p, "GET", "/books?filter[year]=1965", nil).Must(t, 200).List()
		if len(got) != 1 || got[0]["id"] != rec["id"] {
			t.Fatalf("project %d: list on the other node: %v", i, got)
		}
	}
	// The rows are on the data server itself.
	var n int
	if err := west.QueryRow(`SELECT count(*) FROM ` + schema.ProjectSchema(ps[1].ID) + `.books`).Scan(&n); err != nil || n != 1 {
		t.Fatalf("rows on west: %d, %v", n, err)
	}
	// A project's key never opens another project, whichever server.
	other := ps[0]
	if r := a.Do("GET", "/v1/"+ps[1].ID+"/books", other.Key, nil); r.Status != http.StatusUnauthorized && r.Status != http.StatusForbidden {
		t.Fatalf("another project's key: %d %s", r.Status, r.Raw)
	}
}

// TestAGenerateOnADataServerMigratesAndBuildsItsIndexesThere: a second
// generate alters the table on the data server, idempotent writes work
// there (their records are in the data server's tablesmith schema), and
// the background index build runs there.
func TestAGenerateOnADataServerMigratesAndBuildsItsIndexesThere(t *testing.T) {
	ts := newTwoServers(t)
	s := ts.node(t, false)
	control, east := open(t, ts.control), open(t, ts.east)
	p := s.NewProject(booksSchema)
	if placement(t, control, p.ID) != "east" {
		t.Fatal("expected east")
	}
	s.Publish(p.Session, p.ID, `{"tables": [{"name": "books", "columns": [
		{"name": "title", "type": "text", "required": true},
		{"name": "year", "type": "integer", "index": true},
		{"name": "isbn", "type": "text", "unique": true}]}]}`)
	r1 := s.Do("POST", "/v1/"+p.ID+"/books", p.Key, map[string]any{"title": "Emma", "isbn": "1"}, "Idempotency-Key", "k1").Must(t, 201)
	r2 := s.Do("POST", "/v1/"+p.ID+"/books", p.Key, map[string]any{"title": "Emma", "isbn": "1"}, "Idempotency-Key", "k1").Must(t, 201)
	if r1.Data()["id"] != r2.Data()["id"] {
		t.Fatalf("the repeated idempotent create made a second record: %v, %v", r1.Data(), r2.Data())
	}
	var n int
	if err := east.QueryRow(`SELECT count(*) FROM tablesmith.idempotency_keys WHERE project_id = $1`, p.ID).Scan(&n); err != nil || n != 1 {
		t.Fatalf("idempotency records on east: %d, %v", n, err)
	}
	deadline := time.Now().Add(30 * time.Second)
	for {
		var valid bool
		err := east.QueryRow(`SELECT coalesce(bool_and(i.indisvalid), false) FROM pg_index i JOIN pg_class c ON c.oid = i.indexrelid
			JOIN pg_namespace ns ON ns.oid = c.relnamespace WHERE ns.nspname = $1 AND c.relname = 'books_year_sort'`, schema.ProjectSchema(p.ID)).Scan(&valid)
		if err != nil {
			t.Fatal(err)
		}
		var pending int
		if err := control.QueryRow(`SELECT count(*) FROM tablesmith.index_builds WHERE project_id = $1 AND state IN ('pending', 'building')`, p.ID).Scan(&pending); err != nil {
			t.Fatal(err)
		}
		if valid && pending == 0 {
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("index on east valid %v, builds pending %d", valid, pending)
		}
		time.Sleep(100 * time.Millisecond)
	}
}

// TestTheControlSchemaCatchesUpWithADataServersCommittedMigration: a node
// that stops between the data server's commit and the control schema's
// leaves the version behind; the next load of the project takes it from
// the data server, so the API serves the schema the tables have.
func TestTheControlSchemaCatchesUpWithADataServersCommittedMigration(t *testing.T) {
	ts := newTwoServers(t)
	s := ts.node(t, false)
	control := open(t, ts.control)
	p := s.NewProject(booksSchema)
	s.Publish(p.Session, p.ID, `{"tables": [{"name": "books", "columns": [
		{"name": "title", "type": "text", "required": true},
		{"name": "year", "type": "integer", "index": true},
		{"name": "pages", "type": "integer"}]}]}`)
	// Undo the control schema's record of version 2, as if its commit
	// never happened.
	for _, st := range []string{
		`DELETE FROM tablesmith.schema_versions WHERE project_id = $1 AND version = 2`,
		`DELETE FROM tablesmith.index_builds WHERE project_id = $1 AND version = 2`,
		`UPDATE tablesmith.projects SET published_version = 1 WHERE id = $1`,
	} {
		if _, err := control.Exec(st, p.ID); err != nil {
			t.Fatal(err)
		}
	}
	s.Svc.Registry.Invalidate(p.ID)
	rec := s.API(p, "POST", "/books", map[string]any{"title": "Ulysses", "pages": 730}).Must(t, 201).Data()
	if rec["pages"] != float64(730) {
		t.Fatalf("the API did not serve version 2: %v", rec)
	}
	var v int
	if err := control.QueryRow(`SELECT published_version FROM tablesmith.projects WHERE id = $1`, p.ID).Scan(&v); err != nil || v != 2 {
		t.Fatalf("control published_version %d, %v", v, err)
	}
	r := s.Do("GET", "/api/projects/"+p.ID+"/schema/versions", p.Session, nil).Must(t, 200)
	if len(r.List()) != 2 {
		t.Fatalf("versions: %s", r.Raw)
	}
}

// TestDeletingAProjectDropsItsSchemaOnItsDataServer.
func TestDeletingAProjectDropsItsSchemaOnItsDataServer(t *testing.T) {
	ts := newTwoServers(t)
	s := ts.node(t, false)
	east := open(t, ts.east)
	p := s.NewProject(booksSchema)
	if !tableOn(t, east, p.ID) {
		t.Fatal("no table on east")
	}
	s.Do("DELETE", "/api/projects/"+p.ID, p.Session, nil).Must(t, 200)
	if tableOn(t, east, p.ID) {
		t.Fatal("the schema is still on east")
	}
	var left int
	if err := open(t, ts.control).QueryRow(`SELECT count(*) FROM tablesmith.schema_drops`).Scan(&left); err != nil || left != 0 {
		t.Fatalf("drops left listed: %d, %v", left, err)
	}
	if r := s.API(p, "GET", "/books", nil); r.Status != http.StatusUnauthorized && r.Status != http.StatusNotFound {
		t.Fatalf("deleted project answers %d", r.Status)
	}
}

// TestADataServersReplicaServesItsProjectsReads: a data server's own
// replica_url serves its projects' reads, and the client's own write is
// read back at once.
func TestADataServersReplicaServesItsProjectsReads(t *testing.T) {
	ts := newTwoServers(t)
	s := ts.node(t, true)
	p := s.NewProject(booksSchema) // east
	deadline := time.Now().Add(10 * time.Second)
	for {
		st, _ := s.Svc.ReplicaStats()
		if len(st) == 1 && st[0].Up {
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("east's replica not up: %+v", st)
		}
		time.Sleep(50 * time.Millisecond)
	}
	for i := range 20 {
		rec := s.API(p, "POST", "/books", map[string]any{"title": "T", "year": 2000 + i}).Must(t, 201).Data()
		got := s.API(p, "GET", "/books/"+jsonID(rec["id"]), nil).Must(t, 200).Data()
		if got["year"] != float64(2000+i) {
			t.Fatalf("read %d after write: %v", i, got)
		}
	}
	// Another client (no write of its own) reads from the replica.
	st, _ := s.Svc.ReplicaStats()
	before := st[0].Reads
	reader := s.Do("POST", "/api/projects/"+p.ID+"/keys", p.Session, map[string]any{"name": "reader", "scope": "read"}).Must(t, 201).Data()["key"].(string)
	deadline = time.Now().Add(10 * time.Second)
	for {
		s.Do("GET", "/v1/"+p.ID+"/books?count=none", reader, nil).Must(t, 200)
		if st, _ := s.Svc.ReplicaStats(); st[0].Reads > before {
			break
		}
		if time.Now().After(deadline) {
			t.Fatal("no read reached east's replica")
		}
		time.Sleep(20 * time.Millisecond)
	}
}

// TestADataServerThatIsDownDoesNotStopTheNodeOrTheOtherServersProjects.
func TestADataServerThatIsDownDoesNotStopTheNodeOrTheOtherServersProjects(t *testing.T) {
	ts := newTwoServers(t)
	first := ts.node(t, false)
	p := first.NewProject(booksSchema) // east
	q := first.NewProject(booksSchema) // west
	first.API(q, "POST", "/books", map[string]any{"title": "A"}).Must(t, 201)
	// A node whose "east" points at a server that is not there.
	s := testserver.New(t, testserver.WithConfig(func(cfg *service.Config) {
		cfg.DatabaseURL = ts.control
		cfg.RequestTimeout = 5 * time.Second // east refuses at once; the margin is for the new projects' setup
		cfg.DataServers = []service.DataServer{{Name: "east", URL: "postgres://postgres@127.0.0.1:1/none?sslmode=disable&connect_timeout=1"}, {Name: "west", URL: ts.west}}
	}))
	if got := s.API(q, "GET", "/books", nil).Must(t, 200).List(); len(got) != 1 {
		t.Fatalf("west's project: %v", got)
	}
	r := s.API(p, "GET", "/books", nil)
	if r.Status != http.StatusServiceUnavailable || r.ErrorCode() == "" {
		t.Fatalf("east's project on a node without east: %d %s", r.Status, r.Raw)
	}
	// A new project goes to west although east has fewer projects.
	for range 2 {
		n := s.NewProject(booksSchema)
		if got := placement(t, open(t, ts.control), n.ID); got != "west" {
			t.Fatalf("a new project on a node whose east is down went to %q", got)
		}
	}
}

func jsonID(v any) string {
	switch id := v.(type) {
	case float64:
		return strconv.FormatFloat(id, 'f', -1, 64)
	case string:
		return id
	}
	return ""
}

const libraryWithRealtime = `{"tables": [
	{"name": "authors", "realtime": true, "columns": [
		{"name": "name", "type": "text", "required": true},
		{"name": "mentor_id", "type": "integer", "references": {"table": "authors"}}]},
	{"name": "books", "columns": [
		{"name": "title", "type": "text", "required": true},
		{"name": "year", "type": "integer", "index": true},
		{"name": "t", "type": "text"},
		{"name": "author_id", "type": "integer", "references": {"table": "authors"}, "required": true}]}]}`

// TestMoveProjectPausesWritesKeepsReadsAndSwitchesEveryNode: while a
// project moves from east to west its reads go on and its writes answer
// 503 with Retry-After on every node; after the switch both nodes serve
// it from west with every row, ids go on without reuse, the old copy
// refuses writes until the move is confirmed, and confirming drops it.
func TestMoveProjectPausesWritesKeepsReadsAndSwitchesEveryNode(t *testing.T) {
	ts := newTwoServers(t)
	a, b := ts.node(t, false), ts.node(t, false)
	control, east, west := open(t, ts.control), open(t, ts.east), open(t, ts.west)
	p := a.NewProject(libraryWithRealtime)
	if placement(t, control, p.ID) != "east" {
		t.Fatal("expected east")
	}
	// An author whose mentor comes after them: the copy must not check
	// foreign keys row by row.
	first := a.API(p, "POST", "/authors", map[string]any{"name": "Ann"}).Must(t, 201).Data()
	second := a.API(p, "POST", "/authors", map[string]any{"name": "Bo"}).Must(t, 201).Data()
	a.API(p, "PATCH", "/authors/"+jsonID(first["id"]), map[string]any{"mentor_id": second["id"]}).Must(t, 200)
	var lastID float64
	for i := range 30 {
		rec := a.API(p, "POST", "/books", map[string]any{"title": "B", "year": 1990 + i, "author_id": first["id"]}).Must(t, 201).Data()
		lastID = rec["id"].(float64)
	}
	a.API(p, "DELETE", "/books/"+jsonID(lastID), nil).Must(t, 200) // the sequence is past the largest id

	var during []string
	res, err := move.Project(context.Background(), a.Svc.Store, p.ID, "west", move.Options{BeforeSwitch: func() {
		for _, n := range []*testserver.Server{a, b} {
			if got := n.API(p, "GET", "/books?count=exact", nil).Must(t, 200); got.Body["meta"].(map[string]any)["total"] != float64(29) {
				during = append(during, "read during the move: "+string(got.Raw))
			}
			w := n.API(p, "POST", "/books", map[string]any{"title": "X", "author_id": first["id"]})
			if w.Status != http.StatusServiceUnavailable || w.Header.Get("Retry-After") == "" {
				during = append(during, "write during the move: "+strconv.Itoa(w.Status)+" "+string(w.Raw))
			}
		}
	}})
	if err != nil {
		t.Fatal(err)
	}
	if len(during) > 0 {
		t.Fatal(during)
	}
	if res.Rows["books"] != 29 || res.Rows["authors"] != 2 || res.From != "east" || res.To != "west" {
		t.Fatalf("result: %+v", res)
	}
	if placement(t, control, p.ID) != "west" || !tableOn(t, west, p.ID) || !tableOn(t, east, p.ID) {
		t.Fatal("after the move: placement or copies wrong")
	}
	// Both nodes serve it from west once the switch's NOTIFY reaches
	// them; until then a write answers 503 with Retry-After.
	for _, n := range []*testserver.Server{a, b} {
		rec := writeRetrying(t, n, p, "/books", map[string]any{"title": "After", "author_id": second["id"]}).Data()
		if rec["id"].(float64) <= lastID {
			t.Fatalf("id %v reuses one at or below %v", rec["id"], lastID)
		}
		got := n.API(p, "GET", "/authors/"+jsonID(first["id"]), nil).Must(t, 200).Data()
		if got["mentor_id"] != second["id"] {
			t.Fatalf("author after the move: %v", got)
		}
	}
	var onWest int
	if err := west.QueryRow(`SELECT count(*) FROM ` + schema.ProjectSchema(p.ID) + `.books`).Scan(&onWest); err != nil || onWest != 31 {
		t.Fatalf("books on west: %d, %v", onWest, err)
	}
	// The old copy refuses writes.
	_, err = east.Exec(`INSERT INTO ` + schema.ProjectSchema(p.ID) + `.authors (name) VALUES ('late')`)
	if err == nil || !strings.Contains(err.Error(), "moved") {
		t.Fatalf("a write to the old copy: %v", err)
	}
	// A generate after the move migrates west.
	a.Publish(p.Session, p.ID, strings.Replace(libraryWithRealtime, `{"name": "title", "type": "text", "required": true},`,
		`{"name": "title", "type": "text", "required": true}, {"name": "pages", "type": "integer"},`, 1))
	a.API(p, "POST", "/books", map[string]any{"title": "P", "pages": 10, "author_id": first["id"]}).Must(t, 201)

	if n, err := move.Confirm(context.Background(), a.Svc.Store, p.ID); err != nil || n != 1 {
		t.Fatalf("confirm: %d, %v", n, err)
	}
	if tableOn(t, east, p.ID) {
		t.Fatal("the old copy is still on east after the confirmation")
	}
}

// TestAMoveThatCannotFinishResumesWritesOnTheOldCopy: a move to a server
// that already holds a schema of the project (not one a move left) stops
// before pausing anything, and a move whose copy fails leaves the
// project where it was, writable.
func TestAMoveThatCannotFinishResumesWritesOnTheOldCopy(t *testing.T) {
	ts := newTwoServers(t)
	s := ts.node(t, false)
	control, west := open(t, ts.control), open(t, ts.west)
	p := s.NewProject(booksSchema)
	if _, err := west.Exec(`CREATE SCHEMA ` + schema.ProjectSchema(p.ID)); err != nil {
		t.Fatal(err)
	}
	if _, err := move.Project(context.Background(), s.Svc.Store, p.ID, "west", move.Options{}); err == nil || !strings.Contains(err.Error(), "already has a schema") {
		t.Fatalf("move onto a foreign schema: %v", err)
	}
	if _, err := west.Exec(`DROP SCHEMA ` + schema.ProjectSchema(p.ID)); err != nil {
		t.Fatal(err)
	}
	// A write in flight that does not end within the lock timeout: the
	// move gives up, and writes resume on the old copy.
	s.API(p, "POST", "/books", map[string]any{"title": "A"}).Must(t, 201)
	east := open(t, ts.east)
	tx, err := east.Begin()
	if err != nil {
		t.Fatal(err)
	}
	if _, err := tx.Exec(`UPDATE ` + schema.ProjectSchema(p.ID) + `.books SET year = 1 WHERE false`); err != nil {
		t.Fatal(err)
	}
	_, err = move.Project(context.Background(), s.Svc.Store, p.ID, "west", move.Options{LockTimeout: 300 * time.Millisecond})
	tx.Rollback()
	if err == nil || !strings.Contains(err.Error(), "writes in flight") {
		t.Fatalf("move with a write in flight: %v", err)
	}
	if placement(t, control, p.ID) != "east" || tableOn(t, west, p.ID) {
		t.Fatal("a failed move changed the placement or left a copy")
	}
	s.API(p, "POST", "/books", map[string]any{"title": "B"}).Must(t, 201)
}

// writeRetrying creates a record as a client honouring Retry-After does:
// again after a 503, for up to 5 s.
func writeRetrying(t *testing.T, s *testserver.Server, p *testserver.Project, path string, body any) *testserver.Response {
	t.Helper()
	deadline := time.Now().Add(5 * time.Second)
	for {
		r := s.API(p, "POST", path, body)
		if r.Status == http.StatusCreated {
			return r
		}
		if r.Status != http.StatusServiceUnavailable || r.Header.Get("Retry-After") == "" || time.Now().After(deadline) {
			t.Fatalf("write: %d %s", r.Status, r.Raw)
		}
		time.Sleep(50 * time.Millisecond)
	}
}

// TestRowChecksOfAPlanRunOnTheProjectsDataServer: the plan preview's
// checks of existing rows, and a generate those rows refuse, read the
// project's tables on its data server.
func TestRowChecksOfAPlanRunOnTheProjectsDataServer(t *testing.T) {
	ts := newTwoServers(t)
	s := ts.node(t, false)
	p := s.NewProject(booksSchema)
	s.API(p, "POST", "/books", map[string]any{"title": "No year"}).Must(t, 201)
	required := `{"tables": [{"name": "books", "columns": [
		{"name": "title", "type": "text", "required": true},
		{"name": "year", "type": "integer", "index": true, "required": true}]}]}`
	s.Do("PUT", "/api/projects/"+p.ID+"/schema", p.Session, required).Must(t, 200)
	plan := s.Do("GET", "/api/projects/"+p.ID+"/schema/plan?check=true", p.Session, nil).Must(t, 200).Data()
	if vs, _ := plan["violations"].([]any); len(vs) != 1 {
		t.Fatalf("plan violations = %v", plan["violations"])
	}
	if r := s.Do("POST", "/api/projects/"+p.ID+"/generate", p.Session, map[string]any{"confirm_destructive": true}); r.Status != http.StatusConflict {
		t.Fatalf("generate over a row without a year: %d %s", r.Status, r.Raw)
	}
}
