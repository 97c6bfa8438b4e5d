package translate

import (
	"database/sql/driver"
	"fmt"
	"strconv"
	"strings"
	"time"

	"github.com/tablesmith/tablesmith/access"
	"github.com/tablesmith/tablesmith/schema"
)

// renderer writes SQL text and collects its bound arguments. Identifiers
// come from the plan (quoted at compile time), values only as $n.
type renderer struct {
	pub     *Published
	args    []any
	aliases int
}

func (r *renderer) arg(v any) string {
	r.args = append(r.args, v)
	return "$" + strconv.Itoa(len(r.args))
}

// render turns a plan into the list statement. Its shape, with the count
// and the page as two scalar sub-selects of one row:
//
//	SELECT (<count>), (SELECT coalesce(json_agg(_r), '[]') FROM (
//	    SELECT <columns>, (<embedded rows as JSON>) AS <relation> ...
//	    FROM (<page of t>) t ORDER BY <order>) _r)
//
// The page (filter, order, limit, offset) is cut before any embed is
// evaluated, so embeds run for the page's rows only, each as one
// correlated scalar sub-select inside the statement: never one statement
// per row. Scalar sub-selects rather than LEFT JOIN LATERAL: PostgreSQL
// plans them in a fraction of the time (no join order to search), which
// is most of an include's cost (bench/RESULTS.md).
// The filter arguments come first, so Estimate can reuse them alone.
func render(p *Published, pl *listPlan, q *ListQuery) *ListSQL {
	r := &renderer{pub: p}
	rel := pl.table.Rel
	cond := r.where(pl.where, "t")
	condArgs := len(r.args)
	whereSQL := ""
	if cond != "" {
		whereSQL = " WHERE " + cond
	}

	order := orderBy(pl.order, "t")
	var rows, limitArg string
	switch {
	case pl.after != nil:
		// A cursor page always reads through the page sub-select: its
		// branches may be a UNION ALL (keyset.go).
		var page string
		page, limitArg = r.keysetPage(pl, cond, order)
		rows = "SELECT " + columns(pl.output, "t") + r.embeds(pl.embeds, "t") + " FROM (" + page + ") t" + order
	case len(pl.embeds) == 0:
		limitArg = pageLimit(pl)
		page := order + " LIMIT " + limitArg + r.offset(pl)
		rows = "SELECT " + columns(pl.output, "t") + " FROM " + rel + " t" + whereSQL + page
	default:
		limitArg = pageLimit(pl)
		page := order + " LIMIT " + limitArg + r.offset(pl)
		rows = "SELECT " + columns(pl.output, "t") + r.embeds(pl.embeds, "t") +
			" FROM (SELECT t.* FROM " + rel + " t" + whereSQL + page + ") t" + order
	}
	recordKeys := recordKeyNames(pl)
	rest := pageAndNext(pl, rows, limitArg, recordKeys != nil)
	// The count comes last, so that its own argument (the table, for an
	// inline estimate) ends the list and Uncounted can leave it off.
	pageArgs := len(r.args)
	var count string
	inlineEstimate := false
	switch {
	case pl.count == CountNone:
		count = "NULL::bigint"
	case pl.count == CountExact:
		count = "(SELECT count(*) FROM " + rel + " t" + whereSQL + ")"
	case whereSQL == "":
		// Unfiltered, the planner's estimate is the table's size from its
		// statistics, which the statement reads itself when the count
		// passes the cap: a big table's plain list needs no EXPLAIN.
		count = "(SELECT CASE WHEN _n.n <= " + strconv.Itoa(ExactCountCap) + " THEN _n.n ELSE greatest(" +
			strconv.Itoa(ExactCountCap+1) + ", " + tableSizeEstimate(r.arg(rel)) + ") END FROM (SELECT count(*) AS n FROM (SELECT 1 FROM " +
			rel + " t LIMIT " + strconv.Itoa(ExactCountCap+1) + ") _c) _n)"
		inlineEstimate = true
	default:
		count = "(SELECT count(*) FROM (SELECT 1 FROM " + rel + " t" + whereSQL +
			" LIMIT " + strconv.Itoa(ExactCountCap+1) + ") _c)"
	}

	stmt := "SELECT " + count + " AS total, " + rest

	return &ListSQL{
		SQL: stmt, Args: r.args,
		page: pageNumber(q, pl), limit: pl.limit, offset: pl.offset, count: pl.count, inlineEstimate: inlineEstimate,
		shape: pl.shape, cursorPage: pl.after != nil, recordKeys: recordKeys,
		estimate: "EXPLAIN (FORMAT JSON) SELECT 1 FROM " + rel + " t" + whereSQL,
		condArgs: condArgs, rest: rest, pageArgs: pageArgs,
	}
}

