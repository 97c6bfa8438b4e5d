// Package validate checks and normalizes request bodies against a
// compiled table: unknown fields, text sanitization (markup stripped, or
// reduced to markup without active content), then each value's type and
// constraints.
package validate

import "github.com/tablesmith/tablesmith/schema"

// Mode is the kind of write a body is for.
type Mode int

const (
	// Create: required columns without a default must be present.
	Create Mode = iota
	// Replace (PUT): every required column must be present; absent
	// optional columns go back to their default (or null).
	Replace
	// Patch: only the given columns change.
	Patch
)

// Result is a validated body: the columns to set with their values in
// bound-parameter form, and (for Replace) the columns to reset.
type Result struct {
	Columns []*schema.CColumn
	Values  []any
	Reset   []*schema.CColumn
}

// Problems maps a field name to what is wrong with it.
type Problems map[string]string

// Record validates body (decoded with UseNumber) for table t. Password
// values come back in plain text: the caller hashes them.
func Record(t *schema.CTable, body map[string]any, mode Mode) (Result, Problems) {
	var res Result
	problems := Problems{}
	for field := range body {
		if c, ok := t.Inputs[field]; ok && !c.ReadOnly {
			continue
		}
		if field == schema.ColID || field == schema.ColCreatedAt || field == schema.ColUpdatedAt {
			continue // system columns in a body are ignored (CONTRACT 5)
		}
		if c, ok := t.Column(field); ok && c.ReadOnly {
			continue
		}
		problems[field] = "unknown field"
	}
	for _, c := range t.Writable {
		v, present := body[c.Input]
		if !present {
			switch {
			case mode == Create && c.Required && !schema.HasDefault(&c.Column):
				problems[c.Input] = schema.MsgRequired
			case mode == Replace && c.Required:
				problems[c.Input] = schema.MsgRequired
			case mode == Replace:
				res.Reset = append(res.Reset, c)
			}
			continue
		}
		if s, ok := v.(string); ok && c.Kind.Traits.Markup {
			if c.HTML {
				v = SafeHTML(s)
			} else {
				v = PlainText(s)
			}
		}
		val, msg := schema.CheckValue(&c.Column, v)
		if msg != "" {
			problems[c.Input] = msg
			continue
		}
		res.Columns = append(res.Columns, c)
		res.Values = append(res.Values, val)
	}
	if len(problems) > 0 {
		return Result{}, problems
	}
	return res, nil
}
