package openapi

import (
	"go.yaml.in/yaml/v4"
)

// Version30 is the OpenAPI version of the 3.0 rendition.
const Version30 = "3.0.3"

// The 3.0 rendition (issue 36) is the same document for the tools that
// read only OpenAPI 3.0 (Kong's openapi-2-kong, older generators and
// gateways). It is written from the 3.1 tree while rendering, never kept
// as a second model:
//
//   - anyOf [X, {type: 'null'}] becomes X with nullable: true (and null in
//     its enum, which 3.0.3 asks for); several typed branches keep anyOf
//     with nullable: true; a $ref branch becomes allOf [$ref];
//   - examples (a JSON Schema list) becomes example (the first); const
//     becomes a one-value enum; not: {type: 'null'} is dropped (3.0 has no
//     null type: the value is then any value);
//   - info.summary (3.1 only) is dropped;
//   - bearerAuth is an apiKey in the Authorization header: gateways that
//     import security schemes as their own auth plugins take apiKey
//     (openapi-2-kong turns it into key-auth) and refuse http bearer
//     ("Only basic http scheme supported"); the description says to send
//     "Bearer <credential>" (docs/openapi.md, "The OpenAPI 3.0 rendition").
//
// The per-column parts are converted as the writer makes them: each
// spread placeholder met on the way gets a wrapped maker.
type converter30 struct {
	sp      *splicer
	schemas *yaml.Node // components.schemas, where $ref branches point
}

// to30 rewrites the rendered 3.1 tree root into OpenAPI 3.0.3.
func to30(sp *splicer, root *yaml.Node) {
	c := converter30{sp: sp}
	doc := root
	if doc.Kind == yaml.DocumentNode && len(doc.Content) == 1 {
		doc = doc.Content[0]
	}
	if v := mapValue(doc, "openapi"); v != nil {
		v.Value = Version30
	}
	if info := mapValue(doc, "info"); info != nil {
		deleteKey(info, "summary")
	}
	c.schemas = mapValue(mapValue(doc, "components"), "schemas")
	if schemes := mapValue(mapValue(doc, "components"), "securitySchemes"); schemes != nil {
		if bearer := mapValue(schemes, securityBearer); bearer != nil {
			*bearer = *mapping(
				"type", str("apiKey"), "in", str("header"), "name", str("Authorization"),
				"description", str("Send `Authorization: Bearer <credential>`: a project API key (made in the dashboard; read or "+
					"read_write scope) or an end-user access token from /auth/register or /auth/login. Described as an API key in the "+
					"Authorization header, not as HTTP bearer, because gateways that import security schemes (Kong's openapi-2-kong) "+
					"take only basic among HTTP schemes."))
		}
	}
	c.node(doc)
}

// node converts a node that is not a schema, finding the schemas in it.
func (c converter30) node(n *yaml.Node) {
	switch n.Kind {
	case yaml.MappingNode:
		for i := 0; i+1 < len(n.Content); i += 2 {
			key, val := n.Content[i], n.Content[i+1]
			if k := c.spreadAt(key); k >= 0 {
				c.wrap(k, func(part *yaml.Node) { c.node(part) })
				continue
			}
			switch key.Value {
			case "example", "examples", "enum", "default", "value":
				// Values, not descriptions: nothing to convert in them.
			case "schema":
				c.schema(val)
			case "schemas":
				c.schemaMap(val)
			default:
				c.node(val)
			}
		}
	case yaml.SequenceNode:
		for _, item := range n.Content {
			if k := c.spreadAt(item); k >= 0 {
				c.wrap(k, func(part *yaml.Node) {
					for _, p := range part.Content {
						c.node(p)
					}
				})
				continue
			}
			c.node(item)
		}
	}
}

// schemaMap converts a mapping whose values are schemas (properties,
// components.schemas), including the spread column properties.
func (c converter30) schemaMap(n *yaml.Node) {
	if n.Kind != yaml.MappingNode {
		return
	}
	for i := 0; i+1 < len(n.Content); i += 2 {
		if k := c.spreadAt(n.Content[i]); k >= 0 {
			c.wrap(k, func(part *yaml.Node) { c.schemaMap(part) })
			continue
		}
		c.schema(n.Content[i+1])
	}
}

