package apihttp_test

import (
	"context"
	"strings"
	"testing"

	"github.com/tablesmith/tablesmith/internal/testserver"
)

const blogSchema = `{"tables": [
	{"name": "users", "columns": [
		{"name": "email", "type": "email", "required": true, "unique": true},
		{"name": "name", "type": "text"}]},
	{"name": "posts", "columns": [
		{"name": "title", "type": "text", "required": true},
		{"name": "author_id", "type": "integer", "references": {"table": "users", "on_delete": "restrict"}}]}]}`

func TestErrorsFollowTheContract(t *testing.T) {
	t.Parallel()
	s := testserver.New(t)
	p := s.NewProject(blogSchema)
	other := s.NewProject(blogSchema)
	s.API(p, "POST", "/users", map[string]any{"email": "a@example.com"}).Must(t, 201)
	readKey := s.Do("POST", "/api/projects/"+p.ID+"/keys", p.Session, map[string]any{"name": "ro", "scope": "read"}).Must(t, 201).Data()["key"].(string)

	type scenario struct {
		name, method, path, token string
		body                      any
		headers                   []string
		status                    int
		code                      string
		detail                    string // a details key that must be present
	}
	v1 := "/v1/" + p.ID
	big := `{"name": "` + strings.Repeat("x", 1<<20) + `"}`
	scenarios := []scenario{
		{"no credential", "GET", v1 + "/users", "", nil, nil, 401, "UNAUTHORIZED", ""},
		{"not a bearer header", "GET", v1 + "/users", "", nil, []string{"Authorization", "Basic abc"}, 401, "UNAUTHORIZED", ""},
		{"unknown key", "GET", v1 + "/users", "ts_abcdefgh_" + strings.Repeat("z", 32), nil, nil, 401, "UNAUTHORIZED", ""},
		{"garbage token", "GET", v1 + "/users", "not-a-token", nil, nil, 401, "UNAUTHORIZED", ""},
		{"another project's key", "GET", v1 + "/users", other.Key, nil, nil, 401, "UNAUTHORIZED", ""},
		{"read key creates", "POST", v1 + "/users", readKey, map[string]any{"email": "b@example.com"}, nil, 403, "FORBIDDEN", ""},
		{"read key deletes", "DELETE", v1 + "/users/1", readKey, nil, nil, 403, "FORBIDDEN", ""},
		{"read key patches", "PATCH", v1 + "/users/1", readKey, map[string]any{"name": "x"}, nil, 403, "FORBIDDEN", ""},
		{"unknown project", "GET", "/v1/zzzzzzzzzzzz/users", p.Key, nil, nil, 404, "NOT_FOUND", ""},
		{"malformed project", "GET", "/v1/ABC%20x/users", p.Key, nil, nil, 404, "NOT_FOUND", ""},
		{"no table", "GET", v1, p.Key, nil, nil, 404, "NOT_FOUND", ""},
		{"unknown table", "GET", v1 + "/nope", p.Key, nil, nil, 404, "NOT_FOUND", ""},
		{"unknown id", "GET", v1 + "/users/999", p.Key, nil, nil, 404, "NOT_FOUND", ""},
		{"malformed id", "GET", v1 + "/users/abc", p.Key, nil, nil, 404, "NOT_FOUND", ""},
		{"too deep", "GET", v1 + "/users/1/x", p.Key, nil, nil, 404, "NOT_FOUND", ""},
		{"update of a missing record", "PATCH", v1 + "/users/999", p.Key, map[string]any{"name": "x"}, nil, 404, "NOT_FOUND", ""},
		{"delete of a missing record", "DELETE", v1 + "/users/999", p.Key, nil, nil, 404, "NOT_FOUND", ""},
		{"wrong method on collection", "PUT", v1 + "/users", p.Key, map[string]any{}, nil, 405, "METHOD_NOT_ALLOWED", ""},
		{"wrong method on record", "POST", v1 + "/users/1", p.Key, map[string]any{}, nil, 405, "METHOD_NOT_ALLOWED", ""},
		{"body too large", "POST", v1 + "/users", p.Key, big, nil, 413, "PAYLOAD_TOO_LARGE", ""},
		{"not JSON media type", "POST", v1 + "/users", p.Key, "email=a", []string{"Content-Type", "application/x-www-form-urlencoded"}, 415, "UNSUPPORTED_MEDIA_TYPE", ""},
		{"broken JSON", "POST", v1 + "/users", p.Key, `{"email": `, nil, 400, "INVALID_JSON", ""},
		// A JSON array is a bulk create (bulk_test.go); other non-objects are refused.
		{"JSON string", "POST", v1 + "/users", p.Key, `"a@b.co"`, nil, 400, "INVALID_JSON", ""},
		{"JSON array of arrays", "POST", v1 + "/users", p.Key, `[[1]]`, nil, 400, "VALIDATION_ERROR", ""},
		{"JSON null", "POST", v1 + "/users", p.Key, `null`, nil, 400, "INVALID_JSON", ""},
		{"two JSON values", "POST", v1 + "/users", p.Key, `{"email": "x@y.co"} {}`, nil, 400, "INVALID_JSON", ""},
		{"duplicate key", "POST", v1 + "/users", p.Key, `{"email": "x@y.co", "name": "a", "name": "b"}`, nil, 400, "INVALID_JSON", ""},
		{"invalid UTF-8", "POST", v1 + "/users", p.Key, "{\"email\": \"x@y.co\", \"name\": \"a\xffb\"}", nil, 400, "INVALID_JSON", ""},
		{"lone surrogate", "POST", v1 + "/users", p.Key, `{"email": "x@y.co", "name": "a\ud800"}`, nil, 400, "INVALID_JSON", ""},
		{"unknown field", "POST", v1 + "/users", p.Key, map[string]any{"email": "c@example.com", "nickname": "c"}, nil, 400, "VALIDATION_ERROR", "nickname"},
		{"missing required", "POST", v1 + "/users", p.Key, map[string]any{"name": "c"}, nil, 400, "VALIDATION_ERROR", "email"},
		{"PUT without required", "PUT", v1 + "/users/1", p.Key, map[string]any{"name": "c"}, nil, 400, "VALIDATION_ERROR", "email"},
		{"unique violation", "POST", v1 + "/users", p.Key, map[string]any{"email": "A@example.com"}, nil, 409, "CONFLICT", "email"},
		{"missing referenced row", "POST", v1 + "/posts", p.Key, map[string]any{"title": "t", "author_id": 42}, nil, 400, "VALIDATION_ERROR", "author_id"},
		{"bad limit", "GET", v1 + "/users?limit=1000", p.Key, nil, nil, 400, "INVALID_QUERY", "limit"},
		{"page and offset", "GET", v1 + "/users?page=2&offset=3", p.Key, nil, nil, 400, "INVALID_QUERY", "offset"},
	}
	for _, sc := range scenarios {
		t.Run(sc.name, func(t *testing.T) {
			res := s.Do(sc.method, sc.path, sc.token, sc.body, sc.headers...)
			if res.Status != sc.status || res.ErrorCode() != sc.code || res.Body["success"] != false {
				t.Fatalf("got %d %s, want %d %s: %.300s", res.Status, res.ErrorCode(), sc.status, sc.code, res.Raw)
			}
			if msg := res.Message(); msg == "" {
				t.Fatalf("no error message: %s", res.Raw)
			}
			if sc.detail != "" {
				if _, ok := res.Details()[sc.detail]; !ok {
					t.Fatalf("details lack %q: %s", sc.detail, res.Raw)
				}
			}
			if sc.status == 405 && res.Header.Get("Allow") == "" {
				t.Fatal("405 without Allow")
			}
		})
	}

	// A read key may read.
	s.Do("GET", v1+"/users/1", readKey, nil).Must(t, 200)

	// A restricting foreign key blocks the delete with a conflict and
	// keeps the row.
	s.API(p, "POST", "/posts", map[string]any{"title": "Hello", "author_id": 1}).Must(t, 201)
	del := s.API(p, "DELETE", "/users/1", nil).Must(t, 409)
	if del.ErrorCode() != "CONFLICT" || !strings.Contains(del.Message(), "posts") {
		t.Fatalf("restricted delete = %s", del.Raw)
	}
	s.API(p, "GET", "/users/1", nil).Must(t, 200)
}

