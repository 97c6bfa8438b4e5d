package openapi_test

import (
	"encoding/json"
	"fmt"
	"net/url"
	"strings"
	"testing"
)

// The examples the document gives (issue 36.4) work on a fresh project:
// each table's create example creates a record (tables in the
// document's order, so a reference's example id 1 exists by then), the
// bulk example (unique values varied) and the update example are taken, and a list with the
// example of every parameter it takes (page, not offset, which excludes
// it; the equality filter of every column, not every operator, since a
// request compares at most 64 times) answers 200. Every request is also checked against the
// document.
func TestTheDocumentsExamplesWorkOnAFreshProject(t *testing.T) {
	t.Parallel()
	k := newContract(t)
	raw := k.s.Do("GET", "/v1/"+k.p.ID+"/openapi.json", "", nil).Must(t, 200).Raw
	var doc map[string]any
	if err := json.Unmarshal(raw, &doc); err != nil {
		t.Fatal(err)
	}
	paths := doc["paths"].(map[string]any)
	params := doc["components"].(map[string]any)["parameters"].(map[string]any)
	example := func(p map[string]any) (string, string, bool) {
		if ref, ok := p["$ref"].(string); ok {
			p = params[strings.TrimPrefix(ref, "#/components/parameters/")].(map[string]any)
		}
		ex, ok := p["example"]
		if !ok || p["in"] != "query" {
			return "", "", false
		}
		if list, ok := ex.([]any); ok {
			var parts []string
			for _, v := range list {
				parts = append(parts, fmt.Sprint(v))
			}
			return p["name"].(string), strings.Join(parts, ","), true
		}
		return p["name"].(string), fmt.Sprint(ex), true
	}
	send := func(method, path string, body any, want int) {
		t.Helper()
		docOK, docErrs, status, ans := k.send(method, path, k.p.Key, body)
		if status != want {
			t.Errorf("%s %s with the examples: %d, want %d: %v", method, path[:min(len(path), 60)], status, want, ans)
		}
		if !docOK {
			t.Errorf("%s %s: the document refuses its own example: %s", method, path, describe(docErrs))
		}
	}
	for _, table := range []string{"users", "posts", "tags"} {
		post := paths["/"+table].(map[string]any)["post"].(map[string]any)
		body := at(t, post, "requestBody", "content", "application/json", "example")
		send("POST", "/"+table, body, 201)
		bulk := at(t, paths["/"+table+"/bulk"], "post", "requestBody", "content", "application/json", "example")
		send("POST", "/"+table+"/bulk", bulk, 201) // its unique values differ from the create's
		item := paths["/"+table+"/{id}"].(map[string]any)
		patch := at(t, item, "patch", "requestBody", "content", "application/json", "example")
		id := at(t, item, "parameters").([]any)[0].(map[string]any)["example"]
		if _, uuid := id.(string); !uuid { // a uuid key's records have ids nobody knows in advance
			send("PATCH", fmt.Sprintf("/%s/%v", table, id), patch, 200)
		}

		q := url.Values{}
		collection := paths["/"+table].(map[string]any)
		pathLevel, _ := collection["parameters"].([]any) // none since the filters moved onto GET
		list := append(append([]any{}, pathLevel...), at(t, collection, "get", "parameters").([]any)...)
		for _, p := range list {
			name, value, ok := example(p.(map[string]any))
			// offset and after exclude page; a request compares at most
			// 64 times, so only the equality filter of each column.
			if !ok || name == "offset" || name == "after" || strings.Count(name, "[") > 1 {
				continue
			}
			q.Add(name, value)
		}
		if len(q) < 5 {
			t.Fatalf("%s: only %v have examples", table, q)
		}
		send("GET", "/"+table+"?"+q.Encode(), nil, 200)
	}
}

func at(t *testing.T, v any, path ...string) any {
	t.Helper()
	for _, k := range path {
		m, ok := v.(map[string]any)
		if !ok {
			t.Fatalf("%s is not an object in %v", k, path)
		}
		v = m[k]
	}
	return v
}