// schema converts one schema and the schemas inside it.
func (c converter30) schema(n *yaml.Node) {
	if n = c.resolved(n); n.Kind != yaml.MappingNode {
		return
	}
	if isNullSchema(n) {
		// Only null (a message answer's data): 3.0 has no null type, and
		// nullable needs a type beside it.
		n.Content = mapping("type", str("object"), "nullable", boolNode(true),
			"enum", &yaml.Node{Kind: yaml.SequenceNode, Content: []*yaml.Node{{Kind: yaml.ScalarNode, Tag: "!!null", Value: "null"}}}).Content
		return
	}
	c.nullable(n)
	if ex := mapValue(n, "examples"); ex != nil && ex.Kind == yaml.SequenceNode {
		if len(ex.Content) > 0 {
			replaceKey(n, "examples", "example", ex.Content[0])
		} else {
			deleteKey(n, "examples")
		}
	}
	if v := mapValue(n, "contentMediaType"); v != nil && v.Value == "application/octet-stream" {
		// A file's bytes in a multipart body: 3.0 says format: binary.
		replaceKey(n, "contentMediaType", "format", str("binary"))
	}
	if v := mapValue(n, "const"); v != nil {
		replaceKey(n, "const", "enum", &yaml.Node{Kind: yaml.SequenceNode, Content: []*yaml.Node{v}})
	}
	if not := mapValue(n, "not"); not != nil && isNullSchema(not) {
		deleteKey(n, "not")
	}
	for i := 0; i+1 < len(n.Content); i += 2 {
		val := n.Content[i+1]
		switch n.Content[i].Value {
		case "properties":
			c.schemaMap(val)
		case "items", "additionalProperties", "not":
			c.schema(val)
		case "allOf", "anyOf", "oneOf":
			for _, s := range val.Content {
				c.schema(s)
			}
		}
	}
}

// nullable turns anyOf with a {type: 'null'} branch into nullable: true.
func (c converter30) nullable(n *yaml.Node) {
	anyOf := mapValue(n, "anyOf")
	if anyOf == nil || anyOf.Kind != yaml.SequenceNode {
		return
	}
	var typed []*yaml.Node
	for _, b := range anyOf.Content {
		if b = c.resolved(b); !isNullSchema(b) {
			typed = append(typed, b)
		}
	}
	if len(typed) == len(anyOf.Content) {
		return
	}
	switch {
	case len(typed) == 1 && mapValue(typed[0], "$ref") != nil:
		// nullable needs a type beside it: the referred schema's.
		replaceKey(n, "anyOf", "allOf", &yaml.Node{Kind: yaml.SequenceNode, Content: typed})
		if t := mapValue(c.target(mapValue(typed[0], "$ref").Value), "type"); t != nil && mapValue(n, "type") == nil {
			n.Content = append([]*yaml.Node{str("type"), str(t.Value)}, n.Content...)
		}
	case len(typed) == 1:
		// The branch's keywords take anyOf's place, in their order.
		var merged []*yaml.Node
		for i := 0; i+1 < len(n.Content); i += 2 {
			if n.Content[i].Value != "anyOf" {
				merged = append(merged, n.Content[i], n.Content[i+1])
				continue
			}
			merged = append(merged, typed[0].Content...)
		}
		n.Content = merged
		if enum := mapValue(n, "enum"); enum != nil {
			enum.Content = append(enum.Content, &yaml.Node{Kind: yaml.ScalarNode, Tag: "!!null", Value: "null"})
		}
	default:
		// Each typed branch takes null: nullable needs a type beside it.
		for _, b := range typed {
			b.Content = append(b.Content, str("nullable"), boolNode(true))
		}
		anyOf.Content = typed
		return
	}
	n.Content = append(n.Content, str("nullable"), boolNode(true))
}

// target is the component schema a local $ref names, or nil.
func (c converter30) target(ref string) *yaml.Node {
	const prefix = "#/components/schemas/"
	if len(ref) <= len(prefix) || ref[:len(prefix)] != prefix {
		return nil
	}
	if n := mapValue(c.schemas, ref[len(prefix):]); n != nil {
		return c.resolved(n)
	}
	return nil
}

// resolved is the node a non-spread placeholder stands for (made now
// and put in place), or n.
func (c converter30) resolved(n *yaml.Node) *yaml.Node {
	if p := c.sp.part(n); p != n {
		*n = *p
	}
	return n
}

// spreadAt is the spread part a key or item stands for, or -1.
func (c converter30) spreadAt(n *yaml.Node) int {
	if k := c.sp.index(n); k >= 0 && c.sp.spreads[k] {
		return k
	}
	return -1
}

// wrap converts the entries of spread part k as they are made.
func (c converter30) wrap(k int, convert func(part *yaml.Node)) {
	make := c.sp.parts[k]
	c.sp.parts[k] = func() *yaml.Node {
		part := make()
		convert(part)
		return part
	}
}

func isNullSchema(n *yaml.Node) bool {
	t := mapValue(n, "type")
	return n.Kind == yaml.MappingNode && len(n.Content) == 2 && t != nil && t.Value == "null"
}

// mapValue is the value of key in mapping n, or nil.
func mapValue(n *yaml.Node, key string) *yaml.Node {
	if n == nil || n.Kind != yaml.MappingNode {
		return nil
	}
	for i := 0; i+1 < len(n.Content); i += 2 {
		if n.Content[i].Value == key {
			return n.Content[i+1]
		}
	}
	return nil
}

func deleteKey(n *yaml.Node, key string) {
	for i := 0; i+1 < len(n.Content); i += 2 {
		if n.Content[i].Value == key {
			n.Content = append(n.Content[:i:i], n.Content[i+2:]...)
			return
		}
	}
}

// replaceKey puts key: val where old was.
func replaceKey(n *yaml.Node, old, key string, val *yaml.Node) {
	for i := 0; i+1 < len(n.Content); i += 2 {
		if n.Content[i].Value == old {
			n.Content[i], n.Content[i+1] = str(key), val
			return
		}
	}
}
