package openapi

import (
	"encoding/json"
	"fmt"
	"math"
	"strings"

	"go.yaml.in/yaml/v4"

	"github.com/tablesmith/tablesmith/schema"
)

// Examples (issue 36.4): every body and every parameter carries a value
// the server takes, so a tool that sends examples (Postman with
// parametersResolution Example, Swagger UI, Prism's mock) makes a request
// that works. A column's example is checked with the server's own rule
// (schema.CheckValue) before it is published; a column for which no
// candidate passes gets none (a pattern no candidate matches), rather
// than one the server would refuse.
//
// Optional parameters whose example would change what a request does get
// none: Swagger UI's Try it out (and Postman with optional parameters on)
// sends every example it finds, so a filter or search example would empty
// a list, fields would cut its records down, offset would clash with page, a fixed Idempotency-Key would
// make the second try a 422, on_conflict would turn a create into an
// upsert.

// columnExample is a value of column c the server accepts, or false.
func columnExample(c *schema.CColumn) (any, bool) {
	for _, v := range exampleCandidates(c) {
		if v == nil {
			continue
		}
		if _, msg := schema.CheckValue(&c.Column, v); msg == "" {
			return v, true
		}
	}
	return nil, false
}

// exampleCandidates are the values columnExample tries, in order: the
// column's default (not for a unique column, whose default would
// collide), its first enum value, a number within its bounds, its type's
// example fitted to its lengths.
func exampleCandidates(c *schema.CColumn) []any {
	var out []any
	if c.References != nil {
		// The first record of the referenced table, on a managed
		// (integer) key; a uuid key has no id known in advance.
		if c.Type == schema.TypeInteger {
			return []any{json.Number("1")}
		}
		return nil
	}
	if schema.HasDefault(&c.Column) && !c.Unique && !isNowDefault(c.Default) {
		var d any
		dec := json.NewDecoder(strings.NewReader(string(c.Default)))
		dec.UseNumber()
		if dec.Decode(&d) == nil {
			out = append(out, d)
		}
	}
	if len(c.Values) > 0 {
		out = append(out, c.Values[0])
	}
	if c.Kind.Traits.Numeric || c.Type == schema.TypeDecimal {
		if n, ok := withinBounds(c); ok {
			switch c.Type {
			case schema.TypeInteger:
				out = append(out, json.Number(fmt.Sprint(int64(n))))
			case schema.TypeDecimal:
				out = append(out, fmt.Sprint(n))
			default:
				out = append(out, json.Number(fmt.Sprint(n)))
			}
		}
	}
	if s, ok := c.Kind.Example.(string); ok {
		out = append(out, fitted(s, c))
	}
	return append(out, c.Kind.Example)
}

// withinBounds is 30 (a plain number) moved into the column's bounds.
func withinBounds(c *schema.CColumn) (float64, bool) {
	low, high := math.Inf(-1), math.Inf(1)
	if c.Min != nil {
		low = *c.Min
	}
	if c.Max != nil {
		high = *c.Max
	}
	if c.Type == schema.TypeInteger {
		low, high = math.Ceil(low), math.Floor(high)
	}
	if low > high {
		return 0, false
	}
	return math.Min(math.Max(30, low), high), true
}

// fitted is s cut or padded to the column's lengths (in characters).
func fitted(s string, c *schema.CColumn) string {
	r := []rune(s)
	if c.MaxLength != nil && len(r) > *c.MaxLength {
		r = r[:*c.MaxLength]
	}
	for c.MinLength != nil && len(r) < *c.MinLength {
		r = append(r, 'x')
	}
	return string(r)
}

// bodyExample is an example body of table t: every writable column with
// an example under its input name (required or not), or for a partial
// update (one) the first of them alone.
func bodyExample(t *schema.CTable, one bool) *yaml.Node {
	m := &yaml.Node{Kind: yaml.MappingNode, Tag: "!!map"}
	for _, c := range t.Writable {
		v, ok := columnExample(c)
		if !ok {
			continue
		}
		m.Content = append(m.Content, str(c.Input), valueNode(v))
		if one {
			break
		}
	}
	return m
}
