package apirequest

import (
	"errors"
	"net/http/httptest"
	"strings"
	"testing"

	"github.com/tablesmith/tablesmith/apierr"
	"github.com/tablesmith/tablesmith/schema"
)

func compiledTable(t *testing.T, doc, name string) *schema.CTable {
	t.Helper()
	d, err := schema.Parse([]byte(doc))
	if err != nil {
		t.Fatal(err)
	}
	c, err := schema.Compile(d)
	if err != nil {
		t.Fatal(err)
	}
	tbl, ok := c.Table(name)
	if !ok {
		t.Fatalf("no table %s", name)
	}
	return tbl
}

const docs = `{"tables": [
	{"name": "posts", "columns": [{"name": "title", "type": "text", "unique": true}]}]}`

func parse(t *testing.T, tbl *schema.CTable, method, target string, header ...string) (*Request, error) {
	t.Helper()
	r := httptest.NewRequest(method, target, nil)
	for i := 0; i+1 < len(header); i += 2 {
		r.Header.Add(header[i], header[i+1])
	}
	path, _, _ := strings.Cut(strings.TrimPrefix(target, "/v1/p/"), "?")
	return Parse(r, strings.Split(path, "/"), tbl)
}

func TestTheKindComesFromTheMethodAndThePath(t *testing.T) {
	posts := compiledTable(t, docs, "posts")
	for _, tc := range []struct {
		method, target string
		kind           Kind
	}{
		{"GET", "/v1/p/posts", List},
		{"HEAD", "/v1/p/posts?limit=2", List},
		{"GET", "/v1/p/posts?format=csv", Export},
		{"POST", "/v1/p/posts", Create},
		{"PATCH", "/v1/p/posts?filter[id]=1", UpdateWhere},
		{"DELETE", "/v1/p/posts?filter[id]=1", DeleteWhere},
		{"GET", "/v1/p/posts/7", Get},
		{"PUT", "/v1/p/posts/7", Replace},
		{"PATCH", "/v1/p/posts/7", Patch},
		{"DELETE", "/v1/p/posts/7", Delete},
		{"GET", "/v1/p/posts/aggregate?count=*", Aggregate},
		{"POST", "/v1/p/posts/bulk", Create},
		{"GET", "/v1/p/posts/export?format=ndjson", Export},
		{"HEAD", "/v1/p/posts/export?format=csv", Export},
	} {
		req, err := parse(t, posts, tc.method, tc.target)
		if err != nil || req.Kind != tc.kind {
			t.Errorf("%s %s = %v, %v; want kind %d", tc.method, tc.target, req, err, tc.kind)
			continue
		}
		if bulk := strings.HasSuffix(tc.target, "/bulk"); req.Bulk != bulk || (!req.Kind.Item() && req.ID != "") {
			t.Errorf("%s %s: Bulk %v, ID %q", tc.method, tc.target, req.Bulk, req.ID)
		}
	}
	// The export route names its format (or Accept does); json is the list's.
	if req, err := parse(t, posts, "GET", "/v1/p/posts/export", "Accept", "application/x-ndjson"); err != nil || req.Format != "ndjson" {
		t.Errorf("export with Accept = %+v, %v", req, err)
	}
	for _, target := range []string{"/v1/p/posts/export", "/v1/p/posts/export?format=json", "/v1/p/posts/export?format=xml"} {
		var e *apierr.Error
		if _, err := parse(t, posts, "GET", target); !errors.As(err, &e) || e.Code != apierr.CodeInvalidQuery || e.Details["format"] == "" {
			t.Errorf("GET %s = %v, want INVALID_QUERY naming format", target, err)
		}
	}
	// An export asked for by Accept.
	if req, err := parse(t, posts, "GET", "/v1/p/posts", "Accept", "text/csv"); err != nil || req.Kind != Export || req.Format != "csv" {
		t.Errorf("Accept: text/csv = %+v, %v", req, err)
	}
	// A method a route does not take is a 405 that says which it does.
	_, err := parse(t, posts, "POST", "/v1/p/posts/7")
	var e *apierr.Error
	if !errors.As(err, &e) || e.Code != apierr.CodeMethodNotAllowed || e.Allow != "GET, PUT, PATCH, DELETE" {
		t.Errorf("POST on a record = %v", err)
	}
	if _, err := parse(t, posts, "PUT", "/v1/p/posts/aggregate"); !errors.As(err, &e) || e.Allow != "GET, HEAD" {
		t.Errorf("PUT on aggregate = %v", err)
	}
	if _, err := parse(t, posts, "GET", "/v1/p/posts/bulk"); !errors.As(err, &e) || e.Allow != "POST" {
		t.Errorf("GET on bulk = %v", err)
	}
	if _, err := parse(t, posts, "DELETE", "/v1/p/posts/export"); !errors.As(err, &e) || e.Allow != "GET, HEAD" {
		t.Errorf("DELETE on export = %v", err)
	}
}

