package apihttp_test

import (
	"fmt"
	"strings"
	"testing"

	"github.com/tablesmith/tablesmith/internal/testserver"
)

// postsByAuthor has a to-one relation (author), a reverse one (posts) and a
// status column, the names the edge cases below use.
const postsByAuthor = `{"tables": [
	{"name": "authors", "columns": [{"name": "name", "type": "text", "required": true}]},
	{"name": "posts", "columns": [
		{"name": "title", "type": "text", "required": true, "unique": true},
		{"name": "status", "type": "enum", "values": ["draft", "published", "archived"]},
		{"name": "author_id", "type": "integer", "references": {"table": "authors", "on_delete": "cascade"}}]}]}`

// seedBlog creates one author and n posts t1..tn, by that author, in
// three statuses.
func seedBlog(t *testing.T, s *testserver.Server, p *testserver.Project, n int) {
	t.Helper()
	s.API(p, "POST", "/authors", map[string]any{"name": "Ada"}).Must(t, 201)
	items := make([]map[string]any, n)
	for i := range items {
		items[i] = map[string]any{"title": fmt.Sprintf("t%d", i+1), "status": []string{"draft", "published", "archived"}[i%3], "author_id": 1}
	}
	s.API(p, "POST", "/posts", items).Must(t, 201)
}

func TestARawSemicolonIsPartOfItsValueAndNeverDropsAFilter(t *testing.T) {
	t.Parallel()
	s := testserver.New(t)
	p := s.NewProject(postsByAuthor)
	seedBlog(t, s, p, 30)

	// Go's own query parser drops the pair with the ';', so this update
	// once reached every row: now it compares the title with "t1;x".
	res := s.API(p, "PATCH", "/posts?filter[title]=t1;x&filter[id][gt]=0", map[string]any{"status": "archived"}).Must(t, 200)
	if res.Data()["affected"] != float64(0) {
		t.Fatalf("update by filter with a raw ';' = %s, want 0 rows affected", res.Raw)
	}
	if got := countRows(t, s, p, "posts", `status = 'archived'`); got != 10 {
		t.Fatalf("%d archived posts after the update, want the 10 seeded", got)
	}
	// The guard reads its whole value: "1;" is not a number.
	bad := s.API(p, "DELETE", "/posts?filter[id][gt]=0&max_affected=1;", nil).Must(t, 400)
	if bad.ErrorCode() != "INVALID_QUERY" || bad.Details()["max_affected"] == nil {
		t.Fatalf("max_affected=1; = %s, want INVALID_QUERY naming max_affected", bad.Raw)
	}
	if got := countRows(t, s, p, "posts", "true"); got != 30 {
		t.Fatalf("%d posts left, want 30", got)
	}
	// The include syntax of the docs, with its ';', embeds as written.
	list := s.API(p, "GET", "/authors?include=posts(sort=-title;limit=2)", nil).Must(t, 200)
	posts, _ := list.List()[0]["posts"].([]any)
	if len(posts) != 2 || posts[0].(map[string]any)["title"] != "t9" {
		t.Fatalf("include with ';' options = %s, want the two last titles", list.Raw)
	}
}

func TestAQueryStringThatCannotBeReadWholeIsRefusedNamingTheParameter(t *testing.T) {
	t.Parallel()
	s := testserver.New(t)
	p := s.NewProject(postsByAuthor)
	seedBlog(t, s, p, 3)
	for _, tc := range []struct{ method, path, param string }{
		{"GET", "/posts?search=100%", "search"},
		{"GET", "/posts?filter[title]=%zz", "filter[title]"},
		{"GET", "/posts/1?fields=ti%tle", "fields"},
		{"PATCH", "/posts?filter[title]=t1%&filter[id][gt]=0", "filter[title]"},
		{"GET", "/posts?filter[title]=a%00b", "filter[title]"},
		{"GET", "/posts?filter%zz=1", "filter%zz"},
		{"GET", "/realtime?tables=posts%", "tables"},
		{"POST", "/auth/login?x=%", "x"},
	} {
		var body any
		if tc.method == "PATCH" {
			body = map[string]any{"status": "draft"}
		}
		res := s.API(p, tc.method, tc.path, body)
		if res.Status != 400 || res.ErrorCode() != "INVALID_QUERY" || res.Details()[tc.param] == nil {
			t.Errorf("%s %s = %d %s, want 400 INVALID_QUERY naming %s", tc.method, tc.path, res.Status, res.Raw, tc.param)
		}
	}
	if got := countRows(t, s, p, "posts", `status = 'draft'`); got != 1 {
		t.Fatalf("%d draft posts, want the one seeded: a refused update changed rows", got)
	}
}

