package apihttp_test

import (
	"context"
	"fmt"
	"net/url"
	"reflect"
	"strings"
	"testing"

	"github.com/tablesmith/tablesmith/internal/testserver"
	"github.com/tablesmith/tablesmith/schema"
)

// cursorSchema has a nullable indexed number with many ties, a nullable
// text and a required one, so cursors meet ties and NULLs in every
// position.
const cursorSchema = `{"tables": [
	{"name": "items", "columns": [
		{"name": "score", "type": "integer", "index": true},
		{"name": "name", "type": "text"},
		{"name": "label", "type": "text", "required": true},
		{"name": "price", "type": "decimal"},
		{"name": "seen", "type": "timestamp"}]},
	{"name": "tags", "columns": [{"name": "word", "type": "text"}]}]}`

// seedItems inserts n items: scores 0..6 with every fourth NULL, names
// with ties and NULLs, timestamps with microseconds.
func seedItems(t *testing.T, s *testserver.Server, p *testserver.Project, n int) {
	t.Helper()
	ns := schema.QuoteIdent(schema.ProjectSchema(p.ID))
	_, err := s.Svc.DB.ExecContext(context.Background(), `INSERT INTO `+ns+`.items (score, name, label, price, seen)
		SELECT CASE WHEN g % 4 = 0 THEN NULL ELSE g % 7 END,
		       CASE WHEN g % 5 = 0 THEN NULL ELSE 'n' || (g % 9) END,
		       'l' || (g % 3), (g % 11) * 1.25,
		       CASE WHEN g % 6 = 0 THEN NULL ELSE timestamptz '2026-01-01' + (g % 13) * interval '1.000001 second' END
		FROM generate_series(1, $1) g`, n)
	if err != nil {
		t.Fatal(err)
	}
}

// walk follows next_cursor from the first page of path?raw to the end
// and returns every id in the order read.
func walk(t *testing.T, s *testserver.Server, p *testserver.Project, path, raw string) []int {
	t.Helper()
	var out []int
	r := s.API(p, "GET", path+"?"+raw, nil).Must(t, 200)
	for pages := 0; ; pages++ {
		out = append(out, ids(r)...)
		meta := r.Body["meta"].(map[string]any)
		next, ok := meta["next_cursor"]
		if !ok {
			t.Fatalf("%s?%s: meta has no next_cursor: %s", path, raw, r.Raw)
		}
		if next == nil {
			return out
		}
		if pages > 1000 {
			t.Fatalf("%s?%s: cursors never end", path, raw)
		}
		r = s.API(p, "GET", path+"?"+raw+"&after="+next.(string), nil).Must(t, 200)
		if m := r.Body["meta"].(map[string]any); m["page"] != float64(0) || m["offset"] != float64(0) {
			t.Fatalf("a cursor page reports page %v offset %v; want 0 and 0", m["page"], m["offset"])
		}
	}
}

// byPages reads every id of path?raw by page number, 100 at a time.
func byPages(t *testing.T, s *testserver.Server, p *testserver.Project, path, raw string) []int {
	t.Helper()
	var out []int
	for page := 1; ; page++ {
		r := s.API(p, "GET", fmt.Sprintf("%s?%s&limit=100&page=%d", path, raw, page), nil).Must(t, 200)
		got := ids(r)
		out = append(out, got...)
		if len(got) < 100 {
			return out
		}
	}
}

// Following next_cursor reads every row exactly once, in the order pages
// by number give, for any sort: ties, NULLs in either direction, mixed
// directions, decimals and timestamps as keys, with filters and fields.
func TestCursorPagesReadEveryRowOnceInSortOrder(t *testing.T) {
	t.Parallel()
	s := testserver.New(t)
	p := s.NewProject(cursorSchema)
	seedItems(t, s, p, 230)
	for _, raw := range []string{
		"", "order=desc", "sort=score", "sort=-score", "sort=name,-score", "sort=-name,score",
		"sort=label,name", "sort=-price,seen", "sort=seen", "sort=-seen",
		"sort=score&fields=label", "sort=-score&" + query("filter[label]", "l1"),
		"sort=name&" + query("filter", "score >= 2 or score = null"), "sort=score&count=none",
	} {
		want := byPages(t, s, p, "/items", raw)
		if len(want) != 230 && !strings.Contains(raw, "filter") {
			t.Fatalf("%s: %d rows by page, want 230", raw, len(want))
		}
		for _, limit := range []string{"7", "100"} {
			got := walk(t, s, p, "/items", raw+"&limit="+limit)
			if !reflect.DeepEqual(got, want) {
				t.Errorf("items?%s&limit=%s by cursor:\n got %v\nwant %v", raw, limit, got, want)
			}
		}
	}
	// An empty table's only page has no next cursor.
	if got := walk(t, s, p, "/tags", ""); len(got) != 0 {
		t.Errorf("tags: %v", got)
	}
}

