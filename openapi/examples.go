package openapi

import (
	"encoding/json"
	"fmt"
	"math"
	"strconv"
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

// columnVariant is a value of column c the server accepts (or false),
// for the nth of several records: the value of a unique column (unique) differs for each n (the create
// example is n 0, the bulk example's item 1, the register example 2), so
// that the examples sent in a row on a fresh project do not collide.
func columnVariant(c *schema.CColumn, n int, unique bool) (any, bool) {
	for _, v := range exampleCandidates(c) {
		if v == nil {
			continue
		}
		tries := []any{v}
		if n > 0 && unique {
			tries = variants(c, v, n)
		}
		for _, v := range tries {
			if _, msg := schema.CheckValue(&c.Column, v); msg == "" {
				return v, true
			}
		}
	}
	return nil, false
}

// variants are the values columnVariant tries for the nth record of a
// unique column whose first record's example is v, in order; the server's
// rule (schema.CheckValue) picks the first it takes.
func variants(c *schema.CColumn, v any, n int) []any {
	k := strconv.Itoa(n + 1)
	switch v := v.(type) {
	case bool:
		return []any{!v}
	case json.Number:
		if i, err := v.Int64(); err == nil {
			return []any{json.Number(strconv.FormatInt(i+int64(n), 10))}
		}
		if f, err := v.Float64(); err == nil {
			return []any{json.Number(strconv.FormatFloat(f+float64(n), 'g', -1, 64))}
		}
	case string:
		var out []any
		if n < len(c.Values) {
			out = append(out, c.Values[n])
		}
		if f, err := strconv.ParseFloat(v, 64); err == nil && c.Type == schema.TypeDecimal {
			out = append(out, strconv.FormatFloat(f+float64(n), 'f', -1, 64))
		}
		if at := strings.LastIndex(v, "@"); at > 0 {
			out = append(out, v[:at]+k+v[at:]) // user2@example.com
		}
		for _, sep := range []string{" ", "-", ""} {
			out = append(out, suffixed(v, sep+k, c))
		}
		if len(v) > len(k) { // a uuid's last digits
			out = append(out, v[:len(v)-len(k)]+k)
		}
		return out
	}
	return nil
}

// suffixed is s with suffix, s cut so that the two fit the column's
// maximum length.
func suffixed(s, suffix string, c *schema.CColumn) string {
	r := []rune(s)
	if c.MaxLength != nil && len(r)+len([]rune(suffix)) > *c.MaxLength {
		r = r[:max(0, *c.MaxLength-len([]rune(suffix)))]
	}
	return string(r) + suffix
}

// exampleCandidates are the values columnVariant tries, in order: the
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
func bodyExample(t *schema.CTable, one bool) *yaml.Node { return recordExample(t, one, 0) }

// recordExample is bodyExample for the nth record (columnVariant). An
// optional reference to t itself is left out: the first record of a
// fresh table has no record 1 to name.
func recordExample(t *schema.CTable, one bool, n int) *yaml.Node {
	m := &yaml.Node{Kind: yaml.MappingNode, Tag: "!!map"}
	for _, c := range t.Writable {
		if c.References != nil && c.References.Table == t.Name && !c.Required {
			continue
		}
		// An auth table's e-mail is unique whether or not the schema says so.
		v, ok := columnVariant(c, n, c.Unique || t.Doc.Auth && c.Name == "email")
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

// registerExample is the register body: the auth table's record 2 (the
// create example made 0 and the bulk example 1, whose e-mails it must
// not repeat).
func registerExample(auth *schema.CTable) *yaml.Node { return recordExample(auth, false, 2) }

// loginExample signs in the user registerExample registers, or is nil
// when that example lacks the e-mail or the password.
func loginExample(auth *schema.CTable) *yaml.Node {
	email, _ := auth.Column("email")
	var password *schema.CColumn
	for _, c := range auth.Writable {
		if c.Type == schema.TypePassword {
			password = c
			break
		}
	}
	if email == nil || password == nil {
		return nil
	}
	e, ok1 := columnVariant(email, 2, true)
	p, ok2 := columnVariant(password, 2, password.Unique)
	if !ok1 || !ok2 {
		return nil
	}
	return mapping("email", valueNode(e), "password", valueNode(p))
}
