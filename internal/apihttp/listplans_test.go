package apihttp_test

import (
	"testing"

	"github.com/tablesmith/tablesmith/internal/testserver"
)

// A list's built statement is kept per published version: after a
// generate adds a column, the very same query string answers with it.
func TestAKeptListFollowsTheNextPublishedVersion(t *testing.T) {
	t.Parallel()
	s := testserver.New(t)
	p := s.NewProject(`{"tables": [{"name": "books", "columns": [{"name": "title", "type": "text"}]}]}`)
	s.API(p, "POST", "/books", map[string]any{"title": "Dune"}).Must(t, 201)
	const list = "/books?sort=-title&limit=5&count=none"
	for range 2 { // the second answer comes from the kept statement
		rows := s.API(p, "GET", list, nil).Must(t, 200).List()
		if len(rows) != 1 || rows[0]["title"] != "Dune" {
			t.Fatalf("rows = %v", rows)
		}
		if _, ok := rows[0]["pages"]; ok {
			t.Fatalf("a column of no published version: %v", rows[0])
		}
	}
	s.Publish(p.Session, p.ID, `{"tables": [{"name": "books", "columns": [
		{"name": "title", "type": "text"}, {"name": "pages", "type": "integer", "default": 7}]}]}`).Must(t, 200)
	rows := s.API(p, "GET", list, nil).Must(t, 200).List()
	if len(rows) != 1 || rows[0]["pages"] != float64(7) {
		t.Fatalf("after the generate, rows = %v", rows)
	}
}