// A page's next cursor is the same whether the statement takes the last
// row's keys from the page's records or, when fields leave a key out,
// reads the row again: both paths meet NULLs, ties, text and decimals.
func TestNextCursorIsTheSameWithOrWithoutTheKeysInTheRecords(t *testing.T) {
	t.Parallel()
	s := testserver.New(t)
	p := s.NewProject(cursorSchema)
	seedItems(t, s, p, 60)
	// Text keys the page's JSON must be read around: quotes, braces,
	// backslashes, non-ASCII letters.
	tricky := []string{`q"}{`, `back\slash"`, `ünï ☃`, `]{"x":[1]}`, `\`, `"`}
	for i, name := range tricky {
		s.API(p, "POST", "/items", map[string]any{"name": name, "score": i % 3, "label": `l"` + name}).Must(t, 201)
	}
	// The cursor of a full page, with the keys in its records and, under
	// fields=seen, without them (the statement reads the row again).
	sameCursor := func(q string) {
		t.Helper()
		inRecords := s.API(p, "GET", "/items?"+q, nil).Must(t, 200)
		reread := s.API(p, "GET", "/items?"+q+"&fields=seen", nil).Must(t, 200)
		a := inRecords.Body["meta"].(map[string]any)["next_cursor"]
		b := reread.Body["meta"].(map[string]any)["next_cursor"]
		if a == nil || a != b {
			t.Errorf("items?%s: next_cursor %v from the records, %v read again", q, a, b)
		}
	}
	for _, name := range tricky { // each the last record of a full page
		sameCursor("sort=-name,label&limit=1&filter%5Bname%5D=" + url.QueryEscape(name))
	}
	for _, raw := range []string{"sort=score", "sort=-score", "sort=name,-score", "sort=-name", "sort=-label,score", "sort=-price,label", "order=desc"} {
		for _, page := range []string{"1", "2", "5"} {
			sameCursor(raw + "&limit=7&page=" + page)
		}
	}
}

// Rows inserted or deleted while a client pages through by cursor move
// no page boundary: every row that existed throughout is read once,
// none twice, unlike offset pages, which shift.
func TestCursorPagesAreStableWhenRowsAreInsertedInBetween(t *testing.T) {
	t.Parallel()
	s := testserver.New(t)
	p := s.NewProject(cursorSchema)
	seedItems(t, s, p, 60)
	before := byPages(t, s, p, "/items", "sort=score")
	seen := map[int]int{}
	r := s.API(p, "GET", "/items?sort=score&limit=10", nil).Must(t, 200)
	for round := 0; ; round++ {
		for _, id := range ids(r) {
			seen[id]++
		}
		next := r.Body["meta"].(map[string]any)["next_cursor"]
		if next == nil {
			break
		}
		// rows that sort before, among and after what is left
		for _, score := range []any{0, 3, 6, nil} {
			s.API(p, "POST", "/items", map[string]any{"score": score, "label": fmt.Sprint("new", round)}).Must(t, 201)
		}
		r = s.API(p, "GET", "/items?sort=score&limit=10&after="+next.(string), nil).Must(t, 200)
	}
	for _, id := range before {
		if seen[id] != 1 {
			t.Errorf("row %d read %d times, want once", id, seen[id])
		}
	}
	for id, n := range seen {
		if n > 1 {
			t.Errorf("row %d read %d times", id, n)
		}
	}
}

// A cursor is refused with 400 INVALID_QUERY naming after when it comes
// with a page position, another sort or table, or was tampered with.
func TestCursorMisuseIsAnInvalidQuery(t *testing.T) {
	t.Parallel()
	s := testserver.New(t)
	p := s.NewProject(cursorSchema)
	seedItems(t, s, p, 30)
	s.API(p, "POST", "/tags", map[string]any{"word": "a"}).Must(t, 201)
	cursorOf := func(path string) string {
		r := s.API(p, "GET", path, nil).Must(t, 200)
		return r.Body["meta"].(map[string]any)["next_cursor"].(string)
	}
	byScore := cursorOf("/items?sort=score&limit=5")
	byID := cursorOf("/items?limit=5")
	for _, tc := range []struct{ path, want string }{
		{"/items?sort=score&page=2&after=" + byScore, "not both"},
		{"/items?sort=score&offset=5&after=" + byScore, "not both"},
		{"/items?sort=-score&after=" + byScore, "another table or sort"},
		{"/items?after=" + byScore, "another table or sort"},
		{"/tags?after=" + byID, "another table or sort"},
		{"/items?order=desc&after=" + byID, "another table or sort"},
		{"/items?after=" + byID[:len(byID)-4], "not a cursor"},
		{"/items?after=%25%25", "not a cursor"},
	} {
		r := s.API(p, "GET", tc.path, nil).Must(t, 400)
		msg, _ := r.Details()["after"].(string)
		if r.ErrorCode() != "INVALID_QUERY" || !strings.Contains(msg, tc.want) {
			t.Errorf("%s: %s %v; want INVALID_QUERY with details.after saying %q", tc.path, r.ErrorCode(), r.Details(), tc.want)
		}
	}
}

// A cursor page deep into a big table reads the sort's (column, id)
// index from the cursor's position: no sort step, and no more rows than
// the page (plus the rows of the other branch's first page).
func TestCursorPagesReadTheirIndexFromTheCursorOn(t *testing.T) {
	t.Parallel()
	s := testserver.New(t)
	p := s.NewProject(cursorSchema)
	seedItems(t, s, p, 40000)
	ctx := context.Background()
	ns := schema.QuoteIdent(schema.ProjectSchema(p.ID))
	if _, err := s.Svc.DB.ExecContext(ctx, `VACUUM ANALYZE `+ns+`.items`); err != nil {
		t.Fatal(err)
	}
	entry, err := s.Svc.Registry.Get(ctx, p.ID)
	if err != nil {
		t.Fatal(err)
	}
	for _, raw := range []string{"sort=score", "sort=-score", "", "order=desc", "sort=score&count=none", "sort=-score&" + query("filter[label]", "l2")} {
		// the cursor after row 20,000 (and one after a NULL score, late in
		// ascending order and early in descending)
		offsets := []string{"500", "12000", "19900", "39000"}
		if strings.Contains(raw, "filter") { // a third of the rows
			offsets = offsets[:2]
		}
		for _, offset := range offsets {
			r := s.API(p, "GET", "/items?"+raw+"&limit=100&offset="+offset, nil).Must(t, 200)
			cursor, _ := r.Body["meta"].(map[string]any)["next_cursor"].(string)
			if cursor == "" {
				t.Fatalf("%s offset %s: no next_cursor: %.300s", raw, offset, r.Raw)
			}
			ls := buildFor(t, entry, "items", raw+"&limit=20&after="+cursor)
			plan := explainList(t, s.Svc.DB, ls, true)
			types, indexes := planNodes(t, plan)
			for _, n := range types {
				if strings.Contains(n, "Sort") {
					t.Errorf("items?%s after row %s: plan has %s; want the index read in order:\n%s", raw, offset, n, plan)
				}
			}
			// the count may scan up to its cap; the page reads only its rows
			if read := indexRowsRead(t, plan); read > 400 {
				t.Errorf("items?%s after row %s: index scans touched %.0f rows for a page of 20:\n%s", raw, offset, read, plan)
			}
			want := "items_score_sort"
			if !strings.Contains(raw, "score") {
				want = "items_pkey"
			}
			if !contains(indexes, want) {
				t.Errorf("items?%s after row %s: indexes %v, want %s:\n%s", raw, offset, indexes, want, plan)
			}
		}
	}
}

// indexRowsRead sums the rows index scans of an EXPLAIN ANALYZE returned
// or removed by their filter.
func indexRowsRead(t *testing.T, explain []byte) float64 {
	t.Helper()
	total := 0.0
	walkPlan(t, explain, func(x map[string]any) {
		if n, _ := x["Node Type"].(string); strings.HasPrefix(n, "Index") {
			loops, _ := x["Actual Loops"].(float64)
			rows, _ := x["Actual Rows"].(float64)
			removed, _ := x["Rows Removed by Filter"].(float64)
			if rel, _ := x["Relation Name"].(string); rel == "items" && loops == 1 {
				total += rows + removed
			}
		}
	})
	return total
}
