package translate

import (
	"net/url"
	"sort"
	"strconv"
	"strings"
	"unicode/utf8"
)

// singleParams may appear at most once in a query string: a second value
// would be silently ignored otherwise. include and fields are lists and
// may repeat (listParam).
var singleParams = []string{"page", "limit", "offset", "sort", "order", "search", "count"}

// ParseList parses the list parameters of CONTRACT 5.1 without looking at
// any schema: numbers and keywords are checked here, names are resolved
// by BuildList. Other parameters are not its business: the request was
// checked against ListParams before (CheckParams), so none is ignored. An
// empty value means the parameter is absent (except filter[col]=, which
// compares with the empty string).
// The families are checked in this order, so a query with several bad
// parameters always names the same one.
func ParseList(q url.Values) (*ListQuery, error) { return ParseListUpTo(q, MaxLimit) }

// ParseListUpTo is ParseList with another largest page (the Caddyfile's
// max_page_size); maxLimit < 1 means MaxLimit.
func ParseListUpTo(q url.Values, maxLimit int) (*ListQuery, error) {
	if maxLimit < 1 {
		maxLimit = MaxLimit
	}
	for _, name := range singleParams {
		if len(q[name]) > 1 {
			return nil, queryErr(name, "is given more than once")
		}
	}
	lq := &ListQuery{Page: 1, Limit: DefaultLimit, Count: CountEstimated}
	paging := func(lq *ListQuery, q url.Values) error { return parsePaging(lq, q, maxLimit) }
	for _, step := range []func(*ListQuery, url.Values) error{paging, parseCount, parseOrdering, parseFilters, parseSearch, parseShape, parseAfter} {
		if err := step(lq, q); err != nil {
			return nil, err
		}
	}
	return lq, nil
}

// parsePaging reads limit, then the page position.
func parsePaging(lq *ListQuery, q url.Values, maxLimit int) error {
	var err error
	if v := q.Get("limit"); v != "" {
		if lq.Limit, err = strconv.Atoi(v); err != nil || lq.Limit < 1 || lq.Limit > maxLimit {
			return queryErr("limit", "must be an integer from 1 to %d", maxLimit)
		}
	}
	return parsePosition(lq, q, maxLimit)
}

// parsePosition reads page and offset (after limit, which both depend
// on), and derives whichever of the two was not given.
func parsePosition(lq *ListQuery, q url.Values, maxLimit int) error {
	var err error
	if v := q.Get("page"); v != "" {
		if lq.Page, err = strconv.Atoi(v); err != nil || lq.Page < 1 || lq.Page > MaxPage {
			return queryErr("page", "must be an integer from 1 to %d", MaxPage)
		}
		lq.HasPage = true
	}
	if v := q.Get("offset"); v != "" {
		off, err := strconv.ParseInt(v, 10, 64)
		if err != nil || off < 0 || off > int64(MaxPage)*int64(maxLimit) {
			return queryErr("offset", "must be an integer from 0 to %d", int64(MaxPage)*int64(maxLimit))
		}
		lq.Offset, lq.HasOffset = int(off), true
	}
	if lq.HasPage && lq.HasOffset {
		return queryErr("offset", "use either page or offset, not both")
	}
	if lq.HasOffset {
		lq.Page = lq.Offset/lq.Limit + 1
	} else {
		lq.Offset = (lq.Page - 1) * lq.Limit
	}
	return nil
}

// parseCount reads the count mode; absent keeps the default.
func parseCount(lq *ListQuery, q url.Values) error {
	switch c := q.Get("count"); c {
	case "":
	case CountExact, CountEstimated, CountNone:
		lq.Count = c
	default:
		return queryErr("count", "must be exact, estimated or none")
	}
	return nil
}

// parseOrdering reads order, then sort (whose bare columns follow order).
func parseOrdering(lq *ListQuery, q url.Values) error {
	order := q.Get("order")
	if order != "" && order != "asc" && order != "desc" {
		return queryErr("order", "must be asc or desc")
	}
	var err error
	if lq.Sort, err = parseSort(q.Get("sort"), order == "desc"); err != nil {
		return err
	}
	lq.Order = order
	return nil
}

// parseFilters reads the filter[col][op] keys, then every filter=
// expression (blank ones are ignored).
func parseFilters(lq *ListQuery, q url.Values) error {
	var err error
	if lq.Filters, err = parseFieldFilters(q); err != nil {
		return err
	}
	for _, v := range q["filter"] {
		if strings.TrimSpace(v) == "" {
			continue
		}
		e, err := ParseFilter(v)
		if err != nil {
			return queryErr("filter", "%s", err.Error())
		}
		lq.Exprs = append(lq.Exprs, e)
	}
	if n := lq.comparisons(); n > MaxFilterComparisons {
		return queryErr("filter", "a request may compare at most %d times, counting every filter[...] parameter and every comparison of every filter= expression; this one compares %d times", MaxFilterComparisons, n)
	}
	return nil
}

// comparisons counts the conditions of every filter form of the query.
func (lq *ListQuery) comparisons() int {
	n := len(lq.Filters)
	for _, e := range lq.Exprs {
		n += countComparisons(e)
	}
	return n
}

