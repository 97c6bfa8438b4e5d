package translate

import (
	"net/url"
	"strconv"
	"strings"

	"github.com/tablesmith/tablesmith/schema"
)

// Bounds of an aggregate request (docs/query-language.md, "Aggregates").
const (
	// DefaultAggregateLimit and MaxAggregateLimit bound the groups of one
	// answer; groups are small rows, so a page holds more of them than of
	// records.
	DefaultAggregateLimit = 100
	MaxAggregateLimit     = 1000
	// MaxGroupBy bounds the columns of group_by.
	MaxGroupBy = 5
	// MaxAggregates bounds the functions of one request, all kinds together.
	MaxAggregates = 20
)

// aggregateFuncs are the aggregate parameters in the order the answer
// lists their values.
var aggregateFuncs = []string{"count", "sum", "avg", "min", "max"}

// aggregateParams may appear at most once; list parameters that shape
// records (fields, include) mean nothing for groups.
var aggregateParams = []string{"group_by", "count", "sum", "avg", "min", "max", "sort", "order", "limit", "page", "offset"}

// AggregateQuery is an aggregate request as parsed from the URL: the
// list's filters and search in List, what to group and compute, and the
// order and page of the groups. Like ListQuery it knows no schema.
type AggregateQuery struct {
	List    *ListQuery
	GroupBy []string
	Funcs   []AggregateFunc
	Sort    []SortKey
	// Desc turns the group columns that sort does not name around
	// (order=desc).
	Desc bool
}

// AggregateFunc is one computed value: Func over Column ("*" for count(*)).
type AggregateFunc struct {
	Func, Column string
}

// Alias is the key of the value in each group: count for count(*),
// otherwise <func>_<column> (sum_total).
func (f AggregateFunc) Alias() string {
	if f.Column == "*" {
		return f.Func
	}
	return f.Func + "_" + f.Column
}

// ParseAggregate parses GET .../<table>/aggregate parameters. Filters,
// filter= expressions and search are read exactly as a list reads them.
func ParseAggregate(q url.Values) (*AggregateQuery, error) {
	for _, name := range aggregateParams {
		if len(q[name]) > 1 {
			return nil, queryErr(name, "is given more than once")
		}
	}
	for _, name := range []string{"fields", "include"} {
		if v, _ := listParam(q, name); v != "" || len(q[name]) > 1 {
			return nil, queryErr(name, "is not supported on aggregate; each group holds its group_by columns and aggregates")
		}
	}
	rest := url.Values{}
	for k, v := range q {
		if k == "filter" || k == "search" || strings.HasPrefix(k, "filter[") {
			rest[k] = v
		}
	}
	lq, err := ParseList(rest)
	if err != nil {
		return nil, err
	}
	lq.Limit, lq.Page = DefaultAggregateLimit, 1
	if v := q.Get("limit"); v != "" {
		if lq.Limit, err = strconv.Atoi(v); err != nil || lq.Limit < 1 || lq.Limit > MaxAggregateLimit {
			return nil, queryErr("limit", "must be an integer from 1 to %d", MaxAggregateLimit)
		}
	}
	if err := parsePosition(lq, q, MaxAggregateLimit); err != nil {
		return nil, err
	}
	aq := &AggregateQuery{List: lq}
	if aq.GroupBy, err = nameList(q, "group_by"); err != nil {
		return nil, err
	}
	if len(aq.GroupBy) > MaxGroupBy {
		return nil, queryErr("group_by", "may name at most %d columns", MaxGroupBy)
	}
	for _, fn := range aggregateFuncs {
		cols, err := nameList(q, fn)
		if err != nil {
			return nil, err
		}
		for _, c := range cols {
			if c == "*" && fn != "count" {
				return nil, queryErr(fn, "needs a column name; only count takes *")
			}
			aq.Funcs = append(aq.Funcs, AggregateFunc{Func: fn, Column: c})
		}
	}
	if len(aq.Funcs) > MaxAggregates {
		return nil, queryErr(aggregateFuncs[0], "at most %d aggregates per request", MaxAggregates)
	}
	if len(aq.GroupBy) == 0 && len(aq.Funcs) == 0 {
		return nil, queryErr("group_by", "name group_by columns or at least one of count, sum, avg, min, max")
	}
	order := q.Get("order")
	if order != "" && order != "asc" && order != "desc" {
		return nil, queryErr("order", "must be asc or desc")
	}
	if aq.Sort, err = parseSort(q.Get("sort"), order == "desc"); err != nil {
		return nil, err
	}
	aq.Desc = order == "desc"
	return aq, nil
}

