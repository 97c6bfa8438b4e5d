package openapi

import (
	"bytes"
	"encoding/json"
	"slices"
	"strconv"
	"strings"

	"github.com/pb33f/libopenapi/datamodel/high/base"
	"github.com/pb33f/libopenapi/orderedmap"
	"go.yaml.in/yaml/v4"

	"github.com/tablesmith/tablesmith/schema"
)

// Patterns the document publishes, restating schema.CheckValue for
// string forms in the common subset of RE2 (the server,
// libopenapi-validator) and ECMA-262 (Swagger UI, ajv), so every
// validator of the document agrees with the server. Formats alone would
// not do: JSON Schema treats format as an annotation unless a validator
// opts in. Each type's entry in schema's registry says which apply.
const (
	emailPattern   = schema.EmailPattern
	urlPattern     = schema.URLPattern
	decimalPattern = schema.DecimalPattern
	emailMaxLength = schema.EmailMaxLength
)

// columnSchema describes a value of column c as a request body carries
// it (forRequest) or as a record returns it, with null when the column is
// optional, the column's description, default and read-only marks.
// Records carry types, formats and enums but not the write rules
// (lengths, bounds, patterns): rows written before a rule was added to
// the schema still come back. What each type publishes is its registry
// entry's (schema.ColumnType.Document).
func columnSchema(c *schema.CColumn, forRequest bool) *base.Schema {
	nullable := !c.Required && !c.System
	s := baseSchema(c.Kind.Document(&c.Column, forRequest, nullable))
	if c.ReadOnly {
		s.ReadOnly = ptr(true)
	}
	notes := columnNotes(c, forRequest)
	s.Description = joinSentences(c.Description, s.Description, notes)
	if forRequest {
		// The default goes in words and as the example, not as the default
		// keyword: openapi-typescript (and other generators) make fields
		// with a default non-optional, which suits records, not bodies.
		if d := defaultNode(c); d != nil {
			s.Description = joinSentences(s.Description, "Default: "+compactJSON(c.Default)+".")
			s.Examples = []*yaml.Node{d}
		}
	}
	return s
}

// baseSchema renders a value schema of the registry in libopenapi's terms
// with one type per schema: a value of several types (a nullable column,
// a decimal as number or string) is anyOf one branch per type, each with
// the keywords that apply to it, and {type: 'null'} for null. Several
// generators (oapi-codegen, ogen) refuse a type array, and anyOf with a
// null branch is the form they read as nullable; the 3.0 rendition turns
// it into nullable: true (openapi30.go). Annotations (description,
// examples, writeOnly) stay on the outer schema.
func baseSchema(v schema.ValueSchema) *base.Schema {
	s := &base.Schema{Description: v.Description}
	if v.WriteOnly {
		s.WriteOnly = ptr(true)
	}
	for _, e := range v.Examples {
		s.Examples = append(s.Examples, str(e))
	}
	var typed []string
	nullable := false
	for _, t := range v.Types {
		if t == "null" {
			nullable = true
		} else {
			typed = append(typed, t)
		}
	}
	switch {
	case v.Ref != "" && nullable:
		// A shared schema (a file): the reference, or null.
		s.AnyOf = []*base.SchemaProxy{base.CreateSchemaProxyRef(schemaRef(v.Ref)), base.CreateSchemaProxy(nullSchema())}
	case v.Ref != "":
		s.AllOf = []*base.SchemaProxy{base.CreateSchemaProxyRef(schemaRef(v.Ref))}
	case len(typed) == 0:
		// Any value, null included (a nullable json column): no type.
	case isAnyButNull(typed) && !nullable:
		s.Not = base.CreateSchemaProxy(&base.Schema{Type: types("null")})
	case len(typed) == 1 && !nullable:
		constrain(s, v, typed[0])
	default:
		for _, t := range typed {
			branch := &base.Schema{}
			constrain(branch, v, t)
			s.AnyOf = append(s.AnyOf, base.CreateSchemaProxy(branch))
		}
		if nullable {
			s.AnyOf = append(s.AnyOf, base.CreateSchemaProxy(nullSchema()))
		}
	}
	return s
}

