package openapi

import (
	"bytes"
	"encoding/json"
	"strconv"
	"strings"

	"github.com/pb33f/libopenapi/datamodel/high/base"
	"github.com/pb33f/libopenapi/orderedmap"
	"go.yaml.in/yaml/v4"

	"github.com/tablesmith/tablesmith/schema"
)

// Patterns that restate schema.CheckValue for string forms, written in the
// common subset of RE2 (the server, libopenapi-validator) and ECMA-262
// (Swagger UI, ajv), so every validator of the document agrees with the
// server. Formats alone would not do: JSON Schema treats format as an
// annotation unless a validator opts in.
const (
	// The server trims and lower-cases an e-mail before matching
	// ^[^\s@]+@[^\s@.]+(\.[^\s@.]+)+$, so surrounding blanks are allowed.
	emailPattern = `^\s*[^\s@]+@[^\s@.]+(\.[^\s@.]+)+\s*$`
	// The server checks URLs and decimals with these very patterns.
	urlPattern     = schema.URLPattern
	decimalPattern = schema.DecimalPattern
	uuidPattern    = `^[0-9a-fA-F]{8}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{12}$`
	datePattern    = `^\d{4}-(0[1-9]|1[0-2])-(0[1-9]|[12]\d|3[01])$`
	// RFC 3339 as Go's time.RFC3339Nano parses it: upper-case T and Z,
	// fields in range (day-of-month against the month is left to format).
	dateTimePattern = `^\d{4}-(0[1-9]|1[0-2])-(0[1-9]|[12]\d|3[01])T([01]\d|2[0-3]):[0-5]\d:[0-5]\d(\.\d+)?(Z|[+-]([01]\d|2[0-3]):[0-5]\d)$`
	// emailMaxLength is the server's bound on a trimmed e-mail.
	emailMaxLength = 254
)

// valueSchema describes a non-null value of column c as a request body
// carries it (forRequest) or as a record returns it. Records carry types,
// formats and enums but not the write rules (lengths, bounds, patterns):
// rows written before a rule was added to the schema still come back.
func valueSchema(c *schema.CColumn, forRequest bool) *base.Schema {
	s := &base.Schema{}
	switch c.Type {
	case schema.TypeText:
		s.Type = types("string")
		if forRequest {
			lengths(s, c, 0)
			s.Pattern = c.Pattern
		}
		if c.HTML {
			s.Description = "HTML: markup is kept, active content (scripts, event handlers) is removed."
		} else if forRequest {
			s.Description = "Plain text: markup is stripped before the value is checked and stored."
		}
	case schema.TypeEmail:
		s.Type, s.Format = types("string"), "email"
		if forRequest {
			// Two patterns (the e-mail shape and the column's own) need allOf.
			addPattern(s, emailPattern)
			addPattern(s, c.Pattern)
			lengths(s, c, 0)
			if s.MaxLength == nil || *s.MaxLength > emailMaxLength {
				s.MaxLength = ptr(int64(emailMaxLength))
			}
			s.Description = "Trimmed and lower-cased before it is checked and stored."
		}
		s.Examples = []*yaml.Node{str("user@example.com")}
	case schema.TypeURL:
		s.Type, s.Format = types("string"), "uri"
		if forRequest {
			addPattern(s, urlPattern)
			addPattern(s, c.Pattern)
			lengths(s, c, 0)
		}
		s.Examples = []*yaml.Node{str("https://example.com/")}
	case schema.TypeEnum:
		s.Type = types("string")
		for _, v := range c.Values {
			s.Enum = append(s.Enum, str(v))
		}
	case schema.TypePassword:
		s.Type, s.Format = types("string"), "password"
		s.WriteOnly = ptr(true)
		lengths(s, c, schema.MinPasswordLength)
		s.Pattern = c.Pattern
		s.Description = "Write-only: stored as a salted slow hash and never returned."
	case schema.TypeInteger:
		s.Type, s.Format = types("integer"), "int64"
		if forRequest {
			bounds(s, c)
		}
	case schema.TypeNumber:
		s.Type, s.Format = types("number"), "double"
		if forRequest {
			bounds(s, c)
		}
	case schema.TypeDecimal:
		if forRequest {
			// A JSON number, or a string for exact values beyond double
			// precision; bounds (minimum, maximum) apply to the number
			// form here, and the server checks both forms.
			s.Type = types("number", "string")
			s.Pattern = decimalPattern
			s.Description = "A decimal number, or a string holding one for exact values; either way at most 200 digits " +
				"before and after the point and an exponent of at most two digits (the pattern, which applies to the string form)."
			bounds(s, c)
		} else {
			s.Type = types("number")
		}
	case schema.TypeBoolean:
		s.Type = types("boolean")
	case schema.TypeTimestamp:
		s.Type, s.Format = types("string"), "date-time"
		if forRequest {
			s.Pattern = dateTimePattern
		} else {
			s.Description = "RFC 3339, in UTC."
		}
		s.Examples = []*yaml.Node{str("2026-01-31T12:00:00Z")}
	case schema.TypeDate:
		s.Type, s.Format = types("string"), "date"
		s.Pattern = datePattern
		s.Examples = []*yaml.Node{str("2026-01-31")}
	case schema.TypeUUID:
		s.Type, s.Format = types("string"), "uuid"
		s.Pattern = uuidPattern
	case schema.TypeJSON:
		// Any JSON value; nullability is decided by the caller.
	case schema.TypePassthrough:
		s.Description = "Database type " + c.PGType + " (read-only)."
	}
	return s
}

// columnSchema is valueSchema plus null when the column is optional,
// the column's description, default and read-only marks.
func columnSchema(c *schema.CColumn, forRequest bool) *base.Schema {
	s := valueSchema(c, forRequest)
	nullable := !c.Required && !c.System
	if c.Type == schema.TypeJSON {
		if !nullable {
			s.Type = types("object", "array", "string", "number", "boolean")
		}
	} else if nullable && c.Type != schema.TypePassthrough {
		s.Type = append(s.Type, "null")
		if len(s.Enum) > 0 {
			s.Enum = append(s.Enum, &yaml.Node{Kind: yaml.ScalarNode, Tag: "!!null", Value: "null"})
		}
	}
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
	var required []string
	for _, c := range t.Writable {
		if c.Required && (mode == modeReplace || len(c.Default) == 0) {
			required = append(required, c.Input)
		}
	}
	desc := "The new " + t.Name + " record. Required fields without a default must be present; absent optional fields take their default or null."
	if mode == modeReplace {
		desc = "The whole " + t.Name + " record: every required field must be present; absent optional fields go back to their default or null."
	}
	return &base.Schema{Type: types("object"), Description: desc,
		AllOf: []*base.SchemaProxy{base.CreateSchemaProxyRef(schemaRef(n.Update))}, Required: required}
}

// lengths sets minLength and maxLength from the column, with a minimum
// that applies when the column sets none (passwords).
func lengths(s *base.Schema, c *schema.CColumn, defaultMin int) {
	switch {
	case c.MinLength != nil:
		s.MinLength = ptr(int64(*c.MinLength))
	case defaultMin > 0:
		s.MinLength = ptr(int64(defaultMin))
	}
	if c.MaxLength != nil {
		s.MaxLength = ptr(int64(*c.MaxLength))
	}
}

func bounds(s *base.Schema, c *schema.CColumn) {
	if c.Min != nil {
		s.Minimum = ptr(*c.Min)
	}
	if c.Max != nil {
		s.Maximum = ptr(*c.Max)
	}
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