// pageLimit writes the page size into the statement as a number, not a
// parameter: PostgreSQL plans a statement whose LIMIT or OFFSET is a
// parameter afresh on every execution (its generic plan assumes a tenth of
// the rows, which looks far costlier than the custom plan of 20 rows), so a
// prepared list would never reuse its plan. The number is a validated
// integer (1 to max_page_size), and a client uses few of them, so the
// prepared statements stay few too.
func pageLimit(pl *listPlan) string { return strconv.Itoa(pl.limit) }

// offset renders the page's OFFSET: none for the first page, so that the
// most common list has no LIMIT or OFFSET parameter (see pageLimit); a
// parameter for the others (one prepared statement for every page).
func (r *renderer) offset(pl *listPlan) string {
	if pl.offset == 0 {
		return ""
	}
	return " OFFSET " + r.arg(pl.offset)
}

// tableSizeEstimate is the planner's estimate of a table's rows, as
// PostgreSQL makes it for a scan without conditions: the tuple density
// of the last ANALYZE or VACUUM times the table's current pages. It is
// NULL for a table never analysed. relParam is the bound parameter that
// holds the table's quoted name.
func tableSizeEstimate(relParam string) string {
	return "(SELECT (c.reltuples / c.relpages * (pg_relation_size(c.oid) / current_setting('block_size')::float8))::bigint" +
		" FROM pg_class c WHERE c.oid = " + relParam + "::regclass AND c.reltuples >= 0 AND c.relpages > 0)"
}

// embeds renders the embedded relations of the rows of alias parent as
// select-list entries, one correlated scalar sub-select each: a to-one
// relation gives its row as a JSON object (NULL when there is none), a
// to-many relation its first rows in the embed's order (the key by
// default) as an array.
func (r *renderer) embeds(list []*embedPlan, parent string) string {
	var s strings.Builder
	for _, e := range list {
		r.aliases++
		n := strconv.Itoa(r.aliases)
		alias, row := "t"+n, "_r"+n
		key := schema.QuoteIdent(e.name)
		cond := r.correlate(e.rel, e.throughTable, e.through, alias, parent)
		if !e.rows.All() {
			cond += " AND " + alias + "." + e.rows.Column.Ident + " = " + r.arg(e.rows.Value)
		}
		cols := columns(e.output, alias) + r.embeds(e.children, alias)
		if e.rel.Many {
			order := orderBy(e.order, alias)
			s.WriteString(", coalesce((SELECT json_agg(" + row + ") FROM (SELECT " + cols +
				" FROM (SELECT " + alias + ".* FROM " + e.table.Rel + " " + alias + " WHERE " + cond +
				order + " LIMIT " + strconv.Itoa(e.limit) + ") " + alias +
				order + ") " + row + "), '[]'::json) AS " + key)
		} else {
			// The relation points at the referenced table's key, so the
			// sub-select finds at most one row.
			s.WriteString(", (SELECT row_to_json(" + row + ") FROM (SELECT " + cols +
				" FROM " + e.table.Rel + " " + alias + " WHERE " + cond + ") " + row + ") AS " + key)
		}
	}
	return s.String()
}

// correlate renders the condition that a row of alias (of rel.To) belongs
// to the row of parent (of rel.From). A direct relation is the foreign
// key's equality; a many-to-many one asks the junction, whose rows the
// caller may read (through), for the keys paired with the parent's, so a
// pair listed twice still gives its row once. As "= ANY (ARRAY(...))" the
// keys are collected first and the far table is read by its primary key;
// as "IN (SELECT ...)" PostgreSQL hash-joined a scan of the whole far
// table for every parent row once that table was a few thousand rows
// (TestManyToManyReadsTheJunctionsReferenceIndex).
func (r *renderer) correlate(rel *schema.Relation, junction *TableSQL, through access.Rows, alias, parent string) string {
	if rel.Through == nil {
		return alias + "." + rel.ToCol.Ident + " = " + parent + "." + rel.FromCol.Ident
	}
	r.aliases++
	j := "_j" + strconv.Itoa(r.aliases)
	s := alias + "." + rel.ToCol.Ident + " = ANY (ARRAY(SELECT " + j + "." + rel.ThroughTo.Ident + " FROM " + junction.Rel + " " + j +
		" WHERE " + j + "." + rel.ThroughFrom.Ident + " = " + parent + "." + rel.FromCol.Ident
	if !through.All() {
		s += " AND " + j + "." + through.Column.Ident + " = " + r.arg(through.Value)
	}
	return s + "))"
}