// nullSchema is the null branch of a nullable value.
func nullSchema() *base.Schema { return &base.Schema{Type: types("null")} }

// nullable is s or null: anyOf [s, {type: 'null'}] with s's annotations
// kept outside, as baseSchema writes a nullable column.
func nullable(s *base.Schema) *base.Schema {
	outer := &base.Schema{Description: s.Description, Examples: s.Examples}
	s.Description, s.Examples = "", nil
	outer.AnyOf = []*base.SchemaProxy{base.CreateSchemaProxy(s), base.CreateSchemaProxy(nullSchema())}
	return outer
}

// isAnyButNull reports whether types are every JSON type but null (a
// required json column).
func isAnyButNull(typed []string) bool {
	for _, t := range []string{"object", "array", "string", "number", "boolean"} {
		if !slices.Contains(typed, t) {
			return false
		}
	}
	return len(typed) == 5
}

// constrain sets type t on s with the keywords of v that apply to values
// of that type: lengths, patterns and formats to strings, bounds to
// numbers, the enum (without null) to any. A number without a format of
// its own is a double: generators read a bare number as float32
// (oapi-codegen), which would round a decimal such as 1234567.89.
func constrain(s *base.Schema, v schema.ValueSchema, t string) {
	s.Type, s.Format = types(t), v.Format
	switch t {
	case "string":
		s.MinLength, s.MaxLength = v.MinLength, v.MaxLength
		for _, p := range v.Patterns {
			addPattern(s, p)
		}
	case "array":
		if v.Items != nil {
			items := base.CreateSchemaProxy(baseSchema(*v.Items))
			if v.Items.Ref != "" {
				items = base.CreateSchemaProxyRef(schemaRef(v.Items.Ref))
			}
			s.Items = &base.DynamicValue[*base.SchemaProxy, bool]{A: items}
		}
	case "integer", "number":
		s.Minimum, s.Maximum = v.Minimum, v.Maximum
		if t == "number" && s.Format == "" {
			s.Format = "double"
		}
	}
	for _, e := range v.Enum {
		if e != nil {
			s.Enum = append(s.Enum, str(e.(string)))
		}
	}
}

// columnNotes says in words what the schema keywords cannot: uniqueness,
// references, defaults the database computes.
func columnNotes(c *schema.CColumn, forRequest bool) string {
	var notes []string
	if c.Unique {
		notes = append(notes, "Unique: a value already taken is answered 409 CONFLICT.")
	}
	if c.References != nil {
		notes = append(notes, "References "+c.References.Table+".id.")
	}
	if forRequest && isNowDefault(c.Default) {
		notes = append(notes, "Defaults to the current time.")
	}
	if c.System {
		switch c.Name {
		case schema.ColID:
			notes = append(notes, "Assigned by the service.")
		default:
			notes = append(notes, "Set by the service.")
		}
	}
	return strings.Join(notes, " ")
}

// listItemSchema is a record in a list: every visible column (password
// columns never appear); fields may leave columns out, so only the id is
// sure to be there. The relations include can embed are in the
// <Record>WithRelations levels (relations.go).
func listItemSchema(sp *splicer, t *schema.CTable) *base.Schema {
	props := orderedmap.New[string, *base.SchemaProxy]()
	var visible []*schema.CColumn
	for _, c := range t.Columns {
		if !c.Hidden {
			visible = append(visible, c)
		}
	}
	if len(visible) > 0 {
		props.Set(sp.spread(func() *yaml.Node {
			m := &yaml.Node{Kind: yaml.MappingNode, Tag: "!!map"}
			for _, c := range visible {
				m.Content = append(m.Content, str(c.Name), schemaNode(columnSchema(c, false)))
			}
			return m
		}), base.CreateSchemaProxyRef("#"))
	}
	var required []string
	if t.PK != nil && !t.PK.Hidden {
		required = append(required, t.PK.Name)
	}
	desc := joinSentences(tableDescription(t), "In a list, fields=a,b returns only those columns (and the id).")
	return &base.Schema{Type: types("object"), Description: desc, Properties: props, Required: required}
}

