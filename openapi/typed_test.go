package openapi

import (
	"encoding/json"
	"os"
	"os/exec"
	"regexp"
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/tablesmith/tablesmith/schema"
)

// refsOf collects the component schemas v refers to.
func refsOf(v any, out map[string]bool) {
	switch x := v.(type) {
	case map[string]any:
		for k, c := range x {
			if s, ok := c.(string); ok && k == "$ref" && strings.HasPrefix(s, "#/components/schemas/") {
				out[strings.TrimPrefix(s, "#/components/schemas/")] = true
			}
			refsOf(c, out)
		}
	case []any:
		for _, c := range x {
			refsOf(c, out)
		}
	}
}

func TestRelationSchemasAreNotCircularAndEndAtTheIncludeDepth(t *testing.T) {
	t.Parallel()
	// alltypes: users ↔ posts (author_id), posts ↔ tags (post_id); a
	// self-reference makes the tightest loop.
	for name, c := range map[string]*schema.Compiled{
		"alltypes": compileFile(t, "alltypes.json"),
		"self": compileJSON(t, `{"tables": [{"name": "employees", "columns": [
			{"name": "name", "type": "text"},
			{"name": "manager_id", "type": "integer", "references": {"table": "employees"}}]}]}`),
	} {
		m := renderMap(t, c)
		schemas := at(t, m, "components", "schemas").(map[string]any)
		// Depth-first search for a cycle in the $ref graph.
		state := map[string]int{} // 1 on the path, 2 done
		var path []string
		var visit func(n string)
		visit = func(n string) {
			switch state[n] {
			case 1:
				t.Fatalf("%s: schemas refer to each other in a loop: %s → %s", name, strings.Join(path, " → "), n)
			case 2:
				return
			}
			state[n] = 1
			path = append(path, n)
			refs := map[string]bool{}
			refsOf(schemas[n], refs)
			for r := range refs {
				visit(r)
			}
			path = path[:len(path)-1]
			state[n] = 2
		}
		for n := range schemas {
			visit(n)
		}
	}

	m := renderMap(t, compileFile(t, "alltypes.json"))
	items := at(t, m, "components", "schemas", "UserListResponse", "properties", "data", "items", "$ref")
	if items != "#/components/schemas/UserWithRelations" {
		t.Errorf("a user list's items are %v", items)
	}
	// include=posts.tags.post: three levels, the last without relations.
	chain := []struct{ schema, rel, want string }{
		{"UserWithRelations", "posts", "PostIncluded1"},
		{"PostIncluded1", "tags", "TagIncluded2"},
		{"TagIncluded2", "post", "PostListItem"},
	}
	for _, c := range chain {
		rel := at(t, m, "components", "schemas", c.schema, "properties", c.rel).(map[string]any)
		refs := map[string]bool{}
		refsOf(rel, refs)
		if len(refs) != 1 || !refs[c.want] {
			t.Errorf("%s.%s refers to %v, want %s", c.schema, c.rel, refs, c.want)
		}
	}
	if _, ok := at(t, m, "components", "schemas", "Post").(map[string]any)["properties"]; ok {
		t.Error("the record schema carries relations, which a GET never embeds")
	}
}

func TestFilterOperatorsAreParametersOfTheirColumnsType(t *testing.T) {
	t.Parallel()
	m := renderMap(t, compileFile(t, "alltypes.json"))
	params := map[string]map[string]any{}
	// The filters are path-level parameters, shared with PATCH and DELETE by filter.
	pathParams, _ := at(t, m, "paths", "/users").(map[string]any)["parameters"].([]any)
	for _, p := range append(at(t, m, "paths", "/users", "get", "parameters").([]any), pathParams...) {
		if pm := p.(map[string]any); pm["name"] != nil {
			params[pm["name"].(string)] = pm
		}
	}
	typeOf := func(name string) string {
		p, ok := params[name]
		if !ok {
			return "(absent)"
		}
		s := deref(t, m, p["schema"])
		if s["type"] == "array" {
			return "array of " + deref(t, m, s["items"])["type"].(string)
		}
		typ, _ := s["type"].(string)
		return typ
	}
	want := map[string]string{
		"filter[age]": "integer", "filter[age][eq]": "integer", "filter[age][ne]": "integer", "filter[age][gte]": "integer",
		"filter[age][lt]": "integer", "filter[age][in]": "array of integer", "filter[age][null]": "boolean",
		"filter[age][like]":   "(absent)",
		"filter[email][like]": "string", "filter[email][gt]": "string",
		"filter[is_active][eq]": "boolean", "filter[is_active][gt]": "(absent)",
		"filter[created_at][gte]": "string", "filter[password_hash][eq]": "(absent)",
	}
	for name, typ := range want {
		if got := typeOf(name); got != typ {
			t.Errorf("%s: %s, want %s", name, got, typ)
		}
	}
	in := params["filter[age][in]"]
	if in["style"] != "form" || in["explode"] != false || at(t, in, "schema", "maxItems") != float64(1000) {
		t.Errorf("filter[age][in] is a comma list of at most 1,000: %v", in)
	}
}