// identList is cols' quoted names, comma-separated: an INSERT's column list.
func identList(cols []*schema.CColumn) string {
	names := make([]string, len(cols))
	for i, c := range cols {
		names[i] = c.Ident
	}
	return strings.Join(names, ", ")
}

// columns renders the output columns from alias.
func columns(cols []*schema.CColumn, alias string) string {
	parts := make([]string, len(cols))
	for i, c := range cols {
		parts[i] = ColumnOutput(c, alias)
	}
	return strings.Join(parts, ", ")
}

// orderBy renders " ORDER BY ..." of keys from alias; "" for none.
func orderBy(keys []orderKey, alias string) string {
	if len(keys) == 0 {
		return ""
	}
	parts := make([]string, len(keys))
	for i, k := range keys {
		dir := " ASC"
		if k.desc {
			dir = " DESC"
		}
		parts[i] = alias + "." + k.col.Ident + dir
	}
	return " ORDER BY " + strings.Join(parts, ", ")
}

// where renders the top-level conditions, ANDed; "" for none.
func (r *renderer) where(conds []condition, alias string) string {
	if len(conds) == 0 {
		return ""
	}
	return r.cond(allOf(conds), alias)
}

// cond renders one condition; compound operands are parenthesized, so
// the text never depends on SQL's operator precedence.
func (r *renderer) cond(c condition, alias string) string {
	switch n := c.(type) {
	case allOf:
		return r.join(n, " AND ", alias)
	case anyOf:
		return r.join(n, " OR ", alias)
	case notCond:
		return "NOT (" + r.cond(n.x, alias) + ")"
	case compare:
		return alias + "." + n.col.Ident + " " + n.op + " " + r.arg(n.val)
	case nullTest:
		if n.isNull {
			return alias + "." + n.col.Ident + " IS NULL"
		}
		return alias + "." + n.col.Ident + " IS NOT NULL"
	case contains:
		op := " " + n.op + " "
		param := r.arg(n.pattern)
		parts := make([]string, len(n.cols))
		for i, col := range n.cols {
			ref := alias + "." + col.Ident
			if col.PGType != "text" { // a fronted database's enum type
				ref += "::text"
			}
			parts[i] = ref + op + param
		}
		if len(parts) == 1 {
			return parts[0]
		}
		return "(" + strings.Join(parts, " OR ") + ")"
	case exists:
		return r.exists(n, alias)
	case inList:
		return alias + "." + n.col.Ident + " = ANY(" + r.arg(pgArray(n.vals)) + "::" + n.col.PGType + "[])"
	case rowCompare, castCompare:
		return r.keysetCond(n, alias)
	}
	panic("translate: unknown condition")
}

func (r *renderer) join(list []condition, sep, alias string) string {
	parts := make([]string, len(list))
	for i, c := range list {
		s := r.cond(c, alias)
		switch c.(type) {
		case allOf, anyOf:
			s = "(" + s + ")"
		}
		parts[i] = s
	}
	return strings.Join(parts, sep)
}

// pgArray is a list of typed values bound as one PostgreSQL array
// parameter (the text form, cast to the column's array type in SQL). It
// keeps this package free of a driver import; every element is quoted,
// which every array input function accepts.
type pgArray []any

// Value implements driver.Valuer.
func (a pgArray) Value() (driver.Value, error) {
	var b strings.Builder
	b.WriteByte('{')
	for i, v := range a {
		if i > 0 {
			b.WriteByte(',')
		}
		var s string
		switch x := v.(type) {
		case string:
			s = x
		case int64:
			s = strconv.FormatInt(x, 10)
		case float64:
			s = strconv.FormatFloat(x, 'g', -1, 64)
		case bool:
			s = strconv.FormatBool(x)
		case time.Time:
			s = x.Format(time.RFC3339Nano)
		default: // ParseQueryValue yields only the types above
			return nil, fmt.Errorf("translate: %T in an array parameter", v)
		}
		b.WriteByte('"')
		b.WriteString(strings.NewReplacer(`\`, `\\`, `"`, `\"`).Replace(s))
		b.WriteByte('"')
	}
	b.WriteByte('}')
	return b.String(), nil
}
