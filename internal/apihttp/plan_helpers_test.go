package apihttp_test

import (
	"context"
	"database/sql"
	"encoding/json"
	"net/url"
	"strings"
	"testing"

	"github.com/tablesmith/tablesmith/access"
	"github.com/tablesmith/tablesmith/internal/registry"
	"github.com/tablesmith/tablesmith/internal/testserver"
	"github.com/tablesmith/tablesmith/schema"
	"github.com/tablesmith/tablesmith/translate"
)

// buildFor builds the list statement of a query for an API key.
func buildFor(t *testing.T, entry *registry.Entry, table, raw string) *translate.ListSQL {
	t.Helper()
	tbl, _ := entry.Published.Compiled.Table(table)
	vals, err := url.ParseQuery(raw)
	if err != nil {
		t.Fatal(err)
	}
	q, err := translate.ParseList(vals)
	if err != nil {
		t.Fatal(err)
	}
	q.Caller = access.Key("", false)
	ls, err := translate.BuildList(entry.Published, tbl, q)
	if err != nil {
		t.Fatal(err)
	}
	return ls
}

// explainList returns PostgreSQL's JSON plan of a list statement (with
// ANALYZE: the plan it ran, with its row counts).
func explainList(t *testing.T, db *sql.DB, ls *translate.ListSQL, analyze bool) []byte {
	t.Helper()
	opts := "FORMAT JSON"
	if analyze {
		opts = "ANALYZE, FORMAT JSON"
	}
	var plan []byte
	if err := db.QueryRowContext(context.Background(), "EXPLAIN ("+opts+") "+ls.SQL, ls.Args...).Scan(&plan); err != nil {
		t.Fatal(err)
	}
	return plan
}

// walkPlan calls visit with every node of a JSON plan.
func walkPlan(t *testing.T, explain []byte, visit func(node map[string]any)) {
	t.Helper()
	var doc any
	if err := json.Unmarshal(explain, &doc); err != nil {
		t.Fatal(err)
	}
	var walk func(v any)
	walk = func(v any) {
		switch x := v.(type) {
		case map[string]any:
			visit(x)
			for _, c := range x {
				walk(c)
			}
		case []any:
			for _, c := range x {
				walk(c)
			}
		}
	}
	walk(doc)
}

// planNodes returns the node types of a JSON plan and the index names
// they read.
func planNodes(t *testing.T, explain []byte) (types, indexes []string) {
	t.Helper()
	walkPlan(t, explain, func(node map[string]any) {
		if n, ok := node["Node Type"].(string); ok {
			types = append(types, n)
		}
		if n, ok := node["Index Name"].(string); ok {
			indexes = append(indexes, n)
		}
	})
	return types, indexes
}

// execIn runs statements on the project's schema, which each names as $s
// (test data put in behind the API's back).
func execIn(t *testing.T, s *testserver.Server, p *testserver.Project, stmts ...string) {
	t.Helper()
	ns := schema.QuoteIdent(schema.ProjectSchema(p.ID))
	for _, stmt := range stmts {
		if _, err := s.Svc.DB.ExecContext(context.Background(), strings.ReplaceAll(stmt, "$s", ns)); err != nil {
			t.Fatalf("%s: %v", stmt, err)
		}
	}
}