func TestWriteHeadersAreReadWhereTheKindCanHonourThem(t *testing.T) {
	posts := compiledTable(t, docs, "posts")
	req, err := parse(t, posts, "PATCH", "/v1/p/posts/7", "If-Match", `W/"abc", "def"`, "Prefer", "handling=lenient, return=minimal")
	if err != nil || len(req.IfMatch) != 2 || !req.MatchesTag(`W/"def"`) || req.MatchesTag(`W/"xyz"`) || !req.ReturnMinimal {
		t.Fatalf("PATCH with If-Match and Prefer = %+v, %v", req, err)
	}
	if req, err := parse(t, posts, "DELETE", "/v1/p/posts/7", "If-Match", "*"); err != nil || !req.MatchesTag(`W/"anything"`) {
		t.Fatalf("If-Match: * = %+v, %v", req, err)
	}
	if req, err := parse(t, posts, "POST", "/v1/p/posts?on_conflict=title", "If-None-Match", "*", "Prefer", "return=representation"); err != nil ||
		!req.IfNoneMatchAny || !req.Upsert || req.OnConflict != "title" || req.ReturnMinimal {
		t.Fatalf("insert-only upsert = %+v, %v", req, err)
	}
	// Prefer counts its first mention, and never on a write by filter.
	if req, _ := parse(t, posts, "PUT", "/v1/p/posts/7", "Prefer", "return=representation", "Prefer", "return=minimal"); req.ReturnMinimal {
		t.Error("a second Prefer: return= overrode the first")
	}
	if req, _ := parse(t, posts, "DELETE", "/v1/p/posts?filter[id]=1", "Prefer", "return=minimal"); req.ReturnMinimal {
		t.Error("return=minimal on a delete by filter, whose answer is a count")
	}
	for _, h := range [][]string{
		{"GET", "/v1/p/posts/7", "If-Match", "*"},
		{"PATCH", "/v1/p/posts?filter[id]=1", "If-Match", "*"},
		{"PATCH", "/v1/p/posts/7", "If-Match", "abc"},
		{"PATCH", "/v1/p/posts/7", "If-Match", `*, "a"`},
		{"PATCH", "/v1/p/posts/7", "If-None-Match", "*"},
		{"POST", "/v1/p/posts", "If-None-Match", `"a"`},
	} {
		_, err := parse(t, posts, h[0], h[1], h[2], h[3])
		var e *apierr.Error
		if !errors.As(err, &e) || e.Details[h[2]] == "" {
			t.Errorf("%s %s with %s: %s = %v, want a 400 naming the header", h[0], h[1], h[2], h[3], err)
		}
	}
	// If-None-Match on a read is revalidation, not a precondition here.
	if _, err := parse(t, posts, "GET", "/v1/p/posts/7", "If-None-Match", `W/"x"`); err != nil {
		t.Errorf("GET with If-None-Match = %v", err)
	}
}
