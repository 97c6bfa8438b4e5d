package apihttp_test

import (
	"bytes"
	"net/url"
	"sort"
	"testing"

	"github.com/tablesmith/tablesmith/internal/testserver"
)

// POST /<table>/bulk is a bulk create of its own, so that the API
// description can give POST /<table> a plain object body: the same
// array, the same answer, the same upsert; an object is refused.
func TestTheBulkRouteTakesTheArrayThatPostOnTheCollectionTakes(t *testing.T) {
	t.Parallel()
	s := testserver.New(t)
	p := s.NewProject(contactsSchema)

	r := s.API(p, "POST", "/contacts/bulk", contacts(0, 3)).Must(t, 201)
	got := r.List()
	if len(got) != 3 || got[0]["email"] != "c0@example.com" || got[2]["n"] != float64(2) {
		t.Fatalf("bulk records = %s", r.Raw)
	}
	if meta := r.Body["meta"].(map[string]any); meta["created"] != float64(3) || r.Header.Get("Location") != "" {
		t.Fatalf("bulk meta = %v, Location %q", meta, r.Header.Get("Location"))
	}
	// The collection still takes an array, for the clients written before.
	s.API(p, "POST", "/contacts", contacts(3, 5)).Must(t, 201)
	if n := countRows(t, s, p, "contacts", "true"); n != 5 {
		t.Fatalf("rows = %d, want 5", n)
	}
	// An upsert through the bulk route: one updated, one created.
	up := s.API(p, "POST", "/contacts/bulk?on_conflict=email", []map[string]any{
		{"email": "c0@example.com", "name": "again"}, {"email": "c9@example.com", "name": "new"}}).Must(t, 201)
	if meta := up.Body["meta"].(map[string]any); meta["created"] != float64(1) || meta["updated"] != float64(1) {
		t.Fatalf("upsert meta = %v", meta)
	}
	// One object is not a bulk body; nothing is written.
	bad := s.API(p, "POST", "/contacts/bulk", map[string]any{"email": "solo@example.com"}).Must(t, 400)
	if bad.ErrorCode() != "INVALID_JSON" {
		t.Fatalf("an object on /bulk = %s, want INVALID_JSON", bad.Raw)
	}
	if n := countRows(t, s, p, "contacts", "email = 'solo@example.com'"); n != 0 {
		t.Fatalf("the refused object was written")
	}
	// An invalid item refuses the whole array, keyed by its position.
	inv := s.API(p, "POST", "/contacts/bulk", []map[string]any{{"email": "ok@example.com"}, {"email": "nope"}}).Must(t, 400)
	if inv.ErrorCode() != "VALIDATION_ERROR" || inv.Details()["1.email"] == nil {
		t.Fatalf("invalid item = %s", inv.Raw)
	}
	// Only POST: the uuid key cannot be "bulk", so other methods are 405.
	if g := s.API(p, "GET", "/contacts/bulk", nil); g.Status != 405 || g.Header.Get("Allow") != "POST" {
		t.Fatalf("GET /contacts/bulk = %d %v %s", g.Status, g.Header.Get("Allow"), g.Raw)
	}
}

// GET /<table>/export is the CSV or NDJSON export as its own operation,
// so the list's 200 is JSON only; ?format= on the list still works and
// answers the same bytes.
func TestTheExportRouteAnswersWhatTheListsFormatAnswers(t *testing.T) {
	t.Parallel()
	s := testserver.New(t)
	p := s.NewProject(cursorSchema)
	seedItems(t, s, p, 40)
	for _, format := range []string{"csv", "ndjson"} {
		q := "format=" + format + "&sort=-score,id&" + query("filter[label]", "l1")
		viaList := s.API(p, "GET", "/items?"+q, nil).Must(t, 200)
		viaRoute := s.API(p, "GET", "/items/export?"+q, nil).Must(t, 200)
		if !bytes.Equal(viaList.Raw, viaRoute.Raw) || len(viaRoute.Raw) == 0 {
			t.Errorf("%s: /items/export answered %q, the list %q", format, viaRoute.Raw, viaList.Raw)
		}
		if viaRoute.Header.Get("Content-Type") != viaList.Header.Get("Content-Type") {
			t.Errorf("%s: Content-Type %q, the list's %q", format, viaRoute.Header.Get("Content-Type"), viaList.Header.Get("Content-Type"))
		}
	}
	byAccept := s.Do("GET", "/v1/"+p.ID+"/items/export", p.Key, nil, "Accept", "text/csv").Must(t, 200)
	if !bytes.HasPrefix(byAccept.Raw, []byte("id,score,name")) {
		t.Errorf("export by Accept = %q", byAccept.Raw)
	}
	for _, path := range []string{"/items/export", "/items/export?format=json", "/items/export?format=csv&limit=5"} {
		r := s.API(p, "GET", path, nil).Must(t, 400)
		if r.ErrorCode() != "INVALID_QUERY" || len(r.Details()) != 1 {
			t.Errorf("GET %s = %s, want INVALID_QUERY naming one parameter", path, r.Raw)
		}
	}
	if r := s.API(p, "POST", "/items/export", map[string]any{}); r.Status != 405 || r.Header.Get("Allow") != "GET, HEAD" {
		t.Errorf("POST /items/export = %d %q", r.Status, r.Header.Get("Allow"))
	}
}

// Default OpenAPI serializers send an array parameter as
// include=a&include=b (form, explode): include and fields read that as
// the comma list, on a list and on one record; a repeated scalar
// parameter is still refused.
func TestRepeatedIncludeAndFieldsAreReadAsAList(t *testing.T) {
	t.Parallel()
	s := testserver.New(t)
	p := s.NewProject(postsByAuthor)
	seedBlog(t, s, p, 3)
	keys := func(rec map[string]any) []string {
		var out []string
		for k := range rec {
			out = append(out, k)
		}
		sort.Strings(out)
		return out
	}
	repeated := "include=author&fields=title&fields=author_id"
	list := s.API(p, "GET", "/posts?sort=id&"+repeated, nil).Must(t, 200).List()
	commas := s.API(p, "GET", "/posts?sort=id&include=author&fields="+url.QueryEscape("title,author_id"), nil).Must(t, 200).List()
	if len(list) != 3 || !equalKeys(keys(list[0]), "author", "author_id", "id", "title") {
		t.Fatalf("repeated fields = %v", list)
	}
	if author, _ := list[0]["author"].(map[string]any); author == nil || author["name"] != "Ada" || list[0]["title"] != commas[0]["title"] {
		t.Fatalf("repeated include = %v, commas %v", list[0], commas[0])
	}
	rec := s.API(p, "GET", "/posts/1?fields=status&fields=title", nil).Must(t, 200).Data()
	if !equalKeys(keys(rec), "id", "status", "title") {
		t.Fatalf("GET /posts/1 with repeated fields = %v", rec)
	}
	for path, param := range map[string]string{
		"/posts?fields=title&fields=":   "fields",
		"/posts?sort=id&sort=title":     "sort",
		"/posts?include=nope&include=x": "include",
		"/posts/1?count=none":           "count",
	} {
		r := s.API(p, "GET", path, nil).Must(t, 400)
		if r.ErrorCode() != "INVALID_QUERY" || r.Details()[param] == nil {
			t.Errorf("GET %s = %s, want INVALID_QUERY naming %s", path, r.Raw, param)
		}
	}
}

func equalKeys(got []string, want ...string) bool {
	if len(got) != len(want) {
		return false
	}
	for i := range got {
		if got[i] != want[i] {
			return false
		}
	}
	return true
}
