package translate

import (
	"strings"

	"github.com/tablesmith/tablesmith/access"
	"github.com/tablesmith/tablesmith/schema"
)

// listPlan is a list query resolved against the compiled schema: every
// name is a column or relation of it, every value is typed for its column.
// Only render turns it into SQL.
type listPlan struct {
	table  *TableSQL
	where  []condition // ANDed; the owner scope is one of them
	order  []orderKey
	output []*schema.CColumn
	embeds []*embedPlan
	limit  int
	offset int
	count  string
	// shape identifies the sort for cursors; after holds the key values
	// of the row a cursor page starts after (nil for a page by number).
	shape string
	after []any
}

type orderKey struct {
	col  *schema.CColumn
	desc bool
}

// embedPlan is one included relation; rows are those of its table the
// caller may read.
type embedPlan struct {
	name     string
	rel      *schema.Relation
	table    *TableSQL
	rows     access.Rows
	children []*embedPlan
	// output, order and limit come from the step's options: every
	// visible column, by key, MaxEmbeddedRows by default.
	output  []*schema.CColumn
	order   []orderKey
	limit   int
	options string
	// through are the junction rows the caller may read, for a
	// many-to-many relation.
	through      access.Rows
	throughTable *TableSQL
}

// condition is a node of the resolved WHERE tree.
type condition interface{ isCondition() }

type (
	allOf   []condition
	anyOf   []condition
	notCond struct{ x condition }
	// compare is col op $value with op one of = <> < <= > >=.
	compare struct {
		col *schema.CColumn
		op  string
		val any
	}
	nullTest struct {
		col    *schema.CColumn
		isNull bool
	}
	// contains is a case-insensitive contains of pattern (already a LIKE
	// pattern with the user's wildcards escaped) in any of cols; op is
	// ILIKE or NOT ILIKE.
	contains struct {
		cols    []*schema.CColumn
		pattern string
		op      string
	}
	inList struct {
		col  *schema.CColumn
		vals []any
	}
)

func (allOf) isCondition()    {}
func (anyOf) isCondition()    {}
func (notCond) isCondition()  {}
func (compare) isCondition()  {}
func (nullTest) isCondition() {}
func (contains) isCondition() {}
func (inList) isCondition()   {}

// BuildList plans q against table t of p and renders it as one statement.
// Errors are *QueryError (INVALID_QUERY) or *ForbiddenError (FORBIDDEN).
func BuildList(p *Published, t *schema.CTable, q *ListQuery) (*ListSQL, error) {
	plan, err := planList(p, t, q)
	if err != nil {
		return nil, err
	}
	ls := render(p, plan, q)
	ls.reads = plan.tablesRead()
	return ls, nil
}

func planList(p *Published, t *schema.CTable, q *ListQuery) (*listPlan, error) {
	pl := &listPlan{table: p.Tables[t.Name], limit: q.Limit, offset: q.Offset, count: q.Count}
	if pl.count == "" {
		pl.count = CountEstimated
	}
	if pl.limit == 0 {
		pl.limit = DefaultLimit
	}
	for _, f := range q.Filters {
		c, err := planFieldFilter(t, f)
		if err != nil {
			return nil, err
		}
		pl.where = append(pl.where, c)
	}
	for _, e := range q.Exprs {
		c, err := planExpr(t, e)
		if err != nil {
			return nil, queryErr("filter", "%s", err.Error())
		}
		pl.where = append(pl.where, c)
	}
	if err := resolveRelatedFilters(p, t, q.Caller, pl.where); err != nil {
		return nil, err
	}
	if q.Search != "" {
		if len(t.Search) == 0 {
			return nil, queryErr("search", "table %s has no text columns to search", t.Name)
		}
		pl.where = append(pl.where, contains{cols: t.Search, pattern: containsPattern(q.Search), op: searchOp})
	}
	if !q.Rows.All() {
		pl.where = append(pl.where, compare{col: q.Rows.Column, op: "=", val: q.Rows.Value})
	}

	var err error
	if pl.order, err = planOrder(t, q); err != nil {
		return nil, err
	}
	if pl.output, err = planFields(t, q.Fields); err != nil {
		return nil, err
	}
	if pl.embeds, err = planIncludes(p, t, q); err != nil {
		return nil, err
	}
	if err := planCursor(pl, t, q); err != nil {
		return nil, err
	}
	return pl, nil
}

// lookupColumn finds a column a request may name: hidden (password)
// columns do not exist as far as requests can tell.
func lookupColumn(t *schema.CTable, name string) (*schema.CColumn, bool) {
	c, ok := t.Column(name)
	if !ok || c.Hidden {
		return nil, false
	}
	return c, true
}

