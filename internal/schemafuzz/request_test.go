package schemafuzz

// Turning a case's requests into HTTP: bodies, filters and parameters,
// with references resolved against the model.

import (
	"encoding/json"
	"net/url"
	"strings"

	"github.com/tablesmith/tablesmith/schema"
)

// complete reports whether a body names every field its write needs: a
// create every required column without a default, a put every required
// column (a shrunk body may have lost one).
func complete(t *schema.CTable, kind string, b map[string]json.RawMessage) bool {
	for _, c := range t.Writable {
		_, given := b[c.Input]
		if c.Required && !given && (kind == opPut || !schema.HasDefault(&c.Column)) {
			return false
		}
	}
	return true
}

// secrets are the password columns a body sets: true to a hash, false
// to null.
func secrets(t *schema.CTable, b map[string]json.RawMessage) map[string]bool {
	s := map[string]bool{}
	for f, v := range b {
		if c, ok := t.Inputs[f]; ok && c.Hidden {
			s[c.Name] = !isNull(v)
		}
	}
	return s
}

// query writes conditions as filter parameters; ok is false when a
// condition names a row that is not there or a column the table lacks.
func (x *execution) query(t *schema.CTable, conds []cond) (url.Values, []cond, bool) {
	q := url.Values{}
	ok := true
	var kept []cond
	for _, c := range conds {
		if c.Op != "search" {
			if _, exists := t.Column(c.Column); !exists {
				continue
			}
		}
		if c.Op == "search" && q.Has("search") {
			continue // one search per request
		}
		kept = append(kept, c)
		switch c.Op {
		case "search":
			q.Add("search", string(unquote(c.Val.JSON)))
		case "in":
			var ids []string
			for _, place := range c.Rows {
				if r := x.m.tables[t.Name].row(place); r != nil {
					ids = append(ids, r.id())
				}
			}
			if len(ids) == 0 {
				ids, ok = []string{missingID(t)}, false
			}
			q.Add("filter["+c.Column+"][in]", strings.Join(ids, ","))
		default:
			v := c.Val.JSON
			if c.Val.Ref != nil {
				var found bool
				v, found = x.resolve(c.Val.Ref)
				ok = ok && found
			}
			if c.Expr {
				q.Add("filter", exprOf(c, v))
			} else {
				q.Add("filter["+c.Column+"]["+c.Op+"]", string(unquote(v)))
			}
		}
	}
	return q, kept, ok
}

// params adds the shaping parameters, leaving out the names a shrunk
// case's table no longer has (a sort key, a field, a relation).
func (x *execution) params(t *schema.CTable, q url.Values, ps [][2]string) {
	for _, p := range ps {
		v := p[1]
		switch p[0] {
		case "sort", "fields", "group_by":
			var keep []string
			for _, name := range strings.Split(v, ",") {
				if _, ok := t.Column(strings.TrimPrefix(name, "-")); ok {
					keep = append(keep, name)
				}
			}
			v = strings.Join(keep, ",")
		case "include":
			var keep []string
			for _, item := range strings.Split(v, ",") {
				if hasPath(t, item) {
					keep = append(keep, item)
				}
			}
			v = strings.Join(keep, ",")
		}
		if v != "" {
			q.Add(p[0], v)
		}
	}
}

// hasPath reports whether every relation of an include item exists.
func hasPath(t *schema.CTable, item string) bool {
	from := t
	for _, step := range strings.Split(item, ".") {
		name, _, _ := strings.Cut(step, "(")
		rel, ok := from.Relations[name]
		if !ok {
			return false
		}
		from = rel.To
	}
	return true
}

// exprOf writes a condition in the filter= grammar.
func exprOf(c cond, v json.RawMessage) string {
	col := `"` + c.Column + `"`
	if c.Op == "null" {
		if string(v) == "true" {
			return col + " = null"
		}
		return col + " != null"
	}
	lit := string(v)
	if s, isString := stringOf(v); isString {
		lit = "'" + strings.ReplaceAll(strings.ReplaceAll(s, `\`, `\\`), "'", "''") + "'"
	}
	return col + " " + map[string]string{"eq": "=", "ne": "!=", "gt": ">", "lt": "<"}[c.Op] + " " + lit
}

func stringOf(raw json.RawMessage) (string, bool) {
	if isNull(raw) {
		return "", false
	}
	var s string
	err := json.Unmarshal(raw, &s)
	return s, err == nil
}

// resolved is a condition with its references replaced by the values
// they named when the request was sent, for the model to evaluate later.
func (x *execution) resolved(t *schema.CTable, conds []cond) []cond {
	out := make([]cond, len(conds))
	for i, c := range conds {
		if c.Val.Ref != nil {
			v, _ := x.resolve(c.Val.Ref)
			c.Val = value{JSON: v}
		}
		if c.Op == "in" {
			// Places move as rows go: pin them to ids.
			var ids []string
			for _, place := range c.Rows {
				if r := x.m.tables[t.Name].row(place); r != nil {
					ids = append(ids, r.id())
				}
			}
			c = cond{Op: "ids", Val: lit(ids)}
		}
		out[i] = c
	}
	return out
}

// matching are the live rows of t that the (resolved) conditions select.
func (x *execution) matching(t *schema.CTable, conds []cond) []*mrow {
	mt := x.m.tables[t.Name]
	var out []*mrow
	for _, r := range mt.rows {
		if x.matchesResolved(mt, r, conds) {
			out = append(out, r)
		}
	}
	return out
}

func (x *execution) matchesResolved(mt *mtable, r *mrow, conds []cond) bool {
	for _, c := range conds {
		if c.Op == "ids" {
			var ids []string
			_ = json.Unmarshal(c.Val.JSON, &ids)
			found := false
			for _, id := range ids {
				found = found || id == r.id()
			}
			if !found {
				return false
			}
			continue
		}
		if !x.m.match(mt, r, c) {
			return false
		}
	}
	return true
}
