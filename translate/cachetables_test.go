package translate

import (
	"net/url"
	"reflect"
	"testing"

	"github.com/tablesmith/tablesmith/access"
)

func TestAWriteChangesItsTableAndWhatItsDeletesCascadeTo(t *testing.T) {
	pub := testPublished(t)
	for table, want := range map[string][]string{
		// users → posts (cascade) → comments, post_tags (cascade); notes,
		// audits and follows restrict, so a delete cannot change them.
		"users":    {"users", "comments", "post_tags", "posts"},
		"posts":    {"posts", "comments", "post_tags"},
		"tags":     {"tags", "post_tags"},
		"comments": {"comments"},
		"counters": {"counters"},
	} {
		if got := pub.Tables[table].Changes; !reflect.DeepEqual(got, want) {
			t.Errorf("%s: Changes = %q, want %q", table, got, want)
		}
	}
}

func TestAListReadsItsTableItsEmbedsAndItsRelatedFilters(t *testing.T) {
	pub := testPublished(t)
	for _, c := range []struct {
		table, query string
		want         []string
	}{
		{"posts", "", []string{"posts"}},
		{"posts", "include=author", []string{"posts", "users"}},
		{"posts", "include=" + url.QueryEscape("tags,comments"), []string{"posts", "tags", "post_tags", "comments"}},
		{"comments", "include=" + url.QueryEscape("post.author"), []string{"comments", "posts", "users"}},
		{"comments", "filter[post.author.name][like]=ann", []string{"comments", "posts", "users"}},
		{"posts", "filter=" + url.QueryEscape("not (tags.name = 'go' or title = 'x')"), []string{"posts", "tags", "post_tags"}},
	} {
		ls, err := build(t, pub, c.table, c.query)
		if err != nil {
			t.Fatalf("%s?%s: %v", c.table, c.query, err)
		}
		if got := ls.Reads(); !reflect.DeepEqual(got, c.want) {
			t.Errorf("%s?%s: Reads = %q, want %q", c.table, c.query, got, c.want)
		}
		if got := ls.Uncounted().Reads(); !reflect.DeepEqual(got, c.want) {
			t.Errorf("%s?%s: Uncounted().Reads = %q, want %q", c.table, c.query, got, c.want)
		}
	}
}

func TestAnAggregateReadsItsTableAndItsRelatedFilters(t *testing.T) {
	pub := testPublished(t)
	vals, _ := url.ParseQuery("group_by=post_id&count=*&filter[post.title]=x")
	q, err := ParseAggregate(vals)
	if err != nil {
		t.Fatal(err)
	}
	q.List.Caller = access.Key("", false)
	tbl, _ := pub.Compiled.Table("comments")
	as, err := BuildAggregate(pub, tbl, q)
	if err != nil {
		t.Fatal(err)
	}
	if want := []string{"comments", "posts"}; !reflect.DeepEqual(as.Reads, want) {
		t.Errorf("Reads = %q, want %q", as.Reads, want)
	}
}
