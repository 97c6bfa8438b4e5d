package openapi

import (
	"bytes"
	"encoding/json"
	"fmt"
	"regexp"

	"go.yaml.in/yaml/v4"
)

// writeJSON writes a YAML node tree as JSON in one pass, indented by two
// spaces per level, or compact when indent is negative. It gives what
// libopenapi's YAMLNodeToJSON gives (ordered keys, values typed by their
// tags) without building a map per object and marshalling each level
// again, which for a large document cost more than building the tree.
//
// Placeholders of sp are written as the parts they stand for.
func writeJSON(b *bytes.Buffer, sp *splicer, n *yaml.Node, indent int) error {
	n = sp.part(n)
	switch n.Kind {
	case yaml.DocumentNode:
		if len(n.Content) != 1 {
			return fmt.Errorf("document with %d roots", len(n.Content))
		}
		return writeJSON(b, sp, n.Content[0], indent)
	case yaml.AliasNode:
		return writeJSON(b, sp, n.Alias, indent)
	case yaml.MappingNode:
		content := sp.flatten(n)
		if len(content) == 0 {
			b.WriteString("{}")
			return nil
		}
		b.WriteByte('{')
		for i := 0; i+1 < len(content); i += 2 {
			if i > 0 {
				b.WriteByte(',')
			}
			newline(b, deeper(indent))
			k := content[i]
			if k.Kind != yaml.ScalarNode {
				return fmt.Errorf("a mapping key of kind %v", k.Kind)
			}
			if err := writeString(b, k.Value); err != nil {
				return err
			}
			b.WriteByte(':')
			if indent >= 0 {
				b.WriteByte(' ')
			}
			if err := writeJSON(b, sp, content[i+1], deeper(indent)); err != nil {
				return err
			}
		}
		newline(b, indent)
		b.WriteByte('}')
	case yaml.SequenceNode:
		content := sp.flatten(n)
		if len(content) == 0 {
			b.WriteString("[]")
			return nil
		}
		b.WriteByte('[')
		for i, c := range content {
			if i > 0 {
				b.WriteByte(',')
			}
			newline(b, deeper(indent))
			if err := writeJSON(b, sp, c, deeper(indent)); err != nil {
				return err
			}
		}
		newline(b, indent)
		b.WriteByte(']')
	case yaml.ScalarNode:
		return writeScalar(b, n)
	default:
		return fmt.Errorf("unknown node kind %v", n.Kind)
	}
	return nil
}

func writeString(b *bytes.Buffer, s string) error {
	raw, err := json.Marshal(s)
	if err != nil {
		return err
	}
	b.Write(raw)
	return nil
}

func newline(b *bytes.Buffer, indent int) {
	if indent < 0 {
		return
	}
	b.WriteByte('\n')
	for i := 0; i < indent; i++ {
		b.WriteString("  ")
	}
}

// intRe is an !!int written in decimal, which JSON writes as it is.
var intRe = regexp.MustCompile(`^-?(0|[1-9][0-9]{0,17})$`)

// writeScalar writes a scalar as JSON: strings, booleans and decimal
// integers directly; other scalars resolved as YAML would (an untagged
// true is a boolean, 1e3 a number), as libopenapi does.
func writeScalar(b *bytes.Buffer, n *yaml.Node) error {
	switch {
	case n.Tag == "!!str":
		return writeString(b, n.Value)
	case n.Tag == "!!bool" && (n.Value == "true" || n.Value == "false"):
		b.WriteString(n.Value)
		return nil
	case n.Tag == "!!int" && intRe.MatchString(n.Value):
		b.WriteString(n.Value)
		return nil
	}
	var v any
	if err := n.Decode(&v); err != nil {
		return err
	}
	raw, err := json.Marshal(v)
	if err != nil {
		return err
	}
	b.Write(raw)
	return nil
}

func deeper(indent int) int {
	if indent < 0 {
		return indent
	}
	return indent + 1
}
