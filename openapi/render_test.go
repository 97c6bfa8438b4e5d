package openapi

import (
	"bytes"
	"encoding/json"
	"reflect"
	"testing"

	"github.com/pb33f/libopenapi/datamodel/high/base"
	lojson "github.com/pb33f/libopenapi/json"
	"go.yaml.in/yaml/v4"
)

func nodeJSON(t *testing.T, n *yaml.Node) any {
	t.Helper()
	raw, err := lojson.YAMLNodeToJSON(n, "")
	if err != nil {
		t.Fatal(err)
	}
	var v any
	if err := json.Unmarshal(raw, &v); err != nil {
		t.Fatal(err)
	}
	return v
}

// The column schemas written directly as YAML nodes say what libopenapi
// would have written for the same schema objects, for every column type
// and option in the test schemas.
func TestSplicedColumnSchemasMatchLibopenapi(t *testing.T) {
	t.Parallel()
	for _, file := range []string{"alltypes.json", "books.json"} {
		c := compileFile(t, file)
		for _, tb := range c.Tables {
			for _, col := range tb.Columns {
				for _, forRequest := range []bool{false, true} {
					s := columnSchema(col, forRequest)
					lib, err := base.CreateSchemaProxy(s).MarshalYAML()
					if err != nil {
						t.Fatal(err)
					}
					want, got := nodeJSON(t, lib.(*yaml.Node)), nodeJSON(t, schemaNode(columnSchema(col, forRequest)))
					if !reflect.DeepEqual(got, want) {
						t.Errorf("%s.%s (request %v): spliced %v, libopenapi %v", tb.Name, col.Name, forRequest, got, want)
					}
				}
			}
		}
	}
}

// writeJSON writes byte for byte what libopenapi's YAMLNodeToJSON writes,
// indented or compacted.
func TestJSONWriterMatchesLibopenapi(t *testing.T) {
	t.Parallel()
	for _, file := range []string{"alltypes.json", "books.json"} {
		sp := newSplicer()
		doc := build(sp, compileFile(t, file), Options{ProjectID: "abc123def456", Version: 1})
		tree, err := doc.MarshalYAML()
		if err != nil {
			t.Fatal(err)
		}
		node := tree.(*yaml.Node)
		sp.splice(node)
		want, err := lojson.YAMLNodeToJSON(node, "  ")
		if err != nil {
			t.Fatal(err)
		}
		var got bytes.Buffer
		if err := writeJSON(&got, nil, node, 0); err != nil {
			t.Fatal(err)
		}
		if !bytes.Equal(got.Bytes(), want) {
			t.Errorf("%s: writeJSON differs from YAMLNodeToJSON", file)
		}
		var compact, wantCompact bytes.Buffer
		if err := writeJSON(&compact, nil, node, -1); err != nil {
			t.Fatal(err)
		}
		_ = json.Compact(&wantCompact, want)
		if !bytes.Equal(compact.Bytes(), wantCompact.Bytes()) {
			t.Errorf("%s: compact writeJSON differs from YAMLNodeToJSON compacted", file)
		}
		if bytes.Contains(want, []byte(sp.prefix)) {
			t.Errorf("%s: a placeholder was left in the document", file)
		}
	}
}

// Every string comes back from the YAML as the same string, whatever it
// looks like, and other scalars keep their types.
func TestYAMLWriterKeepsEveryValueAsItWas(t *testing.T) {
	t.Parallel()
	strsIn := []string{"", "true", "No", "null", "~", "3.1.0", "1.5", "0x1F", "2026-01-31", "a: b", "a #b", "- x", "#c",
		"multi\nline", "<b>&", "'q'", `"d"`, " lead", "trail ", "{x}", "[x]", "*a", "&a", "!t", "%p", "@a", "`b`", "é ✓", "/v1/{id}"}
	m := &yaml.Node{Kind: yaml.MappingNode}
	for i, s := range strsIn {
		m.Content = append(m.Content, str(strsIn[len(strsIn)-1-i]), str(s))
	}
	m.Content = append(m.Content, str("n"), intNode(-12), str("f"), floatNode(2.5), str("b"), boolNode(false),
		str("empty_map"), &yaml.Node{Kind: yaml.MappingNode}, str("empty_seq"), &yaml.Node{Kind: yaml.SequenceNode},
		str("seq"), &yaml.Node{Kind: yaml.SequenceNode, Content: []*yaml.Node{mapping("a", str("1"), "b", intNode(2)), str("x")}})
	var b bytes.Buffer
	if err := writeYAML(&b, nil, m, 0, ""); err != nil {
		t.Fatal(err)
	}
	var got map[string]any
	if err := yaml.Unmarshal(b.Bytes(), &got); err != nil {
		t.Fatalf("the YAML does not parse: %v\n%s", err, b.String())
	}
	want := map[string]any{"n": -12, "f": 2.5, "b": false, "empty_map": map[string]any{}, "empty_seq": []any{},
		"seq": []any{map[string]any{"a": "1", "b": 2}, "x"}}
	for i, s := range strsIn {
		want[strsIn[len(strsIn)-1-i]] = s
	}
	if !reflect.DeepEqual(got, want) {
		t.Fatalf("read back %v\nwant %v\nYAML:\n%s", got, want, b.String())
	}
}