func planFieldFilter(t *schema.CTable, f FieldFilter) (condition, error) {
	if path, ok := relatedPath(f.Field); ok {
		return relatedFilter{path: path, field: &f}, nil
	}
	c, ok := lookupColumn(t, f.Field)
	if !ok {
		return nil, queryErr(f.Param, "unknown column %q", f.Field)
	}
	op := fieldOperators[f.Op]
	if op == nil {
		return nil, queryErr(f.Param, "unknown operator %q; use one of %s", f.Op, fieldNames)
	}
	if op.Textual && !c.Kind.Traits.Textual {
		return nil, queryErr(f.Param, "%s needs a text column; %s is %s", op.Field, c.Name, c.Type)
	}
	switch op.Value {
	case OperandBool:
		switch f.Value {
		case "true":
			return nullTest{col: c, isNull: true}, nil
		case "false":
			return nullTest{col: c}, nil
		}
		return nil, queryErr(f.Param, "must be true or false")
	case OperandText:
		return contains{cols: []*schema.CColumn{c}, pattern: containsPattern(f.Value), op: op.sql}, nil
	case OperandList:
		items := strings.Split(f.Value, ",")
		if len(items) > MaxInValues {
			return nil, queryErr(f.Param, "may list at most %d values", MaxInValues)
		}
		vals := make([]any, len(items))
		for i, s := range items {
			v, msg := schema.ParseQueryValue(&c.Column, s)
			if msg != "" {
				return nil, queryErr(f.Param, "value %d %s", i+1, msg)
			}
			vals[i] = v
		}
		return inList{col: c, vals: vals}, nil
	}
	v, msg := schema.ParseQueryValue(&c.Column, f.Value)
	if msg != "" {
		return nil, queryErr(f.Param, "%s", msg)
	}
	return compare{col: c, op: op.sql, val: v}, nil
}

// planExpr resolves a filter expression; errors are *SyntaxError with the
// position of the offending name or value.
func planExpr(t *schema.CTable, e Expr) (condition, error) {
	switch n := e.(type) {
	case *Logical:
		terms := make([]condition, len(n.Terms))
		for i, x := range n.Terms {
			c, err := planExpr(t, x)
			if err != nil {
				return nil, err
			}
			terms[i] = c
		}
		if n.Op == "or" {
			return anyOf(terms), nil
		}
		return allOf(terms), nil
	case *Not:
		x, err := planExpr(t, n.X)
		if err != nil {
			return nil, err
		}
		return notCond{x: x}, nil
	case *Comparison:
		return planComparison(t, n)
	}
	return nil, syntaxErr(e.Pos(), "unsupported expression")
}

func planComparison(t *schema.CTable, n *Comparison) (condition, error) {
	if path, ok := relatedPath(n.Column); ok {
		return relatedFilter{path: path, cmp: n}, nil
	}
	c, ok := lookupColumn(t, n.Column)
	if !ok {
		return nil, syntaxErr(n.At, "unknown column %q", n.Column)
	}
	v := n.Value
	op := exprOperators[n.Op]
	if op == nil {
		return nil, syntaxErr(n.At, "unknown operator %q", n.Op)
	}
	if v.Kind == NullLiteral {
		if op.isNull != nil {
			return nullTest{col: c, isNull: *op.isNull}, nil
		}
		return nil, syntaxErr(v.At, "null compares only with %s", nullOperators)
	}
	if op.Textual {
		if !c.Kind.Traits.Textual {
			return nil, syntaxErr(n.At, "%s needs a text column; %s is %s", n.Op, c.Name, c.Type)
		}
		if v.Kind != StringLiteral {
			return nil, syntaxErr(v.At, "%s needs a 'string'", n.Op)
		}
		return contains{cols: []*schema.CColumn{c}, pattern: containsPattern(v.Text), op: op.sql}, nil
	}
	if want := literalKindFor(c); want != v.Kind {
		return nil, syntaxErr(v.At, "%s needs %s", c.Name, literalKindNames[want])
	}
	val, msg := schema.ParseQueryValue(&c.Column, v.Text)
	if msg != "" {
		return nil, syntaxErr(v.At, "%s %s", c.Name, msg)
	}
	return compare{col: c, op: op.sql, val: val}, nil
}

var literalKindNames = map[LiteralKind]string{
	NumberLiteral: "a number", StringLiteral: "a 'string'", BoolLiteral: "true or false",
}

// literalKindFor is the kind of literal an expression compares a column
// with, as its type's entry says: numbers for numeric columns, true/false
// for booleans, strings for the rest (dates, timestamps and UUIDs are
// written as strings).
func literalKindFor(c *schema.CColumn) LiteralKind {
	switch c.Kind.Literal {
	case schema.LiteralNumber:
		return NumberLiteral
	case schema.LiteralBool:
		return BoolLiteral
	}
	return StringLiteral
}

