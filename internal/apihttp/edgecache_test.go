package apihttp_test

import (
	"strings"
	"testing"

	"github.com/tablesmith/tablesmith/internal/testserver"
)

// edgeDoc: articles are public and cached for 30 s and embed their public,
// uncached authors; drafts are public but not cached; secrets need a key.
const edgeDoc = `{"tables": [
  {"name": "authors", "permissions": {"read": "public"}, "columns": [{"name": "name", "type": "text"}]},
  {"name": "articles", "permissions": {"read": "public"}, "cache": {"max_age": 30}, "columns": [
    {"name": "title", "type": "text"},
    {"name": "author_id", "type": "integer", "references": {"table": "authors", "on_delete": "cascade"}}]},
  {"name": "drafts", "permissions": {"read": "public"}, "columns": [{"name": "title", "type": "text"}]},
  {"name": "secrets", "columns": [{"name": "body", "type": "text"}]}]}`

func TestAnonymousReadsOfACachedTableAreSharedWithItsSurrogateKeys(t *testing.T) {
	t.Parallel()
	s := testserver.New(t)
	p := s.NewProject(edgeDoc)
	s.API(p, "POST", "/authors", map[string]any{"name": "Ann"}).Must(t, 201)
	s.API(p, "POST", "/articles", map[string]any{"title": "Hello", "author_id": 1}).Must(t, 201)
	base := "/v1/" + p.ID
	key := func(table string) string { return "ts_" + p.ID + "_" + table }
	for _, c := range []struct {
		path string
		keys []string
	}{
		{"/articles", []string{"ts_" + p.ID, key("articles")}},
		{"/articles/1", []string{"ts_" + p.ID, key("articles")}},
		{"/articles?include=author", []string{"ts_" + p.ID, key("articles"), key("authors")}},
		{"/articles?filter[author.name]=Ann", []string{"ts_" + p.ID, key("articles"), key("authors")}},
		{"/articles/aggregate?count=*", []string{"ts_" + p.ID, key("articles")}},
	} {
		r := s.Do("GET", base+c.path, "", nil).Must(t, 200)
		if got := r.Header.Get("Cache-Control"); got != "public, max-age=30" {
			t.Errorf("GET %s: Cache-Control %q, want public, max-age=30", c.path, got)
		}
		if got, want := r.Header.Get("Surrogate-Key"), strings.Join(c.keys, ", "); got != want {
			t.Errorf("GET %s: Surrogate-Key %q, want %q", c.path, got, want)
		}
		if !strings.Contains(strings.Join(r.Header.Values("Vary"), ","), "Authorization") {
			t.Errorf("GET %s: Vary %q lacks Authorization", c.path, r.Header.Values("Vary"))
		}
		// The 304 of a revalidation says the same.
		r = s.Do("GET", base+c.path, "", nil, "If-None-Match", r.Header.Get("ETag")).Must(t, 304)
		if got := r.Header.Get("Cache-Control"); got != "public, max-age=30" {
			t.Errorf("GET %s revalidated: Cache-Control %q", c.path, got)
		}
	}
}

func TestEveryOtherAnswerStaysOutOfSharedCaches(t *testing.T) {
	t.Parallel()
	s := testserver.New(t)
	p := s.NewProject(edgeDoc)
	s.API(p, "POST", "/drafts", map[string]any{"title": "x"}).Must(t, 201)
	s.API(p, "POST", "/articles", map[string]any{"title": "x"}).Must(t, 201)
	base := "/v1/" + p.ID
	for _, c := range []struct {
		name, method, path, token string
		status                    int
		cacheControl              string
	}{
		{"a credentialed read of a cached table", "GET", "/articles", p.Key, 200, "private, no-cache"},
		{"the owner's dashboard read of a cached table", "GET", "/articles/1", p.Session, 200, "private, no-cache"},
		{"an anonymous read of a public table without cache", "GET", "/drafts", "", 200, "private, no-cache"},
		{"a read that needs a credential", "GET", "/secrets", "", 401, "no-store"},
		{"a missing record of a cached table", "GET", "/articles/99", "", 404, "no-store"},
		{"a bad query on a cached table", "GET", "/articles?sort=nope", "", 400, "no-store"},
		{"a write", "PATCH", "/articles/1", p.Key, 200, "private, no-cache"},
	} {
		var body any
		if c.method == "PATCH" {
			body = map[string]any{"title": "y"}
		}
		r := s.Do(c.method, base+c.path, c.token, body).Must(t, c.status)
		if got := r.Header.Get("Cache-Control"); got != c.cacheControl {
			t.Errorf("%s: Cache-Control %q, want %q", c.name, got, c.cacheControl)
		}
		if got := r.Header.Get("Surrogate-Key"); got != "" {
			t.Errorf("%s: Surrogate-Key %q, want none", c.name, got)
		}
	}
}
