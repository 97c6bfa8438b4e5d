package apihttp_test

import (
	"context"
	"strings"
	"testing"

	"github.com/tablesmith/tablesmith/internal/testserver"
)

// publishBehindTheRegistry applies a rename and records a new version the
// way a generate on another node would, without this node hearing of it
// yet: the next request is built from the old version.
func publishBehindTheRegistry(t *testing.T, s *testserver.Server, projectID, ddl, doc string) {
	t.Helper()
	ctx := context.Background()
	tx, err := s.Svc.DB.BeginTx(ctx, nil)
	if err != nil {
		t.Fatal(err)
	}
	defer tx.Rollback()
	if _, err := tx.ExecContext(ctx, strings.ReplaceAll(ddl, "$schema", "p_"+projectID)); err != nil {
		t.Fatal(err)
	}
	if _, err := tx.ExecContext(ctx, `INSERT INTO tablesmith.schema_versions (project_id, version, document)
		SELECT id, published_version + 1, $2 FROM tablesmith.projects WHERE id = $1`, projectID, doc); err != nil {
		t.Fatal(err)
	}
	if _, err := tx.ExecContext(ctx, `UPDATE tablesmith.projects SET published_version = published_version + 1 WHERE id = $1`, projectID); err != nil {
		t.Fatal(err)
	}
	if err := tx.Commit(); err != nil {
		t.Fatal(err)
	}
}

func TestARequestBuiltFromAReplacedVersionIsReplannedOrRetried(t *testing.T) {
	t.Parallel()
	s := testserver.New(t)
	p := s.NewProject(`{"tables": [{"name": "items", "columns": [{"name": "title", "type": "text"}]}]}`)
	s.API(p, "POST", "/items", map[string]any{"title": "first"}).Must(t, 201)
	// The list and the update run once before each change, so the
	// statements built from the old version are prepared when it happens.
	s.API(p, "GET", "/items", nil).Must(t, 200)

	// A read planned with "title" after the column became "label" runs
	// again against the new version.
	publishBehindTheRegistry(t, s, p.ID, `ALTER TABLE $schema.items RENAME COLUMN title TO label`,
		`{"tables": [{"name": "items", "columns": [{"name": "label", "type": "text"}]}]}`)
	got := s.API(p, "GET", "/items", nil).Must(t, 200).List()
	if len(got) != 1 || got[0]["label"] != "first" {
		t.Fatalf("re-planned read = %v", got)
	}

	// A write planned from the old version changed nothing: 503, retry.
	s.API(p, "PATCH", "/items/1", map[string]any{"label": "first"}).Must(t, 200)
	publishBehindTheRegistry(t, s, p.ID, `ALTER TABLE $schema.items RENAME COLUMN label TO heading`,
		`{"tables": [{"name": "items", "columns": [{"name": "heading", "type": "text"}]}]}`)
	res := s.API(p, "PATCH", "/items/1", map[string]any{"label": "changed"}).Must(t, 503)
	if res.ErrorCode() != "SERVICE_UNAVAILABLE" || res.Header.Get("Retry-After") == "" {
		t.Fatalf("stale write = %s", res.Raw)
	}
	if rec := s.API(p, "GET", "/items/1", nil).Must(t, 200).Data(); rec["heading"] != "first" {
		t.Fatalf("the stale write changed the record: %v", rec)
	}
	s.API(p, "PATCH", "/items/1", map[string]any{"heading": "changed"}).Must(t, 200)
}

// The generated API runs its statements prepared: once a table's get,
// list and create have run, the project's pool holds them, and running
// them again adds none.
func TestGeneratedStatementsRunPrepared(t *testing.T) {
	t.Parallel()
	s := testserver.New(t)
	p := s.NewProject(`{"tables": [{"name": "items", "columns": [{"name": "title", "type": "text"}]}]}`)
	entry, err := s.Svc.Registry.Get(context.Background(), p.ID)
	if err != nil {
		t.Fatal(err)
	}
	if entry.Tables == nil || !entry.Tables.Enabled() {
		t.Fatal("the project's statements are not prepared")
	}
	before := entry.Tables.Len()
	round := func() {
		s.API(p, "POST", "/items", map[string]any{"title": "x"}).Must(t, 201)
		s.API(p, "GET", "/items/1", nil).Must(t, 200)
		s.API(p, "GET", "/items?sort=-title", nil).Must(t, 200)
	}
	round()
	after := entry.Tables.Len()
	if after-before != 3 {
		t.Fatalf("statements held went from %d to %d, want three more", before, after)
	}
	round()
	if again := entry.Tables.Len(); again != after {
		t.Fatalf("running the same requests again changed the statements held from %d to %d", after, again)
	}
}
