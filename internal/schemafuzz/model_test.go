package schemafuzz

import (
	"bytes"
	"encoding/json"
	"fmt"
	"math/big"
	"reflect"
	"strconv"
	"strings"
	"time"

	"github.com/tablesmith/tablesmith/schema"
)

// model is what the project's tables hold, as the acknowledged writes made
// them: the answer's record for a write that answers one, and the model's
// own reckoning for what the answer does not show (writes by filter,
// cascades).
type model struct {
	c      *schema.Compiled
	tables map[string]*mtable
	// events are the changes the realtime stream owes, per table.
	events []change
}

// mtable is one table's live rows, oldest first.
type mtable struct {
	t    *schema.CTable
	rows []*mrow
}

// mrow is one row: every column as JSON (as the API renders it, or as a
// write by filter set it), and which password columns hold a hash.
type mrow struct {
	vals   map[string]json.RawMessage
	secret map[string]bool
}

// change is one event a stream owes: its kind, the row's id and the row
// as the event shows it (after a create or update, before a delete).
type change struct {
	table, op, id string
	image         map[string]json.RawMessage
	// optional: PostgreSQL may or may not make this change, by the order
	// its referential actions fire in (a row that both loses its
	// reference, set_null, and goes, cascade, when one parent goes).
	optional bool
	// imageUnknown: the row as this change left it depends on that
	// order too, so whether it passes a stream's condition is unknown.
	imageUnknown bool
}

func newModel(c *schema.Compiled) *model {
	m := &model{c: c, tables: map[string]*mtable{}}
	for _, t := range c.Tables {
		m.tables[t.Name] = &mtable{t: t}
	}
	return m
}

// id is the row's key as text: a number's digits or a UUID.
func (r *mrow) id() string { return idText(r.vals[schema.ColID]) }

// idText writes a key as URLs and filters carry it.
func idText(raw json.RawMessage) string {
	var s string
	if !isNull(raw) && json.Unmarshal(raw, &s) == nil {
		return s
	}
	return strings.TrimSpace(string(raw))
}

// row is the live row a place names (modulo their number), or nil.
func (mt *mtable) row(place int) *mrow {
	if place < 0 || len(mt.rows) == 0 {
		return nil
	}
	return mt.rows[place%len(mt.rows)]
}

// byID finds a live row by its key.
func (mt *mtable) byID(id string) (*mrow, int) {
	for i, r := range mt.rows {
		if r.id() == id {
			return r, i
		}
	}
	return nil, -1
}

// record makes a row from a record the API answered, with the password
// columns the request gave a value (a hash the record does not show).
func record(raw json.RawMessage, secrets map[string]bool) (*mrow, error) {
	var vals map[string]json.RawMessage
	if err := json.Unmarshal(raw, &vals); err != nil {
		return nil, fmt.Errorf("the record is not a JSON object: %s", raw)
	}
	if secrets == nil {
		secrets = map[string]bool{}
	}
	return &mrow{vals: vals, secret: secrets}, nil
}

// add records a created row.
func (m *model) add(table string, r *mrow) {
	mt := m.tables[table]
	mt.rows = append(mt.rows, r)
	m.owe(mt.t, "create", r)
}

// replace records a row changed by a write that answered it, keeping the
// password columns it did not set.
//
// merge keeps the password columns the write did not set (PATCH, an
// upsert's update); PUT resets them with every column it leaves out.
func (m *model) replace(table string, r *mrow, merge bool) error {
	mt := m.tables[table]
	old, i := mt.byID(r.id())
	if old == nil {
		return fmt.Errorf("the answer is a record of %s with id %s, which the model does not hold", table, r.id())
	}
	for k, v := range old.secret {
		if _, set := r.secret[k]; merge && !set {
			r.secret[k] = v
		}
	}
	mt.rows[i] = r
	m.owe(mt.t, "update", r)
	return nil
}

// owe records the event a realtime table's stream will carry.
func (m *model) owe(t *schema.CTable, op string, r *mrow) {
	if t.Doc.Realtime {
		image := make(map[string]json.RawMessage, len(r.vals))
		for k, v := range r.vals {
			image[k] = v
		}
		m.events = append(m.events, change{table: t.Name, op: op, id: r.id(), image: image})
	}
}

