package translate

import (
	"net/url"
	"sort"
	"strings"
	"unicode/utf8"
)

// ParseQueryString reads a request's raw query string whole, or refuses
// it naming the parameter it could not read (docs/query-language.md,
// "Reading the query string"). It differs from url.ParseQuery, which
// drops a pair it cannot read and reports it in an error that is easy to
// ignore, so that a filter could silently vanish from a write:
//
//   - pairs are separated by '&' only: a ';' is an ordinary character of
//     the value it is in (as the WHATWG URL standard and browsers'
//     URLSearchParams read it), so filter[title]=a;b compares with "a;b";
//   - '+' is a space and %XX a byte, as in HTML forms;
//   - a malformed escape ('%' not followed by two hex digits), a name or
//     value that is not UTF-8 or holds a NUL, and a pair without a name
//     are errors;
//   - empty pairs (a&&b, a trailing &) are skipped.
func ParseQueryString(raw string) (url.Values, error) {
	if raw == "" {
		return nil, nil // most requests: no map to allocate
	}
	q := url.Values{}
	for raw != "" {
		var pair string
		pair, raw, _ = strings.Cut(raw, "&")
		if pair == "" {
			continue
		}
		rawKey, rawValue, _ := strings.Cut(pair, "=")
		key, keyOK := unescapeQuery(rawKey)
		if !keyOK || !readableText(key) {
			// Named as written: the decoded name is not text.
			return nil, queryErr(rawKey, "is not a readable parameter name: write '%%' as %%25 and every byte outside UTF-8 text as a valid %%XX escape")
		}
		if key == "" {
			return nil, queryErr("(empty)", "a parameter has a value but no name (%q)", pair)
		}
		value, ok := unescapeQuery(rawValue)
		if !ok {
			return nil, queryErr(key, "has a malformed escape: write '%%' as %%25 (every %% must start a %%XX escape of two hex digits)")
		}
		if !readableText(value) {
			return nil, queryErr(key, "must be UTF-8 text without NUL bytes")
		}
		q[key] = append(q[key], value)
	}
	return q, nil
}

// unescapeQuery decodes '+' and %XX; ok is false for a malformed escape.
func unescapeQuery(s string) (string, bool) {
	if !strings.ContainsAny(s, "%+") {
		return s, true
	}
	v, err := url.QueryUnescape(s)
	return v, err == nil
}

func readableText(s string) bool {
	return utf8.ValidString(s) && strings.IndexByte(s, 0) < 0
}

// Params is the set of query parameters one kind of request takes: names
// taken as they are, and families written name[...] (filter[col][op]).
type Params struct {
	names    map[string]bool
	families []string
}

// NewParams returns the set of the given names; a name ending in "[" is a
// family (every parameter that starts with it).
func NewParams(names ...string) Params {
	p := Params{names: map[string]bool{}}
	for _, n := range names {
		if strings.HasSuffix(n, "[") {
			p.families = append(p.families, n)
		} else {
			p.names[n] = true
		}
	}
	return p
}

// With returns a copy of p that also takes names.
func (p Params) With(names ...string) Params {
	all := make([]string, 0, len(p.names)+len(p.families)+len(names))
	for n := range p.names {
		all = append(all, n)
	}
	all = append(all, p.families...)
	return NewParams(append(all, names...)...)
}

// Takes reports whether name is one of p's parameters.
func (p Params) Takes(name string) bool {
	if p.names[name] {
		return true
	}
	for _, f := range p.families {
		if strings.HasPrefix(name, f) {
			return true
		}
	}
	return false
}

// CacheBuster is the one parameter every endpoint takes and ignores, so
// that a client can make a URL unique to get past a cache
// (docs/query-language.md).
const CacheBuster = "_"

// The parameters of each kind of generated-API request.
var (
	// filterParams select rows: every endpoint that reads or writes rows
	// by a condition takes them.
	filterParams = NewParams("filter", "filter[", "search")
	// ListParams are a list's (CONTRACT 5.1 and docs/query-language.md).
	ListParams = filterParams.With("page", "limit", "offset", "sort", "order", "include", "fields", "count", "after", "format")
	// RecordParams are a GET of one record's: what each record holds.
	RecordParams = NewParams("include", "fields")
	// AggregateParams are GET /<table>/aggregate's. include and fields
	// pass here so that ParseAggregate can say why they do not apply.
	AggregateParams = filterParams.With(append([]string{"group_by", "sort", "order", "limit", "page", "offset", "include", "fields"}, aggregateFuncs...)...)
	// FilterWriteParams are an update or delete by filter's. The list's
	// paging, order and shape pass here so that ParseFilterWrite can say
	// why they do not apply (every matching row changes).
	FilterWriteParams = filterParams.With(MaxAffectedParam, "page", "limit", "offset", "sort", "order", "include", "fields", "count")
	// CreateParams are a POST on a collection's.
	CreateParams = NewParams("on_conflict")
	// NoParams is what a write of one record takes.
	NoParams = NewParams()
)

// CheckParams refuses the first parameter of q (in name order, so the
// answer does not depend on map order) that takes does not accept, with
// a hint when the name says what the client meant: a column of the table
// (columns reports it) is filtered with filter[col]=, and the names other
// APIs use for select, order and paging have their equivalents here.
// CacheBuster is always accepted.
func CheckParams(q url.Values, takes Params, columns func(string) bool) error {
	var unknown []string
	for name := range q {
		if name != CacheBuster && !takes.Takes(name) {
			unknown = append(unknown, name)
		}
	}
	if len(unknown) == 0 {
		return nil
	}
	sort.Strings(unknown)
	name := unknown[0]
	msg := "is not a parameter of this endpoint"
	switch hint := paramHints[name]; {
	case columns != nil && columns(name) && takes.Takes("filter["):
		msg += "; to keep the rows whose " + name + " equals a value, write filter[" + name + "]=" + firstOr(q[name], "<value>")
	case hint != "" && takes.Takes(strings.SplitN(hint, "=", 2)[0]):
		msg += "; write " + hint
	}
	if len(unknown) > 1 {
		msg += " (nor are " + strings.Join(unknown[1:], ", ") + ")"
	}
	return queryErr(name, "%s", msg)
}

// paramHints are other APIs' names for parameters this one spells
// differently (PostgREST, Directus, Strapi, JSON:API habits).
var paramHints = map[string]string{
	"select":    "fields=<col>,<col>",
	"columns":   "fields=<col>,<col>",
	"order_by":  "sort=<col> or sort=-<col>",
	"orderby":   "sort=<col> or sort=-<col>",
	"sort_by":   "sort=<col> or sort=-<col>",
	"per_page":  "limit=<n>",
	"page_size": "limit=<n>",
	"pagesize":  "limit=<n>",
	"size":      "limit=<n>",
	"skip":      "offset=<n>",
	"q":         "search=<text>",
	"query":     "search=<text>",
	"expand":    "include=<relation>",
	"embed":     "include=<relation>",
	"populate":  "include=<relation>",
	"where":     "filter=<expression>",
	"cursor":    "after=<cursor>",
}

func firstOr(vals []string, or string) string {
	if len(vals) > 0 && vals[0] != "" {
		return vals[0]
	}
	return or
}
