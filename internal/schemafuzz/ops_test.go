package schemafuzz

import (
	"bytes"
	"encoding/json"
	"fmt"
	"math/rand"
	"strings"

	"github.com/tablesmith/tablesmith/schema"
)

// genCase makes the case of a seed: a document, the streams to open and
// the requests to send.
func genCase(seed int64, ops int) fuzzCase {
	r := rand.New(rand.NewSource(seed))
	doc := genDocument(r)
	c := fuzzCase{Seed: seed, Schema: doc}
	comp, err := schema.Compile(doc)
	if err != nil {
		panic(fmt.Sprintf("a repaired document does not compile: %v", err))
	}
	for _, t := range comp.Tables {
		if t.Doc.Realtime {
			sw := streamWhere{Table: t.Name}
			if chance(r, 0.5) {
				sw.Where = genCond(r, comp, t, true)
			}
			c.Streams = append(c.Streams, sw)
		}
	}
	for range ops {
		c.Ops = append(c.Ops, genOp(r, comp))
	}
	return c
}

// opWeights say how often each kind is sent: creates most, so that the
// other requests find rows.
var opWeights = []struct {
	kind   string
	weight int
}{
	{opCreate, 24}, {opBulk, 8}, {opUpsert, 6}, {opGet, 8}, {opPut, 6}, {opPatch, 8}, {opDelete, 5},
	{opList, 12}, {opPatchWhere, 5}, {opDeleteWhere, 3}, {opAggregate, 5}, {opExport, 4},
}

func genOp(r *rand.Rand, comp *schema.Compiled) op {
	t := pick(r, comp.Tables)
	total := 0
	for _, w := range opWeights {
		total += w.weight
	}
	n := r.Intn(total)
	kind := ""
	for _, w := range opWeights {
		if n < w.weight {
			kind = w.kind
			break
		}
		n -= w.weight
	}
	o := op{Kind: kind, Table: t.Name, Valid: chance(r, 0.85)}
	defer func() {
		// A value the generator meant to be valid that the column's
		// rules refuse (a length, a bound it missed) makes the request
		// one that may be refused.
		for _, b := range o.Items {
			o.Valid = o.Valid && accepted(t, b)
		}
	}()
	place := func() int {
		if !o.Valid && chance(r, 0.3) {
			return -1
		}
		return r.Intn(20)
	}
	switch kind {
	case opCreate:
		o.Items = []body{genBody(r, t, opCreate, o.Valid)}
	case opBulk:
		for range 1 + r.Intn(4) {
			o.Items = append(o.Items, genBody(r, t, opCreate, o.Valid))
		}
	case opUpsert:
		genUpsert(r, t, &o)
	case opGet, opDelete:
		o.Row = place()
	case opPut, opPatch:
		o.Row = place()
		o.Items = []body{genBody(r, t, o.Kind, o.Valid)}
	case opList, opAggregate, opExport:
		for range r.Intn(3) {
			if c := genCond(r, comp, t, false); c != nil {
				o.Where = append(o.Where, *c)
			}
		}
		o.Params = genParams(r, comp, t, kind)
	case opPatchWhere, opDeleteWhere:
		for len(o.Where) == 0 {
			if c := genCond(r, comp, t, false); c != nil {
				o.Where = append(o.Where, *c)
			}
		}
		if chance(r, 0.2) {
			o.Params = append(o.Params, [2]string{"max_affected", fmt.Sprint(1 + r.Intn(3))})
		}
		if kind == opPatchWhere {
			o.Items = []body{genBody(r, t, opPatch, o.Valid)}
		}
	}
	return o
}

// genBody makes the fields of a create (every required column without a
// default, some others), a put (every required column, some others) or a
// patch (a few columns). An invalid body has one bad value or an unknown
// field.
func genBody(r *rand.Rand, t *schema.CTable, kind string, valid bool) body {
	b := body{}
	for _, c := range t.Writable {
		need := c.Required && (kind == opPut || !schema.HasDefault(&c.Column))
		switch {
		case kind == opPatch:
			if chance(r, 0.3) {
				b[c.Input] = genField(r, c, true)
			}
		case need || chance(r, 0.5):
			b[c.Input] = genField(r, c, true)
		}
	}
	if kind == opPatch && len(b) == 0 && len(t.Writable) > 0 {
		c := pick(r, t.Writable)
		b[c.Input] = genField(r, c, true)
	}
	if !valid {
		if len(t.Writable) == 0 || chance(r, 0.2) {
			b["no_such_field"] = lit(1)
		} else {
			c := pick(r, t.Writable)
			b[c.Input] = genField(r, c, false)
		}
	}
	return b
}

