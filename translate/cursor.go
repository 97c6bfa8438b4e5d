package translate

import (
	"bytes"
	"crypto/sha256"
	"encoding/base64"
	"encoding/json"
	"fmt"
	"net/url"
	"strconv"
	"strings"

	"github.com/tablesmith/tablesmith/schema"
)

// A cursor is the position after one row of a sorted list: the row's
// sort key values, in sort order, with a check of the sort they belong
// to. It is opaque to clients (base64url of a small JSON object) but not
// secret: a forged cursor is only another position, its values reach SQL
// as bound parameters, and the owner scope applies to every page.
//
//	{"v":1,"s":"<shape>","k":[<key values>]}
//
// The shape is a hash of the table and the sort (columns and
// directions, tie-break included), so a cursor cannot be replayed against
// another table or sort, where its values would mean something else.
const cursorVersion = 1

// MaxCursorLength bounds the after parameter, in bytes: sort keys are at
// most MaxSortKeys+1 values, and long text keys still fit comfortably.
const MaxCursorLength = 8192

type cursorDoc struct {
	V int               `json:"v"`
	S string            `json:"s"`
	K []json.RawMessage `json:"k"`
}

// parseAfter reads the after cursor's syntax; BuildList checks it against
// the sort. after is a position of its own, so page and offset may not
// come with it.
func parseAfter(lq *ListQuery, q url.Values) error {
	v := q.Get("after")
	if v == "" {
		return nil
	}
	if len(q["after"]) > 1 {
		return queryErr("after", "is given more than once")
	}
	if lq.HasPage || lq.HasOffset {
		return queryErr("after", "use either after or page/offset, not both")
	}
	if len(v) > MaxCursorLength {
		return queryErr("after", "is not a cursor of this API (too long)")
	}
	lq.After = v
	return nil
}

// sortShape identifies a table's sort for cursors.
func sortShape(table string, order []orderKey) string {
	h := sha256.New()
	h.Write([]byte(table))
	for _, k := range order {
		h.Write([]byte{0})
		h.Write([]byte(k.col.Name))
		if k.desc {
			h.Write([]byte(" desc"))
		}
	}
	return base64.RawURLEncoding.EncodeToString(h.Sum(nil)[:9])
}

// encodeCursor makes the cursor of a row whose sort key values the list
// statement returned as a JSON array.
func encodeCursor(shape string, keys []byte) (string, error) {
	// The document is written directly rather than through encoding/json
	// (a list's cursor is on every page): the shape is base64url, which a
	// JSON string holds as it is, and the keys are PostgreSQL's JSON
	// array, compacted as json.Marshal would.
	var buf [256]byte
	b := append(buf[:0], `{"v":`...)
	b = strconv.AppendInt(b, cursorVersion, 10)
	b = append(b, `,"s":"`...)
	b = append(b, shape...)
	b = append(b, `","k":`...)
	keys = bytes.TrimSpace(keys)
	if len(keys) == 0 || keys[0] != '[' {
		return "", fmt.Errorf("cursor keys %q are not a JSON array", keys)
	}
	out := bytes.NewBuffer(b)
	if err := json.Compact(out, keys); err != nil {
		return "", err
	}
	out.WriteByte('}')
	return base64.RawURLEncoding.EncodeToString(out.Bytes()), nil
}

// decodeCursor reads a cursor for the sort order of a plan: one value
// per key, each the JSON kind the key's column has (nil for NULL, which
// only a nullable column may hold), returned as the text PostgreSQL's
// input function of the column type reads.
func decodeCursor(s, shape string, order []orderKey) ([]any, error) {
	bad := queryErr("after", "is not a cursor of this API")
	raw, err := base64.RawURLEncoding.DecodeString(strings.TrimRight(s, "="))
	if err != nil {
		return nil, bad
	}
	var doc cursorDoc
	dec := json.NewDecoder(bytes.NewReader(raw))
	dec.DisallowUnknownFields()
	if dec.Decode(&doc) != nil || doc.V != cursorVersion {
		return nil, bad
	}
	if doc.S != shape || len(doc.K) != len(order) {
		return nil, queryErr("after", "belongs to another table or sort; keep the sort, order and table of the request that returned it")
	}
	vals := make([]any, len(order))
	for i, k := range order {
		v, ok := cursorValue(k.col, doc.K[i])
		if !ok {
			return nil, bad
		}
		vals[i] = v
	}
	return vals, nil
}

