package translate

import (
	"encoding/json"
	"strconv"
	"strings"
	"time"

	"github.com/tablesmith/tablesmith/access"
	"github.com/tablesmith/tablesmith/schema"
)

// Upsert is the ON CONFLICT part of a bulk create: the unique column
// whose equal value makes an item update the existing row, and the rows
// the caller may update (an end user's own, by the update rule).
type Upsert struct {
	Column *schema.CColumn
	Rows   access.Rows
}

// BulkInsert renders one INSERT of every item of a bulk create. The
// items come as one parameter, $1: a JSON array of objects whose keys are
// the positions of cols ("0", "1", ...) and whose values are the text
// form of each value (BulkItems builds it), so the statement's text
// depends only on the column set and the upsert column, never on the
// number of items. A column with a document default that an item leaves
// out takes that default, as a single create would. With up, an item
// whose up.Column value exists updates that row instead (when up.Rows
// reach it; the row owner is then $2).
//
// The statement selects two values: the records as a JSON array in the
// items' order, and one character per record, '1' created or '0'
// updated. RETURNING gives rows in the order the SELECT fed them, which
// is the items' order (ORDER BY ordinality). Without records (an answer
// of Prefer: return=minimal) the array is empty and the statement builds
// no JSON: half its time on 10,000 rows (bench/RESULTS.md, issue 38.3).
func (s *TableSQL) BulkInsert(cols []*schema.CColumn, up *Upsert, records bool) string {
	var b strings.Builder
	b.WriteString("WITH _w AS (INSERT INTO " + s.Rel + " AS t")
	if len(cols) > 0 {
		b.WriteString(" (" + identList(cols) + ")")
	}
	b.WriteString(" SELECT ")
	for i, c := range cols {
		if i > 0 {
			b.WriteString(", ")
		}
		key := "'" + strconv.Itoa(i) + "'"
		value := "(_e.v->>" + key + ")::" + c.PGType
		if def := schema.DefaultSQL(c); def != "" {
			value = "CASE WHEN _e.v ? " + key + " THEN " + value + " ELSE " + def + " END"
		}
		b.WriteString(value)
	}
	b.WriteString(" FROM jsonb_array_elements($1::jsonb) WITH ORDINALITY AS _e(v, n) ORDER BY _e.n")
	if up != nil {
		b.WriteString(" ON CONFLICT (" + up.Column.Ident + ") DO UPDATE SET ")
		n := 0
		for _, c := range cols {
			if c == up.Column {
				continue
			}
			if n > 0 {
				b.WriteString(", ")
			}
			n++
			b.WriteString(c.Ident + " = EXCLUDED." + c.Ident)
		}
		if s.Table.UpdatedAt != nil {
			if n > 0 {
				b.WriteString(", ")
			}
			n++
			b.WriteString(s.Table.UpdatedAt.Ident + " = now()")
		}
		if n == 0 { // only the key was sent: the row stays as it is
			b.WriteString(up.Column.Ident + " = EXCLUDED." + up.Column.Ident)
		}
		if !up.Rows.All() {
			b.WriteString(" WHERE t." + up.Rows.Column.Ident + " = $2")
		}
	}
	if !records {
		b.WriteString(" RETURNING (t.xmax = 0) AS _created) ")
		b.WriteString("SELECT '[]'::json, coalesce(string_agg(CASE WHEN _created THEN '1' ELSE '0' END, ''), '') FROM _w")
		return b.String()
	}
	b.WriteString(" RETURNING t.*, (t.xmax = 0) AS _created) ")
	b.WriteString("SELECT coalesce(json_agg(_r.j), '[]'), coalesce(string_agg(CASE WHEN _r.c THEN '1' ELSE '0' END, ''), '') FROM (")
	b.WriteString("SELECT row_to_json(_o) AS j, t._created AS c FROM _w t, LATERAL (SELECT " + s.Projection + ") _o) _r")
	return b.String()
}

// BulkItems encodes validated items as BulkInsert's $1: item i sets
// cols[k] to vals[i][k] when set[i][k]. Values are the forms
// schema.CheckValue returns, written as JSON strings in PostgreSQL's
// input syntax of their column type.
func BulkItems(cols int, set [][]bool, vals [][]any) ([]byte, error) {
	buf := make([]byte, 0, 64*len(vals)*(cols+1))
	buf = append(buf, '[')
	for i, row := range vals {
		if i > 0 {
			buf = append(buf, ',')
		}
		buf = append(buf, '{')
		first := true
		for k := 0; k < cols; k++ {
			if !set[i][k] {
				continue
			}
			if !first {
				buf = append(buf, ',')
			}
			first = false
			buf = append(buf, '"')
			buf = strconv.AppendInt(buf, int64(k), 10)
			buf = append(buf, `":`...)
			var err error
			if buf, err = appendValueText(buf, row[k]); err != nil {
				return nil, err
			}
		}
		buf = append(buf, '}')
	}
	return append(buf, ']'), nil
}

// appendValueText appends v as a JSON string holding its text form, or
// null.
func appendValueText(buf []byte, v any) ([]byte, error) {
	var s string
	switch x := v.(type) {
	case nil:
		return append(buf, "null"...), nil
	case string:
		s = x
	case int64:
		return strconv.AppendQuote(buf, strconv.FormatInt(x, 10)), nil
	case float64:
		return strconv.AppendQuote(buf, strconv.FormatFloat(x, 'g', -1, 64)), nil
	case bool:
		return strconv.AppendQuote(buf, strconv.FormatBool(x)), nil
	case time.Time:
		s = x.Format(time.RFC3339Nano)
	default:
		b, err := json.Marshal(x)
		if err != nil {
			return nil, err
		}
		s = string(b)
	}
	// Strings go through encoding/json: Go's quoting is not JSON's.
	b, err := json.Marshal(s)
	if err != nil {
		return nil, err
	}
	return append(buf, b...), nil
}
