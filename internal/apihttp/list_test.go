package apihttp_test

import (
	"context"
	"database/sql"
	"database/sql/driver"
	"encoding/json"
	"fmt"
	"net/http"
	"net/http/httptest"
	"net/url"
	"reflect"
	"sort"
	"strings"
	"sync"
	"testing"

	"github.com/lib/pq"

	"github.com/tablesmith/tablesmith/internal/apihttp"
	"github.com/tablesmith/tablesmith/internal/auth"
	"github.com/tablesmith/tablesmith/internal/registry"
	"github.com/tablesmith/tablesmith/internal/service"
	"github.com/tablesmith/tablesmith/internal/testpg"
	"github.com/tablesmith/tablesmith/internal/testserver"
	"github.com/tablesmith/tablesmith/schema"
	"github.com/tablesmith/tablesmith/translate"
)

// librarySchema has a column of every filterable type, a password column
// that must never show, and relations in both directions three deep.
const librarySchema = `{"tables": [
	{"name": "authors", "columns": [
		{"name": "name", "type": "text", "required": true, "searchable": true},
		{"name": "email", "type": "email", "unique": true},
		{"name": "age", "type": "integer", "index": true},
		{"name": "rating", "type": "number"},
		{"name": "balance", "type": "decimal"},
		{"name": "is_active", "type": "boolean", "default": true},
		{"name": "born", "type": "date"},
		{"name": "last_seen", "type": "timestamp"},
		{"name": "ref", "type": "uuid"},
		{"name": "site", "type": "url"},
		{"name": "tier", "type": "enum", "values": ["gold", "silver", "bronze"]},
		{"name": "meta", "type": "json"},
		{"name": "secret_hash", "type": "password"}]},
	{"name": "posts", "columns": [
		{"name": "title", "type": "text", "required": true},
		{"name": "body", "type": "text"},
		{"name": "author_id", "type": "integer", "references": {"table": "authors", "on_delete": "cascade"}}]},
	{"name": "comments", "columns": [
		{"name": "text", "type": "text"},
		{"name": "post_id", "type": "integer", "references": {"table": "posts", "on_delete": "cascade"}}]},
	{"name": "scores", "columns": [
		{"name": "n", "type": "integer"}]}]}`

const annRef = "0b6b6c7e-5d5a-4c1a-9f1e-1a2b3c4d5e6f"

// seedLibrary creates five authors (ids 1..5), four posts and three
// comments through the API:
//
//	1 Ann Lee           30  4.5  10.50  active   gold    posts 1 (comments 1, 2), 2
//	2 Bob Stone         17  3    0      inactive silver  post 3 (comment 3)
//	3 Cara 50% Off_Sale 45  -    99.99  active   bronze
//	4 Dan O'Neil        -   -    -      active   -
//	5 Eve Lee           30  5    -      inactive gold
//
// post 4 has no author.
func seedLibrary(t *testing.T, s *testserver.Server, p *testserver.Project) {
	t.Helper()
	authors := []map[string]any{
		{"name": "Ann Lee", "email": "ann@example.com", "age": 30, "rating": 4.5, "balance": "10.50", "is_active": true,
			"born": "1994-05-01", "last_seen": "2026-01-02T03:04:05Z", "ref": annRef, "site": "https://ann.example.com",
			"tier": "gold", "meta": map[string]any{"likes": []string{"go"}}, "secret": "hunter22hunter"},
		{"name": "Bob Stone", "email": "bob@example.com", "age": 17, "rating": 3, "balance": "0", "is_active": false,
			"born": "2008-09-10", "last_seen": "2025-12-31T23:00:00Z", "site": "https://bob.example.org", "tier": "silver"},
		{"name": "Cara 50% Off_Sale", "email": "cara@shop.example.com", "age": 45, "balance": "99.99", "tier": "bronze"},
		{"name": "Dan O'Neil", "email": "dan@example.com"},
		{"name": "Eve Lee", "email": "eve@example.com", "age": 30, "rating": 5, "is_active": false, "tier": "gold"},
	}
	for _, a := range authors {
		s.API(p, "POST", "/authors", a).Must(t, 201)
	}
	for _, post := range []map[string]any{
		{"title": "Hello world", "body": "first post", "author_id": 1},
		{"title": "Go tips", "body": "use gofmt", "author_id": 1},
		{"title": "Rust notes", "body": "borrow checker", "author_id": 2},
		{"title": "Orphan"},
	} {
		s.API(p, "POST", "/posts", post).Must(t, 201)
	}
	for _, c := range []map[string]any{{"text": "nice", "post_id": 1}, {"text": "thanks", "post_id": 1}, {"text": "hmm", "post_id": 3}} {
		s.API(p, "POST", "/comments", c).Must(t, 201)
	}
}

// query builds a query string from key, value pairs, escaping both.
func query(kv ...string) string {
	var parts []string
	for i := 0; i+1 < len(kv); i += 2 {
		parts = append(parts, url.QueryEscape(kv[i])+"="+url.QueryEscape(kv[i+1]))
	}
	return strings.Join(parts, "&")
}

// ids returns the id of every listed record.
func ids(r *testserver.Response) []int {
	out := []int{}
	for _, rec := range r.List() {
		id, _ := rec["id"].(float64)
		out = append(out, int(id))
	}
	return out
}

func idsOf(v any) []int {
	out := []int{}
	arr, _ := v.([]any)
	for _, x := range arr {
		m, _ := x.(map[string]any)
		id, _ := m["id"].(float64)
		out = append(out, int(id))
	}
	return out
}

func meta(r *testserver.Response) map[string]any {
	m, _ := r.Body["meta"].(map[string]any)
	return m
}

func keysOf(m map[string]any) []string {
	var out []string
	for k := range m {
		out = append(out, k)
	}
	sort.Strings(out)
	return out
}

// listCase is one list request and the ids it must return, in order.
type listCase struct {
	table, query string
	want         []int
}

func runListCases(t *testing.T, s *testserver.Server, p *testserver.Project, cases []listCase) {
	t.Helper()
	for _, c := range cases {
		r := s.API(p, "GET", "/"+c.table+"?"+c.query, nil)
		if r.Status != 200 {
			t.Errorf("GET /%s?%s: status %d: %s", c.table, c.query, r.Status, r.Raw)
			continue
		}
		if got := ids(r); !reflect.DeepEqual(got, c.want) {
			t.Errorf("GET /%s?%s: ids %v, want %v", c.table, c.query, got, c.want)
		}
	}
}