func TestAnUnknownParameterIsRefusedWithWhatToWriteInstead(t *testing.T) {
	t.Parallel()
	s := testserver.New(t)
	p := s.NewProject(postsByAuthor)
	seedBlog(t, s, p, 6)
	for _, tc := range []struct{ method, path, param, hint string }{
		{"GET", "/posts?status=draft", "status", "filter[status]=draft"},
		{"GET", "/posts?select=title", "select", "fields="},
		{"GET", "/posts?per_page=5", "per_page", "limit="},
		{"GET", "/posts/1?sort=title", "sort", ""},
		{"GET", "/posts/1?status=draft", "status", ""}, // a record takes no filter
		{"GET", "/posts/aggregate?count=*&include=author", "include", "not supported on aggregate"},
		{"PATCH", "/posts?filter[id]=1&limit=1", "limit", "every matching row changes"},
		{"POST", "/posts?upsert=title", "upsert", ""},
		{"PUT", "/posts/1?fields=title", "fields", ""},
		{"DELETE", "/posts/1?force=true", "force", ""},
		{"GET", "/realtime?tables=posts&table=posts", "table", ""},
		{"POST", "/auth/login?redirect=/", "redirect", ""},
	} {
		var body any
		if tc.method == "POST" || tc.method == "PUT" {
			body = map[string]any{"title": "new " + tc.param}
		}
		res := s.API(p, tc.method, tc.path, body)
		msg := fmt.Sprint(res.Details()[tc.param])
		if res.Status != 400 || res.ErrorCode() != "INVALID_QUERY" || res.Details()[tc.param] == nil || !strings.Contains(msg, tc.hint) {
			t.Errorf("%s %s = %d %s, want 400 INVALID_QUERY naming %s with %q", tc.method, tc.path, res.Status, res.Raw, tc.param, tc.hint)
		}
	}
	// An update by filter with a misspelt parameter changes nothing.
	res := s.API(p, "PATCH", "/posts?filter[id][gt]=0&fitler[status]=draft", map[string]any{"status": "archived"}).Must(t, 400)
	if res.Details()["fitler[status]"] == nil {
		t.Fatalf("misspelt filter = %s", res.Raw)
	}
	if got := countRows(t, s, p, "posts", `status = 'archived'`); got != 2 {
		t.Fatalf("%d archived posts, want the 2 seeded", got)
	}
	// The cache buster is taken everywhere and changes nothing.
	if n := len(s.API(p, "GET", "/posts?_=1732781234567&limit=2", nil).Must(t, 200).List()); n != 2 {
		t.Fatalf("list with _= holds %d records", n)
	}
	s.API(p, "GET", "/posts/1?_=1", nil).Must(t, 200)
	s.API(p, "PATCH", "/posts/1?_=1", map[string]any{"status": "published"}).Must(t, 200)
}

func TestGettingOneRecordTakesIncludeAndFieldsLikeTheList(t *testing.T) {
	t.Parallel()
	s := testserver.New(t)
	p := s.NewProject(postsByAuthor)
	seedBlog(t, s, p, 3)

	got := s.API(p, "GET", "/posts/2?include=author&fields=title", nil).Must(t, 200)
	rec := got.Data()
	author, _ := rec["author"].(map[string]any)
	if rec["id"] != float64(2) || rec["title"] != "t2" || author["name"] != "Ada" || rec["status"] != nil {
		t.Fatalf("GET /posts/2?include=author&fields=title = %s", got.Raw)
	}
	if got.Message() != "Record retrieved successfully" {
		t.Fatalf("message = %q", got.Message())
	}
	// The same record from the list, byte for byte.
	list := s.API(p, "GET", "/posts?filter[id]=2&include=author&fields=title", nil).Must(t, 200)
	if fmt.Sprint(list.List()[0]) != fmt.Sprint(rec) {
		t.Fatalf("the list's record %v differs from the GET's %v", list.List()[0], rec)
	}
	// A reverse relation, with the include options of the list.
	a := s.API(p, "GET", "/authors/1?include=posts(sort=-title;limit=1)", nil).Must(t, 200).Data()
	if posts, _ := a["posts"].([]any); len(posts) != 1 || posts[0].(map[string]any)["title"] != "t3" {
		t.Fatalf("GET /authors/1 with a reverse include = %v", a)
	}
	// The list's errors.
	for _, path := range []string{"/posts/1?include=nonexistent", "/posts/1?fields=nope", "/posts/1?include=author&include="} {
		res := s.API(p, "GET", path, nil).Must(t, 400)
		if res.ErrorCode() != "INVALID_QUERY" {
			t.Errorf("GET %s = %s, want INVALID_QUERY", path, res.Raw)
		}
	}
	s.API(p, "GET", "/posts/99?include=author", nil).Must(t, 404)
	s.API(p, "GET", "/posts/nope?include=author", nil).Must(t, 404)
}

func TestFilterComparisonsAreCountedAcrossEveryFilterForm(t *testing.T) {
	t.Parallel()
	s := testserver.New(t)
	p := s.NewProject(postsByAuthor)
	var q []string
	for i := 0; i < 40; i++ {
		q = append(q, fmt.Sprintf("filter=%s", strings.ReplaceAll(fmt.Sprintf("id != %d", i), " ", "+")))
	}
	for i := 0; i < 25; i++ {
		q = append(q, fmt.Sprintf("filter[id][ne]=%d", 100+i))
	}
	res := s.API(p, "GET", "/posts?"+strings.Join(q, "&"), nil).Must(t, 400)
	if res.ErrorCode() != "INVALID_QUERY" || !strings.Contains(fmt.Sprint(res.Details()["filter"]), "65") {
		t.Fatalf("65 comparisons over two forms = %s, want INVALID_QUERY counting 65", res.Raw)
	}
	s.API(p, "GET", "/posts?"+strings.Join(q[1:], "&"), nil).Must(t, 200)
	// The same bound holds for a write by filter.
	s.API(p, "DELETE", "/posts?"+strings.Join(q, "&"), nil).Must(t, 400)
}
