package translate

import (
	"errors"
	"net/url"
	"strconv"

	"github.com/tablesmith/tablesmith/schema"
)

// ChangeQuery is a realtime subscriber's condition on one table: the
// filter expression of where[<table>] (the list's filter= grammar) and,
// set by the handler, the rows its caller may read.
type ChangeQuery struct {
	ListQuery
	// Old asks for an update's old image (webhooks' old_record); without
	// it that column is NULL, not rendered (the stream's events have no
	// place for it).
	Old bool
}

// ParseChangeFilter parses one where[<table>] value; blank means none.
func ParseChangeFilter(param, expr string) (*ChangeQuery, error) {
	cq := &ChangeQuery{}
	if err := parseFilters(&cq.ListQuery, url.Values{"filter": {expr}}); err != nil {
		var qe *QueryError
		if errors.As(err, &qe) {
			return nil, queryErr(param, "%s", qe.Message)
		}
		return nil, err
	}
	return cq, nil
}

// ChangeSQL reads a table's captured changes from the project's change
// log between two sequence numbers, rendering each row image as a GET of
// that row would (the table's projection: timestamps in RFC 3339 UTC,
// hidden columns left out) when the image passes the subscriber's
// condition and scope, and as NULL otherwise; then, rendered the same
// way when q.Old asks for it, an update's old image, present only when
// the new one is. Its
// arguments end with the table name, the lower bound (exclusive) and the
// upper bound (inclusive), which the caller appends: Args holds the rest.
//
//	SELECT c.seq, c.op, c.rec, c.at, CASE WHEN c.rec IS NOT NULL AND c.old IS NOT NULL THEN (SELECT row_to_json(_r) FROM
//	    (SELECT <projection> FROM jsonb_populate_record(NULL::<rel>, c.old) t) _r) END
//	FROM (SELECT c.seq, c.op, (SELECT row_to_json(_r) FROM (SELECT <projection>
//	    FROM jsonb_populate_record(NULL::<rel>, c.row) t WHERE <cond>) _r) AS rec, c.at, c.old
//	  FROM <log> c WHERE c.tbl = $n AND c.seq > $n+1 AND c.seq <= $n+2 OFFSET 0) c ORDER BY c.seq
//
// The image is turned back into a row of the table's type, so the same
// conditions a list renders (filters, owner scope, related filters)
// apply to it unchanged, and a delete is judged by the row it removed, an
// update by the row it left.
type ChangeSQL struct {
	SQL  string
	Args []any
}

// BuildChanges renders the read of table t's changes for q.
func BuildChanges(p *Published, t *schema.CTable, q *ChangeQuery) (*ChangeSQL, error) {
	lq := q.ListQuery
	lq.Limit, lq.Page, lq.Count, lq.Include, lq.Fields, lq.Sort = 1, 1, CountNone, nil, nil, nil
	pl, err := planList(p, t, &lq)
	if err != nil {
		return nil, err
	}
	r := &renderer{pub: p}
	cond := r.where(pl.where, "t")
	if cond == "" {
		cond = "true"
	}
	log := schema.QuoteIdent(p.Schema) + "." + schema.QuoteIdent(schema.RealtimeLog)
	n := len(r.args)
	image := func(col, where string) string {
		return "(SELECT row_to_json(_r) FROM (SELECT " + pl.table.Projection + " FROM jsonb_populate_record(NULL::" +
			pl.table.Rel + ", c." + col + ") t" + where + ") _r)"
	}
	// OFFSET 0 keeps the inner select a subquery of its own: pulled up, its
	// image (and condition) would be computed once per use of c.rec.
	old := "NULL::json"
	if q.Old {
		old = `CASE WHEN c.rec IS NOT NULL AND c."old" IS NOT NULL THEN ` + image(`"old"`, "") + " END"
	}
	sql := "SELECT c.seq, c.op, c.rec, c.at, " + old + " FROM (SELECT c.seq, c.op, " + image(`"row"`, " WHERE "+cond) + ` AS rec, c.at, c."old" FROM ` + log +
		" c WHERE c.tbl = $" + strconv.Itoa(n+1) + " AND c.seq > $" + strconv.Itoa(n+2) + " AND c.seq <= $" + strconv.Itoa(n+3) +
		" OFFSET 0) c ORDER BY c.seq"
	return &ChangeSQL{SQL: sql, Args: r.args}, nil
}
