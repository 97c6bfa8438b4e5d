package translate

import (
	"encoding/json"
	"flag"
	"fmt"
	"github.com/tablesmith/tablesmith/access"
	"net/url"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/tablesmith/tablesmith/schema"
)

var update = flag.Bool("update", false, "rewrite the golden files of TestListSQLMatchesGolden")

// blogDoc exercises every column type, both relation directions, an owner
// rule and a key-only table.
const blogDoc = `{"tables": [
  {"name": "users", "auth": true, "columns": [
    {"name": "email", "type": "email", "required": true, "unique": true},
    {"name": "password_hash", "type": "password", "required": true},
    {"name": "name", "type": "text", "searchable": true},
    {"name": "age", "type": "integer", "index": true},
    {"name": "score", "type": "number"},
    {"name": "balance", "type": "decimal"},
    {"name": "is_active", "type": "boolean"},
    {"name": "born", "type": "date"},
    {"name": "seen_at", "type": "timestamp"},
    {"name": "ref", "type": "uuid"},
    {"name": "site", "type": "url"},
    {"name": "tier", "type": "enum", "values": ["gold", "silver"]},
    {"name": "prefs", "type": "json"}]},
  {"name": "posts", "columns": [
    {"name": "title", "type": "text", "required": true},
    {"name": "author_id", "type": "integer", "references": {"table": "users", "on_delete": "cascade"}}]},
  {"name": "comments", "columns": [
    {"name": "body", "type": "text"},
    {"name": "post_id", "type": "integer", "references": {"table": "posts", "on_delete": "cascade"}}]},
  {"name": "notes", "owner_column": "user_id", "permissions": {"read": "owner"}, "columns": [
    {"name": "text", "type": "text"},
    {"name": "user_id", "type": "integer", "references": {"table": "users"}}]},
  {"name": "audits", "permissions": {"read": "key"}, "columns": [
    {"name": "what", "type": "text"},
    {"name": "user_id", "type": "integer", "references": {"table": "users"}}]},
  {"name": "counters", "permissions": {"read": "public"}, "columns": [
    {"name": "n", "type": "integer"}]},
  {"name": "tags", "permissions": {"read": "public"}, "columns": [
    {"name": "name", "type": "text", "required": true, "unique": true}]},
  {"name": "post_tags", "permissions": {"read": "key"}, "columns": [
    {"name": "post_id", "type": "integer", "required": true, "references": {"table": "posts", "on_delete": "cascade"}},
    {"name": "tag_id", "type": "integer", "required": true, "references": {"table": "tags", "on_delete": "cascade"}}]},
  {"name": "follows", "owner_column": "follower_id", "permissions": {"read": "owner"}, "columns": [
    {"name": "follower_id", "type": "integer", "required": true, "references": {"table": "users"}, "reverse_relation": "follows_out"},
    {"name": "followee_id", "type": "integer", "required": true, "references": {"table": "users"}, "reverse_relation": "follows_in"}]}
]}`

func testPublished(t testing.TB) *Published {
	t.Helper()
	d, err := schema.Parse([]byte(blogDoc))
	if err != nil {
		t.Fatal(err)
	}
	c, err := schema.Compile(d)
	if err != nil {
		t.Fatal(err)
	}
	return Prepare("p_test", c)
}

// build parses a query string and plans it against table of the test
// schema as an API key (or the given reader).
func build(t testing.TB, pub *Published, table, rawQuery string, reader ...access.Principal) (*ListSQL, error) {
	t.Helper()
	vals, err := url.ParseQuery(rawQuery)
	if err != nil {
		t.Fatalf("query %q: %v", rawQuery, err)
	}
	q, err := ParseList(vals)
	if err != nil {
		return nil, err
	}
	q.Caller = access.Key("", false)
	if len(reader) > 0 {
		q.Caller = reader[0]
	}
	tbl, ok := pub.Compiled.Table(table)
	if !ok {
		t.Fatalf("no table %s", table)
	}
	if g, err := access.Decide(q.Caller, tbl, access.Read); err == nil {
		q.Rows = g.Rows
	}
	return BuildList(pub, tbl, q)
}

