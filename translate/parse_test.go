package translate

import (
	"errors"
	"net/url"
	"reflect"
	"strings"
	"testing"
)

func parse(t *testing.T, raw string) (*ListQuery, error) {
	t.Helper()
	vals, err := url.ParseQuery(raw)
	if err != nil {
		t.Fatalf("query %q: %v", raw, err)
	}
	return ParseList(vals)
}

func TestParseListDefaultsAndPagination(t *testing.T) {
	cases := []struct {
		query               string
		page, limit, offset int
		hasPage, hasOffset  bool
	}{
		{"", 1, 20, 0, false, false},
		{"page=3&limit=10", 3, 10, 20, true, false},
		{"limit=10&offset=25", 3, 10, 25, false, true},
		{"offset=0", 1, 20, 0, false, true},
		{"limit=100", 1, 100, 0, false, false},
		{"limit=1&page=1000000000", 1000000000, 1, 999999999, true, false},
	}
	for _, c := range cases {
		q, err := parse(t, c.query)
		if err != nil {
			t.Fatalf("%q: %v", c.query, err)
		}
		if q.Page != c.page || q.Limit != c.limit || q.Offset != c.offset || q.HasPage != c.hasPage || q.HasOffset != c.hasOffset {
			t.Errorf("%q: page %d limit %d offset %d (%v %v), want %d %d %d (%v %v)", c.query,
				q.Page, q.Limit, q.Offset, q.HasPage, q.HasOffset, c.page, c.limit, c.offset, c.hasPage, c.hasOffset)
		}
		if q.Count != CountEstimated {
			t.Errorf("%q: count %q, want estimated", c.query, q.Count)
		}
	}
}

func TestParseListRejectsBadParametersByName(t *testing.T) {
	cases := map[string]string{
		"limit=0":                    "limit",
		"limit=101":                  "limit",
		"limit=1.5":                  "limit",
		"limit=-1":                   "limit",
		"page=0":                     "page",
		"page=1000000001":            "page",
		"page=two":                   "page",
		"offset=-1":                  "offset",
		"offset=1e3":                 "offset",
		"offset=100000000001":        "offset",
		"page=2&offset=10":           "offset",
		"order=sideways":             "order",
		"order=DESC":                 "order",
		"count=all":                  "count",
		"sort=a,,b":                  "sort",
		"sort=-":                     "sort",
		"sort=a,-a":                  "sort",
		"sort=a,b,c,d,e,f,g,h,i,j,k": "sort",
		"sort=a&sort=b":              "sort",
		"page=1&page=2":              "page",
		"include=a&include=":         "include",
		"fields=a&fields=":           "fields",
		"count=none&count=none":      "count",
		"search=a&search=b":          "search",
		"include=a..b":               "include",
		"include=a.b.c.d":            "include",
		"include=,a":                 "include",
		"fields=a,,b":                "fields",
		"filter[a]x=1":               "filter[a]x",
		"filter[]=1":                 "filter[]",
		"filter[a][]=1":              "filter[a][]",
		"filter[a][b][c]=1":          "filter[a][b][c]",
		"filter[a][gt=1":             "filter[a][gt",
		"filter[a][regex]=1":         "filter[a][regex]",
		"filter[a][EQ]=1":            "filter[a][EQ]",
		"filter=a = ":                "filter",
		"search=" + strings.Repeat("s", MaxSearchLength+1): "search",
	}
	for raw, param := range cases {
		_, err := parse(t, raw)
		var qe *QueryError
		if !errors.As(err, &qe) || qe.Param != param {
			t.Errorf("%q: error %v, want a QueryError for %q", raw, err, param)
		}
	}
}