// recordSchema is a record as the API returns it: the list item's
// properties, every visible column present.
func recordSchema(t *schema.CTable, n tableNames) *base.Schema {
	var required []string
	for _, c := range t.Columns {
		if !c.Hidden {
			required = append(required, c.Name)
		}
	}
	return &base.Schema{Type: types("object"), Description: tableDescription(t),
		AllOf: []*base.SchemaProxy{base.CreateSchemaProxyRef(schemaRef(n.ListItem))}, Required: required}
}

func tableDescription(t *schema.CTable) string {
	if t.Doc.Description != "" {
		return t.Doc.Description
	}
	return "A record of the " + t.Name + " table."
}

// Write modes of a request body, as internal/validate names them.
const (
	modeCreate  = "create"
	modeReplace = "replace"
)

// bodySchema is the PATCH body, whose properties the other writes share:
// the writable columns under their input names (password for
// password_hash), none required, and no other field: the server answers
// 400 "unknown field". System and read-only columns are listed as
// read-only because the server accepts and ignores them.
func bodySchema(sp *splicer, t *schema.CTable) *base.Schema {
	props := orderedmap.New[string, *base.SchemaProxy]()
	listed := map[string]bool{}
	for _, c := range t.Writable {
		listed[c.Input] = true
	}
	if len(t.Writable) > 0 {
		props.Set(sp.spread(func() *yaml.Node {
			m := &yaml.Node{Kind: yaml.MappingNode, Tag: "!!map"}
			for _, c := range t.Writable {
				cs := columnSchema(c, true)
				if c == t.Owner {
					cs.Description = joinSentences(cs.Description, "Owner column: an end user's create or update always sets it to that user's id, whatever the body says; an anonymous write may not set it (400); only an API key sets it freely.")
					if c.Required {
						cs.Description = joinSentences(cs.Description, "Not listed as required because the server fills it for end users; an API key's create must give it.")
					}
				}
				m.Content = append(m.Content, str(c.Input), schemaNode(cs))
			}
			return m
		}), base.CreateSchemaProxyRef("#"))
	}
	ignored := []string{schema.ColID, schema.ColCreatedAt, schema.ColUpdatedAt}
	for _, c := range t.Columns {
		if c.ReadOnly {
			ignored = append(ignored, c.Name)
		}
	}
	for _, name := range ignored {
		if listed[name] {
			continue
		}
		listed[name] = true
		props.Set(name, base.CreateSchemaProxy(&base.Schema{ReadOnly: ptr(true),
			Description: "Read-only: ignored when sent."}))
	}
	return &base.Schema{Type: types("object"), Properties: props,
		Description:          "The fields of the " + t.Name + " record to change; absent fields keep their values.",
		AdditionalProperties: &base.DynamicValue[*base.SchemaProxy, bool]{N: 1, B: false}}
}

// requiredBody is the POST (create) or PUT (replace) body: the PATCH
// body's fields, with those the mode requires.
func requiredBody(t *schema.CTable, n tableNames, mode string) *base.Schema {
	desc := "The new " + t.Name + " record. Required fields without a default must be present; absent optional fields take their default or null."
	if mode == modeReplace {
		desc = "The whole " + t.Name + " record: every required field must be present; absent optional fields go back to their default or null."
	}
	return &base.Schema{Type: types("object"), Description: desc,
		AllOf: []*base.SchemaProxy{base.CreateSchemaProxyRef(schemaRef(n.Update))}, Required: requiredFields(t, mode)}
}

