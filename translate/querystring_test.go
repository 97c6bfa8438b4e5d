package translate

import (
	"errors"
	"net/url"
	"reflect"
	"strings"
	"testing"
)

func TestAQueryStringIsReadWholeWithASemicolonAsAnOrdinaryCharacter(t *testing.T) {
	for raw, want := range map[string]url.Values{
		"filter[title]=t1;x&filter[id][gt]=0":    {"filter[title]": {"t1;x"}, "filter[id][gt]": {"0"}},
		"include=tags(sort=-name;limit=5)":       {"include": {"tags(sort=-name;limit=5)"}},
		"search=a+b%20c&&_=1&":                   {"search": {"a b c"}, "_": {"1"}},
		"filter=age+%3E%3D+18&filter=name~'a'":   {"filter": {"age >= 18", "name~'a'"}},
		"flag&empty=":                            {"flag": {""}, "empty": {""}},
		"filter%5Bname%5D=%C3%A9":                {"filter[name]": {"é"}},
		"max_affected=1;":                        {"max_affected": {"1;"}},
		"a=%3D%26%3B":                            {"a": {"=&;"}},
		"where[posts]=title+%3D+'a;b'&tables=po": {"where[posts]": {"title = 'a;b'"}, "tables": {"po"}},
	} {
		got, err := ParseQueryString(raw)
		if err != nil || !reflect.DeepEqual(got, want) {
			t.Errorf("ParseQueryString(%q) = %v, %v; want %v", raw, got, err, want)
		}
	}
}

func TestAQueryStringThatCannotBeReadNamesTheParameter(t *testing.T) {
	for raw, param := range map[string]string{
		"search=100%":          "search",
		"a=1&filter[x]=%zz":    "filter[x]",
		"fields=a%2":           "fields",
		"filter%zz=1":          "filter%zz",
		"name=%FF":             "name", // not UTF-8 once decoded
		"name=a%00b":           "name",
		"%FF=1":                "%FF",
		"=orphan":              "(empty)",
		"ok=1&bad=%&also=%zz":  "bad", // the first problem, in the order written
		"filter[a]=1&sort=-%g": "sort",
	} {
		_, err := ParseQueryString(raw)
		var qe *QueryError
		if !errors.As(err, &qe) || qe.Param != param {
			t.Errorf("ParseQueryString(%q) = %v, want a QueryError naming %q", raw, err, param)
		}
	}
}

func TestCheckParamsRefusesWhatTheEndpointDoesNotTakeWithAHint(t *testing.T) {
	isColumn := func(name string) bool { return name == "status" || name == "title" }
	for _, tc := range []struct {
		query  string
		params Params
		param  string // "" when accepted
		hint   string
	}{
		{"page=2&filter[status]=a&filter=x&_=9", ListParams, "", ""},
		{"status=draft", ListParams, "status", "filter[status]=draft"},
		{"select=title", ListParams, "select", "fields="},
		{"select=title", FilterWriteParams, "select", ""}, // no fields to point to
		{"order_by=title", ListParams, "order_by", "sort="},
		{"zeta=1&alpha=2", ListParams, "alpha", "nor are zeta"},
		{"status=draft", RecordParams, "status", ""}, // a record takes no filter
		{"include=a&fields=b", RecordParams, "", ""},
		{"on_conflict=email", CreateParams, "", ""},
		{"page=1", NoParams, "page", ""},
		{"_=1", NoParams, "", ""},
		{"max_affected=3&search=x", FilterWriteParams, "", ""},
		{"after=x", FilterWriteParams, "after", ""},
		{"sum=total&group_by=status", AggregateParams, "", ""},
	} {
		q, err := ParseQueryString(tc.query)
		if err != nil {
			t.Fatal(err)
		}
		err = CheckParams(q, tc.params, isColumn)
		var qe *QueryError
		switch {
		case tc.param == "" && err != nil:
			t.Errorf("%q: %v, want accepted", tc.query, err)
		case tc.param != "" && (!errors.As(err, &qe) || qe.Param != tc.param || !strings.Contains(qe.Message, tc.hint)):
			t.Errorf("%q: %v, want refused naming %q with %q", tc.query, err, tc.param, tc.hint)
		}
	}
}

func FuzzParseQueryString(f *testing.F) {
	for _, s := range []string{"a=1&b=2", "filter[x]=a;b", "%zz", "a+b=c+d", "=x", "&&", "a=%C3%A9"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, raw string) {
		q, err := ParseQueryString(raw)
		if err != nil {
			return
		}
		// Whatever is read is exactly what url.ParseQuery reads when ';'
		// is escaped: no pair is lost or split.
		want, err := url.ParseQuery(strings.ReplaceAll(raw, ";", "%3B"))
		if err != nil {
			t.Fatalf("accepted %q that url.ParseQuery refuses: %v", raw, err)
		}
		for k, v := range want {
			if k == "" {
				continue
			}
			if !reflect.DeepEqual(q[k], v) {
				t.Fatalf("%q: %s = %q, url.ParseQuery reads %q", raw, k, q[k], v)
			}
		}
	})
}