func TestInternalErrorsLeakNothing(t *testing.T) {
	t.Parallel()
	s := testserver.New(t)
	p := s.NewProject(blogSchema)
	// The table disappears behind the published schema's back.
	if _, err := s.Svc.DB.ExecContext(context.Background(), `DROP TABLE p_`+p.ID+`.posts`); err != nil {
		t.Fatal(err)
	}
	res := s.API(p, "GET", "/posts", nil).Must(t, 500)
	if res.ErrorCode() != "INTERNAL_ERROR" {
		t.Fatalf("code = %s", res.ErrorCode())
	}
	for _, leak := range []string{"p_" + p.ID, "relation", "SELECT", "pq:", ".go"} {
		if strings.Contains(string(res.Raw), leak) {
			t.Fatalf("500 body leaks %q: %s", leak, res.Raw)
		}
	}
}

func TestRevokedKeyIsRefusedAtOnce(t *testing.T) {
	t.Parallel()
	s := testserver.New(t)
	p := s.NewProject(blogSchema)
	s.API(p, "GET", "/users", nil).Must(t, 200)
	keys := s.Do("GET", "/api/projects/"+p.ID+"/keys", p.Session, nil).Must(t, 200)
	id := keys.List()[0]["id"].(string)
	s.Do("DELETE", "/api/projects/"+p.ID+"/keys/"+id, p.Session, nil).Must(t, 200)
	if res := s.API(p, "GET", "/users", nil); res.Status != 401 || res.ErrorCode() != "UNAUTHORIZED" {
		t.Fatalf("revoked key: %d %s", res.Status, res.Raw)
	}
}

func TestMarkupIsStrippedFromTextBeforeStoring(t *testing.T) {
	t.Parallel()
	s := testserver.New(t)
	p := s.NewProject(blogSchema)
	for input, want := range map[string]string{
		"<script>alert(1)</script>Ann":             "Ann",
		"<b>Bold</b> &amp; <i>brave</i>":           "Bold & brave",
		"&lt;img src=x onerror=alert(1)&gt;Bob":    "Bob",
		"&amp;lt;b&amp;gt;twice&amp;lt;/b&amp;gt;": "twice",
		"a < b and c > d":                          "a < b and c > d",
	} {
		rec := s.API(p, "POST", "/users", map[string]any{"email": "m" + strings.ToLower(want[:1]) + "x" + string(rune('a'+len(input)%26)) + "@example.com", "name": input}).Must(t, 201).Data()
		if rec["name"] != want {
			t.Errorf("name %q stored as %q, want %q", input, rec["name"], want)
		}
		if strings.ContainsAny(rec["name"].(string), "<") && strings.Contains(rec["name"].(string), "<b") {
			t.Errorf("a tag survived: %q", rec["name"])
		}
	}
}
