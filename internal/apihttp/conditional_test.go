package apihttp_test

import (
	"testing"

	"github.com/tablesmith/tablesmith/internal/testserver"
)

func TestAWriteWithAStaleIfMatchIsRefusedAndChangesNothing(t *testing.T) {
	t.Parallel()
	s := testserver.New(t)
	p := s.NewProject(postsByAuthor)
	seedBlog(t, s, p, 2)
	path := "/v1/" + p.ID + "/posts/1"

	first := s.Do("GET", path, p.Key, nil).Must(t, 200)
	tag := first.Header.Get("ETag")
	if tag == "" {
		t.Fatal("GET of a record has no ETag")
	}
	// Someone else changes the record: the tag the client holds is stale.
	s.API(p, "PATCH", "/posts/1", map[string]any{"status": "archived"}).Must(t, 200)
	for _, tc := range []struct {
		method string
		body   any
	}{{"PATCH", map[string]any{"title": "mine"}}, {"PUT", map[string]any{"title": "mine"}}, {"DELETE", nil}} {
		res := s.Do(tc.method, path, p.Key, tc.body, "If-Match", tag).Must(t, 412)
		if res.ErrorCode() != "PRECONDITION_FAILED" || res.Details()["If-Match"] == nil {
			t.Fatalf("%s with a stale If-Match = %s", tc.method, res.Raw)
		}
	}
	if got := s.API(p, "GET", "/posts/1", nil).Must(t, 200).Data(); got["title"] != "t1" || got["status"] != "archived" {
		t.Fatalf("the record after refused writes = %v", got)
	}

	// With the current tag (weak or not, as sent back) the write goes
	// through, and the tag after it is the new GET's.
	current := s.Do("GET", path, p.Key, nil).Must(t, 200).Header.Get("ETag")
	patched := s.Do("PATCH", path, p.Key, map[string]any{"title": "mine"}, "If-Match", current).Must(t, 200)
	if patched.Data()["title"] != "mine" {
		t.Fatalf("PATCH with the current If-Match = %s", patched.Raw)
	}
	after := s.Do("GET", path, p.Key, nil).Must(t, 200).Header.Get("ETag")
	s.Do("DELETE", path, p.Key, nil, "If-Match", current).Must(t, 412)
	s.Do("DELETE", path, p.Key, nil, "If-Match", `"nope", `+after[2:]).Must(t, 200)

	// * matches any record there is; a record that is not there is 404.
	s.Do("PATCH", "/v1/"+p.ID+"/posts/2", p.Key, map[string]any{"status": "draft"}, "If-Match", "*").Must(t, 200)
	s.Do("PATCH", path, p.Key, map[string]any{"status": "draft"}, "If-Match", "*").Must(t, 404)

	// Where it cannot be honoured it is refused, not ignored.
	for _, tc := range []struct{ method, path, header, value string }{
		{"PATCH", "/posts?filter[id]=2", "If-Match", "*"},
		{"POST", "/posts", "If-Match", "*"},
		{"GET", "/posts/2", "If-Match", "*"},
		{"PATCH", "/posts/2", "If-Match", "not-a-tag"},
		{"PATCH", "/posts/2", "If-None-Match", "*"},
	} {
		var body any = map[string]any{"title": "x"}
		if tc.method == "GET" {
			body = nil
		}
		res := s.Do(tc.method, "/v1/"+p.ID+tc.path, p.Key, body, tc.header, tc.value).Must(t, 400)
		if res.Details()[tc.header] == nil {
			t.Errorf("%s %s with %s: %s = %s, want 400 naming the header", tc.method, tc.path, tc.header, tc.value, res.Raw)
		}
	}
}

func TestIfNoneMatchStarMakesAnUpsertCreateOnly(t *testing.T) {
	t.Parallel()
	s := testserver.New(t)
	p := s.NewProject(postsByAuthor)
	seedBlog(t, s, p, 2)
	path := "/v1/" + p.ID + "/posts?on_conflict=title"

	res := s.Do("POST", path, p.Key, []map[string]any{{"title": "t9", "status": "archived"}, {"title": "t1", "status": "archived"}}, "If-None-Match", "*").Must(t, 412)
	if res.ErrorCode() != "PRECONDITION_FAILED" || res.Details()["title"] == nil {
		t.Fatalf("insert-only upsert meeting t1 = %s", res.Raw)
	}
	if n := countRows(t, s, p, "posts", "true"); n != 2 {
		t.Fatalf("%d posts after a refused insert-only upsert, want 2", n)
	}
	if n := countRows(t, s, p, "posts", "title = 't1' AND status = 'archived'"); n != 0 {
		t.Fatal("the insert-only upsert updated t1")
	}
	s.Do("POST", path, p.Key, map[string]any{"title": "t9", "status": "draft"}, "If-None-Match", "*").Must(t, 201)
	// Without the header the same request updates.
	s.Do("POST", path, p.Key, map[string]any{"title": "t9", "status": "published"}).Must(t, 200)
}

