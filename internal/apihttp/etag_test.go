package apihttp_test

import (
	"strings"
	"testing"

	"github.com/tablesmith/tablesmith/internal/testserver"
)

// Reads carry a weak ETag of their body and answer 304 without a body to
// an If-None-Match that holds it; a write changes the tag; writes carry
// none. (A 304 is still a request: the rate limit is taken before the
// handler runs, see internal/ratelimit.)
func TestReadsRevalidateWithETags(t *testing.T) {
	t.Parallel()
	s := testserver.New(t)
	p := s.NewProject(`{"tables": [{"name": "notes", "columns": [{"name": "body", "type": "text"}]}]}`)
	created := s.API(p, "POST", "/notes", map[string]any{"body": "first"}).Must(t, 201)
	if tag := created.Header.Get("ETag"); tag != "" {
		t.Errorf("a create carries ETag %q", tag)
	}
	for _, path := range []string{"/notes/1", "/notes?count=exact", "/notes/aggregate?count=*"} {
		first := s.Do("GET", "/v1/"+p.ID+path, p.Key, nil).Must(t, 200)
		tag := first.Header.Get("ETag")
		if !strings.HasPrefix(tag, `W/"`) || !strings.HasSuffix(tag, `"`) || len(tag) < 6 {
			t.Fatalf("GET %s: ETag %q, want a weak tag", path, tag)
		}
		again := s.Do("GET", "/v1/"+p.ID+path, p.Key, nil).Must(t, 200)
		if again.Header.Get("ETag") != tag {
			t.Fatalf("GET %s twice: ETag %q then %q", path, tag, again.Header.Get("ETag"))
		}
		for _, inm := range []string{tag, strings.TrimPrefix(tag, "W/"), `"other", ` + tag, "*"} {
			r := s.Do("GET", "/v1/"+p.ID+path, p.Key, nil, "If-None-Match", inm)
			if r.Status != 304 || len(r.Raw) != 0 || r.Header.Get("ETag") != tag {
				t.Fatalf("GET %s If-None-Match %s: %d, %d bytes, ETag %q; want 304, no body, the same tag", path, inm, r.Status, len(r.Raw), r.Header.Get("ETag"))
			}
		}
		if r := s.Do("GET", "/v1/"+p.ID+path, p.Key, nil, "If-None-Match", `W/"stale"`); r.Status != 200 || len(r.Raw) == 0 {
			t.Fatalf("GET %s with a stale tag: %d", path, r.Status)
		}
	}

	// A change makes the old tag stale.
	before := s.Do("GET", "/v1/"+p.ID+"/notes/1", p.Key, nil).Must(t, 200).Header.Get("ETag")
	if tag := s.API(p, "PATCH", "/notes/1", map[string]any{"body": "second"}).Must(t, 200).Header.Get("ETag"); tag != "" {
		t.Errorf("an update carries ETag %q", tag)
	}
	after := s.Do("GET", "/v1/"+p.ID+"/notes/1", p.Key, nil, "If-None-Match", before).Must(t, 200)
	if after.Header.Get("ETag") == before || !strings.Contains(string(after.Raw), "second") {
		t.Fatalf("after an update: ETag %q (was %q), body %s", after.Header.Get("ETag"), before, after.Raw)
	}

}
