package translate

import (
	"database/sql"
	"encoding/json"
	"errors"
	"fmt"
	"math"
	"strconv"
	"strings"

	"github.com/tablesmith/tablesmith/access"
)

// List parameter bounds of CONTRACT 5.1 and the limits docs/query-language.md
// adds to them.
const (
	DefaultLimit = 20
	MaxLimit     = 100
	// MaxPage keeps (page-1)*limit far from overflowing.
	MaxPage = 1_000_000_000
	// ExactCountCap is how many matching rows an "estimated" count counts
	// exactly before it falls back to the planner's estimate.
	ExactCountCap = 10000
	// MaxIncludeDepth is how many relations one include path may chain.
	MaxIncludeDepth = 3
	// MaxIncludes bounds the embedded relations of one request, counting
	// every level.
	MaxIncludes = 12
	// MaxEmbeddedRows bounds each embedded array (per parent record), so
	// one busy parent cannot blow up a page.
	MaxEmbeddedRows = 1000
	// MaxInValues bounds the comma list of filter[col][in].
	MaxInValues = 1000
	// MaxSortKeys bounds the columns of sort.
	MaxSortKeys = 10
	// MaxSearchLength bounds the search term, in characters (code points).
	MaxSearchLength = 256
)

// Count modes of the count parameter.
const (
	CountExact     = "exact"
	CountEstimated = "estimated"
	CountNone      = "none"
)

// QueryError is a bad list parameter; Param names it as the request wrote
// it ("sort", "filter[age][gt]") and becomes the key of error.details.
type QueryError struct {
	Param   string
	Message string
}

func (e *QueryError) Error() string { return e.Param + ": " + e.Message }

func queryErr(param, format string, args ...any) *QueryError {
	return &QueryError{Param: param, Message: fmt.Sprintf(format, args...)}
}

// ForbiddenError is an include of a table whose read rule the caller does
// not meet (FORBIDDEN). The list itself was allowed; only the embed is not.
type ForbiddenError struct {
	Param   string
	Message string
}

func (e *ForbiddenError) Error() string { return e.Param + ": " + e.Message }

// ListQuery is the list parameters as parsed from the URL; it knows no
// schema. Caller and Rows are set by the handler from the access decision,
// never parsed.
type ListQuery struct {
	Page, Limit, Offset int
	HasPage, HasOffset  bool
	// Sort is empty for the default order: the primary key, turned
	// around when Order is "desc".
	Sort  []SortKey
	Order string
	// Filters are the filter[col] and filter[col][op] parameters in the
	// order of their keys, so the same URL always renders the same SQL.
	Filters []FieldFilter
	// Exprs are the parsed filter=<expr> parameters; several combine with AND.
	Exprs  []Expr
	Search string
	// Include holds one path of relations per include item.
	Include [][]IncludeStep
	// Fields is nil for every column.
	Fields []string
	Count  string
	// Caller is who reads: embedded tables are checked against it.
	Caller access.Principal
	// Rows are the rows of the listed table the caller may read.
	Rows access.Rows
	// After is the cursor of the row this page starts after ("" for a
	// page by number); see cursor.go.
	After string
}

// SortKey is one column of sort.
type SortKey struct {
	Field string
	Desc  bool
}

// FieldFilter is filter[field]=value (Op "eq") or filter[field][op]=value.
type FieldFilter struct {
	// Param is the parameter as written, for error details.
	Param            string
	Field, Op, Value string
}

// ListSQL is a rendered list: one statement selecting the count (NULL when
// not counted) and the page as a JSON array, and what is needed to finish
// the meta object.
type ListSQL struct {
	SQL  string
	Args []any

	page, limit, offset int
	count               string
	// inlineEstimate: the statement's count is the table's estimated size
	// when it passes the cap (an unfiltered estimated count).
	inlineEstimate bool
	// estimate is the EXPLAIN of the filtered rows; it takes the first
	// condArgs of Args.
	estimate string
	condArgs int
	// shape is the sort's cursor check; cursorPage marks a page read
	// after a cursor, whose position has no page number.
	shape      string
	cursorPage bool
	// recordKeys, when set, are the members of the page's last record
	// that hold its sort keys: the statement's next column then only
	// says the page is full, and NextCursor reads the keys from the page
	// (recordkeys.go).
	recordKeys []string
	// rest is the statement after its count column, whose arguments are
	// the first pageArgs of Args (Uncounted).
	rest     string
	pageArgs int
	// reads are the tables the statement reads (Reads).
	reads []string
}

// Uncounted is the same list without its count, as count=none renders
// it: what a list runs when its total is already known.
func (l *ListSQL) Uncounted() *ListSQL {
	u := *l
	u.SQL = "SELECT NULL::bigint AS total, " + l.rest
	u.Args = l.Args[:l.pageArgs]
	u.count, u.inlineEstimate = CountNone, false
	return &u
}