// remove deletes rows and what their deletion does to the rows that
// reference them, as PostgreSQL's foreign keys do: cascade deletes them
// too, set_null empties the column, restrict refuses. It answers an error
// when a restricting reference remains, which means the server deleted a
// row PostgreSQL could not have.
func (m *model) remove(table string, ids []string) error {
	gone := map[string]map[string]bool{} // table → ids
	var queue []change
	for _, id := range ids {
		queue = append(queue, change{table: table, id: id})
	}
	for len(queue) > 0 {
		c := queue[0]
		queue = queue[1:]
		if gone[c.table][c.id] {
			continue
		}
		if gone[c.table] == nil {
			gone[c.table] = map[string]bool{}
		}
		gone[c.table][c.id] = true
		for _, mt := range m.tables {
			for _, col := range mt.t.Columns {
				if col.References == nil || col.References.Table != c.table || col.References.OnDelete != schema.OnDeleteCascade {
					continue
				}
				for _, r := range mt.rows {
					if idText(r.vals[col.Name]) == c.id {
						queue = append(queue, change{table: mt.t.Name, id: r.id()})
					}
				}
			}
		}
	}
	// What stays and points at what goes: set null, or a refusal.
	for _, mt := range m.tables {
		for _, col := range mt.t.Columns {
			if col.References == nil || gone[col.References.Table] == nil {
				continue
			}
			for _, r := range mt.rows {
				target := idText(r.vals[col.Name])
				if gone[mt.t.Name][r.id()] || !gone[col.References.Table][target] || isNull(r.vals[col.Name]) {
					continue
				}
				if col.References.OnDelete != schema.OnDeleteSetNull {
					return fmt.Errorf("%s %s still references %s %s through %s (on_delete %q), yet the delete was answered as done",
						mt.t.Name, r.id(), col.References.Table, target, col.Name, col.References.OnDelete)
				}
			}
		}
	}
	for _, mt := range m.tables {
		var kept []*mrow
		for _, r := range mt.rows {
			if gone[mt.t.Name][r.id()] {
				// Set to null first or not, as the triggers' order has it:
				// the update may come, and the image the delete shows is
				// either.
				unknown := false
				for _, col := range mt.t.Columns {
					if mt.t.Doc.Realtime && col.References != nil && col.References.OnDelete == schema.OnDeleteSetNull &&
						gone[col.References.Table][idText(r.vals[col.Name])] && !isNull(r.vals[col.Name]) {
						m.owe(mt.t, "update", r)
						m.events[len(m.events)-1].optional = true
						m.events[len(m.events)-1].imageUnknown = true
						unknown = true
					}
				}
				m.owe(mt.t, "delete", r)
				if unknown {
					m.events[len(m.events)-1].imageUnknown = true
				}
				continue
			}
			kept = append(kept, r)
		}
		mt.rows = kept
	}
	// Each set_null reference is its own UPDATE (PostgreSQL runs one per
	// foreign key), so a row that loses two references changes twice; in
	// which order is the triggers', so the image between is not known.
	for _, mt := range m.tables {
		for _, r := range mt.rows {
			var nulled []string
			for _, col := range mt.t.Columns {
				if col.References != nil && gone[col.References.Table][idText(r.vals[col.Name])] && !isNull(r.vals[col.Name]) {
					nulled = append(nulled, col.Name)
				}
			}
			for _, name := range nulled {
				r.vals[name] = json.RawMessage("null")
			}
			if len(nulled) > 0 {
				r.vals[schema.ColUpdatedAt] = nil // set by the database: unknown
			}
			for range nulled {
				m.owe(mt.t, "update", r)
				if len(nulled) > 1 && mt.t.Doc.Realtime {
					m.events[len(m.events)-1].imageUnknown = true
				}
			}
		}
	}
	return nil
}

// refuses reports whether deleting these rows must fail: a row that stays
// references one of them, directly or through cascades, with restrict.
//
// A restricting reference from a row that a cascade deletes in the same
// statement may refuse too: whether PostgreSQL checks the restriction
// before or after the cascade depends on the order its referential
// triggers fire in (the order the constraints were made), so the model
// takes a refusal then as one of two right answers.
func (m *model) refuses(table string, ids []string) bool {
	before := m.snapshot()
	defer m.restore(before)
	if m.remove(table, ids) != nil {
		return true
	}
	// The rows the removal took, and of those the ones a cascade took.
	gone := map[string]map[string]bool{}
	for name, mt := range m.tables {
		left := map[string]bool{}
		for _, r := range mt.rows {
			left[r.id()] = true
		}
		gone[name] = map[string]bool{}
		for _, r := range before.rows[name] {
			if !left[r.id()] {
				gone[name][r.id()] = true
			}
		}
	}
	direct := map[string]bool{}
	for _, id := range ids {
		direct[id] = true
	}
	for name, mt := range m.tables {
		for _, col := range mt.t.Columns {
			if col.References == nil || col.References.OnDelete == schema.OnDeleteCascade || col.References.OnDelete == schema.OnDeleteSetNull {
				continue
			}
			for _, r := range before.rows[name] {
				byCascade := gone[name][r.id()] && !(name == table && direct[r.id()])
				if byCascade && gone[col.References.Table][idText(r.vals[col.Name])] {
					return true
				}
			}
		}
	}
	return false
}

