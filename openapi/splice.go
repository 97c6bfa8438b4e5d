package openapi

import (
	"math"
	"strconv"

	"github.com/pb33f/libopenapi/datamodel/high/base"
	"go.yaml.in/yaml/v4"
)

// splicer builds the per-column parts of the document (column schemas,
// filter[column] parameters) as YAML nodes directly and stands a $ref
// placeholder for each in the libopenapi model; splice puts them in place
// after the model is rendered. libopenapi's node builder reflects over
// every field of every schema object (about a millisecond per column,
// measured), which made a wide schema's document take tens of seconds;
// per column this costs microseconds.
//
// The parts are made when the writer reaches their placeholder and are
// garbage as soon as they are written, so the whole document never exists
// as one node tree: that tree, not the bytes, was most of the memory a
// render took.
type splicer struct {
	prefix  string // "#/<random>/": no $ref written by a schema author can match
	parts   []func() *yaml.Node
	spreads map[int]bool // parts that stand for several entries
}

func newSplicer() *splicer { return &splicer{prefix: "#/" + newSentinel() + "/"} }

func (sp *splicer) placeholder(part func() *yaml.Node) string {
	sp.parts = append(sp.parts, part)
	return sp.prefix + strconv.Itoa(len(sp.parts)-1)
}

// spread stands for several entries: the pairs of the mapping, or the
// items of the sequence, that make makes when it is written. In a mapping
// it is a key (whose value is ignored), in a sequence an item, and the
// writers put its entries in its place: a table's column properties and
// filter parameters exist only while they are written.
func (sp *splicer) spread(make func() *yaml.Node) string {
	ref := sp.placeholder(make)
	if sp.spreads == nil {
		sp.spreads = map[int]bool{}
	}
	sp.spreads[len(sp.parts)-1] = true
	return ref
}

// index is the part a placeholder node (a $ref mapping, or a scalar key)
// stands for, or -1.
func (sp *splicer) index(n *yaml.Node) int {
	if sp == nil {
		return -1
	}
	var v string
	switch {
	case n.Kind == yaml.MappingNode && len(n.Content) == 2 && n.Content[0].Value == "$ref":
		v = n.Content[1].Value
	case n.Kind == yaml.ScalarNode:
		v = n.Value
	default:
		return -1
	}
	if len(v) <= len(sp.prefix) || v[:len(sp.prefix)] != sp.prefix {
		return -1
	}
	i, err := strconv.Atoi(v[len(sp.prefix):])
	if err != nil || i < 0 || i >= len(sp.parts) {
		return -1
	}
	return i
}

// flatten is n's entries with each spread placeholder replaced by the
// entries it stands for.
func (sp *splicer) flatten(n *yaml.Node) []*yaml.Node {
	if sp == nil || len(sp.spreads) == 0 {
		return n.Content
	}
	step := 1
	if n.Kind == yaml.MappingNode {
		step = 2
	}
	var out []*yaml.Node
	copied := false
	for i := 0; i+step <= len(n.Content); i += step {
		if k := sp.index(n.Content[i]); k >= 0 && sp.spreads[k] {
			if !copied {
				out = append(out, n.Content[:i]...)
				copied = true
			}
			out = append(out, sp.parts[k]().Content...)
			continue
		}
		if copied {
			out = append(out, n.Content[i:i+step]...)
		}
	}
	if !copied {
		return n.Content
	}
	return out
}

// part returns the node n stands for, or n itself.
func (sp *splicer) part(n *yaml.Node) *yaml.Node {
	if n.Kind != yaml.MappingNode {
		return n
	}
	if i := sp.index(n); i >= 0 && !sp.spreads[i] {
		return sp.parts[i]()
	}
	return n
}

// splice replaces every placeholder under root by its node (for tests,
// which compare the whole tree with libopenapi's renderings).
func (sp *splicer) splice(root *yaml.Node) {
	root.Content = sp.flatten(root)
	for i, c := range root.Content {
		if p := sp.part(c); p != c {
			root.Content[i] = p
			continue
		}
		sp.splice(c)
	}
}

// schemaNode writes the keywords valueSchema and columnSchema use, in
// libopenapi's order; TestSplicedColumnSchemasMatchLibopenapi holds it
// to libopenapi's own rendering of the same schemas.
func schemaNode(s *base.Schema) *yaml.Node {
	var kv []any
	add := func(k string, v *yaml.Node) { kv = append(kv, k, v) }
	switch len(s.Type) {
	case 0:
	case 1:
		add("type", str(s.Type[0]))
	default:
		seq := &yaml.Node{Kind: yaml.SequenceNode}
		for _, t := range s.Type {
			seq.Content = append(seq.Content, str(t))
		}
		add("type", seq)
	}
	if len(s.AllOf) > 0 {
		seq := &yaml.Node{Kind: yaml.SequenceNode}
		for _, p := range s.AllOf {
			seq.Content = append(seq.Content, proxyNode(p))
		}
		add("allOf", seq)
	}
	if len(s.AnyOf) > 0 {
		seq := &yaml.Node{Kind: yaml.SequenceNode}
		for _, p := range s.AnyOf {
			seq.Content = append(seq.Content, proxyNode(p))
		}
		add("anyOf", seq)
	}
	if s.Items != nil && s.Items.A != nil {
		add("items", proxyNode(s.Items.A))
	}
	if s.Not != nil {
		add("not", schemaNode(s.Not.Schema()))
	}
	if s.Maximum != nil {
		add("maximum", floatNode(*s.Maximum))
	}
	if s.Minimum != nil {
		add("minimum", floatNode(*s.Minimum))
	}
	if s.MaxLength != nil {
		add("maxLength", intNode(*s.MaxLength))
	}
	if s.MinLength != nil {
		add("minLength", intNode(*s.MinLength))
	}
	if s.Pattern != "" {
		add("pattern", str(s.Pattern))
	}
	if len(s.Enum) > 0 {
		add("enum", &yaml.Node{Kind: yaml.SequenceNode, Content: s.Enum})
	}
	if s.Format != "" {
		add("format", str(s.Format))
	}
	if s.Description != "" {
		add("description", str(s.Description))
	}
	if s.ReadOnly != nil && *s.ReadOnly {
		add("readOnly", boolNode(true))
	}
	if s.WriteOnly != nil && *s.WriteOnly {
		add("writeOnly", boolNode(true))
	}
	if len(s.Examples) > 0 {
		add("examples", &yaml.Node{Kind: yaml.SequenceNode, Content: s.Examples})
	}
	return mapping(kv...)
}

// proxyNode is a reference, or the schema schemaNode writes.
func proxyNode(p *base.SchemaProxy) *yaml.Node {
	if p.IsReference() {
		return mapping("$ref", str(p.GetReference()))
	}
	return schemaNode(p.Schema())
}

// mapping makes a mapping node from alternating keys and nodes.
func mapping(kv ...any) *yaml.Node {
	m := &yaml.Node{Kind: yaml.MappingNode, Tag: "!!map"}
	for i := 0; i < len(kv); i += 2 {
		m.Content = append(m.Content, str(kv[i].(string)), kv[i+1].(*yaml.Node))
	}
	return m
}

func floatNode(f float64) *yaml.Node {
	if f == math.Trunc(f) && math.Abs(f) < 1e15 {
		return intNode(int64(f))
	}
	return &yaml.Node{Kind: yaml.ScalarNode, Tag: "!!float", Value: strconv.FormatFloat(f, 'g', -1, 64)}
}
