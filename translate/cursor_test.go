package translate

import (
	"database/sql"
	"encoding/base64"
	"encoding/json"
	"net/url"
	"slices"
	"strings"
	"testing"

	"github.com/tablesmith/tablesmith/access"
	"github.com/tablesmith/tablesmith/schema"
)

// cursorFor makes the cursor a list of table sorted by sortQuery would
// return for a last row with the given key values (a JSON array).
func cursorFor(pub *Published, table, sortQuery, keys string) string {
	vals, err := url.ParseQuery(sortQuery)
	if err != nil {
		panic(err)
	}
	q, err := ParseList(vals)
	if err != nil {
		panic(err)
	}
	tbl, _ := pub.Compiled.Table(table)
	order, err := planOrder(tbl, q)
	if err != nil {
		panic(err)
	}
	c, err := encodeCursor(sortShape(tbl.Name, order), []byte(keys))
	if err != nil {
		panic(err)
	}
	return c
}

func init() {
	d, err := schema.Parse([]byte(blogDoc))
	if err != nil {
		panic(err)
	}
	c, err := schema.Compile(d)
	if err != nil {
		panic(err)
	}
	pub := Prepare("p_test", c)
	after := func(table, sortQuery, keys string) string {
		q := "after=" + cursorFor(pub, table, sortQuery, keys)
		if sortQuery != "" {
			q = sortQuery + "&" + q
		}
		return q
	}
	goldenCases = append(goldenCases, []struct {
		name, table, query string
		reader             access.Principal
	}{
		{"after_by_id_is_one_range", "posts", after("posts", "", `[5]`), access.Key("", false)},
		{"after_desc_by_id", "posts", after("posts", "order=desc", `[5]`), access.Key("", false)},
		{"after_nullable_ascending_adds_the_nulls", "users", after("users", "sort=age", `[30, 7]`), access.Key("", false)},
		{"after_nullable_descending_is_one_range", "users", after("users", "sort=-age", `[30, 7]`), access.Key("", false)},
		{"after_a_null_descending", "users", after("users", "sort=-age", `[null, 7]`), access.Key("", false)},
		{"after_a_null_ascending", "users", after("users", "sort=age", `[null, 7]`), access.Key("", false)},
		{"after_mixed_directions_expand", "users", after("users", "sort=name,-age", `["ann", 30, 7]`), access.Key("", false)},
		{"after_unique_required_key_alone", "users", after("users", "sort=email", `["a@b.c"]`), access.Key("", false)},
		{"after_with_filter_include_and_owner", "notes", "filter[text][like]=x&include=user&" + after("notes", "sort=-created_at", `["2026-01-02T03:04:05.123456+00:00", 9]`), access.User(int64(7))},
	}...)
}

func TestCursorRoundTripsThroughItsSort(t *testing.T) {
	pub := testPublished(t)
	ls, err := build(t, pub, "users", "sort=-age")
	if err != nil {
		t.Fatal(err)
	}
	// The records hold age and id: the statement only marks a full page,
	// and the keys come from its last record.
	page := []byte(`[{"id":3,"name":"a","age":40}, ` + "\n" + ` {"id":12,"name":"x \"}{","age":null}]`)
	next, err := ls.NextCursor([]byte(`true`), page)
	if err != nil || next == nil {
		t.Fatalf("NextCursor = %v, %v", next, err)
	}
	got, err := build(t, pub, "users", "sort=-age&after="+*next)
	if err != nil {
		t.Fatalf("a cursor of the same sort: %v", err)
	}
	if !strings.Contains(got.SQL, `t."age" IS NOT NULL`) || !slices.Contains(got.Args, any("12")) {
		t.Errorf("cursor [null, 12] should read the non-NULL ages and the NULL ones below id 12; SQL %s args %v", got.SQL, got.Args)
	}
	if m := got.Meta(sql.NullInt64{}); m.Page != 0 || m.Offset != 0 {
		t.Errorf("a cursor page has no page number: meta %+v", m)
	}
	if none, _ := ls.NextCursor(nil, page); none != nil {
		t.Errorf("no keys (the last page) must give a null cursor, got %q", *none)
	}
}

