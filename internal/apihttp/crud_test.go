package apihttp_test

import (
	"context"
	"regexp"
	"strings"
	"testing"

	"github.com/tablesmith/tablesmith/internal/testserver"
)

// usersSchema is the spec's illustrative users table.
const usersSchema = `{"tables": [{"name": "users", "columns": [
	{"name": "email", "type": "email", "required": true, "unique": true},
	{"name": "name", "type": "text", "max_length": 100},
	{"name": "password_hash", "type": "password", "required": true},
	{"name": "age", "type": "integer", "min": 0},
	{"name": "is_active", "type": "boolean", "default": true}]}]}`

var rfc3339UTC = regexp.MustCompile(`^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}(\.\d+)?Z$`)

func TestUsersWalkthroughCreatesReadsUpdatesAndDeletes(t *testing.T) {
	t.Parallel()
	s := testserver.New(t)
	p := s.NewProject(usersSchema)

	created := s.API(p, "POST", "/users", map[string]any{"email": " John@Example.com ", "name": "John Doe", "password": "securepassword123"}).Must(t, 201)
	rec := created.Data()
	id := rec["id"].(float64)
	if rec["email"] != "john@example.com" || rec["name"] != "John Doe" || rec["is_active"] != true {
		t.Fatalf("created record = %v", rec)
	}
	if _, leaked := rec["password_hash"]; leaked {
		t.Fatalf("password_hash returned: %v", rec)
	}
	if _, leaked := rec["password"]; leaked {
		t.Fatalf("password returned: %v", rec)
	}
	for _, ts := range []string{"created_at", "updated_at"} {
		if v, _ := rec[ts].(string); !rfc3339UTC.MatchString(v) {
			t.Fatalf("%s = %v, want RFC 3339 UTC", ts, rec[ts])
		}
	}
	if loc := created.Header.Get("Location"); loc != "/v1/"+p.ID+"/users/1" {
		t.Fatalf("Location = %q", loc)
	}

	got := s.API(p, "GET", "/users/1", nil).Must(t, 200)
	if got.Message() != "Record retrieved successfully" || got.Data()["email"] != "john@example.com" {
		t.Fatalf("get = %s", got.Raw)
	}

	bad := s.API(p, "POST", "/users", map[string]any{"email": "not-an-email", "password": "securepassword123"}).Must(t, 400)
	if bad.ErrorCode() != "VALIDATION_ERROR" || bad.Details()["email"] != "invalid e-mail format" {
		t.Fatalf("invalid email = %s", bad.Raw)
	}

	patched := s.API(p, "PATCH", "/users/1", map[string]any{"age": 31}).Must(t, 200)
	if patched.Data()["age"] != float64(31) || patched.Data()["name"] != "John Doe" {
		t.Fatalf("patch = %s", patched.Raw)
	}
	put := s.API(p, "PUT", "/users/1", map[string]any{"email": "john@example.com", "password": "anotherpassword1"}).Must(t, 200)
	if put.Data()["name"] != nil || put.Data()["age"] != nil || put.Data()["is_active"] != true {
		t.Fatalf("put should reset absent optional columns to null/default: %s", put.Raw)
	}

	s.API(p, "POST", "/users", map[string]any{"email": "ann@example.com", "name": "Ann", "password": "securepassword123"}).Must(t, 201)
	list := s.API(p, "GET", "/users?page=1&limit=1", nil).Must(t, 200)
	meta := list.Body["meta"].(map[string]any)
	if len(list.List()) != 1 || meta["total"] != float64(2) || meta["total_pages"] != float64(2) || meta["page"] != float64(1) || meta["limit"] != float64(1) {
		t.Fatalf("list = %s", list.Raw)
	}

	del := s.API(p, "DELETE", "/users/1", nil).Must(t, 200)
	if del.Message() != "Record deleted successfully" || del.Data()["id"] != id {
		t.Fatalf("delete = %s", del.Raw)
	}
	s.API(p, "GET", "/users/1", nil).Must(t, 404)

	// Only a salted slow hash is stored.
	var stored string
	if err := s.Svc.DB.QueryRowContext(context.Background(), `SELECT password_hash FROM p_`+p.ID+`.users WHERE email = 'ann@example.com'`).Scan(&stored); err != nil {
		t.Fatal(err)
	}
	if !strings.HasPrefix(stored, "$argon2id$") || strings.Contains(stored, "securepassword123") {
		t.Fatalf("stored password = %q", stored)
	}
}