// modelState is a copy of the rows and the count of owed events, so that
// refuses can try a removal and undo it.
type modelState struct {
	rows   map[string][]*mrow
	events int
}

func (m *model) snapshot() modelState {
	st := modelState{rows: map[string][]*mrow{}, events: len(m.events)}
	for name, mt := range m.tables {
		rows := make([]*mrow, len(mt.rows))
		for i, r := range mt.rows {
			c := &mrow{vals: map[string]json.RawMessage{}, secret: map[string]bool{}}
			for k, v := range r.secret {
				c.secret[k] = v
			}
			for k, v := range r.vals {
				c.vals[k] = v
			}
			rows[i] = c
		}
		st.rows[name] = rows
	}
	return st
}

func (m *model) restore(st modelState) {
	for name, rows := range st.rows {
		m.tables[name].rows = rows
	}
	m.events = m.events[:st.events]
}

func isNull(raw json.RawMessage) bool { return raw == nil || string(raw) == "null" }

// match reports whether a row passes one condition, as the server's SQL
// decides (a comparison with NULL is false).
func (m *model) match(mt *mtable, r *mrow, c cond) bool {
	switch c.Op {
	case "search":
		term := strings.ToLower(string(unquote(c.Val.JSON)))
		for _, col := range mt.t.Columns {
			if isText(col.Type) && !isNull(r.vals[col.Name]) && strings.Contains(strings.ToLower(string(unquote(r.vals[col.Name]))), term) {
				return true
			}
		}
		return false
	case "in":
		for _, place := range c.Rows {
			if x := mt.row(place); x != nil && x.id() == r.id() {
				return true
			}
		}
		return false
	}
	col, _ := mt.t.Column(c.Column)
	v := r.vals[c.Column]
	if c.Op == "null" {
		// A system column is never null, also where the model does not
		// know its value (updated_at after a write by filter).
		null := isNull(v) && !col.System
		return null == (string(c.Val.JSON) == "true")
	}
	if isNull(v) {
		return false
	}
	switch c.Op {
	case "eq":
		return same(col, v, c.Val.JSON)
	case "ne":
		return !same(col, v, c.Val.JSON)
	case "gt", "lt":
		a, b := number(v), number(c.Val.JSON)
		if a == nil || b == nil {
			return false
		}
		if c.Op == "gt" {
			return a.Cmp(b) > 0
		}
		return a.Cmp(b) < 0
	}
	return false
}

func isText(typ string) bool {
	return typ == schema.TypeText || typ == schema.TypeEmail || typ == schema.TypeURL || typ == schema.TypeEnum
}

// unquote is a JSON string's text (or the raw JSON of anything else).
func unquote(raw json.RawMessage) []byte {
	var s string
	if !isNull(raw) && json.Unmarshal(raw, &s) == nil {
		return []byte(s)
	}
	return raw
}

// number reads a JSON number, or a string holding one, exactly.
func number(raw json.RawMessage) *big.Rat {
	s := strings.TrimSpace(string(unquote(raw)))
	r, ok := new(big.Rat).SetString(s)
	if !ok {
		return nil
	}
	return r
}

// same reports whether two JSON values of a column are one value as the
// column's type sees it: numbers exactly, instants as instants, JSON
// documents as documents.
func same(c *schema.CColumn, a, b json.RawMessage) bool {
	if isNull(a) || isNull(b) {
		return isNull(a) == isNull(b)
	}
	switch c.Type {
	case schema.TypeInteger, schema.TypeDecimal:
		x, y := number(a), number(b)
		return x != nil && y != nil && x.Cmp(y) == 0
	case schema.TypeNumber:
		x, err1 := strconv.ParseFloat(string(unquote(a)), 64)
		y, err2 := strconv.ParseFloat(string(unquote(b)), 64)
		return err1 == nil && err2 == nil && x == y
	case schema.TypeTimestamp:
		x, err1 := time.Parse(time.RFC3339Nano, string(unquote(a)))
		y, err2 := time.Parse(time.RFC3339Nano, string(unquote(b)))
		return err1 == nil && err2 == nil && x.Equal(y)
	case schema.TypeUUID:
		return strings.EqualFold(string(unquote(a)), string(unquote(b)))
	case schema.TypeJSON:
		var x, y any
		if json.Unmarshal(a, &x) != nil || json.Unmarshal(b, &y) != nil {
			return false
		}
		return reflect.DeepEqual(x, y)
	case schema.TypeBoolean:
		return bytes.Equal(bytes.TrimSpace(a), bytes.TrimSpace(b))
	}
	return string(unquote(a)) == string(unquote(b))
}
