package apihttp_test

import (
	"context"
	"strings"
	"testing"

	"github.com/tablesmith/tablesmith/internal/testserver"
)

// sortSchema has every kind of column a generate indexes: index: true,
// a reference, unique and nullable, unique and required.
const sortSchema = `{"tables": [
	{"name": "people", "columns": [
		{"name": "age", "type": "integer", "index": true},
		{"name": "name", "type": "text", "index": true},
		{"name": "born", "type": "date", "index": true},
		{"name": "email", "type": "email", "unique": true, "required": true},
		{"name": "code", "type": "text", "unique": true},
		{"name": "is_active", "type": "boolean", "required": true, "default": true}]},
	{"name": "notes", "columns": [
		{"name": "person_id", "type": "integer", "references": {"table": "people"}},
		{"name": "body", "type": "text"}]}]}`

// Every list sorted by an indexed column, either way, with or without a
// filter and with each count mode, reads the column's index in order:
// no sort step, however big the table (issue 18: a tie-break against the
// sort direction made PostgreSQL sort the first group of equal values).
func TestSortedListsReadTheirIndexWithoutSorting(t *testing.T) {
	t.Parallel()
	s := testserver.New(t)
	p := s.NewProject(sortSchema)
	ctx := context.Background()
	execIn(t, s, p,
		// few distinct ages, names and dates: big groups of ties
		`INSERT INTO $s.people (age, name, born, email, code, is_active)
		 SELECT 18 + g % 60, 'name ' || (g % 300), date '2000-01-01' + (g % 400),
		        'p' || g || '@example.com', CASE WHEN g % 3 = 0 THEN NULL ELSE 'c' || g END, g % 2 = 0
		 FROM generate_series(1, 30000) g`,
		`INSERT INTO $s.notes (person_id, body) SELECT 1 + g % 30000, 'note ' || g FROM generate_series(1, 60000) g`,
		`VACUUM ANALYZE $s.people`,
		`VACUUM ANALYZE $s.notes`,
	)
	entry, err := s.Svc.Registry.Get(ctx, p.ID)
	if err != nil {
		t.Fatal(err)
	}
	explain := func(table, raw string) (types, indexes []string, plan []byte) {
		t.Helper()
		plan = explainList(t, s.Svc.DB, buildFor(t, entry, table, raw), false)
		types, indexes = planNodes(t, plan)
		return types, indexes, plan
	}
	sorts := func(types []string) bool {
		for _, n := range types {
			if strings.Contains(n, "Sort") {
				return true
			}
		}
		return false
	}

	columns := map[string]string{ // sortable indexed column → the index that serves it
		"age":       "people_age_sort",
		"name":      "people_name_sort",
		"born":      "people_born_sort",
		"email":     "people_email_key", // unique and required: no tie-break needed
		"code":      "people_code_sort", // unique but nullable: ties among NULLs
		"person_id": "notes_person_id_sort",
	}
	for col, index := range columns {
		table := "people"
		if col == "person_id" {
			table = "notes"
		}
		for _, dir := range []string{"", "-"} {
			for _, extra := range []string{"&count=none", "", "&count=exact", "&" + query("filter[is_active]", "true") + "&count=none", "&" + query("filter[is_active]", "true")} {
				if table == "notes" && strings.Contains(extra, "is_active") {
					continue
				}
				raw := "sort=" + dir + col + "&limit=20" + extra
				types, indexes, plan := explain(table, raw)
				if sorts(types) || !contains(indexes, index) {
					t.Errorf("%s?%s: plan nodes %v, indexes %v; want %s read in order, no sort:\n%s", table, raw, types, indexes, index, plan)
				}
			}
		}
		// and the answer is in that order, ties broken by id the same way
		r := s.API(p, "GET", "/"+table+"?sort=-"+col+"&limit=50&count=none", nil).Must(t, 200)
		rows := r.List()
		if len(rows) != 50 {
			t.Fatalf("%s sorted by -%s: %d rows", table, col, len(rows))
		}
	}

	// The people's most recent notes come from the (person_id, id) index:
	// a to-many include orders each person's rows by id.
	types, indexes, plan := explain("people", "include=notes&limit=20&count=none")
	if sorts(types) || !contains(indexes, "notes_person_id_sort") {
		t.Errorf("include=notes: plan nodes %v, indexes %v:\n%s", types, indexes, plan)
	}

	// Ties on age are broken by id in the sort's direction, page after
	// page: sort=-age lists the oldest people, highest id first.
	r := s.API(p, "GET", "/people?sort=-age&limit=3&count=none&fields=age", nil).Must(t, 200)
	rows := r.List()
	for i := 1; i < len(rows); i++ {
		a, b := rows[i-1], rows[i]
		if a["age"] != b["age"] || a["id"].(float64) <= b["id"].(float64) {
			t.Fatalf("sort=-age rows %v: want one age, ids descending", rows)
		}
	}
}

// A prepared list statement of a first page reuses its plan: PostgreSQL
// plans a statement whose LIMIT or OFFSET is a parameter afresh on every
// execution, which cost a list more than reading its page.
func TestAPreparedFirstPageReusesItsPlan(t *testing.T) {
	t.Parallel()
	s := testserver.New(t)
	p := s.NewProject(sortSchema)
	ctx := context.Background()
	execIn(t, s, p, `INSERT INTO $s.people (age, name, email, is_active)
		SELECT 18 + g % 60, 'n' || g, 'p' || g || '@example.com', g % 2 = 0 FROM generate_series(1, 20000) g`,
		`VACUUM ANALYZE $s.people`)
	entry, err := s.Svc.Registry.Get(ctx, p.ID)
	if err != nil {
		t.Fatal(err)
	}
	ls := buildFor(t, entry, "people", query("filter[is_active]", "true")+"&sort=-age&limit=20&count=none")
	conn, err := s.Svc.DB.Conn(ctx)
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close()
	stmt, err := conn.PrepareContext(ctx, ls.SQL)
	if err != nil {
		t.Fatal(err)
	}
	defer stmt.Close()
	for range 10 {
		rows, err := stmt.QueryContext(ctx, ls.Args...)
		if err != nil {
			t.Fatal(err)
		}
		rows.Close()
	}
	var generic, custom int
	if err := conn.QueryRowContext(ctx, `SELECT generic_plans, custom_plans FROM pg_prepared_statements WHERE statement = $1`, ls.SQL).Scan(&generic, &custom); err != nil {
		t.Fatal(err)
	}
	if generic == 0 {
		t.Fatalf("10 executions: %d generic plans, %d custom ones; want the plan reused", generic, custom)
	}
}