// nameList reads a comma list of names; absent or blank is none.
func nameList(q url.Values, param string) ([]string, error) {
	v := q.Get(param)
	if strings.TrimSpace(v) == "" {
		return nil, nil
	}
	var out []string
	seen := map[string]bool{}
	for _, s := range strings.Split(v, ",") {
		s = strings.TrimSpace(s)
		if s == "" {
			return nil, queryErr(param, "has an empty column name")
		}
		if seen[s] {
			return nil, queryErr(param, "names %q twice", s)
		}
		seen[s] = true
		out = append(out, s)
	}
	return out, nil
}

// AggregateSQL is a rendered aggregate: one statement selecting the page
// of groups as a JSON array.
type AggregateSQL struct {
	SQL  string
	Args []any
	Meta AggregateMeta
	// Reads are the tables the statement reads: the grouped table, then
	// those its related filters look into.
	Reads []string
}

// aggregateValue is one computed value: expr sorts, output is what the
// answer shows (decimals as text, so they stay exact).
type aggregateValue struct {
	alias, expr, output string
}

// BuildAggregate plans q against table t of p: the same WHERE a list
// with q.List's filters would have (owner scope and related filters
// included), grouped and computed in one statement.
func BuildAggregate(p *Published, t *schema.CTable, q *AggregateQuery) (*AggregateSQL, error) {
	lq := *q.List
	lq.Sort, lq.Fields, lq.Include = nil, nil, nil
	pl, err := planList(p, t, &lq)
	if err != nil {
		return nil, err
	}
	groups := make([]*schema.CColumn, len(q.GroupBy))
	names := map[string]bool{}
	for i, name := range q.GroupBy {
		c, ok := lookupColumn(t, name)
		if !ok {
			return nil, queryErr("group_by", "unknown column %q", name)
		}
		if !c.Kind.Traits.Comparable {
			return nil, queryErr("group_by", "column %q cannot be grouped", name)
		}
		groups[i], names[name] = c, true
	}
	values := make([]aggregateValue, len(q.Funcs))
	for i, f := range q.Funcs {
		v, err := planAggregateValue(t, f)
		if err != nil {
			return nil, err
		}
		if names[v.alias] {
			return nil, queryErr(f.Func, "%s would name two values of each group", v.alias)
		}
		names[v.alias], values[i] = true, v
	}
	order, err := aggregateOrder(groups, values, q.Sort, q.Desc)
	if err != nil {
		return nil, err
	}

	r := &renderer{pub: p}
	var sel []string
	for _, c := range groups {
		sel = append(sel, ColumnOutput(c, "t")+aliasUnlessNamed(c))
	}
	for _, v := range values {
		sel = append(sel, v.output+" AS "+schema.QuoteIdent(v.alias))
	}
	var b strings.Builder
	b.WriteString("SELECT coalesce(json_agg(_r), '[]') FROM (SELECT " + strings.Join(sel, ", ") + " FROM " + pl.table.Rel + " t")
	if cond := r.where(pl.where, "t"); cond != "" {
		b.WriteString(" WHERE " + cond)
	}
	if len(groups) > 0 {
		keys := make([]string, len(groups))
		for i, c := range groups {
			keys[i] = "t." + c.Ident
		}
		b.WriteString(" GROUP BY " + strings.Join(keys, ", "))
	}
	if len(order) > 0 {
		b.WriteString(" ORDER BY " + strings.Join(order, ", "))
	}
	// The limit as a number and no OFFSET on the first page: a prepared
	// statement can reuse its plan (see pageLimit).
	b.WriteString(" LIMIT " + strconv.Itoa(lq.Limit))
	if lq.Offset > 0 {
		b.WriteString(" OFFSET " + r.arg(lq.Offset))
	}
	b.WriteString(") _r")
	return &AggregateSQL{SQL: b.String(), Args: r.args, Meta: AggregateMeta{Page: lq.Page, Limit: lq.Limit, Offset: lq.Offset}, Reads: pl.tablesRead()}, nil
}