// accepted reports whether the table's rules (schema.CheckValue, what
// every write path applies) take every literal field of a body. The
// fuzzer checks what happens after them: a valid body refused by the
// database or a later step is a failure.
func accepted(t *schema.CTable, b body) bool {
	for f, v := range b {
		c, ok := t.Inputs[f]
		if !ok {
			if f == "no_such_field" {
				return false
			}
			continue // a column a shrunk case no longer has: not sent
		}
		if v.Ref != nil {
			continue
		}
		dec := json.NewDecoder(bytes.NewReader(v.JSON))
		dec.UseNumber()
		var x any
		if dec.Decode(&x) != nil {
			return false
		}
		if _, msg := schema.CheckValue(&c.Column, x); msg != "" {
			return false
		}
	}
	return true
}

// genField is a value for a column: a live row's id for a reference.
func genField(r *rand.Rand, c *schema.CColumn, valid bool) value {
	if c.References != nil {
		if !c.Required && chance(r, 0.15) {
			return lit(nil)
		}
		ref := &rowRef{Table: c.References.Table, Row: r.Intn(20)}
		if !valid {
			ref.Row = -1
		}
		return value{Ref: ref}
	}
	return lit(genValue(r, c.Column, valueOptions{valid: valid}))
}

// genUpsert makes an upsert on a unique column the body may set, with
// one to three items that name the same fields; some keys are those of
// live rows (updates), the others new (creates).
func genUpsert(r *rand.Rand, t *schema.CTable, o *op) {
	var keys []*schema.CColumn
	for _, c := range t.Writable {
		if c.Unique && c.References == nil {
			keys = append(keys, c)
		}
	}
	if len(keys) == 0 {
		o.Kind = opCreate
		o.Items = []body{genBody(r, t, opCreate, o.Valid)}
		return
	}
	key := pick(r, keys)
	o.OnConflict = key.Input
	shape := genBody(r, t, opCreate, true)
	seen := map[string]bool{}
	copied := false
	for range 1 + r.Intn(3) {
		item := body{}
		for f := range shape {
			c := t.Inputs[f]
			item[f] = genField(r, c, true)
		}
		if !copied && chance(r, 0.5) {
			// The key of a live row: this item updates it.
			copied = true
			item[key.Input] = value{Ref: &rowRef{Table: t.Name, Row: r.Intn(20), Column: key.Name}}
		} else {
			v := genField(r, key, true)
			if seen[string(v.JSON)] || string(v.JSON) == "null" {
				continue
			}
			seen[string(v.JSON)] = true
			item[key.Input] = v
		}
		o.Items = append(o.Items, item)
	}
	if len(o.Items) == 0 {
		o.Items = []body{{key.Input: genField(r, key, true)}}
	}
	if !o.Valid {
		c := pick(r, t.Writable)
		o.Items[0][c.Input] = genField(r, c, false)
	}
}

// filterable are the columns whose equality the model decides as the
// server does.
func filterable(c *schema.CColumn) bool {
	if c.Hidden {
		return false
	}
	switch c.Type {
	case schema.TypeInteger, schema.TypeBoolean, schema.TypeEnum, schema.TypeText, schema.TypeEmail, schema.TypeURL,
		schema.TypeDate, schema.TypeUUID:
		return true
	}
	return false
}

// genCond makes one condition the model can evaluate. forStream keeps
// to the expression grammar's forms (where[<table>]).
func genCond(r *rand.Rand, comp *schema.Compiled, t *schema.CTable, forStream bool) *cond {
	var cols []*schema.CColumn
	for _, c := range t.Columns {
		if filterable(c) || (!c.Hidden && c.Type != schema.TypeJSON && c.Type != schema.TypePassthrough) {
			cols = append(cols, c)
		}
	}
	switch k := r.Intn(6); {
	case k == 0 && !forStream:
		places := make([]int, 1+r.Intn(4))
		for i := range places {
			places[i] = r.Intn(20)
		}
		return &cond{Column: schema.ColID, Op: "in", Rows: places}
	case k == 1 && !forStream && hasText(t):
		return &cond{Op: "search", Val: lit(pick(r, []string{"a", "e", "x", "an", "é", "1", "ex", "com"}))}
	case k == 2 || len(cols) == 0:
		c := pick(r, append(cols, t.PK))
		return &cond{Column: c.Name, Op: "null", Val: lit(chance(r, 0.5)), Expr: forStream || chance(r, 0.3)}
	}
	c := pick(r, cols)
	if !filterable(c) {
		return &cond{Column: c.Name, Op: "null", Val: lit(chance(r, 0.5)), Expr: forStream || chance(r, 0.3)}
	}
	op := pick(r, []string{"eq", "ne"})
	if c.Type == schema.TypeInteger && c.References == nil && chance(r, 0.5) {
		op = pick(r, []string{"gt", "lt"})
	}
	var v value
	if c.References != nil {
		v = value{Ref: &rowRef{Table: c.References.Table, Row: r.Intn(20)}}
	} else if c.System {
		v = value{Ref: &rowRef{Table: t.Name, Row: r.Intn(20)}}
	} else {
		col := c.Column
		col.Required = true // no null: equality with null is the null operator
		v = lit(genValue(r, col, valueOptions{valid: true}))
	}
	return &cond{Column: c.Name, Op: op, Val: v, Expr: forStream || chance(r, 0.3)}
}

