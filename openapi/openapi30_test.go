package openapi

import (
	"encoding/json"
	"fmt"
	"reflect"
	"testing"

	"go.yaml.in/yaml/v4"
)

// render30 is the 3.0 rendition of the all-types schema, JSON and YAML
// decoded.
func render30(t *testing.T) (fromJSON, fromYAML map[string]any) {
	t.Helper()
	d := New(compileFile(t, "alltypes.json"), Options{ProjectID: "abc123def456", Version: 1})
	if err := json.Unmarshal(d.As(Format{V30: true}), &fromJSON); err != nil {
		t.Fatal(err)
	}
	var y any
	if err := yaml.Unmarshal(d.As(Format{YAML: true, V30: true}), &y); err != nil {
		t.Fatal(err)
	}
	raw, _ := json.Marshal(y)
	_ = json.Unmarshal(raw, &fromYAML)
	return fromJSON, fromYAML
}

// The 3.0 rendition says what the 3.1 document says in 3.0's words:
// nullable instead of a null branch, example instead of examples, enum
// instead of const, no info.summary, and the credential as an API key in
// the Authorization header (Kong imports that, not HTTP bearer).
func TestThe30RenditionWritesThe31DocumentIn30Terms(t *testing.T) {
	t.Parallel()
	m, fromYAML := render30(t)
	if !reflect.DeepEqual(m, fromYAML) {
		t.Fatal("the 3.0 rendition's JSON and YAML differ")
	}
	if m["openapi"] != "3.0.3" || at(t, m, "info").(map[string]any)["summary"] != nil {
		t.Errorf("openapi %v, info %v", m["openapi"], at(t, m, "info"))
	}
	var walk func(v any, path string, inSchema bool)
	walk = func(v any, path string, inSchema bool) {
		switch x := v.(type) {
		case map[string]any:
			if inSchema {
				if x["type"] == "null" {
					t.Errorf("%s: type null in 3.0", path)
				}
				if _, ok := x["const"]; ok {
					t.Errorf("%s: const in 3.0", path)
				}
				if _, ok := x["examples"]; ok {
					t.Errorf("%s: examples in a 3.0 schema", path)
				}
				if x["nullable"] == true && x["type"] == nil {
					t.Errorf("%s: nullable without a type", path)
				}
			}
			for k, c := range x {
				child := k == "schema" || (inSchema && (k == "items" || k == "additionalProperties" || k == "not"))
				switch {
				case inSchema && (k == "properties" || k == "allOf" || k == "anyOf" || k == "oneOf"):
					walk(c, path+"/"+k, false)
					for kk, cc := range asMap(c) {
						walk(cc, path+"/"+k+"/"+kk, true)
					}
				case k == "schemas" && path == "#/components":
					for kk, cc := range asMap(c) {
						walk(cc, path+"/schemas/"+kk, true)
					}
				case k == "example" || k == "examples" || k == "enum" || k == "default":
				default:
					walk(c, path+"/"+k, child)
				}
			}
		case []any:
			for i, c := range x {
				walk(c, fmt.Sprintf("%s/%d", path, i), inSchema)
			}
		}
	}
	walk(m, "#", false)

	rating := at(t, m, "components", "schemas", "PostUpdate", "properties", "rating").(map[string]any)
	if rating["type"] != "number" || rating["nullable"] != true || rating["maximum"] != float64(5) {
		t.Errorf("an optional number in 3.0 = %v", rating)
	}
	status := at(t, m, "components", "schemas", "PostUpdate", "properties", "status").(map[string]any)
	if !reflect.DeepEqual(status["enum"], []any{"draft", "published", "archived", nil}) || status["example"] != "draft" {
		t.Errorf("an optional enum in 3.0 = %v (3.0.3 wants null in the enum of a nullable one)", status)
	}
	author := at(t, m, "components", "schemas", "PostWithRelations", "properties", "author").(map[string]any)
	allOf, _ := author["allOf"].([]any)
	if author["type"] != "object" || author["nullable"] != true || len(allOf) != 1 || allOf[0].(map[string]any)["$ref"] != "#/components/schemas/UserIncluded1" {
		t.Errorf("a nullable relation in 3.0 = %v", author)
	}
	for _, b := range at(t, m, "components", "schemas", "PostUpdate", "properties", "price", "anyOf").([]any) {
		if b.(map[string]any)["nullable"] != true {
			t.Errorf("a branch of an optional decimal in 3.0 does not take null: %v", b)
		}
	}
	bearer := at(t, m, "components", "securitySchemes", "bearerAuth").(map[string]any)
	if bearer["type"] != "apiKey" || bearer["in"] != "header" || bearer["name"] != "Authorization" {
		t.Errorf("bearerAuth in 3.0 = %v", bearer)
	}
	// The filter parameters (made while writing) are converted too.
	params := at(t, m, "paths", "/posts", "get", "parameters").([]any)
	if len(params) < 10 {
		t.Fatalf("the /posts filters: %v", params)
	}
}

func asMap(v any) map[string]any {
	switch x := v.(type) {
	case map[string]any:
		return x
	case []any:
		out := map[string]any{}
		for i, c := range x {
			out[fmt.Sprint(i)] = c
		}
		return out
	}
	return nil
}
