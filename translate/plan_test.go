package translate

import (
	"database/sql"
	"errors"
	"github.com/tablesmith/tablesmith/access"
	"net/url"
	"strings"
	"testing"
	"time"
)

func TestBuildListRejectsUnknownNamesAndBadValuesByParameter(t *testing.T) {
	pub := testPublished(t)
	cases := []struct{ table, query, param, message string }{
		{"users", "sort=nope", "sort", `unknown column "nope"`},
		{"users", "sort=password_hash", "sort", `unknown column "password_hash"`},
		{"users", "sort=prefs", "sort", "cannot be sorted"},
		{"users", "filter[nope]=1", "filter[nope]", `unknown column "nope"`},
		{"users", "filter[password_hash]=x", "filter[password_hash]", "unknown column"},
		{"users", "filter[age]=x", "filter[age]", "must be an integer"},
		{"users", "filter[age][like]=1", "filter[age][like]", "like needs a text column; age is integer"},
		{"users", "filter[age][in]=1,2,x", "filter[age][in]", "value 3 must be an integer"},
		{"users", "filter[age][in]=" + strings.Repeat("1,", MaxInValues) + "1", "filter[age][in]", "at most 1000 values"},
		{"users", "filter[age][null]=yes", "filter[age][null]", "must be true or false"},
		{"users", "filter[prefs]=x", "filter[prefs]", "cannot be filtered"},
		{"users", "filter=" + url.QueryEscape("nope = 1"), "filter", `unknown column "nope" at 1`},
		{"users", "filter=" + url.QueryEscape("age = 1 and name = 5"), "filter", "name needs a 'string' at 20"},
		{"users", "filter=" + url.QueryEscape("is_active = 'yes'"), "filter", "is_active needs true or false at 13"},
		{"users", "filter=" + url.QueryEscape("born = '2020-02-30'"), "filter", "born must be a date (YYYY-MM-DD) at 8"},
		{"users", "filter=" + url.QueryEscape("ref != 'x'"), "filter", "ref must be a UUID at 8"},
		{"users", "filter=" + url.QueryEscape("seen_at > 'noon'"), "filter", "seen_at must be an RFC 3339 date-time or a date at 11"},
		{"users", "filter=" + url.QueryEscape("score ~ 'x'"), "filter", "~ needs a text column; score is number at 1"},
		{"users", "filter=" + url.QueryEscape("name !~ null"), "filter", "null compares only with = or != at 9"},
		{"users", "filter=" + url.QueryEscape("not (prefs = '{}')"), "filter", "prefs cannot be filtered at 14"},
		{"counters", "search=x", "search", "has no text columns"},
		{"users", "include=nope", "include", `unknown relation "nope" on users (relations: audits, follows_followee, follows_follower, follows_in, follows_out, notes, posts)`},
		{"users", "include=posts.nope", "include", `unknown relation "nope" on posts (relations: author, comments, post_tags, tags)`},
		{"counters", "include=x", "include", "(it has no relations)"},
		{"users", "include=" + url.QueryEscape("posts,notes,audits,posts.author,posts.comments,posts.author.posts,posts.author.notes,posts.author.audits,posts.comments.post,notes.user,audits.user,notes.user.posts,notes.user.notes"),
			"include", "at most 12 relations"},
		{"users", "fields=nope", "fields", `unknown column "nope"`},
		{"users", "fields=password_hash", "fields", "unknown column"},
		{"users", "fields=posts", "fields", "unknown column"},
		{"posts", "include=" + url.QueryEscape("author(limit=2)"), "include", "author is one record: sort and limit apply to lists only"},
		{"posts", "include=" + url.QueryEscape("tags(sort=nope)"), "include", `sort of tags: unknown column "nope"`},
		{"users", "include=" + url.QueryEscape("posts.tags(fields=nope)"), "include", `fields of posts.tags: unknown column "nope"`},
		{"posts", "include=" + url.QueryEscape("tags(limit=2),tags(limit=3)"), "include", "tags is given two sets of options"},
	}
	for _, c := range cases {
		_, err := build(t, pub, c.table, c.query)
		var qe *QueryError
		if !errors.As(err, &qe) || qe.Param != c.param || !strings.Contains(qe.Message, c.message) {
			t.Errorf("%s?%s: error %v, want %s: …%s…", c.table, c.query, err, c.param, c.message)
		}
	}
}

func TestBuildListChecksTheReadRuleOfEveryEmbeddedTable(t *testing.T) {
	pub := testPublished(t)
	none, key, user := access.Principal{}, access.Key("", false), access.User(int64(7))
	cases := []struct {
		table, include string
		reader         access.Principal
		forbidden      bool
	}{
		{"users", "audits", key, false},
		{"users", "audits", user, true},              // key-only table
		{"users", "audits", none, true},              // key-only table
		{"users", "notes", user, false},              // owner: scoped, see golden owner_scope_for_an_end_user
		{"users", "notes", none, true},               // owner needs a credential
		{"users", "posts", none, true},               // authenticated needs a credential
		{"users", "posts", access.Principal{}, true}, // an unset reader is no credential
		{"posts", "author.audits", user, true},       // checked at every level
		{"posts", "tags", user, true},                // the junction post_tags is key-only
		{"posts", "tags", key, false},
		{"users", "follows_followee", user, false}, // owner-read junction: scoped
		{"counters", "", none, false},
	}
	for _, c := range cases {
		_, err := build(t, pub, c.table, "include="+url.QueryEscape(c.include), c.reader)
		var fe *ForbiddenError
		if got := errors.As(err, &fe); got != c.forbidden || (!got && err != nil) {
			t.Errorf("%s?include=%s as %+v: error %v, want forbidden %v", c.table, c.include, c.reader, err, c.forbidden)
			continue
		}
		if c.forbidden && (fe.Param != "include" || !strings.Contains(fe.Message, c.include)) {
			t.Errorf("%s?include=%s: forbidden error %+v should name the include", c.table, c.include, fe)
		}
	}
}