func TestListPaginatesWithPageLimitOrOffsetAndReportsMeta(t *testing.T) {
	t.Parallel()
	s := testserver.New(t)
	p := s.NewProject(librarySchema)
	seedLibrary(t, s, p)

	type pageCase struct {
		query                      string
		want                       []int
		page, limit, offset, pages int
		wantTotal                  int
	}
	for _, c := range []pageCase{
		{"", []int{1, 2, 3, 4, 5}, 1, 20, 0, 1, 5},
		{"page=2&limit=2", []int{3, 4}, 2, 2, 2, 3, 5},
		{"page=3&limit=2", []int{5}, 3, 2, 4, 3, 5},
		{"page=4&limit=2", []int{}, 4, 2, 6, 3, 5},
		{"limit=2&offset=3", []int{4, 5}, 2, 2, 3, 3, 5},
		{"offset=1", []int{2, 3, 4, 5}, 1, 20, 1, 1, 5},
		{"limit=1", []int{1}, 1, 1, 0, 5, 5},
		{"limit=100", []int{1, 2, 3, 4, 5}, 1, 100, 0, 1, 5},
	} {
		r := s.API(p, "GET", "/authors?"+c.query, nil).Must(t, 200)
		m := meta(r)
		if got := ids(r); !reflect.DeepEqual(got, c.want) {
			t.Errorf("?%s: ids %v, want %v", c.query, got, c.want)
		}
		// a full page has a cursor to the next (cursor_test.go)
		if next, ok := m["next_cursor"]; !ok || (next != nil) != (len(ids(r)) == c.limit) {
			t.Errorf("?%s: %d rows of %d, next_cursor %v", c.query, len(ids(r)), c.limit, next)
		}
		delete(m, "next_cursor")
		want := map[string]any{"page": float64(c.page), "limit": float64(c.limit), "offset": float64(c.offset),
			"total": float64(c.wantTotal), "total_pages": float64(c.pages)}
		if !reflect.DeepEqual(m, want) {
			t.Errorf("?%s: meta %v, want %v", c.query, m, want)
		}
	}
}

func TestListSortsByColumnsWithOrderAndAStableTiebreak(t *testing.T) {
	t.Parallel()
	s := testserver.New(t)
	p := s.NewProject(librarySchema)
	seedLibrary(t, s, p)
	runListCases(t, s, p, []listCase{
		{"authors", "", []int{1, 2, 3, 4, 5}},
		{"authors", "order=desc", []int{5, 4, 3, 2, 1}},
		{"authors", "order=asc", []int{1, 2, 3, 4, 5}},
		// nulls sort last ascending and first descending; ties (30) by
		// id in the direction of the last key
		{"authors", "sort=age", []int{2, 1, 5, 3, 4}},
		{"authors", "sort=-age", []int{4, 3, 5, 1, 2}},
		{"authors", "sort=age&order=desc", []int{4, 3, 5, 1, 2}},
		{"authors", "sort=" + url.QueryEscape("-is_active,name"), []int{1, 3, 4, 2, 5}},
		// order turns around the columns written without '-', not the others
		{"authors", "sort=" + url.QueryEscape("tier,-id") + "&order=desc", []int{4, 2, 5, 1, 3}},
		{"authors", "sort=-id", []int{5, 4, 3, 2, 1}},
		{"authors", "sort=born", []int{1, 2, 3, 4, 5}},
		{"authors", "sort=-last_seen&limit=2", []int{5, 4}},
		{"authors", "sort=rating", []int{2, 1, 5, 3, 4}},
		{"authors", "sort=balance", []int{2, 1, 3, 4, 5}},
		{"posts", "sort=-author_id", []int{4, 3, 2, 1}},
	})

	// Equal sort values never reorder between pages: walking the pages of
	// a sort on a column with duplicates returns every record once.
	var walked []int
	for page := 1; page <= 3; page++ {
		r := s.API(p, "GET", fmt.Sprintf("/authors?sort=is_active&limit=2&page=%d", page), nil).Must(t, 200)
		walked = append(walked, ids(r)...)
	}
	if want := []int{2, 5, 1, 3, 4}; !reflect.DeepEqual(walked, want) {
		t.Fatalf("pages of sort=is_active walked %v, want %v", walked, want)
	}
}

func TestListFiltersByTypedEqualityAndOperators(t *testing.T) {
	t.Parallel()
	s := testserver.New(t)
	p := s.NewProject(librarySchema)
	seedLibrary(t, s, p)
	runListCases(t, s, p, []listCase{
		{"authors", query("filter[age]", "30"), []int{1, 5}},
		{"authors", query("filter[is_active]", "false"), []int{2, 5}},
		{"authors", query("filter[email]", " ANN@Example.com"), []int{1}},
		{"authors", query("filter[tier]", "gold", "filter[age]", "30"), []int{1, 5}},
		{"authors", query("filter[name]", "Dan O'Neil"), []int{4}},
		{"authors", query("filter[ref]", annRef), []int{1}},
		{"authors", query("filter[born]", "2008-09-10"), []int{2}},
		{"authors", query("filter[id]", "3"), []int{3}},
		{"authors", query("filter[age][eq]", "17"), []int{2}},
		{"authors", query("filter[age][ne]", "30"), []int{2, 3}},
		{"authors", query("filter[age][gt]", "30"), []int{3}},
		{"authors", query("filter[age][gte]", "30"), []int{1, 3, 5}},
		{"authors", query("filter[age][lt]", "30"), []int{2}},
		{"authors", query("filter[age][lte]", "17"), []int{2}},
		{"authors", query("filter[age][gte]", "18", "filter[age][lte]", "40"), []int{1, 5}},
		{"authors", query("filter[rating][gte]", "4.5"), []int{1, 5}},
		{"authors", query("filter[balance][gt]", "10.5"), []int{3}},
		{"authors", query("filter[balance][gte]", "10.5"), []int{1, 3}},
		{"authors", query("filter[born][lt]", "2000-01-01"), []int{1}},
		{"authors", query("filter[last_seen][gte]", "2026-01-01T00:00:00Z"), []int{1}},
		{"authors", query("filter[last_seen][lt]", "2026-01-01"), []int{2}},
		{"authors", query("filter[created_at][gt]", "2000-01-01"), []int{1, 2, 3, 4, 5}},
		// like: case-insensitive contains, with % and _ taken literally
		{"authors", query("filter[name][like]", "LEE"), []int{1, 5}},
		{"authors", query("filter[name][like]", "%"), []int{3}},
		{"authors", query("filter[name][like]", "_"), []int{3}},
		{"authors", query("filter[name][like]", "50% off_"), []int{3}},
		{"authors", query("filter[site][like]", "example.org"), []int{2}},
		{"authors", query("filter[tier][like]", "OLD"), []int{1, 5}},
		// in: a typed list bound as one array parameter
		{"authors", query("filter[age][in]", "17,45"), []int{2, 3}},
		{"authors", query("filter[tier][in]", "gold,bronze"), []int{1, 3, 5}},
		{"authors", query("filter[id][in]", "5,1,99"), []int{1, 5}},
		{"authors", query("filter[born][in]", "1994-05-01,2008-09-10"), []int{1, 2}},
		{"authors", query("filter[last_seen][in]", "2026-01-02T03:04:05Z"), []int{1}},
		{"authors", query("filter[is_active][in]", "false"), []int{2, 5}},
		{"authors", query("filter[name][in]", `Ann Lee,Dan O'Neil,x"y\z`), []int{1, 4}},
		// null
		{"authors", query("filter[age][null]", "true"), []int{4}},
		{"authors", query("filter[age][null]", "false"), []int{1, 2, 3, 5}},
		{"authors", query("filter[site][null]", "false", "filter[tier]", "gold"), []int{1}},
		{"posts", query("filter[author_id]", "1"), []int{1, 2}},
		{"posts", query("filter[author_id][null]", "true"), []int{4}},
		{"posts", query("filter[body][null]", "true"), []int{4}},
	})
}

