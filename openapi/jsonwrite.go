package openapi

import (
	"bytes"
	"encoding/json"
	"fmt"

	"go.yaml.in/yaml/v4"
)

// writeJSON writes a YAML node tree as indented JSON in one pass. It
// gives what libopenapi's YAMLNodeToJSON gives (ordered keys, two-space
// indent, values typed by their tags) without building a map per object
// and marshalling each level again, which for a large document cost more
// than building the tree.
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
		if len(n.Content) == 0 {
			b.WriteString("{}")
			return nil
		}
		b.WriteByte('{')
		for i := 0; i+1 < len(n.Content); i += 2 {
			if i > 0 {
				b.WriteByte(',')
			}
			newline(b, indent+1)
			k := n.Content[i]
			if k.Kind != yaml.ScalarNode {
				return fmt.Errorf("a mapping key of kind %v", k.Kind)
			}
			if err := writeString(b, k.Value); err != nil {
				return err
			}
			b.WriteString(": ")
			if err := writeJSON(b, sp, n.Content[i+1], indent+1); err != nil {
				return err
			}
		}
		newline(b, indent)
		b.WriteByte('}')
	case yaml.SequenceNode:
		if len(n.Content) == 0 {
			b.WriteString("[]")
			return nil
		}
		b.WriteByte('[')
		for i, c := range n.Content {
			if i > 0 {
				b.WriteByte(',')
			}
			newline(b, indent+1)
			if err := writeJSON(b, sp, c, indent+1); err != nil {
				return err
			}
		}
		newline(b, indent)
		b.WriteByte(']')
	case yaml.ScalarNode:
		if n.Tag == "!!str" {
			return writeString(b, n.Value)
		}
		// Other scalars are resolved as YAML would (an untagged true is a
		// boolean, 1e3 a number), as libopenapi does.
		var v any
		if err := n.Decode(&v); err != nil {
			return err
		}
		raw, err := json.Marshal(v)
		if err != nil {
			return err
		}
		b.Write(raw)
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
	b.WriteByte('\n')
	for i := 0; i < indent; i++ {
		b.WriteString("  ")
	}
}