func TestBuildListMergesRepeatedIncludePaths(t *testing.T) {
	pub := testPublished(t)
	a, err := build(t, pub, "comments", "include="+url.QueryEscape("post,post.author,post"))
	if err != nil {
		t.Fatal(err)
	}
	b, err := build(t, pub, "comments", "include="+url.QueryEscape("post.author"))
	if err != nil {
		t.Fatal(err)
	}
	if a.SQL != b.SQL {
		t.Fatalf("post,post.author,post and post.author differ:\n%s\n%s", a.SQL, b.SQL)
	}
	// Options given once apply wherever the relation is named again.
	a, err = build(t, pub, "posts", "include="+url.QueryEscape("tags,tags(limit=2),author.posts"))
	if err != nil {
		t.Fatal(err)
	}
	b, err = build(t, pub, "posts", "include="+url.QueryEscape("tags(limit=2),author.posts"))
	if err != nil {
		t.Fatal(err)
	}
	if a.SQL != b.SQL || !strings.Contains(a.SQL, "LIMIT 2)") {
		t.Fatalf("tags,tags(limit=2) and tags(limit=2) differ:\n%s\n%s", a.SQL, b.SQL)
	}
}

func TestListMetaFollowsTheCountMode(t *testing.T) {
	pub := testPublished(t)
	ls, err := build(t, pub, "posts", "page=2&limit=10&"+url.Values{"filter[title][like]": {"a*"}}.Encode())
	if err != nil {
		t.Fatal(err)
	}
	m := ls.Meta(sql.NullInt64{Int64: 25, Valid: true})
	if m.Page != 2 || m.Limit != 10 || m.Offset != 10 || *m.Total != 25 || *m.TotalPages != 3 || m.TotalEstimated {
		t.Fatalf("meta = %+v", m)
	}
	if ls.NeedsEstimate(sql.NullInt64{Int64: ExactCountCap, Valid: true}) || !ls.NeedsEstimate(sql.NullInt64{Int64: ExactCountCap + 1, Valid: true}) {
		t.Fatal("the estimate is needed exactly when the capped count passes the cap")
	}
	est, err := ls.EstimatedMeta([]byte(`[{"Plan": {"Node Type": "Seq Scan", "Plan Rows": 1234567}}]`))
	if err != nil || *est.Total != 1234567 || *est.TotalPages != 123457 || !est.TotalEstimated {
		t.Fatalf("estimated meta = %+v, %v", est, err)
	}
	// the planner may think fewer rows match than were already counted
	low, err := ls.EstimatedMeta([]byte(`[{"Plan": {"Plan Rows": 12}}]`))
	if err != nil || *low.Total != ExactCountCap+1 {
		t.Fatalf("low estimate meta = %+v, %v", low, err)
	}
	if _, err := ls.EstimatedMeta([]byte(`not json`)); err == nil {
		t.Fatal("a broken plan must be an error")
	}

	// Unfiltered, the statement itself turns a count past the cap into
	// the table's estimated size: no EXPLAIN, and the meta says estimated.
	plain, err := build(t, pub, "posts", "limit=10")
	if err != nil {
		t.Fatal(err)
	}
	if plain.NeedsEstimate(sql.NullInt64{Int64: 250000, Valid: true}) {
		t.Fatal("an unfiltered list needs no EXPLAIN")
	}
	if m := plain.Meta(sql.NullInt64{Int64: 250000, Valid: true}); !m.TotalEstimated || *m.Total != 250000 {
		t.Fatalf("unfiltered meta past the cap = %+v", m)
	}
	if m := plain.Meta(sql.NullInt64{Int64: ExactCountCap, Valid: true}); m.TotalEstimated {
		t.Fatalf("unfiltered meta at the cap = %+v", m)
	}

	for q, needs := range map[string]bool{"count=exact": false, "count=none": false} {
		ls, err := build(t, pub, "posts", q)
		if err != nil {
			t.Fatal(err)
		}
		if ls.NeedsEstimate(sql.NullInt64{Int64: 5 * ExactCountCap, Valid: true}) != needs {
			t.Errorf("%s: NeedsEstimate should be %v", q, needs)
		}
	}
	none, _ := build(t, pub, "posts", "count=none")
	if m := none.Meta(sql.NullInt64{}); m.Total != nil || m.TotalPages != nil {
		t.Fatalf("count=none meta = %+v", m)
	}
}

func TestInListIsOneTypedArrayParameter(t *testing.T) {
	v, err := pgArray{`plain`, `with "quote"`, `back\slash`, `comma,inside`, `{brace}`, ``}.Value()
	if err != nil {
		t.Fatal(err)
	}
	if want := `{"plain","with \"quote\"","back\\slash","comma,inside","{brace}",""}`; v != want {
		t.Fatalf("text array = %s, want %s", v, want)
	}
	ts := time.Date(2026, 1, 2, 3, 4, 5, 600, time.UTC)
	v, err = pgArray{int64(-3), 1.5, true, ts}.Value()
	if err != nil || v != `{"-3","1.5","true","2026-01-02T03:04:05.0000006Z"}` {
		t.Fatalf("typed array = %v, %v", v, err)
	}
	if _, err := (pgArray{struct{}{}}).Value(); err == nil {
		t.Fatal("an unexpected element type must be an error, not an empty string")
	}
}