// cursorValue checks one key value's JSON kind against its column.
func cursorValue(c *schema.CColumn, raw json.RawMessage) (any, bool) {
	dec := json.NewDecoder(bytes.NewReader(raw))
	dec.UseNumber()
	var v any
	if dec.Decode(&v) != nil {
		return nil, false
	}
	switch x := v.(type) {
	case nil:
		return nil, nullable(c)
	case json.Number:
		return x.String(), literalKindFor(c) == NumberLiteral
	case bool:
		if x {
			return "true", literalKindFor(c) == BoolLiteral
		}
		return "false", literalKindFor(c) == BoolLiteral
	case string:
		// float columns write NaN and Infinity as strings
		return x, literalKindFor(c) == StringLiteral || c.Kind.Traits.Float
	}
	return nil, false
}

// keysetAfter is the condition "sorts after the cursor's row" as a list
// of branches, any of which may hold; each branch is a conjunction, so a
// branch reads the (column, id) index as one range. NULLs sort as the
// lists sort them: last ascending, first descending.
//
// When every key shares a direction and no cursor value is NULL, the
// keys compare as one row value, (a, id) > ($1, $2), which an index on
// (a, id) answers as a range; an ascending sort then adds one branch per
// nullable key for the NULLs that sort after every value. Otherwise each
// key contributes the expanded form: the keys before it equal, this one
// beyond its value.
func keysetAfter(order []orderKey, vals []any) (branches [][]condition, sameDirection bool) {
	sameDirection = true
	for _, k := range order {
		sameDirection = sameDirection && k.desc == order[0].desc
	}
	anyNull := false
	for _, v := range vals {
		anyNull = anyNull || v == nil
	}
	if sameDirection && !anyNull {
		branches = append(branches, []condition{rowCompare{keys: order, vals: vals}})
		if !order[0].desc {
			for j, k := range order {
				if nullable(k.col) {
					branches = append(branches, append(equalPrefix(order[:j], vals), nullTest{col: k.col, isNull: true}))
				}
			}
		}
		return branches, true
	}
	for j, k := range order {
		prefix := equalPrefix(order[:j], vals)
		switch {
		case vals[j] == nil && !k.desc: // nothing sorts after NULL ascending
		case vals[j] == nil:
			branches = append(branches, append(prefix, nullTest{col: k.col}))
		case k.desc:
			branches = append(branches, append(prefix, castCompare{col: k.col, op: "<", val: vals[j]}))
		default:
			branches = append(branches, append(prefix, castCompare{col: k.col, op: ">", val: vals[j]}))
			if nullable(k.col) {
				branches = append(branches, append(equalPrefix(order[:j], vals), nullTest{col: k.col, isNull: true}))
			}
		}
	}
	return branches, sameDirection
}

func equalPrefix(keys []orderKey, vals []any) []condition {
	out := make([]condition, 0, len(keys)+1)
	for i, k := range keys {
		if vals[i] == nil {
			out = append(out, nullTest{col: k.col, isNull: true})
		} else {
			out = append(out, castCompare{col: k.col, op: "=", val: vals[i]})
		}
	}
	return out
}

// nullable reports whether a sort key column may hold NULL.
func nullable(c *schema.CColumn) bool { return !c.Required && !c.System }

type (
	// rowCompare is (cols) op (vals) with op > (ascending) or < (descending).
	rowCompare struct {
		keys []orderKey
		vals []any
	}
	// castCompare is col op $value::type, for a value in its text form.
	castCompare struct {
		col *schema.CColumn
		op  string
		val any
	}
)

func (rowCompare) isCondition()  {}
func (castCompare) isCondition() {}
