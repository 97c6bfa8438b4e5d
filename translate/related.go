package translate

import (
	"strconv"
	"strings"

	"github.com/tablesmith/tablesmith/access"
	"github.com/tablesmith/tablesmith/schema"
)

// MaxRelatedHops is how many relations a filter on a related table may
// chain: filter[post.author.name] is two hops.
const MaxRelatedHops = 3

// relatedFilter is a filter or comparison naming a column through
// relations ("author.name"). Planning a single table leaves it as it is;
// resolveRelated turns it into exists conditions once the published
// schema and the caller are at hand.
type relatedFilter struct {
	path  []string // relation names, then the column
	field *FieldFilter
	cmp   *Comparison
}

// exists holds when some row of rel.To that belongs to the outer row, and
// that the caller may read (rows), meets cond. A to-one relation has at
// most one such row, so it reads "the related row matches".
type exists struct {
	rel   *schema.Relation
	table *TableSQL
	rows  access.Rows
	cond  condition
	// through and junction: the junction rows the caller may read, for a
	// many-to-many relation.
	through  access.Rows
	junction *TableSQL
}

func (relatedFilter) isCondition() {}
func (exists) isCondition()        {}

// relatedPath splits a dotted name into its relations and column; ok is
// false for a plain column name.
func relatedPath(name string) ([]string, bool) {
	if !strings.Contains(name, ".") {
		return nil, false
	}
	return strings.Split(name, "."), true
}

// resolveRelatedFilters replaces, in place, every relatedFilter of conds
// (at any depth) by the exists conditions it stands for.
func resolveRelatedFilters(p *Published, t *schema.CTable, caller access.Principal, conds []condition) error {
	for i, c := range conds {
		r, err := resolveRelated(p, t, caller, c)
		if err != nil {
			return err
		}
		conds[i] = r
	}
	return nil
}

func resolveRelated(p *Published, t *schema.CTable, caller access.Principal, c condition) (condition, error) {
	switch n := c.(type) {
	case allOf:
		out := make(allOf, len(n))
		return out, resolveInto(p, t, caller, n, out)
	case anyOf:
		out := make(anyOf, len(n))
		return out, resolveInto(p, t, caller, n, out)
	case notCond:
		x, err := resolveRelated(p, t, caller, n.x)
		return notCond{x: x}, err
	case relatedFilter:
		return n.resolve(p, t, caller)
	}
	return c, nil
}

func resolveInto(p *Published, t *schema.CTable, caller access.Principal, in, out []condition) error {
	for i, x := range in {
		r, err := resolveRelated(p, t, caller, x)
		if err != nil {
			return err
		}
		out[i] = r
	}
	return nil
}

// fail reports a problem with the filter: as its parameter for
// filter[...] keys, as a positioned syntax error inside filter=.
func (f relatedFilter) fail(format string, args ...any) error {
	if f.field != nil {
		return queryErr(f.field.Param, format, args...)
	}
	return queryErr("filter", "%s", syntaxErr(f.cmp.At, format, args...).Error())
}

// param is the parameter the filter came in.
func (f relatedFilter) param() string {
	if f.field != nil {
		return f.field.Param
	}
	return "filter"
}

// resolve walks the relation names from t, checking each name and the
// caller's read rule on each table reached, and plans the comparison on
// the last table's column.
func (f relatedFilter) resolve(p *Published, t *schema.CTable, caller access.Principal) (condition, error) {
	rels, col := f.path[:len(f.path)-1], f.path[len(f.path)-1]
	if len(rels) > MaxRelatedHops {
		return nil, f.fail("%q goes through more than %d relations", strings.Join(f.path, "."), MaxRelatedHops)
	}
	var hops []exists
	from := t
	for i, name := range rels {
		if name == "" {
			return nil, f.fail("%q has an empty relation name", strings.Join(f.path, "."))
		}
		rel, ok := from.Relations[name]
		if !ok {
			return nil, f.fail("unknown relation %q on %s%s", name, from.Name, relationHint(from))
		}
		g, err := access.Decide(caller, rel.To, access.Read)
		if err != nil {
			return nil, &ForbiddenError{Param: f.param(), Message: "filtering on " + strings.Join(rels[:i+1], ".") + " needs " + readNeed(rel.To)}
		}
		hop := exists{rel: rel, table: p.Tables[rel.To.Name], rows: g.Rows}
		if rel.Through != nil {
			jg, err := access.Decide(caller, rel.Through, access.Read)
			if err != nil {
				return nil, &ForbiddenError{Param: f.param(), Message: "filtering on " + strings.Join(rels[:i+1], ".") + " needs " + readNeed(rel.Through)}
			}
			hop.through, hop.junction = jg.Rows, p.Tables[rel.Through.Name]
		}
		hops = append(hops, hop)
		from = rel.To
	}
	inner, err := f.planOn(from, col)
	if err != nil {
		return nil, err
	}
	for i := len(hops) - 1; i >= 0; i-- {
		hops[i].cond = inner
		inner = hops[i]
	}
	return inner, nil
}

// planOn plans the filter's comparison on column col of the related
// table t.
func (f relatedFilter) planOn(t *schema.CTable, col string) (condition, error) {
	if _, ok := lookupColumn(t, col); !ok {
		return nil, f.fail("unknown column %q on %s", col, t.Name)
	}
	if f.field != nil {
		ff := *f.field
		ff.Field = col
		return planFieldFilter(t, ff)
	}
	cmp := *f.cmp
	cmp.Column = col
	c, err := planComparison(t, &cmp)
	if err != nil {
		return nil, queryErr("filter", "%s", err.Error())
	}
	return c, nil
}

// readNeed says what credential reading t takes, for a refusal.
func readNeed(t *schema.CTable) string {
	if t.Level(string(access.Read)) == schema.LevelKey {
		return "an API key (" + t.Name + " is readable with API keys only)"
	}
	return "a credential (" + t.Name + " is not public)"
}

// exists renders EXISTS over the related table, correlated with the outer
// row of alias parent. The correlation is the foreign key's equality, so
// PostgreSQL reads the related row by its key (to-one) or the
// (reference, id) index every reference column has (to-many).
func (r *renderer) exists(n exists, parent string) string {
	r.aliases++
	a := "_x" + strconv.Itoa(r.aliases)
	s := "EXISTS (SELECT 1 FROM " + n.table.Rel + " " + a + " WHERE " + r.correlate(n.rel, n.junction, n.through, a, parent)
	if !n.rows.All() {
		s += " AND " + a + "." + n.rows.Column.Ident + " = " + r.arg(n.rows.Value)
	}
	inner := r.cond(n.cond, a)
	switch n.cond.(type) {
	case allOf, anyOf:
		inner = "(" + inner + ")"
	}
	return s + " AND " + inner + ")"
}