// TestDocumentPatternsAgreeWithTheServer runs schema/testdata/formats.json
// through the server's checks and the document's url, decimal and e-mail
// patterns (and the e-mail's maxLength), in Go's regexp and in Node.js
// (ECMA-262, with and without the u flag, as ajv and browsers compile
// them).
func TestDocumentPatternsAgreeWithTheServer(t *testing.T) {
	t.Parallel()
	raw, err := os.ReadFile("../schema/testdata/formats.json")
	if err != nil {
		t.Fatal(err)
	}
	var fc struct {
		URL, Decimal, Email struct{ Accept, Refuse []string }
	}
	if err := json.Unmarshal(raw, &fc); err != nil {
		t.Fatal(err)
	}
	m := renderMap(t, compileFile(t, "alltypes.json"))
	props := schemaProps(t, m, "PostUpdate")
	patterns := map[string]string{
		schema.TypeURL:     merged(props["website"].(map[string]any))["pattern"].(string),
		schema.TypeDecimal: merged(props["price"].(map[string]any))["pattern"].(string),
		schema.TypeEmail:   merged(props["contact"].(map[string]any))["pattern"].(string),
	}
	// maxLength counts characters (code points); 0 means none.
	maxLength := map[string]int{schema.TypeEmail: int(merged(props["contact"].(map[string]any))["maxLength"].(float64))}
	cases := map[string]struct{ Accept, Refuse []string }{schema.TypeURL: fc.URL, schema.TypeDecimal: fc.Decimal, schema.TypeEmail: fc.Email}
	type verdict struct {
		Pattern   string
		MaxLength int
		Value     string
		Want      bool
	}
	var all []verdict
	for typ, cs := range cases {
		re := regexp.MustCompile(patterns[typ])
		col := &schema.Column{Name: "x", Type: typ}
		for _, list := range []struct {
			values []string
			want   bool
		}{{cs.Accept, true}, {cs.Refuse, false}} {
			for _, v := range list.values {
				_, msg := schema.CheckValue(col, v)
				if server := msg == ""; server != list.want {
					t.Errorf("%s %q: the server accepts it: %v, the shared cases say %v", typ, v, server, list.want)
				}
				fits := maxLength[typ] == 0 || utf8.RuneCountInString(v) <= maxLength[typ]
				if doc := re.MatchString(v) && fits; doc != list.want {
					t.Errorf("%s %q: the document's pattern (RE2) accepts it: %v, the shared cases say %v", typ, v, doc, list.want)
				}
				all = append(all, verdict{patterns[typ], maxLength[typ], v, list.want})
			}
		}
	}
	node, err := exec.LookPath("node")
	if err != nil {
		if os.Getenv("TABLESMITH_TEST_REQUIRE_ALL") == "1" {
			t.Fatal("node is required for the ECMA-262 half of this test")
		}
		t.Skip("node not on PATH: the ECMA-262 half of this test needs it (the RE2 half passed)")
	}
	input, _ := json.Marshal(all)
	script := `let bad = [];
for (const c of JSON.parse(require("fs").readFileSync(0, "utf8")))
  for (const flags of ["", "u"])
    if ((new RegExp(c.Pattern, flags).test(c.Value) && (!c.MaxLength || [...c.Value].length <= c.MaxLength)) !== c.Want) bad.push(flags + " " + JSON.stringify(c.Value));
console.log(bad.length ? "DISAGREE " + bad.join(", ") : "AGREE " + 0);`
	cmd := exec.Command(node, "-e", script)
	cmd.Stdin = strings.NewReader(string(input))
	out, err := cmd.CombinedOutput()
	if err != nil || !strings.HasPrefix(string(out), "AGREE") {
		t.Fatalf("ECMA-262 disagrees with the shared cases (%v): %s", err, out)
	}
}

func TestDescriptionsSummariesAndErrorInfoReadWellInClients(t *testing.T) {
	t.Parallel()
	m := renderMap(t, compileJSON(t, `{"tables": [{"name": "customers", "columns": [
		{"name": "email", "type": "email", "description": "Login e-mail", "unique": true}]}]}`))
	desc := at(t, schemaProps(t, m, "CustomerUpdate"), "email", "description").(string)
	if !strings.HasPrefix(desc, "Login e-mail. ") {
		t.Errorf("description parts run together: %q", desc)
	}
	if s := at(t, m, "paths", "/customers", "post", "summary"); s != "Create a record in customers" {
		t.Errorf("create summary = %q", s)
	}
	info := at(t, m, "components", "schemas", "Error", "properties", "error", "properties", "info").(map[string]any)
	if info["type"] != "object" || info["additionalProperties"] != true {
		t.Errorf("Error.error.info must take any members: %v", info)
	}
	for path, methods := range map[string]string{"/customers": "GET, HEAD, POST, PATCH, DELETE", "/customers/aggregate": "GET, HEAD", "/customers/{id}": "GET, HEAD, PUT, PATCH, DELETE"} {
		item := at(t, m, "paths", path).(map[string]any)
		if d, _ := item["description"].(string); !strings.Contains(d, "Methods: "+methods+".") || !strings.Contains(d, "405 METHOD_NOT_ALLOWED") {
			t.Errorf("%s description = %q", path, d)
		}
		head := item["head"].(map[string]any)
		if _, ok := at(t, head, "responses", "200").(map[string]any)["content"]; ok {
			t.Errorf("HEAD %s answers with a body: %v", path, head)
		}
		// HEAD lists GET's parameters but the per-column filters, which
		// it takes as GET does (listed once, on GET, for the document's size).
		if path == "/customers" && len(head["parameters"].([]any)) != len(notColumnFilters(item["get"].(map[string]any)["parameters"].([]any))) {
			t.Errorf("HEAD %s takes other parameters than GET", path)
		}
	}
}

// notColumnFilters leaves out the filter[column] and filter[column][op]
// parameters of a list.
func notColumnFilters(params []any) []any {
	var out []any
	for _, p := range params {
		if name, _ := p.(map[string]any)["name"].(string); !strings.HasPrefix(name, "filter[") {
			out = append(out, p)
		}
	}
	return out
}