// goldenCases are the statements pinned in testdata/golden: each file
// holds the query, the SQL and the arguments, so a change to the renderer
// shows up as a reviewable diff (go test ./translate -run Golden -update).
var goldenCases = []struct {
	name, table, query string
	reader             access.Principal
}{
	{"default", "posts", "", access.Key("", false)},
	{"page_and_limit", "posts", "page=3&limit=10", access.Key("", false)},
	{"offset", "posts", "limit=5&offset=7", access.Key("", false)},
	{"count_exact", "posts", "count=exact", access.Key("", false)},
	{"count_none", "posts", "count=none", access.Key("", false)},
	{"sort_list_and_order", "users", "sort=name,-age&order=desc", access.Key("", false)},
	{"order_alone_reverses_id", "users", "order=desc", access.Key("", false)},
	{"sort_by_id_has_no_tiebreak", "users", "sort=-id", access.Key("", false)},
	{"filter_equality_typed", "users", "filter[age]=30&filter[is_active]=true&filter[email]=Ann@Example.com", access.Key("", false)},
	{"filter_operators", "users", "filter[age][gte]=18&filter[age][lt]=65&filter[score][ne]=1.5&filter[seen_at][gt]=2026-01-02T03:04:05Z&filter[born][lte]=2000-01-01", access.Key("", false)},
	{"filter_like_escapes_wildcards", "users", "filter[name][like]=" + url.QueryEscape(`50%_off\`), access.Key("", false)},
	{"filter_in_typed_array", "users", "filter[age][in]=1,2,3&filter[tier][in]=gold,silver", access.Key("", false)},
	{"filter_null", "users", "filter[site][null]=true&filter[ref][null]=false", access.Key("", false)},
	{"filter_expression", "users", "filter=" + url.QueryEscape("age >= 18 and (name ~ 'ann' or is_active = true) and not tier = null"), access.Key("", false)},
	{"filter_expression_and_fields_combine", "users", "filter[tier]=gold&filter=" + url.QueryEscape("balance > 10.50 or name !~ 'x'"), access.Key("", false)},
	{"search_every_text_column", "users", "search=ann_1%25", access.Key("", false)},
	{"fields_keep_id", "users", "fields=name,email", access.Key("", false)},
	{"next_cursor_reads_a_timestamp_key_again", "users", "sort=-seen_at", access.Key("", false)},
	{"next_cursor_reads_a_key_fields_leave_out_again", "users", "sort=age&fields=name", access.Key("", false)},
	{"include_to_one", "posts", "include=author", access.Key("", false)},
	{"include_to_many", "users", "include=posts", access.Key("", false)},
	{"include_nested_three_levels", "comments", "include=post.author.posts,post.comments", access.Key("", false)},
	{"include_with_filter_sort_page", "posts", "include=author,comments&filter[title][like]=go&sort=-title&page=2&limit=5&fields=title", access.Key("", false)},
	{"owner_scopes_root_and_embeds", "users", "include=notes,audits", access.Key("", false)},
	{"owner_scope_for_an_end_user", "users", "include=notes&filter[age][gt]=1", access.User(int64(7))},
	{"owner_table_listed_by_end_user", "notes", "include=user", access.User(int64(7))},
	{"include_options_sort_limit_fields", "users", "include=" + url.QueryEscape("posts(fields=title,sort=-title,limit=3).comments(limit=2)"), access.Key("", false)},
	{"include_many_to_many", "posts", "include=" + url.QueryEscape("tags(sort=name,limit=5)"), access.Key("", false)},
	{"include_many_to_many_reverse", "tags", "include=posts.author", access.Key("", false)},
	{"include_self_junction_owner_scoped", "users", "include=follows_followee", access.User(int64(7))},
	{"filter_through_many_to_many", "posts", "filter[tags.name]=go&filter=" + url.QueryEscape("not tags.name = 'spam'"), access.Key("", false)},
}

func TestListSQLMatchesGolden(t *testing.T) {
	pub := testPublished(t)
	for _, tc := range goldenCases {
		t.Run(tc.name, func(t *testing.T) {
			ls, err := build(t, pub, tc.table, tc.query, tc.reader)
			if err != nil {
				t.Fatalf("build: %v", err)
			}
			stmt, estArgs := ls.Estimate()
			got := fmt.Sprintf("table: %s\nquery: %s\n\nsql:\n%s\n\nargs:\n%s\nestimate:\n%s\nestimate args: %d\n",
				tc.table, tc.query, indentSQL(ls.SQL), describeArgs(t, ls.Args), stmt, len(estArgs))
			path := filepath.Join("testdata", "golden", tc.name+".txt")
			if *update {
				if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
					t.Fatal(err)
				}
				if err := os.WriteFile(path, []byte(got), 0o644); err != nil {
					t.Fatal(err)
				}
				return
			}
			want, err := os.ReadFile(path)
			if err != nil {
				t.Fatalf("%v (run with -update to create it)", err)
			}
			if got != string(want) {
				t.Errorf("SQL of %s changed.\n--- want\n%s\n--- got\n%s", tc.name, want, got)
			}
		})
	}
}

// indentSQL breaks a statement before its clauses, only for reading.
func indentSQL(s string) string {
	for _, kw := range []string{", (SELECT row_to_json", ", coalesce((SELECT json_agg", " FROM (SELECT", " ORDER BY", ", (SELECT coalesce"} {
		s = strings.ReplaceAll(s, kw, "\n "+kw)
	}
	return s
}

// describeArgs prints each argument with its Go type, and arrays in the
// text form the driver sends.
func describeArgs(t testing.TB, args []any) string {
	var b strings.Builder
	for i, a := range args {
		var s string
		switch x := a.(type) {
		case pgArray:
			v, err := x.Value()
			if err != nil {
				t.Fatal(err)
			}
			s = fmt.Sprintf("array %s", v)
		case time.Time:
			s = "time " + x.Format(time.RFC3339Nano)
		default:
			raw, _ := json.Marshal(a)
			s = fmt.Sprintf("%T %s", a, raw)
		}
		fmt.Fprintf(&b, "$%d = %s\n", i+1, s)
	}
	return b.String()
}

// Uncounted is exactly the list count=none renders: same text, same
// arguments, whatever count the list had (the inline estimate's table
// argument, which only the count uses, comes last and is left off).
func TestUncountedIsTheListCountNoneRenders(t *testing.T) {
	pub := testPublished(t)
	for _, raw := range []string{
		"", // unfiltered: an inline estimate
		"filter[age][gte]=3&sort=-age",
		"sort=name&page=3&limit=7",
		"include=posts",
		"filter=" + url.QueryEscape("age > 3 or name = 'x'") + "&limit=5",
	} {
		counted, err := build(t, pub, "users", raw)
		if err != nil {
			t.Fatal(err)
		}
		none, err := build(t, pub, "users", raw+"&count=none")
		if err != nil {
			t.Fatal(err)
		}
		got := counted.Uncounted()
		if got.SQL != none.SQL || fmt.Sprintf("%#v", []any(got.Args)) != fmt.Sprintf("%#v", append([]any{}, none.Args...)) {
			t.Errorf("?%s: Uncounted\n%s %v\nwant count=none's\n%s %v", raw, got.SQL, got.Args, none.SQL, none.Args)
		}
	}
}