// aliasUnlessNamed names a group column's output after the column when
// ColumnOutput does not already.
func aliasUnlessNamed(c *schema.CColumn) string {
	if !outputAsStored(c) {
		return ""
	}
	return " AS " + c.Ident
}

// planAggregateValue checks that f's function takes its column's type and
// renders it: sum and avg take numbers; min and max any ordered type.
// Integers stay integers (a sum of bigints is an exact numeric with no
// fraction), decimals and averages of integers become exact strings.
func planAggregateValue(t *schema.CTable, f AggregateFunc) (aggregateValue, error) {
	v := aggregateValue{alias: f.Alias()}
	if f.Column == "*" {
		v.expr = "count(*)"
		v.output = v.expr
		return v, nil
	}
	c, ok := lookupColumn(t, f.Column)
	if !ok {
		return v, queryErr(f.Func, "unknown column %q", f.Column)
	}
	ref := "t." + c.Ident
	v.expr = f.Func + "(" + ref + ")"
	v.output = v.expr
	switch f.Func {
	case "count":
		return v, nil
	case "sum", "avg":
		traits := c.Kind.Traits
		if !traits.Numeric {
			return v, queryErr(f.Func, "%s needs a numeric column (integer, number, decimal); %s is %s", f.Func, c.Name, c.Type)
		}
		if traits.Exact || (traits.Whole && f.Func == "avg") {
			v.output += "::text"
		}
		return v, nil
	}
	// min, max
	if !c.Kind.Traits.MinMax {
		return v, queryErr(f.Func, "%s needs an ordered column (number, text, date or timestamp); %s is %s", f.Func, c.Name, c.Type)
	}
	if c.Kind.Traits.Exact {
		v.output += "::text"
	} else if out, shown := c.Kind.Output(v.expr); shown {
		v.output = out
	}
	return v, nil
}

// aggregateOrder resolves sort against the group columns and aggregate
// aliases. Groups are unique by their columns, so those columns (the ones
// sort did not name, in order's direction) end the order and make pages stable.
func aggregateOrder(groups []*schema.CColumn, values []aggregateValue, sort []SortKey, desc bool) ([]string, error) {
	var out []string
	used := map[*schema.CColumn]bool{}
	for _, k := range sort {
		expr := ""
		for _, c := range groups {
			if c.Name == k.Field {
				expr, used[c] = "t."+c.Ident, true
			}
		}
		for _, v := range values {
			if v.alias == k.Field {
				expr = v.expr
			}
		}
		if expr == "" {
			return nil, queryErr("sort", "%q is neither a group_by column nor an aggregate of this request (%s)", k.Field, sortChoices(groups, values))
		}
		if k.Desc {
			expr += " DESC"
		}
		out = append(out, expr)
	}
	for _, c := range groups {
		if !used[c] && desc {
			out = append(out, "t."+c.Ident+" DESC")
		} else if !used[c] {
			out = append(out, "t."+c.Ident)
		}
	}
	return out, nil
}

func sortChoices(groups []*schema.CColumn, values []aggregateValue) string {
	var names []string
	for _, c := range groups {
		names = append(names, c.Name)
	}
	for _, v := range values {
		names = append(names, v.alias)
	}
	if len(names) == 0 {
		return "none"
	}
	return strings.Join(names, ", ")
}

// AggregateMeta is an aggregate answer's meta object: the page of groups
// (groups are not counted, and have no cursor).
type AggregateMeta struct {
	Page   int `json:"page"`
	Limit  int `json:"limit"`
	Offset int `json:"offset"`
}

// AppendJSON appends the meta object as JSON, without reflection.
func (m AggregateMeta) AppendJSON(b []byte) []byte {
	return append(appendPagePosition(b, m.Page, m.Limit, m.Offset), '}')
}