// Meta is the list envelope's meta object.
type Meta struct {
	Page           int    `json:"page"`
	Limit          int    `json:"limit"`
	Offset         int    `json:"offset"`
	Total          *int64 `json:"total,omitempty"`
	TotalPages     *int64 `json:"total_pages,omitempty"`
	TotalEstimated bool   `json:"total_estimated,omitempty"`
	// NextCursor is the after value of the next page; nil on the last
	// page (a page shorter than limit) and for tables without a key.
	NextCursor *string `json:"next_cursor"`
}

// Meta builds the meta object from the count the statement returned.
func (l *ListSQL) Meta(count sql.NullInt64) Meta {
	m := Meta{Page: l.page, Limit: l.limit, Offset: l.offset}
	if count.Valid {
		m.setTotal(count.Int64)
		m.TotalEstimated = l.inlineEstimate && count.Int64 > ExactCountCap
	}
	return m
}

// appendPagePosition opens a meta object with its page, limit and offset,
// the keys every paged answer's meta starts with.
func appendPagePosition(b []byte, page, limit, offset int) []byte {
	b = append(b, `{"page":`...)
	b = strconv.AppendInt(b, int64(page), 10)
	b = append(b, `,"limit":`...)
	b = strconv.AppendInt(b, int64(limit), 10)
	b = append(b, `,"offset":`...)
	return strconv.AppendInt(b, int64(offset), 10)
}

// AppendJSON appends the meta object as JSON, the bytes json.Marshal
// writes, without reflection (the envelope uses it on every list).
func (m Meta) AppendJSON(b []byte) []byte {
	b = appendPagePosition(b, m.Page, m.Limit, m.Offset)
	if m.Total != nil {
		b = append(b, `,"total":`...)
		b = strconv.AppendInt(b, *m.Total, 10)
	}
	if m.TotalPages != nil {
		b = append(b, `,"total_pages":`...)
		b = strconv.AppendInt(b, *m.TotalPages, 10)
	}
	if m.TotalEstimated {
		b = append(b, `,"total_estimated":true`...)
	}
	if m.NextCursor != nil {
		// base64url: nothing to escape
		b = append(b, `,"next_cursor":"`...)
		b = append(b, *m.NextCursor...)
		b = append(b, '"')
	} else {
		b = append(b, `,"next_cursor":null`...)
	}
	return append(b, '}')
}

func (m *Meta) setTotal(total int64) {
	pages := (total + int64(m.Limit) - 1) / int64(m.Limit)
	m.Total, m.TotalPages = &total, &pages
}

// CountKey identifies the rows the list counts: its table, its conditions
// and their values (the caller's row scope among them). Lists with one
// key have one total, whatever their page, order, fields or includes.
func (l *ListSQL) CountKey() string {
	var b strings.Builder
	b.WriteString(l.estimate)
	for _, a := range l.Args[:l.condArgs] {
		fmt.Fprintf(&b, "\x00%T:%v", a, a)
	}
	return b.String()
}

// EstimatedTotal reports the total the meta object says was estimated
// (the count passed ExactCountCap), if it was.
func (m Meta) EstimatedTotal() (int64, bool) {
	if !m.TotalEstimated || m.Total == nil {
		return 0, false
	}
	return *m.Total, true
}

// WithEstimatedTotal returns m with total as its estimated total.
func (m Meta) WithEstimatedTotal(total int64) Meta {
	m.setTotal(total)
	m.TotalEstimated = true
	return m
}

// NeedsEstimate reports whether an estimated count reached the cap, so the
// total must come from the planner: run Estimate and pass its result to
// EstimatedMeta.
func (l *ListSQL) NeedsEstimate(count sql.NullInt64) bool {
	return l.count == CountEstimated && !l.inlineEstimate && count.Valid && count.Int64 > ExactCountCap
}

// Estimate is the statement whose single JSON value is the planner's view
// of the filtered rows (EXPLAIN (FORMAT JSON)), with its arguments.
func (l *ListSQL) Estimate() (string, []any) { return l.estimate, l.Args[:l.condArgs] }

// EstimatedMeta builds the meta object from the EXPLAIN output of
// Estimate. The exact count already saw more than ExactCountCap rows, so
// the total never drops below that, whatever the statistics say.
func (l *ListSQL) EstimatedMeta(explain []byte) (Meta, error) {
	var plans []struct {
		Plan struct {
			Rows float64 `json:"Plan Rows"`
		} `json:"Plan"`
	}
	if err := json.Unmarshal(explain, &plans); err != nil {
		return Meta{}, fmt.Errorf("read count estimate: %w", err)
	}
	if len(plans) == 0 {
		return Meta{}, errors.New("read count estimate: empty plan")
	}
	total := int64(ExactCountCap + 1)
	if rows := plans[0].Plan.Rows; rows > float64(total) && rows < math.MaxInt64/2 {
		total = int64(rows)
	}
	m := Meta{Page: l.page, Limit: l.limit, Offset: l.offset, TotalEstimated: true}
	m.setTotal(total)
	return m, nil
}