func TestListFilterExpressionsCombineComparisonsWithAndOrNot(t *testing.T) {
	t.Parallel()
	s := testserver.New(t)
	p := s.NewProject(librarySchema)
	seedLibrary(t, s, p)
	runListCases(t, s, p, []listCase{
		{"authors", query("filter", "age >= 18 and (name ~ 'ann' or is_active = true)"), []int{1, 3}},
		{"authors", query("filter", "age = 30 or tier = 'bronze'"), []int{1, 3, 5}},
		{"authors", query("filter", "not is_active = true"), []int{2, 5}},
		{"authors", query("filter", "tier = null"), []int{4}},
		{"authors", query("filter", "tier != null"), []int{1, 2, 3, 5}},
		{"authors", query("filter", "name !~ 'lee'"), []int{2, 3, 4}},
		{"authors", query("filter", "name ~ 'o''neil'"), []int{4}},
		{"authors", query("filter", `name ~ 'O\'Neil'`), []int{4}},
		{"authors", query("filter", "name ~ '%'"), []int{3}},
		{"authors", query("filter", "rating > 4 and balance < 100"), []int{1}},
		{"authors", query("filter", "born < '2000-01-01'"), []int{1}},
		{"authors", query("filter", "last_seen >= '2026-01-01T00:00:00Z'"), []int{1}},
		{"authors", query("filter", "age > -1"), []int{1, 2, 3, 5}},
		{"authors", query("filter", "balance <= 10.5"), []int{1, 2}},
		{"authors", query("filter", "rating = 4.5e0"), []int{1}},
		{"authors", query("filter", "ref = '"+strings.ToUpper(annRef)+"'"), []int{1}},
		{"authors", query("filter", `"name" ~ 'eve'`), []int{5}},
		{"authors", query("filter", "email = 'ANN@example.com'"), []int{1}},
		// a null age makes "age = 30 or age = 17" unknown, and not unknown
		// is still unknown: Dan (4) does not match
		{"authors", query("filter", "NOT (age = 30 OR age = 17) AND is_active = TRUE"), []int{3}},
		{"authors", query("filter", "((age = 30))"), []int{1, 5}},
		// the expression combines with filter[col] by AND
		{"authors", query("filter[is_active]", "false", "filter", "age = 30"), []int{5}},
		{"posts", query("filter", "author_id = 1 and title ~ 'go'"), []int{2}},
	})
}

