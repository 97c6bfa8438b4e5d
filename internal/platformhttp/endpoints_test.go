package platformhttp_test

import (
	"encoding/json"
	"slices"
	"strings"
	"testing"

	"github.com/tablesmith/tablesmith/internal/testserver"
)

// Generate's answer lists the endpoints the dashboard's success page shows;
// the OpenAPI document is the API's own account of them. Every method of
// every path there (HEAD aside, which GET implies) is in the list, and
// nothing else but the document and its docs page.
func TestGenerateListsEveryEndpointTheApiDescriptionHas(t *testing.T) {
	t.Parallel()
	s := testserver.New(t)
	p := s.NewProject(`{"tables": [
		{"name": "users", "auth": true, "columns": [
			{"name": "email", "type": "email", "required": true, "unique": true},
			{"name": "password_hash", "type": "password", "required": true}]},
		{"name": "books", "realtime": true, "columns": [
			{"name": "title", "type": "text", "required": true},
			{"name": "author_id", "type": "integer", "references": {"table": "users", "on_delete": "cascade"}}]}]}`)
	gen := s.Do("POST", "/api/projects/"+p.ID+"/generate", p.Session, map[string]any{}).Must(t, 200).Data()
	if _, ok := gen["statements"]; ok {
		t.Errorf("generate's answer repeats every statement at the top: %v (each change in applied has its own)", gen["statements"])
	}
	base := "/v1/" + p.ID
	var listed []string
	for _, e := range gen["endpoints"].([]any) {
		e := e.(map[string]any)
		listed = append(listed, e["method"].(string)+" "+strings.TrimPrefix(e["path"].(string), base))
	}

	res := s.Do("GET", base+"/openapi.json", "", nil).Must(t, 200)
	var doc struct {
		Paths map[string]map[string]json.RawMessage `json:"paths"`
	}
	if err := json.Unmarshal(res.Raw, &doc); err != nil {
		t.Fatal(err)
	}
	want := []string{"GET /openapi.json", "GET /docs"}
	for path, item := range doc.Paths {
		for method := range item {
			switch method {
			case "get", "post", "put", "patch", "delete":
				want = append(want, strings.ToUpper(method)+" "+path)
			}
		}
	}
	slices.Sort(listed)
	slices.Sort(want)
	if !slices.Equal(listed, want) {
		t.Fatalf("generate lists\n  %v\nthe API description has\n  %v", listed, want)
	}
	for _, must := range []string{"PATCH /books", "GET /books/aggregate", "GET /realtime", "POST /auth/login"} {
		if !slices.Contains(listed, must) {
			t.Errorf("%s is not listed", must)
		}
	}
}
