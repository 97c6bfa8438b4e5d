package translate

import (
	"math"
	"net/url"
	"strconv"
	"strings"

	"github.com/tablesmith/tablesmith/schema"
)

// MaxAffectedParam is the query parameter that bounds an update or
// delete by filter.
const MaxAffectedParam = "max_affected"

// FilterWriteQuery is an update or delete by filter as parsed from the
// URL: the list's filter parameters (filter[col][op], filter=<expr>,
// search) and max_affected. Caller and Rows are set by the handler.
type FilterWriteQuery struct {
	ListQuery
	// MaxAffected bounds the rows one request may change; 0: no bound.
	MaxAffected int64
}

// ParseFilterWrite parses the parameters of PATCH or DELETE on a
// collection. Paging, sort, include, fields and count do not apply and
// are refused, so that nobody believes limit=10 changes ten rows. A
// request that names no filter is refused: it would change every row.
func ParseFilterWrite(q url.Values) (*FilterWriteQuery, error) {
	for _, name := range []string{"page", "limit", "offset", "sort", "order", "include", "fields", "count"} {
		if _, ok := q[name]; ok {
			return nil, queryErr(name, "does not apply to an update or delete by filter; every matching row changes")
		}
	}
	for _, name := range []string{"search", MaxAffectedParam} {
		if len(q[name]) > 1 {
			return nil, queryErr(name, "is given more than once")
		}
	}
	fw := &FilterWriteQuery{}
	if err := parseFilters(&fw.ListQuery, q); err != nil {
		return nil, err
	}
	if err := parseSearch(&fw.ListQuery, q); err != nil {
		return nil, err
	}
	if len(fw.Filters) == 0 && len(fw.Exprs) == 0 && fw.Search == "" {
		return nil, queryErr("filter", "an update or delete on a collection needs at least one filter (filter[column][op]=, filter= or search=); to change every row, filter on a column every row matches")
	}
	if v := q.Get(MaxAffectedParam); v != "" {
		n, err := strconv.ParseInt(v, 10, 64)
		if err != nil || n < 1 {
			return nil, queryErr(MaxAffectedParam, "must be a positive integer")
		}
		fw.MaxAffected = n
	}
	return fw, nil
}

// FilterWriteSQL is a rendered update or delete by filter: one statement
// that selects the number of matching rows and the number changed. When
// more rows match than MaxAffected allows, it changes none (the second
// number is 0 and the first says how many matched).
type FilterWriteSQL struct {
	SQL  string
	Args []any
}

// BuildFilterUpdate renders the update of cols to vals on every row of t
// that matches q and that q.Rows reach; setDefault columns go back to
// their default. updated_at is set to now().
func BuildFilterUpdate(p *Published, t *schema.CTable, q *FilterWriteQuery, cols []*schema.CColumn, vals []any) (*FilterWriteSQL, error) {
	return buildFilterWrite(p, t, q, func(r *renderer, rel string) string {
		var sets []string
		for i, c := range cols {
			sets = append(sets, c.Ident+" = "+r.arg(vals[i]))
		}
		if t.UpdatedAt != nil {
			sets = append(sets, t.UpdatedAt.Ident+" = now()")
		}
		return "UPDATE " + rel + " t SET " + strings.Join(sets, ", ")
	})
}

// BuildFilterDelete renders the delete of every row of t that matches q
// and that q.Rows reach.
func BuildFilterDelete(p *Published, t *schema.CTable, q *FilterWriteQuery) (*FilterWriteSQL, error) {
	return buildFilterWrite(p, t, q, func(_ *renderer, rel string) string {
		return "DELETE FROM " + rel + " t"
	})
}

// buildFilterWrite plans q's conditions as a list would (the same
// filters, search and owner scope) and renders:
//
//	WITH _m AS (SELECT t.<key> FROM <rel> t WHERE <conditions> FOR UPDATE),
//	     _n AS (SELECT count(*) AS n FROM _m),
//	     _w AS (<change> WHERE t.<key> IN (SELECT <key> FROM _m)
//	            AND (SELECT n FROM _n) <= <max> RETURNING 1)
//	SELECT (SELECT n FROM _n), (SELECT count(*) FROM _w)
//
// The matching rows are locked before they are counted, so the count is
// what the change would touch and a bound that is passed changes nothing,
// all in one statement. <key> is the primary key, or the row's ctid on a
// fronted table without one.
func buildFilterWrite(p *Published, t *schema.CTable, q *FilterWriteQuery, change func(r *renderer, rel string) string) (*FilterWriteSQL, error) {
	lq := q.ListQuery
	lq.Limit, lq.Page, lq.Count, lq.Include, lq.Fields, lq.Sort = 1, 1, CountNone, nil, nil, nil
	pl, err := planList(p, t, &lq)
	if err != nil {
		return nil, err
	}
	rel := pl.table.Rel
	key := "ctid"
	if t.PK != nil {
		key = t.PK.Ident
	}
	r := &renderer{pub: p}
	cond := r.where(pl.where, "t")
	if cond == "" { // not reached: ParseFilterWrite asks for a filter
		cond = "true"
	}
	max := q.MaxAffected
	if max <= 0 {
		max = math.MaxInt64
	}
	var b strings.Builder
	b.WriteString("WITH _m AS (SELECT t." + key + " FROM " + rel + " t WHERE " + cond + " FOR UPDATE), ")
	b.WriteString("_n AS (SELECT count(*) AS n FROM _m), ")
	b.WriteString("_w AS (" + change(r, rel) + " WHERE t." + key + " IN (SELECT " + key + " FROM _m)")
	b.WriteString(" AND (SELECT n FROM _n) <= " + r.arg(max) + " RETURNING 1) ")
	b.WriteString("SELECT (SELECT n FROM _n), (SELECT count(*) FROM _w)")
	return &FilterWriteSQL{SQL: b.String(), Args: r.args}, nil
}