// The cursor document is written by hand (encodeCursor): text keys with
// quotes, escapes, markup and non-ASCII letters, and PostgreSQL's spacing,
// come back as the values they were.
func TestCursorKeepsTextKeysAsTheyWere(t *testing.T) {
	pub := testPublished(t)
	c := cursorFor(pub, "users", "sort=name", `[ "Zoë \"the <b>\" \\ \u00e9 \n" ,  7 ]`)
	raw, err := base64.RawURLEncoding.DecodeString(c)
	if err != nil || !json.Valid(raw) || strings.Contains(string(raw), " ,") {
		t.Fatalf("cursor document %s (%v)", raw, err)
	}
	got, err := build(t, pub, "users", "sort=name&after="+c)
	if err != nil {
		t.Fatal(err)
	}
	want := "Zoë \"the <b>\" \\ é \n"
	if !slices.Contains(got.Args, any(want)) {
		t.Fatalf("args %q lack the name %q", got.Args, want)
	}
	if _, err := encodeCursor("s", []byte(`{"a":1}`)); err == nil {
		t.Fatal("keys that are not an array made a cursor")
	}
}

func TestCursorIsRefusedForAnotherSortTableOrPosition(t *testing.T) {
	pub := testPublished(t)
	byAge := cursorFor(pub, "users", "sort=age", `[30, 7]`)
	byID := cursorFor(pub, "users", "", `[7]`)
	forged := base64.RawURLEncoding.EncodeToString([]byte(`{"v":1,"s":"x","k":[1]}`))
	for _, tc := range []struct{ table, query, want string }{
		{"users", "sort=-age&after=" + byAge, "another table or sort"},
		{"users", "after=" + byAge, "another table or sort"},
		{"posts", "after=" + byID, "another table or sort"},
		{"users", "order=desc&after=" + byID, "another table or sort"},
		{"users", "after=" + forged, "another table or sort"},
		{"users", "after=not-a-cursor!", "not a cursor"},
		{"users", "after=" + base64.RawURLEncoding.EncodeToString([]byte(`{"v":2}`)), "not a cursor"},
		{"users", "sort=age&after=" + cursorFor(pub, "users", "sort=age", `["x", 7]`), "not a cursor"},
		{"users", "sort=age&after=" + cursorFor(pub, "users", "sort=age", `[30, null]`), "not a cursor"},
		{"users", "sort=email&after=" + cursorFor(pub, "users", "sort=email", `[null]`), "not a cursor"},
		{"users", "page=2&after=" + byID, "not both"},
		{"users", "offset=20&after=" + byID, "not both"},
		{"users", "after=" + byID + "&after=" + byID, "more than once"},
		{"users", "after=" + strings.Repeat("A", MaxCursorLength+1), "too long"},
	} {
		_, err := build(t, pub, tc.table, tc.query)
		qe, ok := err.(*QueryError)
		if !ok || qe.Param != "after" || !strings.Contains(qe.Message, tc.want) {
			t.Errorf("%s?%.60s: got %v, want an after error saying %q", tc.table, tc.query, err, tc.want)
		}
	}
}

func TestMetaWritesNextCursorAsMarshalDoes(t *testing.T) {
	c := "eyJ2IjoxfQ"
	for _, m := range []Meta{{Page: 1, Limit: 20}, {Limit: 20, NextCursor: &c}} {
		raw, err := json.Marshal(m)
		if err != nil {
			t.Fatal(err)
		}
		if got := m.AppendJSON(nil); string(got) != string(raw) {
			t.Errorf("AppendJSON = %s, json.Marshal = %s", got, raw)
		}
	}
}