func TestListSearchMatchesEveryTextColumnWithLiteralWildcards(t *testing.T) {
	t.Parallel()
	s := testserver.New(t)
	p := s.NewProject(librarySchema)
	seedLibrary(t, s, p)
	runListCases(t, s, p, []listCase{
		{"authors", "search=lee", []int{1, 5}},
		{"authors", "search=LEE", []int{1, 5}},
		{"authors", "search=EXAMPLE.ORG", []int{2}}, // url column
		{"authors", "search=shop", []int{3}},        // email column
		{"authors", "search=silver", []int{2}},      // enum column
		{"authors", "search=" + url.QueryEscape("%"), []int{3}},
		{"authors", "search=_", []int{3}},
		{"authors", "search=" + url.QueryEscape(`\`), []int{}},
		{"authors", "search=zzz", []int{}},
		{"authors", "search=lee&filter[is_active]=true", []int{1}},
		{"posts", "search=go", []int{2}}, // title and body
		{"posts", "search=checker", []int{3}},
	})
}

func TestListIncludeEmbedsObjectsArraysAndNestedRelations(t *testing.T) {
	t.Parallel()
	s := testserver.New(t)
	p := s.NewProject(librarySchema)
	seedLibrary(t, s, p)

	posts := s.API(p, "GET", "/posts?include=author", nil).Must(t, 200).List()
	author, ok := posts[0]["author"].(map[string]any)
	if !ok || author["id"] != float64(1) || author["name"] != "Ann Lee" || author["tier"] != "gold" {
		t.Fatalf("post 1 author = %v", posts[0]["author"])
	}
	if _, leaked := author["secret_hash"]; leaked {
		t.Fatalf("embedded author shows its password column: %v", author)
	}
	if v, _ := author["last_seen"].(string); v != "2026-01-02T03:04:05.000000Z" {
		t.Fatalf("embedded timestamp = %v, want RFC 3339 UTC", author["last_seen"])
	}
	if m, ok := author["meta"].(map[string]any); !ok || !reflect.DeepEqual(m["likes"], []any{"go"}) {
		t.Fatalf("embedded json column = %v", author["meta"])
	}
	if v, present := posts[3]["author"]; !present || v != nil {
		t.Fatalf("a post without author embeds null, got %v (present %v)", v, present)
	}

	authors := s.API(p, "GET", "/authors?include=posts", nil).Must(t, 200).List()
	if got := idsOf(authors[0]["posts"]); !reflect.DeepEqual(got, []int{1, 2}) {
		t.Fatalf("author 1 posts = %v", authors[0]["posts"])
	}
	if arr, ok := authors[2]["posts"].([]any); !ok || len(arr) != 0 {
		t.Fatalf("an author without posts embeds [], got %#v", authors[2]["posts"])
	}

	nested := s.API(p, "GET", "/authors?include="+url.QueryEscape("posts.comments,posts.author"), nil).Must(t, 200).List()
	first := nested[0]["posts"].([]any)[0].(map[string]any)
	if got := idsOf(first["comments"]); !reflect.DeepEqual(got, []int{1, 2}) {
		t.Fatalf("author 1 post 1 comments = %v", first["comments"])
	}
	if a, _ := first["author"].(map[string]any); a["id"] != float64(1) {
		t.Fatalf("author 1 post 1 author = %v", first["author"])
	}

	three := s.API(p, "GET", "/comments?include="+url.QueryEscape("post.author.posts"), nil).Must(t, 200).List()
	post := three[0]["post"].(map[string]any)
	deep := post["author"].(map[string]any)
	if post["id"] != float64(1) || !reflect.DeepEqual(idsOf(deep["posts"]), []int{1, 2}) {
		t.Fatalf("comment 1 post.author.posts = %v", three[0])
	}
	if p3 := three[2]["post"].(map[string]any); p3["author"].(map[string]any)["id"] != float64(2) {
		t.Fatalf("comment 3 post.author = %v", three[2])
	}

	// include keeps the page, filter and order of the parent list
	paged := s.API(p, "GET", "/posts?"+query("include", "author,comments", "sort", "-title", "limit", "2", "page", "2", "fields", "title"), nil).Must(t, 200)
	rows := paged.List()
	// titles descending: Rust notes (3), Orphan (4), Hello world (1), Go tips (2)
	if got := ids(paged); !reflect.DeepEqual(got, []int{1, 2}) {
		t.Fatalf("page 2 of posts by -title = %v", got)
	}
	if got := keysOf(rows[0]); !reflect.DeepEqual(got, []string{"author", "comments", "id", "title"}) {
		t.Fatalf("fields with include gives keys %v", got)
	}
	if got := idsOf(rows[0]["comments"]); !reflect.DeepEqual(got, []int{1, 2}) {
		t.Fatalf("post 1 comments = %v", rows[0]["comments"])
	}
	if a, _ := rows[1]["author"].(map[string]any); a["id"] != float64(1) {
		t.Fatalf("post 2 author = %v", rows[1]["author"])
	}
}

func TestListFieldsReturnsOnlyTheNamedColumnsAndID(t *testing.T) {
	t.Parallel()
	s := testserver.New(t)
	p := s.NewProject(librarySchema)
	seedLibrary(t, s, p)
	for q, want := range map[string][]string{
		"fields=name,age": {"age", "id", "name"},
		"fields=id":       {"id"},
		"fields=" + url.QueryEscape(" age , created_at"): {"age", "created_at", "id"},
		"": {"age", "balance", "born", "created_at", "email", "id", "is_active", "last_seen", "meta", "name", "rating", "ref", "site", "tier", "updated_at"},
	} {
		rows := s.API(p, "GET", "/authors?"+q, nil).Must(t, 200).List()
		if len(rows) != 5 {
			t.Fatalf("?%s: %d rows", q, len(rows))
		}
		if got := keysOf(rows[0]); !reflect.DeepEqual(got, want) {
			t.Errorf("?%s: keys %v, want %v", q, got, want)
		}
	}
}

func TestListCombinesEveryParameterInOneRequest(t *testing.T) {
	t.Parallel()
	s := testserver.New(t)
	p := s.NewProject(librarySchema)
	seedLibrary(t, s, p)
	r := s.API(p, "GET", "/authors?"+query(
		"filter[is_active]", "true",
		"filter", "age >= 18",
		"search", "a",
		"sort", "-age",
		"fields", "name,age",
		"include", "posts.comments",
		"limit", "1",
		"page", "2",
		"count", "exact"), nil).Must(t, 200)
	rows := r.List()
	if got := ids(r); !reflect.DeepEqual(got, []int{1}) {
		t.Fatalf("ids = %v, want [1] (matches are 3 then 1)", got)
	}
	if got := keysOf(rows[0]); !reflect.DeepEqual(got, []string{"age", "id", "name", "posts"}) {
		t.Fatalf("keys = %v", got)
	}
	if got := idsOf(rows[0]["posts"].([]any)[0].(map[string]any)["comments"]); !reflect.DeepEqual(got, []int{1, 2}) {
		t.Fatalf("nested comments = %v", got)
	}
	want := map[string]any{"page": float64(2), "limit": float64(1), "offset": float64(1), "total": float64(2), "total_pages": float64(2)}
	m := meta(r)
	if _, ok := m["next_cursor"].(string); !ok {
		t.Fatalf("a full page's meta has a next_cursor: %v", m)
	}
	delete(m, "next_cursor")
	if !reflect.DeepEqual(m, want) {
		t.Fatalf("meta = %v, want %v", m, want)
	}
}

func TestListRejectsBadParametersWithInvalidQueryNamingThem(t *testing.T) {
	t.Parallel()
	s := testserver.New(t)
	p := s.NewProject(librarySchema)
	seedLibrary(t, s, p)
	cases := []struct {
		table, query, param, message string // message: a substring of details[param]
	}{
		{"authors", "limit=0", "limit", "from 1 to 100"},
		{"authors", "limit=101", "limit", "from 1 to 100"},
		{"authors", "limit=ten", "limit", ""},
		{"authors", "limit=1&limit=2", "limit", "more than once"},
		{"authors", "page=0", "page", ""},
		{"authors", "page=x", "page", ""},
		{"authors", "offset=-1", "offset", ""},
		{"authors", "page=1&offset=0", "offset", "not both"},
		{"authors", "order=up", "order", "asc or desc"},
		{"authors", "count=maybe", "count", "exact, estimated or none"},
		{"authors", "sort=nope", "sort", `unknown column "nope"`},
		{"authors", "sort=secret_hash", "sort", `unknown column "secret_hash"`},
		{"authors", "sort=meta", "sort", "cannot be sorted"},
		{"authors", "sort=" + url.QueryEscape("age,"), "sort", "empty"},
		{"authors", "sort=" + url.QueryEscape("age,-age"), "sort", "twice"},
		{"authors", query("filter[nope]", "1"), "filter[nope]", `unknown column "nope"`},
		{"authors", query("filter[secret_hash]", "x"), "filter[secret_hash]", "unknown column"},
		{"authors", query("filter[age]", "abc"), "filter[age]", "must be an integer"},
		{"authors", query("filter[age][gt]", "x"), "filter[age][gt]", "must be an integer"},
		{"authors", query("filter[age][between]", "1"), "filter[age][between]", "unknown operator"},
		{"authors", query("filter[age][like]", "1"), "filter[age][like]", "text column"},
		{"authors", query("filter[age][in]", "1,x"), "filter[age][in]", "value 2 must be an integer"},
		{"authors", query("filter[age][null]", "maybe"), "filter[age][null]", "true or false"},
		{"authors", query("filter[is_active]", "yes"), "filter[is_active]", "true or false"},
		{"authors", query("filter[born]", "2026-13-01"), "filter[born]", "date"},
		{"authors", query("filter[ref]", "not-a-uuid"), "filter[ref]", "UUID"},
		{"authors", query("filter[last_seen][gt]", "yesterday"), "filter[last_seen][gt]", "date-time"},
		{"authors", query("filter[meta]", "x"), "filter[meta]", "cannot be filtered"},
		{"authors", query("filter[rating]", "NaN"), "filter[rating]", "number"},
		{"authors", query("filter[age", "1"), "filter[age", "filter[column]"},
		{"authors", query("filter[a][b][c]", "1"), "filter[a][b][c]", "filter[column]"},
		{"authors", query("filter", "age >= 18 and )"), "filter", "unexpected ')' at 15"},
		{"authors", query("filter", "age >="), "filter", "expected a value (number, 'string', true, false or null) but found end of expression at 7"},
		{"authors", query("filter", "nope = 1"), "filter", `unknown column "nope" at 1`},
		{"authors", query("filter", "secret_hash = 'x'"), "filter", `unknown column "secret_hash" at 1`},
		{"authors", query("filter", "age = 'x'"), "filter", "age needs a number at 7"},
		{"authors", query("filter", "age = 1.5"), "filter", "age must be an integer at 7"},
		{"authors", query("filter", "name ~ 5"), "filter", "~ needs a 'string' at 8"},
		{"authors", query("filter", "age ~ '1'"), "filter", "~ needs a text column; age is integer at 1"},
		{"authors", query("filter", "age > null"), "filter", "null compares only with = or != at 7"},
		{"authors", query("filter", "name = 'abc"), "filter", "unterminated string at 8"},
		{"authors", query("filter", `name = 'a\b'`), "filter", "unknown escape"},
		{"authors", query("filter", "age = 1 and"), "filter", "unexpected end of expression at 12"},
		{"authors", query("filter", "age == 1"), "filter", "expected a value"},
		{"authors", query("filter", "ann"), "filter", "expected an operator"},
		{"authors", query("filter", "meta = '{}'"), "filter", "meta cannot be filtered at 8"},
		{"authors", query("filter", strings.Repeat("(", 17)+"age = 1"+strings.Repeat(")", 17)), "filter", "nested deeper than 16"},
		{"authors", query("filter", strings.Repeat("age = 1 or ", 64)+"age = 2"), "filter", "more than 64 comparisons"},
		{"authors", query("filter", "name = '"+strings.Repeat("x", 2100)+"'"), "filter", "longer than 2048 bytes"},
		{"scores", "search=x", "search", "no text columns"},
		{"authors", "search=" + strings.Repeat("x", 300), "search", "at most 256"},
		{"authors", "include=nope", "include", `unknown relation "nope" on authors (relations: posts)`},
		{"authors", "include=" + url.QueryEscape("posts.nope"), "include", `unknown relation "nope" on posts`},
		{"authors", "include=" + url.QueryEscape("posts.author.posts.author"), "include", "deeper than 3"},
		{"authors", "include=" + url.QueryEscape("posts,"), "include", "empty"},
		{"scores", "include=author", "include", "it has no relations"},
		{"authors", "fields=nope", "fields", `unknown column "nope"`},
		{"authors", "fields=secret_hash", "fields", "unknown column"},
		{"authors", "fields=posts", "fields", "unknown column"},
	}
	for _, c := range cases {
		r := s.API(p, "GET", "/"+c.table+"?"+c.query, nil)
		if r.Status != 400 || r.ErrorCode() != "INVALID_QUERY" {
			t.Errorf("GET /%s?%s: want 400 INVALID_QUERY, got %d: %s", c.table, c.query, r.Status, r.Raw)
			continue
		}
		got, ok := r.Details()[c.param].(string)
		if !ok || !strings.Contains(got, c.message) {
			t.Errorf("GET /%s?%s: details[%q] = %q, want it to contain %q (details %v)", c.table, c.query, c.param, got, c.message, r.Details())
		}
	}

	// A value the database itself refuses is a bad query too, not a 500.
	r := s.API(p, "GET", "/authors?"+query("filter[born]", "0000-01-01"), nil)
	if r.Status != 400 || r.ErrorCode() != "INVALID_QUERY" {
		t.Fatalf("year 0: want 400 INVALID_QUERY, got %d: %s", r.Status, r.Raw)
	}
}

// seedScores inserts n rows into the scores table of p (n = 1..n) and
// analyzes it, so the planner's estimate is current.
func seedScores(t *testing.T, s *testserver.Server, p *testserver.Project, n int) {
	t.Helper()
	ctx := context.Background()
	rel := schema.QuoteIdent(schema.ProjectSchema(p.ID)) + ".scores"
	if _, err := s.Svc.DB.ExecContext(ctx, `INSERT INTO `+rel+` (n) SELECT g FROM generate_series(1, $1) g`, n); err != nil {
		t.Fatal(err)
	}
	if _, err := s.Svc.DB.ExecContext(ctx, `ANALYZE `+rel); err != nil {
		t.Fatal(err)
	}
}

func TestListCountIsExactUpToTheCapThenEstimatedOrOmitted(t *testing.T) {
	t.Parallel()
	s := testserver.New(t)
	p := s.NewProject(librarySchema)
	seedScores(t, s, p, translate.ExactCountCap+50)

	est := meta(s.API(p, "GET", "/scores?limit=5", nil).Must(t, 200))
	total, _ := est["total"].(float64)
	if est["total_estimated"] != true || total < translate.ExactCountCap+1 || total > 2*translate.ExactCountCap {
		t.Fatalf("estimated count above the cap: meta %v", est)
	}
	if est["total_pages"] != float64((int(total)+4)/5) {
		t.Fatalf("total_pages does not follow the estimated total: %v", est)
	}

	exact := meta(s.API(p, "GET", "/scores?count=exact&limit=5", nil).Must(t, 200))
	if exact["total"] != float64(translate.ExactCountCap+50) || exact["total_pages"] != float64((translate.ExactCountCap+50+4)/5) {
		t.Fatalf("count=exact: meta %v", exact)
	}
	if _, ok := exact["total_estimated"]; ok {
		t.Fatalf("count=exact says total_estimated: %v", exact)
	}

	// below the cap the default count is exact
	few := meta(s.API(p, "GET", "/scores?"+query("filter[n][lte]", "1234"), nil).Must(t, 200))
	if few["total"] != float64(1234) || few["total_estimated"] != nil {
		t.Fatalf("estimated count below the cap: meta %v", few)
	}
	// exactly at the cap is still exact
	at := meta(s.API(p, "GET", "/scores?"+query("filter[n][lte]", fmt.Sprint(translate.ExactCountCap)), nil).Must(t, 200))
	if at["total"] != float64(translate.ExactCountCap) || at["total_estimated"] != nil {
		t.Fatalf("estimated count at the cap: meta %v", at)
	}
	// the estimate sees the filter, with its bound parameters: n > 10
	// leaves 10,040 rows, over the cap, and the planner knows it
	filtered := meta(s.API(p, "GET", "/scores?"+query("filter", "n > 10", "filter[n][lt]", "100000"), nil).Must(t, 200))
	if ft, _ := filtered["total"].(float64); filtered["total_estimated"] != true || ft < translate.ExactCountCap+1 || ft > 11000 {
		t.Fatalf("filtered estimate: meta %v", filtered)
	}

	none := s.API(p, "GET", "/scores?count=none&limit=3", nil).Must(t, 200)
	want := map[string]any{"page": float64(1), "limit": float64(3), "offset": float64(0)}
	noneMeta := meta(none)
	if _, ok := noneMeta["next_cursor"].(string); !ok {
		t.Fatalf("count=none: a full page's meta has a next_cursor: %v", noneMeta)
	}
	delete(noneMeta, "next_cursor")
	if !reflect.DeepEqual(noneMeta, want) || len(none.List()) != 3 {
		t.Fatalf("count=none: meta %v, %d rows", noneMeta, len(none.List()))
	}
}

// countingConnector wraps lib/pq and records every statement sent, so a
// test can prove how many round trips a request made.
type countingConnector struct {
	driver.Connector
	log *statementLog
}

type statementLog struct {
	mu    sync.Mutex
	stmts []string
}

func (l *statementLog) add(q string) {
	l.mu.Lock()
	l.stmts = append(l.stmts, q)
	l.mu.Unlock()
}

// take returns and forgets the statements recorded so far.
func (l *statementLog) take() []string {
	l.mu.Lock()
	defer l.mu.Unlock()
	out := l.stmts
	l.stmts = nil
	return out
}

func (c countingConnector) Connect(ctx context.Context) (driver.Conn, error) {
	conn, err := c.Connector.Connect(ctx)
	if err != nil {
		return nil, err
	}
	return &countingConn{Conn: conn, log: c.log}, nil
}

type countingConn struct {
	driver.Conn
	log *statementLog
}

func (c *countingConn) QueryContext(ctx context.Context, q string, args []driver.NamedValue) (driver.Rows, error) {
	c.log.add(q)
	return c.Conn.(driver.QueryerContext).QueryContext(ctx, q, args)
}

func (c *countingConn) ExecContext(ctx context.Context, q string, args []driver.NamedValue) (driver.Result, error) {
	c.log.add(q)
	return c.Conn.(driver.ExecerContext).ExecContext(ctx, q, args)
}

func (c *countingConn) Prepare(q string) (driver.Stmt, error) {
	c.log.add(q)
	return c.Conn.Prepare(q)
}

func (c *countingConn) CheckNamedValue(nv *driver.NamedValue) error {
	return c.Conn.(driver.NamedValueChecker).CheckNamedValue(nv)
}

// fakeUsers accepts "user-<id>" as the access token of end user <id>.
type fakeUsers map[string]int64

func (f fakeUsers) VerifyAccess(_ context.Context, _ *registry.Entry, token string) (any, error) {
	if id, ok := f[token]; ok {
		return id, nil
	}
	return nil, auth.ErrInvalidToken
}

// countedAPI serves project p's generated API (published from doc) from a
// handler whose every statement goes through a countingConnector, with
// end-user tokens "user-1" and "user-2".
func countedAPI(t *testing.T, s *testserver.Server, p *testserver.Project, doc string) (*httptest.Server, *statementLog) {
	t.Helper()
	d, err := schema.Parse([]byte(doc))
	if err != nil {
		t.Fatal(err)
	}
	compiled, err := schema.Compile(d)
	if err != nil {
		t.Fatal(err)
	}
	pub := translate.Prepare(schema.ProjectSchema(p.ID), compiled)
	reg := registry.New(func(_ context.Context, id string) (*registry.Entry, error) {
		if id != p.ID {
			return nil, registry.ErrNotPublished
		}
		return &registry.Entry{ProjectID: id, Version: 1, Published: pub}, nil
	})
	conn, err := pq.NewConnector(testpg.URL(t))
	if err != nil {
		t.Fatal(err)
	}
	log := &statementLog{}
	db := sql.OpenDB(countingConnector{Connector: conn, log: log})
	t.Cleanup(func() { db.Close() })
	h := apihttp.New(apihttp.Deps{DB: db, Registry: reg, Keys: s.Svc.Keys, Users: fakeUsers{"user-1": 1, "user-2": 2}})
	srv := httptest.NewServer(h)
	t.Cleanup(srv.Close)
	return srv, log
}

func getJSON(t *testing.T, srv *httptest.Server, path, token string) (int, map[string]any) {
	t.Helper()
	req, err := http.NewRequest("GET", srv.URL+path, nil)
	if err != nil {
		t.Fatal(err)
	}
	if token != "" {
		req.Header.Set("Authorization", "Bearer "+token)
	}
	res, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer res.Body.Close()
	var body map[string]any
	if err := json.NewDecoder(res.Body).Decode(&body); err != nil {
		t.Fatal(err)
	}
	return res.StatusCode, body
}

func TestListIncludeRunsOneStatementWhateverThePageSize(t *testing.T) {
	t.Parallel()
	s := testserver.New(t)
	p := s.NewProject(librarySchema)
	schemaName := schema.QuoteIdent(schema.ProjectSchema(p.ID))
	ctx := context.Background()
	// 40 authors with 3 posts each, every post with 2 comments.
	for _, stmt := range []string{
		`INSERT INTO ` + schemaName + `.authors (name) SELECT 'author ' || g FROM generate_series(1, 40) g`,
		`INSERT INTO ` + schemaName + `.posts (title, author_id) SELECT 'post ' || g, (g - 1) / 3 + 1 FROM generate_series(1, 120) g`,
		`INSERT INTO ` + schemaName + `.comments (text, post_id) SELECT 'comment ' || g, (g - 1) / 2 + 1 FROM generate_series(1, 240) g`,
	} {
		if _, err := s.Svc.DB.ExecContext(ctx, stmt); err != nil {
			t.Fatal(err)
		}
	}
	seedScores(t, s, p, translate.ExactCountCap+50)
	srv, log := countedAPI(t, s, p, librarySchema)
	base := "/v1/" + p.ID

	for _, path := range []string{
		"/authors?limit=40&include=" + url.QueryEscape("posts.comments"),
		"/comments?limit=100&include=" + url.QueryEscape("post.author.posts,post.comments"),
		"/authors?limit=5&include=posts",
	} {
		log.take()
		status, body := getJSON(t, srv, base+path, p.Key)
		stmts := log.take()
		if status != 200 {
			t.Fatalf("GET %s: %d %v", path, status, body)
		}
		if len(stmts) != 1 {
			t.Fatalf("GET %s ran %d statements, want 1:\n%s", path, len(stmts), strings.Join(stmts, "\n"))
		}
	}

	// a filtered estimated count over the cap adds exactly one EXPLAIN
	log.take()
	if status, body := getJSON(t, srv, base+"/scores?limit=5&include=&"+query("filter[n][gt]", "5"), p.Key); status != 200 {
		t.Fatalf("GET /scores: %d %v", status, body)
	}
	if stmts := log.take(); len(stmts) != 2 || !strings.HasPrefix(stmts[1], "EXPLAIN (FORMAT JSON) ") {
		t.Fatalf("GET /scores over the count cap ran %d statements, want the list and one EXPLAIN:\n%s", len(stmts), strings.Join(stmts, "\n"))
	}
	// unfiltered, the statement reads the estimate itself
	status, body := getJSON(t, srv, base+"/scores?limit=5", p.Key)
	if stmts := log.take(); status != 200 || len(stmts) != 1 {
		t.Fatalf("GET /scores unfiltered over the count cap: %d, %d statements, want 1:\n%s", status, len(stmts), strings.Join(stmts, "\n"))
	}
	if m, _ := body["meta"].(map[string]any); m["total_estimated"] != true || m["total"] != float64(translate.ExactCountCap+50) {
		t.Fatalf("unfiltered estimate of an analysed table: meta %v, want %d estimated", body["meta"], translate.ExactCountCap+50)
	}

	// and the one statement did embed everything
	_, body = getJSON(t, srv, base+"/authors?limit=40&include="+url.QueryEscape("posts.comments"), p.Key)
	rows := body["data"].([]any)
	if len(rows) != 40 {
		t.Fatalf("%d authors", len(rows))
	}
	for _, r := range rows {
		posts := r.(map[string]any)["posts"].([]any)
		if len(posts) != 3 {
			t.Fatalf("author %v has %d posts", r.(map[string]any)["id"], len(posts))
		}
		for _, post := range posts {
			if n := len(post.(map[string]any)["comments"].([]any)); n != 2 {
				t.Fatalf("post %v has %d comments", post.(map[string]any)["id"], n)
			}
		}
	}
}

// membersSeed are the two members of membersSchema and their three notes
// (one-a and one-b of member 1, two-a of member 2).
var membersSeed = []string{
	`INSERT INTO $s.members (email, password_hash) VALUES ('one@example.com', 'x'), ('two@example.com', 'x')`,
	`INSERT INTO $s.notes (text, member_id) VALUES ('one-a', 1), ('one-b', 1), ('two-a', 2)`,
}

// membersSchema has an auth table and one table per read rule.
const membersSchema = `{"tables": [
	{"name": "members", "auth": true, "columns": [
		{"name": "email", "type": "email", "required": true, "unique": true},
		{"name": "password_hash", "type": "password", "required": true}]},
	{"name": "notes", "owner_column": "member_id", "permissions": {"read": "owner"}, "columns": [
		{"name": "text", "type": "text"},
		{"name": "member_id", "type": "integer", "references": {"table": "members"}}]},
	{"name": "boards", "permissions": {"read": "public"}, "columns": [
		{"name": "name", "type": "text"}]},
	{"name": "pins", "permissions": {"read": "public"}, "columns": [
		{"name": "label", "type": "text"},
		{"name": "board_id", "type": "integer", "references": {"table": "boards"}},
		{"name": "note_id", "type": "integer", "references": {"table": "notes"}}]},
	{"name": "audits", "permissions": {"read": "key"}, "columns": [
		{"name": "what", "type": "text"},
		{"name": "board_id", "type": "integer", "references": {"table": "boards"}}]}]}`

func TestListIncludeAppliesTheReadRuleOfEveryEmbeddedTable(t *testing.T) {
	t.Parallel()
	s := testserver.New(t)
	p := s.NewProject(membersSchema)
	execIn(t, s, p, append(membersSeed,
		`INSERT INTO $s.boards (name) VALUES ('main')`,
		`INSERT INTO $s.pins (label, board_id, note_id) VALUES ('p1', 1, 1), ('p2', 1, 3)`,
		`INSERT INTO $s.audits (what, board_id) VALUES ('created', 1)`,
	)...)
	srv, _ := countedAPI(t, s, p, membersSchema)
	base := "/v1/" + p.ID
	list := func(body map[string]any) []map[string]any {
		arr, _ := body["data"].([]any)
		out := make([]map[string]any, len(arr))
		for i, v := range arr {
			out[i], _ = v.(map[string]any)
		}
		return out
	}

	// owner: an end user's embeds hold only their own rows; a key sees all
	_, body := getJSON(t, srv, base+"/members?include=notes", "user-1")
	rows := list(body)
	if len(rows) != 2 || !reflect.DeepEqual(idsOf(rows[0]["notes"]), []int{1, 2}) || !reflect.DeepEqual(idsOf(rows[1]["notes"]), []int{}) {
		t.Fatalf("user 1 members?include=notes = %v", body)
	}
	_, body = getJSON(t, srv, base+"/members?include=notes", p.Key)
	if rows := list(body); len(rows) != 2 || !reflect.DeepEqual(idsOf(rows[1]["notes"]), []int{3}) {
		t.Fatalf("key members?include=notes = %v", body)
	}
	_, body = getJSON(t, srv, base+"/pins?include=note", "user-2")
	if rows := list(body); len(rows) != 2 || rows[0]["note"] != nil || rows[1]["note"].(map[string]any)["text"] != "two-a" {
		t.Fatalf("user 2 pins?include=note = %v", body)
	}
	// the listed table itself is still scoped to its owner
	_, body = getJSON(t, srv, base+"/notes?include=member", "user-2")
	if rows := list(body); len(rows) != 1 || rows[0]["member"].(map[string]any)["email"] != "two@example.com" {
		t.Fatalf("user 2 notes?include=member = %v", body)
	}

	// a rule the caller fails is 403 naming include, even where the list
	// itself is public
	for _, c := range []struct{ path, token string }{
		{"/boards?include=audits", "user-1"},
		{"/boards?include=audits", ""},
		{"/pins?include=note", ""},
		{"/boards?include=" + url.QueryEscape("pins.note"), ""},
	} {
		status, body := getJSON(t, srv, base+c.path, c.token)
		e, _ := body["error"].(map[string]any)
		details, _ := e["details"].(map[string]any)
		if status != 403 || e["code"] != "FORBIDDEN" || details["include"] == nil {
			t.Errorf("GET %s as %q: want 403 FORBIDDEN with details.include, got %d %v", c.path, c.token, status, body)
		}
	}
	for _, c := range []struct{ path, token string }{
		{"/boards?include=audits", p.Key},
		{"/boards?include=pins", ""},
		{"/boards", ""},
		{"/boards?include=" + url.QueryEscape("pins.note"), "user-1"},
	} {
		if status, body := getJSON(t, srv, base+c.path, c.token); status != 200 {
			t.Errorf("GET %s as %q: want 200, got %d %v", c.path, c.token, status, body)
		}
	}
	_, body = getJSON(t, srv, base+"/boards?include="+url.QueryEscape("pins.note"), "user-1")
	pins := list(body)[0]["pins"].([]any)
	if len(pins) != 2 || pins[0].(map[string]any)["note"] == nil || pins[1].(map[string]any)["note"] != nil {
		t.Fatalf("user 1 boards?include=pins.note = %v", body)
	}
}

const itemsSchema = `{"tables": [{"name": "items", "columns": [
	{"name": "title", "type": "text", "searchable": true},
	{"name": "score", "type": "integer", "index": true},
	{"name": "plain", "type": "integer"}]}]}`

func TestListIndexesServeSearchSortAndFilterOnBigTables(t *testing.T) {
	t.Parallel()
	s := testserver.New(t)
	p := s.NewProject(itemsSchema)
	ctx := context.Background()
	rel := schema.QuoteIdent(schema.ProjectSchema(p.ID)) + ".items"
	for _, stmt := range []string{
		// titles of words, as real text is: the trigram index stays
		// smaller than the table (random hex would not)
		`INSERT INTO ` + rel + ` (title, score, plain)
		 SELECT CASE WHEN g % 4000 = 0 THEN 'zebra crossing ' || g
		        ELSE (ARRAY['red', 'green', 'blue', 'amber', 'violet', 'black', 'white', 'olive'])[g % 8 + 1] || ' item number ' || g || ' of the catalogue' END,
		        g % 1000, g
		 FROM generate_series(1, 20000) g`,
		// VACUUM also moves the GIN index's pending entries into the index
		`VACUUM ANALYZE ` + rel,
	} {
		if _, err := s.Svc.DB.ExecContext(ctx, stmt); err != nil {
			t.Fatal(err)
		}
	}
	var trigram bool
	if err := s.Svc.DB.QueryRowContext(ctx, `SELECT EXISTS (SELECT 1 FROM pg_extension WHERE extname = 'pg_trgm')`).Scan(&trigram); err != nil {
		t.Fatal(err)
	}
	entry, err := s.Svc.Registry.Get(ctx, p.ID)
	if err != nil {
		t.Fatal(err)
	}
	cases := []struct {
		query, index string
	}{
		{"search=zebra", "items_title_trgm"},
		{"sort=-score", "items_score_sort"},
		{"sort=score&" + query("filter[score][gte]", "995"), "items_score_sort"},
		{query("filter[score]", "7"), "items_score_sort"},
		{query("filter", "score = 7 or score = 8"), "items_score_sort"},
	}
	for _, c := range cases {
		if c.index == "items_title_trgm" && !trigram {
			t.Log("pg_trgm is not installed: search runs without its index")
			continue
		}
		plan := explainList(t, s.Svc.DB, buildFor(t, entry, "items", c.query), false)
		if _, used := planNodes(t, plan); !contains(used, c.index) {
			t.Errorf("?%s: plan uses indexes %v, want %s in it:\n%s", c.query, used, c.index, plan)
		}
		// and the request itself answers correctly
		r := s.API(p, "GET", "/items?"+c.query, nil).Must(t, 200)
		if len(r.List()) == 0 {
			t.Errorf("?%s: no rows", c.query)
		}
	}
	r := s.API(p, "GET", "/items?search=zebra", nil).Must(t, 200)
	if got := meta(r)["total"]; got != float64(5) {
		t.Fatalf("search=zebra total = %v, want 5", got)
	}
}

func contains(list []string, s string) bool {
	for _, x := range list {
		if x == s {
			return true
		}
	}
	return false
}

// max_page_size raises the largest limit: lists, offsets and the OpenAPI
// document all follow it.
func TestMaxPageSizeRaisesTheLargestLimit(t *testing.T) {
	t.Parallel()
	s := testserver.New(t, testserver.WithConfig(func(c *service.Config) { c.MaxPageSize = 1000 }))
	p := s.NewProject(`{"tables": [{"name": "notes", "columns": [{"name": "body", "type": "text"}]}]}`)
	execIn(t, s, p, `INSERT INTO $s.notes (body) SELECT 'n' || g FROM generate_series(1, 1200) g`)
	if got := s.API(p, "GET", "/notes?limit=1000&count=none", nil).Must(t, 200).List(); len(got) != 1000 {
		t.Fatalf("limit=1000 gave %d rows", len(got))
	}
	bad := s.API(p, "GET", "/notes?limit=1001", nil).Must(t, 400)
	if !strings.Contains(bad.Message(), "from 1 to 1000") {
		t.Fatalf("limit=1001: %s", bad.Raw)
	}
	doc := s.Do("GET", "/v1/"+p.ID+"/openapi.json", "", nil).Must(t, 200)
	limit := doc.Body["components"].(map[string]any)["parameters"].(map[string]any)
	found := false
	for _, v := range limit {
		prm := v.(map[string]any)
		if prm["name"] == "limit" {
			found = true
			if max := prm["schema"].(map[string]any)["maximum"]; max != float64(1000) {
				t.Fatalf("the document's limit maximum is %v, want 1000", max)
			}
		}
	}
	if !found {
		t.Fatal("no limit parameter in the document's components")
	}
}