// requiredFields are the fields a create or a replace must give.
func requiredFields(t *schema.CTable, mode string) []string {
	var required []string
	for _, c := range t.Writable {
		// The owner column is filled in by the server for an end user's
		// write (and refused from an anonymous one), so a body without it
		// is valid for them: listing it as required would make a
		// validating proxy refuse what the server takes. An API key's
		// write without it is answered 400 naming it.
		if c.Required && (mode == modeReplace || !schema.HasDefault(&c.Column)) && c != t.Owner {
			required = append(required, c.Input)
		}
	}
	return required
}

// addPattern adds a pattern; a second one goes into allOf, since a schema
// holds one pattern keyword.
func addPattern(s *base.Schema, p string) {
	switch {
	case p == "":
	case s.Pattern == "":
		s.Pattern = p
	default:
		s.AllOf = append(s.AllOf, base.CreateSchemaProxy(&base.Schema{Pattern: p}))
	}
}

// defaultNode is the column default as a schema default, or nil when it
// has none or the database computes it ("now").
func defaultNode(c *schema.CColumn) *yaml.Node {
	if len(c.Default) == 0 || isNowDefault(c.Default) || bytes.Equal(bytes.TrimSpace(c.Default), []byte("null")) {
		return nil
	}
	n, err := jsonNode(c.Default)
	if err != nil {
		return nil
	}
	return n
}

func compactJSON(raw json.RawMessage) string {
	var b bytes.Buffer
	if err := json.Compact(&b, raw); err != nil {
		return string(raw)
	}
	return b.String()
}

func isNowDefault(d json.RawMessage) bool {
	return bytes.Equal(bytes.TrimSpace(d), []byte(`"now"`))
}

func types(t ...string) []string { return t }

func ptr[T any](v T) *T { return &v }

func str(s string) *yaml.Node {
	return &yaml.Node{Kind: yaml.ScalarNode, Tag: "!!str", Value: s}
}

func intNode(i int64) *yaml.Node {
	return &yaml.Node{Kind: yaml.ScalarNode, Tag: "!!int", Value: strconv.FormatInt(i, 10)}
}

func boolNode(b bool) *yaml.Node {
	return &yaml.Node{Kind: yaml.ScalarNode, Tag: "!!bool", Value: strconv.FormatBool(b)}
}

// jsonNode turns JSON text into a YAML node (JSON is YAML), keeping key
// order and value types.
func jsonNode(raw []byte) (*yaml.Node, error) {
	var doc yaml.Node
	if err := yaml.Unmarshal(raw, &doc); err != nil {
		return nil, err
	}
	n := &doc
	if doc.Kind == yaml.DocumentNode && len(doc.Content) == 1 {
		n = doc.Content[0]
	}
	blockStyle(n)
	return n, nil
}

// blockStyle drops the flow style the JSON input left on maps and lists,
// so the YAML rendering reads like the rest of the document.
func blockStyle(n *yaml.Node) {
	if n.Kind == yaml.MappingNode || n.Kind == yaml.SequenceNode {
		n.Style &^= yaml.FlowStyle
	}
	for _, c := range n.Content {
		blockStyle(c)
	}
}

// valueNode turns a Go value into a YAML node through JSON.
func valueNode(v any) *yaml.Node {
	raw, err := json.Marshal(v)
	if err != nil {
		panic("openapi: example value: " + err.Error())
	}
	n, err := jsonNode(raw)
	if err != nil {
		panic("openapi: example value: " + err.Error())
	}
	return n
}

// joinSentences joins the non-empty parts of a description with a full
// stop after each part but the last that ends without one (a schema
// author's "Login e-mail" then reads "Login e-mail. Unique: ...").
func joinSentences(parts ...string) string {
	var out []string
	for _, p := range parts {
		if p = strings.TrimSpace(p); p != "" {
			out = append(out, p)
		}
	}
	for i := range len(out) - 1 {
		if !strings.HasSuffix(out[i], ".") && !strings.HasSuffix(out[i], "!") && !strings.HasSuffix(out[i], "?") {
			out[i] += "."
		}
	}
	return strings.Join(out, " ")
}

func schemaRef(name string) string { return "#/components/schemas/" + name }