func hasText(t *schema.CTable) bool {
	for _, c := range t.Columns {
		if isText(c.Type) {
			return true
		}
	}
	return false
}

// genParams makes the parameters that shape a list, an aggregate or an
// export without changing which rows match.
func genParams(r *rand.Rand, comp *schema.Compiled, t *schema.CTable, kind string) [][2]string {
	var ps [][2]string
	var sortable, visible []string
	for _, c := range t.Columns {
		if c.Hidden {
			continue
		}
		visible = append(visible, c.Name)
		if c.Type != schema.TypeJSON {
			sortable = append(sortable, c.Name)
		}
	}
	sortKeys := func(n int) string {
		var keys []string
		seen := map[string]bool{}
		for range n {
			k := pick(r, sortable)
			if !seen[k] {
				seen[k] = true
				if chance(r, 0.5) {
					k = "-" + k
				}
				keys = append(keys, k)
			}
		}
		return strings.Join(keys, ",")
	}
	switch kind {
	case opList:
		ps = append(ps, [2]string{"limit", "100"}, [2]string{"count", "exact"})
		if chance(r, 0.5) {
			ps = append(ps, [2]string{"sort", sortKeys(1 + r.Intn(2))})
		}
		if chance(r, 0.2) {
			ps = append(ps, [2]string{"order", pick(r, []string{"asc", "desc"})})
		}
		if chance(r, 0.3) {
			ps = append(ps, [2]string{"fields", strings.Join(subset(r, visible), ",")})
		}
		if inc := genInclude(r, t, 0); inc != "" && chance(r, 0.6) {
			ps = append(ps, [2]string{"include", inc})
		}
	case opAggregate:
		ps = append(ps, [2]string{"count", "*"})
		if chance(r, 0.5) {
			ps = append(ps, [2]string{"group_by", pick(r, sortable)})
		}
	case opExport:
		ps = append(ps, [2]string{"format", pick(r, []string{"csv", "ndjson"})})
		if chance(r, 0.5) {
			ps = append(ps, [2]string{"sort", sortKeys(1)})
		}
		if ps[0][1] == "ndjson" && chance(r, 0.3) {
			if inc := genInclude(r, t, 1); inc != "" {
				ps = append(ps, [2]string{"include", inc})
			}
		}
	}
	return ps
}

// genInclude is an include of one or two relations, nested a level now
// and then, with options sometimes.
func genInclude(r *rand.Rand, t *schema.CTable, depth int) string {
	if len(t.RelationNames) == 0 || depth > 1 {
		return ""
	}
	var parts []string
	for _, name := range subset(r, t.RelationNames) {
		rel := t.Relations[name]
		item := name
		if rel.Many && chance(r, 0.3) {
			item += fmt.Sprintf("(limit=%d;sort=-id)", 1+r.Intn(5))
		}
		if sub := genInclude(r, rel.To, depth+1); sub != "" && chance(r, 0.3) && !strings.Contains(item, "(") {
			item += "." + strings.SplitN(sub, ",", 2)[0]
		}
		parts = append(parts, item)
		if len(parts) == 2 {
			break
		}
	}
	return strings.Join(parts, ",")
}

// subset is a non-empty random subset of names, in their order.
func subset(r *rand.Rand, names []string) []string {
	var out []string
	for _, n := range names {
		if chance(r, 0.5) {
			out = append(out, n)
		}
	}
	if len(out) == 0 {
		out = []string{pick(r, names)}
	}
	return out
}
