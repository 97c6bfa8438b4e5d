package openapi_test

import (
	"encoding/json"
	"strings"
	"testing"

	"github.com/tablesmith/tablesmith/internal/testserver"
	"github.com/tablesmith/tablesmith/schema"
)

// TestTheServerRefusesTheEmailsTheDocumentRefuses is issue 35.7 through
// real HTTP: addresses the published pattern refuses were stored. Every
// write refuses them, naming the field, and the document's pattern and
// maxLength are the server's (TestDocumentPatternsAgreeWithTheServer
// checks the shared cases in ECMA-262).
func TestTheServerRefusesTheEmailsTheDocumentRefuses(t *testing.T) {
	t.Parallel()
	s := testserver.New(t)
	p := s.NewProject(`{"tables": [{"name": "people", "columns": [
		{"name": "email", "type": "email"},
		{"name": "name", "type": "text", "required": true}]}]}`)
	id := s.API(p, "POST", "/people", map[string]any{"email": "ok@example.com", "name": "Ann"}).Must(t, 201).Data()["id"]
	path := "/people/" + jsonString(id)
	for _, bad := range []string{"x1@example.com\ufeff", "a\u00a0b@example.com", "7wuj`kvi@e.lek.h._b", "a\u2003@example.com"} {
		for _, w := range []struct {
			method, path string
			body         any
			key          string
		}{
			{"POST", "/people", map[string]any{"email": bad, "name": "Bo"}, "email"},
			{"PUT", path, map[string]any{"email": bad, "name": "Bo"}, "email"},
			{"PATCH", path, map[string]any{"email": bad}, "email"},
			{"POST", "/people", []any{map[string]any{"email": "b@example.com", "name": "Bo"}, map[string]any{"email": bad, "name": "Cy"}}, "1.email"},
		} {
			r := s.API(p, w.method, w.path, w.body)
			if r.Status != 400 || r.ErrorCode() != "VALIDATION_ERROR" || r.Details()[w.key] != schema.MsgInvalidEmail {
				t.Errorf("%s %s with %q: %d %s, want 400 naming %s", w.method, w.path, bad, r.Status, r.Raw, w.key)
			}
		}
	}
	got := s.API(p, "POST", "/people", map[string]any{"email": " \tNew@Example.COM\n", "name": "Di"}).Must(t, 201).Data()
	if got["email"] != "new@example.com" {
		t.Errorf("an accepted e-mail is stored as %v, want it trimmed and in lower case", got["email"])
	}
	if n := len(s.API(p, "GET", "/people", nil).Must(t, 200).List()); n != 2 {
		t.Errorf("%d records, want the 2 accepted ones", n)
	}
}

// TestARequiredTextColumnRefusesTheEmptyStringOnEveryWrite: what a person
// means by required in a form builder. The document says it with
// minLength 1 in request bodies.
func TestARequiredTextColumnRefusesTheEmptyStringOnEveryWrite(t *testing.T) {
	t.Parallel()
	s := testserver.New(t)
	p := s.NewProject(`{"tables": [{"name": "notes", "columns": [
		{"name": "title", "type": "text", "required": true, "unique": true},
		{"name": "body", "type": "text"}]}]}`)
	id := s.API(p, "POST", "/notes", map[string]any{"title": "First"}).Must(t, 201).Data()["id"]
	path := "/notes/" + jsonString(id)
	for _, empty := range []string{"", "<b></b>"} { // markup is stripped first
		for _, w := range []struct {
			method, path string
			body         any
			key          string
		}{
			{"POST", "/notes", map[string]any{"title": empty}, "title"},
			{"PUT", path, map[string]any{"title": empty}, "title"},
			{"PATCH", path, map[string]any{"title": empty}, "title"},
			{"POST", "/notes", []any{map[string]any{"title": "Second"}, map[string]any{"title": empty}}, "1.title"},
			{"POST", "/notes?on_conflict=title", []any{map[string]any{"title": empty}}, "0.title"},
			{"PATCH", "/notes?filter[id][gt]=0", map[string]any{"title": empty}, "title"},
		} {
			r := s.API(p, w.method, w.path, w.body)
			if r.Status != 400 || r.ErrorCode() != "VALIDATION_ERROR" || r.Details()[w.key] != schema.MsgEmpty {
				t.Errorf("%s %s with title %q: %d %s, want 400 naming %s", w.method, w.path, empty, r.Status, r.Raw, w.key)
			}
		}
	}
	// An optional text column still takes "".
	s.API(p, "PATCH", path, map[string]any{"body": ""}).Must(t, 200)
	if n := len(s.API(p, "GET", "/notes", nil).Must(t, 200).List()); n != 1 {
		t.Errorf("%d records, want the first only", n)
	}
	raw := s.Do("GET", "/v1/"+p.ID+"/openapi.json", "", nil).Must(t, 200).Raw
	var doc map[string]any
	if err := json.Unmarshal(raw, &doc); err != nil {
		t.Fatal(err)
	}
	props := member(t, doc, "components", "schemas", "NoteUpdate", "properties").(map[string]any)
	if member(t, props, "title", "minLength") != float64(1) {
		t.Errorf("a required text column's request schema: %v", props["title"])
	}
	if _, ok := props["body"].(map[string]any)["minLength"]; ok {
		t.Errorf("an optional text column gets a minLength: %v", props["body"])
	}
}

func jsonString(v any) string {
	raw, _ := json.Marshal(v)
	return strings.Trim(string(raw), `"`)
}

// member follows a path of object members, failing the test where one is missing.
func member(t *testing.T, v any, path ...string) any {
	t.Helper()
	for _, k := range path {
		m, ok := v.(map[string]any)
		if !ok {
			t.Fatalf("no %q in %v", k, v)
		}
		v = m[k]
	}
	return v
}