// countComparisons counts the comparisons of an expression.
func countComparisons(e Expr) int {
	switch x := e.(type) {
	case *Logical:
		n := 0
		for _, t := range x.Terms {
			n += countComparisons(t)
		}
		return n
	case *Not:
		return countComparisons(x.X)
	}
	return 1
}

// ParseRecord parses the parameters of a GET of one record: include and
// fields, read exactly as a list reads them (ParseList).
func ParseRecord(q url.Values) (*ListQuery, error) {
	lq := &ListQuery{Page: 1, Limit: 1, Count: CountNone}
	if err := parseShape(lq, q); err != nil {
		return nil, err
	}
	return lq, nil
}

// parseSearch reads the search text, bounded in length.
func parseSearch(lq *ListQuery, q url.Values) error {
	lq.Search = q.Get("search")
	// Characters, as the document's maxLength counts them.
	if utf8.RuneCountInString(lq.Search) > MaxSearchLength {
		return queryErr("search", "must be at most %d characters", MaxSearchLength)
	}
	return nil
}

// parseShape reads include, then fields: what each returned record holds.
func parseShape(lq *ListQuery, q url.Values) error {
	include, err := listParam(q, "include")
	if err != nil {
		return err
	}
	if lq.Include, err = parseInclude(include); err != nil {
		return err
	}
	fields, err := listParam(q, "fields")
	if err != nil {
		return err
	}
	if v := fields; v != "" {
		for _, f := range strings.Split(v, ",") {
			f = strings.TrimSpace(f)
			if f == "" {
				return queryErr("fields", "has an empty column name")
			}
			lq.Fields = append(lq.Fields, f)
		}
	}
	return nil
}

// parseSort reads "a,-b": a leading '-' sorts that column descending,
// columns without it follow order (desc when orderDesc).
func parseSort(v string, orderDesc bool) ([]SortKey, error) {
	if strings.TrimSpace(v) == "" {
		return nil, nil
	}
	var keys []SortKey
	seen := map[string]bool{}
	for _, f := range strings.Split(v, ",") {
		f = strings.TrimSpace(f)
		k := SortKey{Field: f, Desc: orderDesc}
		if rest, ok := strings.CutPrefix(f, "-"); ok {
			k = SortKey{Field: strings.TrimSpace(rest), Desc: true}
		}
		if k.Field == "" {
			return nil, queryErr("sort", "has an empty column name")
		}
		if seen[k.Field] {
			return nil, queryErr("sort", "names column %q twice", k.Field)
		}
		seen[k.Field] = true
		keys = append(keys, k)
	}
	if len(keys) > MaxSortKeys {
		return nil, queryErr("sort", "may name at most %d columns", MaxSortKeys)
	}
	return keys, nil
}

// parseFieldFilters reads every filter[col] and filter[col][op] key,
// sorted by key so the rendered SQL does not depend on map order. A
// repeated key adds one more condition per value.
func parseFieldFilters(q url.Values) ([]FieldFilter, error) {
	var keys []string
	for key := range q {
		if strings.HasPrefix(key, "filter[") {
			keys = append(keys, key)
		}
	}
	sort.Strings(keys)
	var out []FieldFilter
	for _, key := range keys {
		field, op, ok := splitFilterKey(key)
		if !ok {
			return nil, queryErr(key, "must be filter[column] or filter[column][operator]")
		}
		if fieldOperators[op] == nil {
			return nil, queryErr(key, "unknown operator %q; use one of %s", op, fieldNames)
		}
		for _, v := range q[key] {
			out = append(out, FieldFilter{Param: key, Field: field, Op: op, Value: v})
		}
	}
	return out, nil
}

// splitFilterKey splits filter[col] and filter[col][op].
func splitFilterKey(key string) (field, op string, ok bool) {
	rest := strings.TrimPrefix(key, "filter[")
	end := strings.IndexByte(rest, ']')
	if end <= 0 {
		return "", "", false
	}
	field, rest = rest[:end], rest[end+1:]
	if rest == "" {
		return field, "eq", true
	}
	if !strings.HasPrefix(rest, "[") || !strings.HasSuffix(rest, "]") || len(rest) < 3 {
		return "", "", false
	}
	op = rest[1 : len(rest)-1]
	if strings.ContainsAny(op, "[]") {
		return "", "", false
	}
	return field, op, true
}

// listParam reads a list parameter (include, fields) written as one
// comma list (include=a,b) or repeated (include=a&include=b, what the
// default serializers of OpenAPI clients send for an array with
// explode: true), or both: the values are joined with commas. A lone
// empty value means the parameter is absent; an empty one beside others
// is refused, as an empty item of a comma list is.
func listParam(q url.Values, name string) (string, error) {
	vals := q[name]
	if len(vals) <= 1 {
		return q.Get(name), nil
	}
	for _, v := range vals {
		if strings.TrimSpace(v) == "" {
			return "", queryErr(name, "is given more than once with an empty value")
		}
	}
	return strings.Join(vals, ","), nil
}