// containsPattern makes a LIKE pattern matching s anywhere, with the LIKE
// wildcards of s (and the escape character) taken literally.
func containsPattern(s string) string {
	r := strings.NewReplacer(`\`, `\\`, `%`, `\%`, `_`, `\_`)
	return "%" + r.Replace(s) + "%"
}

// planOrder resolves sort and order. Unless a key already orders rows
// completely (the primary key, or a unique required column), the primary
// key ends the list so that pages are stable, in the direction of the
// last key: "age DESC, id DESC" is one backward scan of the (age, id)
// index a generate builds, where "age DESC, id ASC" needs a sort.
func planOrder(t *schema.CTable, q *ListQuery) ([]orderKey, error) {
	var keys []orderKey
	total := false
	for _, k := range q.Sort {
		c, ok := lookupColumn(t, k.Field)
		if !ok {
			return nil, queryErr("sort", "unknown column %q", k.Field)
		}
		if !c.Kind.Traits.Comparable {
			return nil, queryErr("sort", "column %q cannot be sorted", k.Field)
		}
		keys = append(keys, orderKey{col: c, desc: k.Desc})
		total = total || c == t.PK || (c.Unique && c.Required)
	}
	if t.PK == nil { // a fronted table without a primary key: no tiebreak
		return keys, nil
	}
	if len(keys) == 0 {
		return []orderKey{{col: t.PK, desc: q.Order == "desc"}}, nil
	}
	if !total {
		keys = append(keys, orderKey{col: t.PK, desc: keys[len(keys)-1].desc})
	}
	return keys, nil
}

// planFields resolves fields: the named columns plus the primary key, in
// the table's column order; nil means every visible column.
func planFields(t *schema.CTable, fields []string) ([]*schema.CColumn, error) {
	want := map[*schema.CColumn]bool{}
	for _, f := range fields {
		c, ok := lookupColumn(t, f)
		if !ok {
			return nil, queryErr("fields", "unknown column %q", f)
		}
		want[c] = true
	}
	var out []*schema.CColumn
	for _, c := range t.Columns {
		if c.Hidden || (fields != nil && !want[c] && (t.PK == nil || c != t.PK)) {
			continue
		}
		out = append(out, c)
	}
	return out, nil
}

// planIncludes merges the include paths into a tree of embeds, checking
// every relation name and the caller's read rule on every table reached
// (and on the junction a many-to-many relation goes through).
func planIncludes(p *Published, root *schema.CTable, q *ListQuery) ([]*embedPlan, error) {
	var top []*embedPlan
	count := 0
	for _, path := range q.Include {
		level := &top
		from := root
		for i, step := range path {
			var node *embedPlan
			for _, e := range *level {
				if e.name == step.Name {
					node = e
				}
			}
			shown := includePathName(path[:i+1])
			if node == nil {
				if count++; count > MaxIncludes {
					return nil, queryErr("include", "may embed at most %d relations", MaxIncludes)
				}
				var err error
				if node, err = planEmbed(p, from, step, shown, q.Caller); err != nil {
					return nil, err
				}
				*level = append(*level, node)
			} else if step.Options != "" {
				if node.options != "" && node.options != step.Options {
					return nil, queryErr("include", "%s is given two sets of options", shown)
				}
				if node.options == "" {
					fresh, err := planEmbed(p, from, step, shown, q.Caller)
					if err != nil {
						return nil, err
					}
					node.options, node.output, node.order, node.limit = fresh.options, fresh.output, fresh.order, fresh.limit
				}
			}
			level, from = &node.children, node.rel.To
		}
	}
	return top, nil
}

// planEmbed plans one relation of from named by step.
func planEmbed(p *Published, from *schema.CTable, step IncludeStep, shown string, caller access.Principal) (*embedPlan, error) {
	rel, ok := from.Relations[step.Name]
	if !ok {
		return nil, queryErr("include", "unknown relation %q on %s%s", step.Name, from.Name, relationHint(from))
	}
	rows, err := access.Embed(caller, rel.To, shown)
	if err != nil {
		return nil, &ForbiddenError{Param: "include", Message: err.Error()}
	}
	e := &embedPlan{name: step.Name, rel: rel, table: p.Tables[rel.To.Name], rows: rows, options: step.Options, limit: MaxEmbeddedRows}
	if rel.Through != nil {
		if e.through, err = access.Embed(caller, rel.Through, shown+" (through "+rel.Through.Name+")"); err != nil {
			return nil, &ForbiddenError{Param: "include", Message: err.Error()}
		}
		e.throughTable = p.Tables[rel.Through.Name]
	}
	if !rel.Many && (step.Sort != nil || step.Limit != 0) {
		return nil, queryErr("include", "%s is one record: sort and limit apply to lists only", shown)
	}
	if e.output, err = planFields(rel.To, step.Fields); err != nil {
		return nil, queryErr("include", "fields of %s: %s", shown, err.(*QueryError).Message)
	}
	if rel.Many {
		if e.order, err = planOrder(rel.To, &ListQuery{Sort: step.Sort}); err != nil {
			return nil, queryErr("include", "sort of %s: %s", shown, err.(*QueryError).Message)
		}
		if step.Limit != 0 {
			e.limit = step.Limit
		}
	}
	return e, nil
}

// includePathName writes a path as include names it, without options.
func includePathName(path []IncludeStep) string {
	names := make([]string, len(path))
	for i, s := range path {
		names[i] = s.Name
	}
	return strings.Join(names, ".")
}

func relationHint(t *schema.CTable) string {
	if len(t.RelationNames) == 0 {
		return " (it has no relations)"
	}
	return " (relations: " + strings.Join(t.RelationNames, ", ") + ")"
}
