package platformhttp_test

import (
	"strings"
	"testing"

	"github.com/tablesmith/tablesmith/internal/testserver"
)

// A required column without a default cannot be added to a table that has
// rows: the plan check names the rows, and generate refuses. A backfill
// value fills the existing rows once; a record created afterwards without
// the column is refused like any record missing a required column, so the
// backfill did not become a default.
func TestABackfillFillsTheExistingRowsOnceAndIsNoDefault(t *testing.T) {
	t.Parallel()
	s := testserver.New(t)
	p := s.NewProject(`{"tables": [{"name": "books", "columns": [{"name": "title", "type": "text", "required": true}]}]}`)
	for _, title := range []string{"One", "Two", "Three"} {
		s.API(p, "POST", "/books", map[string]any{"title": title}).Must(t, 201)
	}
	without := `{"tables": [{"name": "books", "columns": [{"name": "title", "type": "text", "required": true},
		{"name": "year", "type": "integer", "required": true, "min": 1450}]}]}`
	s.Do("PUT", "/api/projects/"+p.ID+"/schema", p.Session, without).Must(t, 200)
	plan := s.Do("GET", "/api/projects/"+p.ID+"/schema/plan?check=true", p.Session, nil).Must(t, 200).Data()
	violations, _ := plan["violations"].([]any)
	if len(violations) != 1 || violations[0].(map[string]any)["count"] != float64(3) || violations[0].(map[string]any)["column"] != "year" {
		t.Fatalf("plan check without a backfill = %v, want the 3 rows of books.year", plan["violations"])
	}
	s.Do("POST", "/api/projects/"+p.ID+"/generate", p.Session, nil).Must(t, 409)

	// A backfill the column refuses is a validation problem at its path.
	refused := s.Do("PUT", "/api/projects/"+p.ID+"/schema", p.Session,
		strings.Replace(without, `"min": 1450}`, `"min": 1450, "backfill": 30}`, 1)).Must(t, 200).Body["meta"].(map[string]any)
	if problems, _ := refused["problems"].(map[string]any); problems["tables[0].columns[1].backfill"] == nil {
		t.Fatalf("a backfill under min saved with problems %v, want one at tables[0].columns[1].backfill", refused["problems"])
	}

	with := strings.Replace(without, `"min": 1450}`, `"min": 1450, "backfill": 1999}`, 1)
	s.Do("PUT", "/api/projects/"+p.ID+"/schema", p.Session, with).Must(t, 200)
	plan = s.Do("GET", "/api/projects/"+p.ID+"/schema/plan?check=true", p.Session, nil).Must(t, 200).Data()
	if v, _ := plan["violations"].([]any); len(v) != 0 {
		t.Fatalf("plan check with a backfill = %v, want no violation", v)
	}
	s.Do("POST", "/api/projects/"+p.ID+"/generate", p.Session, nil).Must(t, 200)
	for _, b := range s.API(p, "GET", "/books", nil).Must(t, 200).List() {
		if b["year"] != float64(1999) {
			t.Fatalf("existing row %v did not get the backfill 1999", b)
		}
	}
	missing := s.API(p, "POST", "/books", map[string]any{"title": "Four"}).Must(t, 400)
	if missing.Details()["year"] == nil {
		t.Fatalf("a new record without year = %s, want a 400 naming year (the backfill is no default)", missing.Raw)
	}
	s.API(p, "POST", "/books", map[string]any{"title": "Four", "year": 2024}).Must(t, 201)
	// The marker stays in the document and changes nothing on the next plan.
	if changes := s.Do("GET", "/api/projects/"+p.ID+"/schema/plan", p.Session, nil).Must(t, 200).Data()["changes"].([]any); len(changes) != 0 {
		t.Fatalf("after the generate the plan has changes %v", changes)
	}
}
