package translate

import (
	"database/sql"
	"fmt"
	"net/url"
	"strconv"
	"strings"

	"github.com/tablesmith/tablesmith/schema"
)

// List parameter bounds of CONTRACT 5.1.
const (
	DefaultLimit = 20
	MaxLimit     = 100
	// ExactCountCap is how many matching rows an "estimated" count counts
	// exactly before it falls back to the planner's estimate.
	ExactCountCap = 10000
)

// QueryError is a bad list parameter; Param names it (INVALID_QUERY).
type QueryError struct {
	Param   string
	Message string
}

func (e *QueryError) Error() string { return e.Param + ": " + e.Message }

func queryErr(param, format string, args ...any) *QueryError {
	return &QueryError{Param: param, Message: fmt.Sprintf(format, args...)}
}

// ListQuery is the list parameters as parsed from the URL; it knows no schema.
type ListQuery struct {
	Page, Limit, Offset int
	HasPage, HasOffset  bool
	Sort                []SortKey
	Filters             []FieldFilter
	Count               string
	// Owner, when set, limits rows to those whose owner column equals it
	// (end users under an owner rule); it is set by the caller, not parsed.
	Owner any
}

// SortKey is one column of sort.
type SortKey struct {
	Field string
	Desc  bool
}

// FieldFilter is filter[field][op]=value.
type FieldFilter struct {
	Field, Op, Value string
}

// ParseList parses list parameters.
func ParseList(q url.Values) (*ListQuery, error) {
	lq := &ListQuery{Page: 1, Limit: DefaultLimit, Count: "estimated"}
	var err error
	if v := q.Get("limit"); v != "" {
		if lq.Limit, err = strconv.Atoi(v); err != nil || lq.Limit < 1 || lq.Limit > MaxLimit {
			return nil, queryErr("limit", "must be an integer from 1 to %d", MaxLimit)
		}
	}
	if v := q.Get("page"); v != "" {
		if lq.Page, err = strconv.Atoi(v); err != nil || lq.Page < 1 {
			return nil, queryErr("page", "must be an integer from 1")
		}
		lq.HasPage = true
	}
	if v := q.Get("offset"); v != "" {
		if lq.Offset, err = strconv.Atoi(v); err != nil || lq.Offset < 0 {
			return nil, queryErr("offset", "must be a non-negative integer")
		}
		lq.HasOffset = true
	}
	if lq.HasPage && lq.HasOffset {
		return nil, queryErr("offset", "use either page or offset, not both")
	}
	if !lq.HasOffset {
		lq.Offset = (lq.Page - 1) * lq.Limit
	} else {
		lq.Page = lq.Offset/lq.Limit + 1
	}
	order := q.Get("order")
	if order != "" && order != "asc" && order != "desc" {
		return nil, queryErr("order", "must be asc or desc")
	}
	for _, f := range strings.Split(q.Get("sort"), ",") {
		f = strings.TrimSpace(f)
		if f == "" {
			continue
		}
		k := SortKey{Field: f, Desc: order == "desc"}
		if strings.HasPrefix(f, "-") {
			k = SortKey{Field: f[1:], Desc: true}
		} else if strings.HasPrefix(f, "+") {
			k = SortKey{Field: f[1:]}
		}
		lq.Sort = append(lq.Sort, k)
	}
	for key, vals := range q {
		if !strings.HasPrefix(key, "filter[") {
			continue
		}
		rest := strings.TrimPrefix(key, "filter[")
		end := strings.IndexByte(rest, ']')
		if end <= 0 || end != len(rest)-1 {
			return nil, queryErr(key, "must be filter[column]")
		}
		lq.Filters = append(lq.Filters, FieldFilter{Field: rest[:end], Op: "eq", Value: vals[0]})
	}
	return lq, nil
}

// ListSQL is a rendered list statement: one row with the bounded count
// (NULL when not counted) and the page as a JSON array.
type ListSQL struct {
	SQL   string
	Args  []any
	query *ListQuery
}

// Meta is the list envelope's meta object.
type Meta struct {
	Page           int    `json:"page"`
	Limit          int    `json:"limit"`
	Offset         int    `json:"offset"`
	Total          *int64 `json:"total,omitempty"`
	TotalPages     *int64 `json:"total_pages,omitempty"`
	TotalEstimated bool   `json:"total_estimated,omitempty"`
}

// Meta builds the meta object from the count the statement returned.
func (l *ListSQL) Meta(count sql.NullInt64) Meta {
	q := l.query
	m := Meta{Page: q.Page, Limit: q.Limit, Offset: q.Offset}
	if count.Valid {
		total := count.Int64
		pages := (total + int64(q.Limit) - 1) / int64(q.Limit)
		m.Total, m.TotalPages = &total, &pages
	}
	return m
}

// BuildList plans q against table t of p and renders it.
func BuildList(p *Published, t *schema.CTable, q *ListQuery) (*ListSQL, error) {
	ts := p.Tables[t.Name]
	var args []any
	arg := func(v any) string {
		args = append(args, v)
		return "$" + strconv.Itoa(len(args))
	}
	var where []string
	for _, f := range q.Filters {
		c, ok := t.Column(f.Field)
		if !ok || c.Hidden {
			return nil, queryErr("filter["+f.Field+"]", "unknown column %q", f.Field)
		}
		v, msg := schema.ParseQueryValue(&c.Column, f.Value)
		if msg != "" {
			return nil, queryErr("filter["+f.Field+"]", "%s", msg)
		}
		where = append(where, "t."+c.Ident+" = "+arg(v))
	}
	if q.Owner != nil && t.Owner != nil {
		where = append(where, "t."+t.Owner.Ident+" = "+arg(q.Owner))
	}
	cond := "true"
	if len(where) > 0 {
		cond = strings.Join(where, " AND ")
	}
	var order []string
	for _, k := range q.Sort {
		c, ok := t.Column(k.Field)
		if !ok || c.Hidden {
			return nil, queryErr("sort", "unknown column %q", k.Field)
		}
		dir := " ASC"
		if k.Desc {
			dir = " DESC"
		}
		order = append(order, "t."+c.Ident+dir)
	}
	order = append(order, "t."+t.PK.Ident+" ASC")
	filterArgs := len(args)
	limit, offset := arg(q.Limit), arg(q.Offset)
	stmt := "SELECT (SELECT count(*) FROM (SELECT 1 FROM " + ts.Rel + " t WHERE " + cond + " LIMIT " + strconv.Itoa(ExactCountCap+1) + ") _c), " +
		"(SELECT coalesce(json_agg(_r), '[]')::text FROM (SELECT " + ts.Projection + " FROM " + ts.Rel + " t WHERE " + cond +
		" ORDER BY " + strings.Join(order, ", ") + " LIMIT " + limit + " OFFSET " + offset + ") _r)"
	_ = filterArgs
	return &ListSQL{SQL: stmt, Args: args, query: q}, nil
}
