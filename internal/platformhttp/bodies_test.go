package platformhttp_test

import (
	"testing"

	"github.com/tablesmith/tablesmith/internal/testserver"
)

func TestNULCharactersInAnyStringAreAValidationErrorNamingTheField(t *testing.T) {
	t.Parallel()
	s := testserver.New(t)
	tok := s.Signup("nul@example.com")
	id := s.Do("POST", "/api/projects", tok, map[string]any{"name": "Shop"}).Must(t, 201).Data()["id"].(string)
	for _, tc := range []struct {
		name, method, path, token, body, field string
	}{
		{"signup e-mail", "POST", "/api/auth/signup", "", `{"email":"a\u0000@example.com","password":"longpassword"}`, "email"},
		{"signup name", "POST", "/api/auth/signup", "", `{"email":"b@example.com","password":"longpassword","name":"B\u0000"}`, "name"},
		{"login e-mail", "POST", "/api/auth/login", "", `{"email":"nul\u0000@example.com","password":"longpassword"}`, "email"},
		{"project name", "POST", "/api/projects", tok, `{"name":"Sh\u0000op"}`, "name"},
		{"project rename", "PATCH", "/api/projects/" + id, tok, `{"name":"\u0000"}`, "name"},
		{"key name", "POST", "/api/projects/" + id + "/keys", tok, `{"name":"k\u0000","scope":"read"}`, "name"},
		{"schema document", "PUT", "/api/projects/" + id + "/schema", tok,
			`{"tables":[{"name":"posts","columns":[{"name":"title","type":"text"}]},{"name":"tags\u0000","columns":[]}]}`, "tables[1].name"},
		{"column in a schema to validate", "POST", "/api/projects/" + id + "/schema/validate", tok,
			`{"tables":[{"name":"posts","columns":[{"name":"ti\u0000tle","type":"text"}]}]}`, "tables[0].columns[0].name"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			res := s.Do(tc.method, tc.path, tc.token, tc.body).Must(t, 400)
			if res.ErrorCode() != "VALIDATION_ERROR" || res.Details()[tc.field] == nil {
				t.Fatalf("want VALIDATION_ERROR on %s, got %s", tc.field, res.Raw)
			}
		})
	}
}

func TestPlatformBodiesRefuseDuplicateKeysAndBrokenText(t *testing.T) {
	t.Parallel()
	s := testserver.New(t)
	tok := s.Signup("dup@example.com")
	id := s.Do("POST", "/api/projects", tok, map[string]any{"name": "Shop"}).Must(t, 201).Data()["id"].(string)
	keys := "/api/projects/" + id + "/keys"
	for _, tc := range []struct{ name, path, body, message string }{
		{"two scope keys", keys, `{"name":"k","scope":"read","scope":"read_write"}`, `Duplicate key "scope" in the body`},
		{"invalid UTF-8", keys, "{\"name\":\"k\xff\"}", "The body is not valid UTF-8 (byte 10)"},
		{"a lone surrogate", keys, `{"name":"k\udc00"}`, `Invalid \u escape in name: a lone UTF-16 surrogate is not a character`},
		{"a duplicate column key in a schema", "/api/projects/" + id + "/schema/validate",
			`{"tables":[{"name":"posts","columns":[{"name":"title","type":"text","type":"integer"}]}]}`,
			`Duplicate key "type" in tables[0].columns[0]`},
	} {
		t.Run(tc.name, func(t *testing.T) {
			res := s.Do("POST", tc.path, tok, tc.body).Must(t, 400)
			if res.ErrorCode() != "INVALID_JSON" || res.Message() != tc.message {
				t.Fatalf("want INVALID_JSON %q, got %s", tc.message, res.Raw)
			}
		})
	}
	// Nothing was created by the refused requests.
	if n := len(s.Do("GET", keys, tok, nil).Must(t, 200).List()); n != 0 {
		t.Fatalf("%d keys after refused creates", n)
	}
}
