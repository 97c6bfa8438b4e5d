package translate

import (
	"net/url"
	"reflect"
	"strings"
	"testing"
)

func TestIncludeOptionsParse(t *testing.T) {
	q, err := parse(t, "include="+url.QueryEscape("tags(fields=id,name,sort=-name,created_at,limit=5),author.posts(limit=2)"))
	if err != nil {
		t.Fatal(err)
	}
	want := [][]IncludeStep{
		{{Name: "tags", Fields: []string{"id", "name"}, Sort: []SortKey{{Field: "name", Desc: true}, {Field: "created_at"}}, Limit: 5,
			Options: "fields=id,name,sort=-name,created_at,limit=5"}},
		{{Name: "author"}, {Name: "posts", Limit: 2, Options: "limit=2"}},
	}
	if !reflect.DeepEqual(q.Include, want) {
		t.Errorf("include = %+v\nwant %+v", q.Include, want)
	}
	// Semicolons separate as commas do.
	q, err = parse(t, "include="+url.QueryEscape("tags(fields=id;name;sort=-name;created_at;limit=5),author.posts(limit=2)"))
	if err != nil {
		t.Fatal(err)
	}
	want[0][0].Options = "fields=id;name;sort=-name;created_at;limit=5"
	if !reflect.DeepEqual(q.Include, want) {
		t.Errorf("include = %+v\nwant %+v", q.Include, want)
	}
}

func TestIncludeOptionsRefused(t *testing.T) {
	for raw, msg := range map[string]string{
		"tags(":                 "leaves a parenthesis open",
		"tags)":                 "did not open",
		"tags(limit=(5))":       "inside options",
		"tags()":                "empty options",
		"tags(limit=5)x":        "text after the options",
		"tags(limit=0)":         "from 1 to 1000",
		"tags(limit=1001)":      "from 1 to 1000",
		"tags(limit=5,6)":       "not option=value",
		"tags(name)":            "not option=value",
		"tags(color=red)":       "unknown option",
		"tags(limit=1,limit=2)": "given twice",
		"tags(sort=a,a)":        "twice",
		"tags(fields=)":         "empty column name",
		"a(limit=1).b.c.d":      "deeper than 3",
		"(limit=1)":             "empty relation name",
	} {
		_, err := parse(t, "include="+url.QueryEscape(raw))
		qe, ok := err.(*QueryError)
		if !ok || qe.Param != "include" || !strings.Contains(qe.Message, msg) {
			t.Errorf("include=%s: got %v, want an include error containing %q", raw, err, msg)
		}
	}
}