func TestParseListReadsSortFiltersIncludeAndFields(t *testing.T) {
	q, err := parse(t, "sort="+url.QueryEscape("a,-b, c")+"&order=desc")
	if err != nil {
		t.Fatal(err)
	}
	if want := []SortKey{{"a", true}, {"b", true}, {"c", true}}; !reflect.DeepEqual(q.Sort, want) {
		t.Errorf("sort with order=desc = %v, want %v", q.Sort, want)
	}
	q, _ = parse(t, "sort="+url.QueryEscape("a,-b")+"&order=asc")
	if want := []SortKey{{"a", false}, {"b", true}}; !reflect.DeepEqual(q.Sort, want) {
		t.Errorf("sort with order=asc = %v, want %v", q.Sort, want)
	}
	q, _ = parse(t, "order=desc")
	if q.Sort != nil || q.Order != "desc" {
		t.Errorf("order alone: sort %v order %q", q.Sort, q.Order)
	}

	q, err = parse(t, "filter[b]=1&filter[a][gt]=2&filter[a]=3&filter[a]=4&filter[c][in]=x,y")
	if err != nil {
		t.Fatal(err)
	}
	want := []FieldFilter{
		{Param: "filter[a]", Field: "a", Op: "eq", Value: "3"},
		{Param: "filter[a]", Field: "a", Op: "eq", Value: "4"},
		{Param: "filter[a][gt]", Field: "a", Op: "gt", Value: "2"},
		{Param: "filter[b]", Field: "b", Op: "eq", Value: "1"},
		{Param: "filter[c][in]", Field: "c", Op: "in", Value: "x,y"},
	}
	if !reflect.DeepEqual(q.Filters, want) {
		t.Errorf("filters = %v, want %v (sorted by key)", q.Filters, want)
	}

	q, err = parse(t, "include="+url.QueryEscape("a, b.c ,a.b.c")+"&fields="+url.QueryEscape("x, y"))
	if err != nil {
		t.Fatal(err)
	}
	if want := [][]IncludeStep{{{Name: "a"}}, {{Name: "b"}, {Name: "c"}}, {{Name: "a"}, {Name: "b"}, {Name: "c"}}}; !reflect.DeepEqual(q.Include, want) {
		t.Errorf("include = %v, want %v", q.Include, want)
	}
	if want := []string{"x", "y"}; !reflect.DeepEqual(q.Fields, want) {
		t.Errorf("fields = %v, want %v", q.Fields, want)
	}

	q, err = parse(t, "filter="+url.QueryEscape("a = 1")+"&filter="+url.QueryEscape("b = 2")+"&search=hi")
	if err != nil {
		t.Fatal(err)
	}
	if len(q.Exprs) != 2 || show(q.Exprs[1]) != "(= b 2)" || q.Search != "hi" {
		t.Errorf("exprs %v search %q", q.Exprs, q.Search)
	}
}

// OpenAPI clients send an array parameter as include=a&include=b by
// default (form style, explode true): include and fields read it as the
// comma list, alone or mixed with commas, for a list and for one record.
func TestIncludeAndFieldsMayBeRepeatedAsAList(t *testing.T) {
	for _, read := range []func(url.Values) (*ListQuery, error){ParseList, ParseRecord} {
		vals, _ := url.ParseQuery("include=a&include=" + url.QueryEscape("b.c,d(limit=2)") + "&fields=x&fields=y&fields=" + url.QueryEscape("z,w"))
		q, err := read(vals)
		if err != nil {
			t.Fatal(err)
		}
		wantInclude := [][]IncludeStep{{{Name: "a"}}, {{Name: "b"}, {Name: "c"}}, {{Name: "d", Limit: 2, Options: "limit=2"}}}
		if !reflect.DeepEqual(q.Include, wantInclude) {
			t.Errorf("repeated include = %v, want %v", q.Include, wantInclude)
		}
		if want := []string{"x", "y", "z", "w"}; !reflect.DeepEqual(q.Fields, want) {
			t.Errorf("repeated fields = %v, want %v", q.Fields, want)
		}
	}
	vals, _ := url.ParseQuery("fields=x&fields=y")
	if _, err := ParseAggregate(vals); err == nil || err.(*QueryError).Param != "fields" {
		t.Errorf("repeated fields on an aggregate = %v, want refused naming fields", err)
	}
}

func TestParseListTreatsEmptyValuesAsAbsentAndIgnoresUnknownParameters(t *testing.T) {
	q, err := parse(t, "sort=&order=&search=&include=&fields=&filter=&count=&limit=&page=&offset=&_=123&foo[bar]=1")
	if err != nil {
		t.Fatal(err)
	}
	want := &ListQuery{Page: 1, Limit: DefaultLimit, Count: CountEstimated}
	if !reflect.DeepEqual(q, want) {
		t.Fatalf("got %+v, want %+v", q, want)
	}
	// filter[col]= is a real comparison with the empty string
	q, _ = parse(t, "filter[name]=")
	if len(q.Filters) != 1 || q.Filters[0].Value != "" {
		t.Fatalf("filter[name]= gives %v", q.Filters)
	}
}

// The document's maxLength counts characters, so the server does too: 256
// three-byte characters (768 bytes) are one search term.
func TestSearchLengthCountsCharactersNotBytes(t *testing.T) {
	term := strings.Repeat("€", MaxSearchLength)
	q, err := parse(t, "search="+url.QueryEscape(term))
	if err != nil || q.Search != term {
		t.Fatalf("%d characters (%d bytes): %v", MaxSearchLength, len(term), err)
	}
	var qe *QueryError
	if _, err := parse(t, "search="+url.QueryEscape(term+"€")); !errors.As(err, &qe) || qe.Param != "search" {
		t.Fatalf("%d characters: error %v, want a QueryError for search", MaxSearchLength+1, err)
	}
}