func TestPreferReturnMinimalAnswersWithoutTheRecord(t *testing.T) {
	t.Parallel()
	s := testserver.New(t)
	p := s.NewProject(postsByAuthor)
	seedBlog(t, s, p, 1)
	base := "/v1/" + p.ID + "/posts"
	minimal := []string{"Prefer", "return=minimal"}

	created := s.Do("POST", base, p.Key, map[string]any{"title": "quiet"}, minimal...).Must(t, 201)
	if len(created.Raw) != 0 || created.Header.Get("Location") != base+"/2" || created.Header.Get("Preference-Applied") != "return=minimal" {
		t.Fatalf("minimal create = %q, Location %q, Preference-Applied %q", created.Raw, created.Header.Get("Location"), created.Header.Get("Preference-Applied"))
	}
	for _, tc := range []struct {
		method, path string
		body         any
	}{{"PATCH", "/2", map[string]any{"status": "draft"}}, {"PUT", "/2", map[string]any{"title": "quieter"}}, {"DELETE", "/2", nil}} {
		res := s.Do(tc.method, base+tc.path, p.Key, tc.body, minimal...).Must(t, 204)
		if len(res.Raw) != 0 || res.Header.Get("Preference-Applied") != "return=minimal" {
			t.Fatalf("minimal %s = %q, Preference-Applied %q", tc.method, res.Raw, res.Header.Get("Preference-Applied"))
		}
	}
	s.API(p, "GET", "/posts/2", nil).Must(t, 404)
	bulk := s.Do("POST", base, p.Key, []map[string]any{{"title": "a"}, {"title": "b"}}, minimal...).Must(t, 201)
	if len(bulk.Raw) != 0 || countRows(t, s, p, "posts", "title IN ('a', 'b')") != 2 {
		t.Fatalf("minimal bulk create = %q", bulk.Raw)
	}
	// A minimal bulk upsert builds no records; whether it created any
	// still decides its status.
	upsert := s.Do("POST", base+"?on_conflict=title", p.Key, []map[string]any{{"title": "a", "status": "archived"}, {"title": "b", "status": "archived"}}, minimal...).Must(t, 204)
	if len(upsert.Raw) != 0 || countRows(t, s, p, "posts", "title IN ('a', 'b') AND status = 'archived'") != 2 {
		t.Fatalf("minimal bulk upsert that only updated = %q", upsert.Raw)
	}
	s.Do("POST", base+"?on_conflict=title", p.Key, []map[string]any{{"title": "a"}, {"title": "c"}}, minimal...).Must(t, 201)
	if countRows(t, s, p, "posts", "title IN ('a', 'b', 'c')") != 3 {
		t.Fatal("a minimal bulk upsert that created one record")
	}
	// An error keeps its body; representation (the default) keeps the record.
	bad := s.Do("POST", base, p.Key, map[string]any{"title": "a"}, minimal...).Must(t, 409)
	if bad.ErrorCode() != "CONFLICT" || bad.Header.Get("Preference-Applied") != "" {
		t.Fatalf("minimal create that conflicts = %s", bad.Raw)
	}
	full := s.Do("POST", base, p.Key, map[string]any{"title": "loud"}, "Prefer", "return=representation").Must(t, 201)
	if full.Data()["title"] != "loud" {
		t.Fatalf("representation = %s", full.Raw)
	}
	// With an Idempotency-Key, the first answer and its replay are both minimal.
	for i := 0; i < 2; i++ {
		res := s.Do("POST", base, p.Key, map[string]any{"title": "once"}, "Prefer", "return=minimal", "Idempotency-Key", "k-1").Must(t, 201)
		if len(res.Raw) != 0 {
			t.Fatalf("keyed minimal create %d = %q", i, res.Raw)
		}
	}
	if n := countRows(t, s, p, "posts", "title = 'once'"); n != 1 {
		t.Fatalf("%d records from a keyed create sent twice", n)
	}
}
