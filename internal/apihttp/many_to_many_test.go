package apihttp_test

import (
	"context"
	"net/url"
	"reflect"
	"sort"
	"strings"
	"testing"

	"github.com/tablesmith/tablesmith/internal/testserver"
)

// socialSchema links tables many-to-many three ways: an unmarked junction
// (post_tags), a marked one with a column of its own and a key-only read
// rule (memberships), and an owner-read junction of a table with itself
// (follows).
const socialSchema = `{"tables": [
	{"name": "members", "auth": true, "columns": [
		{"name": "email", "type": "email", "required": true, "unique": true},
		{"name": "password_hash", "type": "password", "required": true}]},
	{"name": "posts", "permissions": {"read": "public"}, "columns": [
		{"name": "title", "type": "text", "required": true}]},
	{"name": "tags", "permissions": {"read": "public"}, "columns": [
		{"name": "name", "type": "text", "required": true, "unique": true},
		{"name": "color", "type": "text"}]},
	{"name": "post_tags", "permissions": {"read": "public"}, "columns": [
		{"name": "post_id", "type": "integer", "required": true, "references": {"table": "posts", "on_delete": "cascade"}},
		{"name": "tag_id", "type": "integer", "required": true, "references": {"table": "tags", "on_delete": "cascade"}}]},
	{"name": "groups", "permissions": {"read": "public"}, "columns": [
		{"name": "name", "type": "text"}]},
	{"name": "memberships", "junction": true, "permissions": {"read": "key"}, "columns": [
		{"name": "member_id", "type": "integer", "required": true, "references": {"table": "members"}},
		{"name": "group_id", "type": "integer", "required": true, "references": {"table": "groups"}},
		{"name": "role", "type": "text"}]},
	{"name": "follows", "owner_column": "follower_id", "permissions": {"read": "owner"}, "columns": [
		{"name": "follower_id", "type": "integer", "required": true, "references": {"table": "members"}, "reverse_relation": "follows_out"},
		{"name": "followee_id", "type": "integer", "required": true, "references": {"table": "members"}, "reverse_relation": "follows_in"}]}]}`

func seedSocial(t *testing.T, s *testserver.Server, p *testserver.Project) {
	t.Helper()
	execIn(t, s, p,
		`INSERT INTO $s.members (email, password_hash) VALUES ('one@example.com', 'x'), ('two@example.com', 'x'), ('three@example.com', 'x')`,
		`INSERT INTO $s.posts (title) VALUES ('go'), ('rust'), ('zig'), ('untagged')`,
		`INSERT INTO $s.tags (name, color) VALUES ('lang', 'red'), ('systems', 'blue'), ('fast', 'green'), ('unused', NULL)`,
		// post 1: lang, fast (fast twice: a pair listed twice embeds once)
		`INSERT INTO $s.post_tags (post_id, tag_id) VALUES (1, 1), (1, 3), (1, 3), (2, 1), (2, 2), (2, 3), (3, 2)`,
		`INSERT INTO $s.groups (name) VALUES ('admins'), ('readers')`,
		`INSERT INTO $s.memberships (member_id, group_id, role) VALUES (1, 1, 'owner'), (1, 2, NULL), (2, 2, NULL)`,
		`INSERT INTO $s.follows (follower_id, followee_id) VALUES (1, 2), (1, 3), (2, 1)`,
	)
}

func embeddedField(rows []any, relation, field string) [][]any {
	out := [][]any{}
	for _, r := range rows {
		var vals []any
		for _, e := range r.(map[string]any)[relation].([]any) {
			vals = append(vals, e.(map[string]any)[field])
		}
		out = append(out, vals)
	}
	return out
}

func TestIncludeGoesThroughJunctionTablesBothWays(t *testing.T) {
	t.Parallel()
	s := testserver.New(t)
	p := s.NewProject(socialSchema)
	seedSocial(t, s, p)
	srv, log := countedAPI(t, s, p, socialSchema)
	base := "/v1/" + p.ID
	embedded := func(path, relation, field string) [][]any {
		t.Helper()
		log.take()
		status, body := getJSON(t, srv, base+path, p.Key)
		if stmts := log.take(); status != 200 || len(stmts) != 1 {
			t.Fatalf("GET %s: %d in %d statements: %v", path, status, len(stmts), body)
		}
		return embeddedField(body["data"].([]any), relation, field)
	}
	for _, c := range []struct {
		path, relation, field string
		want                  [][]any
	}{
		// by key by default, a duplicated pair once, [] for none
		{"/posts?include=tags", "tags", "name", [][]any{{"lang", "fast"}, {"lang", "systems", "fast"}, {"systems"}, nil}},
		{"/tags?include=posts", "posts", "title", [][]any{{"go", "rust"}, {"rust", "zig"}, {"go", "rust"}, nil}},
		// per-embed sort and limit
		{"/posts?include=" + url.QueryEscape("tags(sort=name)"), "tags", "name", [][]any{{"fast", "lang"}, {"fast", "lang", "systems"}, {"systems"}, nil}},
		{"/posts?include=" + url.QueryEscape("tags(sort=-name,limit=2)"), "tags", "name", [][]any{{"lang", "fast"}, {"systems", "lang"}, {"systems"}, nil}},
		{"/tags?include=" + url.QueryEscape("posts(sort=-title,limit=1)"), "posts", "title", [][]any{{"rust"}, {"zig"}, {"rust"}, nil}},
		// and on a plain to-many relation too
		{"/posts?filter[id]=2&include=" + url.QueryEscape("post_tags(sort=-tag_id,limit=2)"), "post_tags", "tag_id", [][]any{{3.0, 2.0}}},
	} {
		if got := embedded(c.path, c.relation, c.field); !reflect.DeepEqual(got, c.want) {
			t.Errorf("GET %s: embedded %v, want %v", c.path, got, c.want)
		}
	}

	// fields keep the key; nested includes continue through the junction
	_, body := getJSON(t, srv, base+"/posts?filter[id]=1&include="+url.QueryEscape("tags(fields=name).posts(fields=title,sort=title)"), p.Key)
	tag := body["data"].([]any)[0].(map[string]any)["tags"].([]any)[1].(map[string]any)
	keys := keysOf(tag)
	sort.Strings(keys)
	if !reflect.DeepEqual(keys, []string{"id", "name", "posts"}) || tag["name"] != "fast" {
		t.Fatalf("tags(fields=name).posts: tag = %v", tag)
	}
	if got := embeddedField([]any{tag}, "posts", "title"); !reflect.DeepEqual(got, [][]any{{"go", "rust"}}) {
		t.Fatalf("fast's posts = %v", got)
	}

	// a marked junction with a column of its own; filters go through it
	runListCases(t, s, p, []listCase{
		{"posts", query("filter[tags.name]", "systems"), []int{2, 3}},
		{"posts", query("filter", "not tags.color = 'green'"), []int{3, 4}},
		{"tags", query("filter[posts.title][like]", "zi"), []int{2}},
		{"members", query("filter[groups.name]", "readers"), []int{1, 2}},
	})
	_, body = getJSON(t, srv, base+"/members?include=groups", p.Key)
	if got := embeddedField(body["data"].([]any), "groups", "name"); !reflect.DeepEqual(got, [][]any{{"admins", "readers"}, {"readers"}, nil}) {
		t.Fatalf("members?include=groups = %v", got)
	}

	for _, q := range []string{"tags(limit=0)", "tags(sort=nope)", "tags(fields=nope)", "tags(color=red)", "tags(limit=2", "nope(limit=1)"} {
		r := s.API(p, "GET", "/posts?include="+url.QueryEscape(q), nil)
		if r.Status != 400 || r.ErrorCode() != "INVALID_QUERY" || r.Details()["include"] == nil {
			t.Errorf("include=%s: want 400 INVALID_QUERY naming include, got %d %s", q, r.Status, r.Raw)
		}
	}
}

// The junction's read rule and owner scope apply as if it were read
// directly: an end user sees only their own follows, and a key-only
// junction is refused to them.
func TestIncludeThroughAJunctionAppliesItsReadRule(t *testing.T) {
	t.Parallel()
	s := testserver.New(t)
	p := s.NewProject(socialSchema)
	seedSocial(t, s, p)
	srv, _ := countedAPI(t, s, p, socialSchema)
	base := "/v1/" + p.ID
	followees := func(token string) [][]any {
		t.Helper()
		status, body := getJSON(t, srv, base+"/members?include=follows_followee", token)
		if status != 200 {
			t.Fatalf("as %q: %d %v", token, status, body)
		}
		return embeddedField(body["data"].([]any), "follows_followee", "email")
	}
	if got, want := followees(p.Key), [][]any{{"two@example.com", "three@example.com"}, {"one@example.com"}, nil}; !reflect.DeepEqual(got, want) {
		t.Errorf("key: %v, want %v", got, want)
	}
	if got, want := followees("user-1"), [][]any{{"two@example.com", "three@example.com"}, nil, nil}; !reflect.DeepEqual(got, want) {
		t.Errorf("user 1: %v, want %v", got, want)
	}
	if got, want := followees("user-2"), [][]any{nil, {"one@example.com"}, nil}; !reflect.DeepEqual(got, want) {
		t.Errorf("user 2: %v, want %v", got, want)
	}
	// the same scope in a filter: members user 1 follows
	status, body := getJSON(t, srv, base+"/members?"+query("filter[follows_follower.email][like]", "one"), "user-2")
	if got := idsOf(body["data"]); status != 200 || !reflect.DeepEqual(got, []int{}) {
		t.Errorf("user 2 sees members followed by one through one's follows: %d %v", status, body)
	}
	status, body = getJSON(t, srv, base+"/members?"+query("filter[follows_follower.email][like]", "one"), "user-1")
	if got := idsOf(body["data"]); status != 200 || !reflect.DeepEqual(got, []int{2, 3}) {
		t.Errorf("user 1's followees by filter: %d %v", status, body)
	}

	for _, path := range []string{"/members?include=groups", "/groups?include=members", "/members?" + query("filter[groups.name]", "admins")} {
		status, body := getJSON(t, srv, base+path, "user-1")
		e, _ := body["error"].(map[string]any)
		if status != 403 || e["code"] != "FORBIDDEN" || !strings.Contains(e["message"].(string), "memberships") {
			t.Errorf("GET %s as user 1: want 403 naming memberships, got %d %v", path, status, body)
		}
	}
}

// An include or a filter through a junction reads the junction by its
// reference index and the far table by its key: no scan of either per
// parent row.
func TestManyToManyReadsTheJunctionsReferenceIndex(t *testing.T) {
	t.Parallel()
	s := testserver.New(t)
	p := s.NewProject(socialSchema)
	execIn(t, s, p,
		`INSERT INTO $s.posts (title) SELECT 'post ' || g FROM generate_series(1, 5000) g`,
		`INSERT INTO $s.tags (name) SELECT 'tag ' || g FROM generate_series(1, 2000) g`,
		`INSERT INTO $s.post_tags (post_id, tag_id) SELECT g % 5000 + 1, g % 2000 + 1 FROM generate_series(1, 30000) g`,
		`ANALYZE $s.posts`, `ANALYZE $s.tags`, `ANALYZE $s.post_tags`,
	)
	entry, err := s.Svc.Registry.Get(context.Background(), p.ID)
	if err != nil {
		t.Fatal(err)
	}
	for _, c := range []struct {
		table, query string
		indexes      []string
	}{
		{"posts", "include=" + url.QueryEscape("tags(sort=name;limit=3)"), []string{"post_tags_post_id_sort", "tags_pkey"}},
		{"tags", "limit=5&include=posts", []string{"post_tags_tag_id_sort", "posts_pkey"}},
		{"posts", query("filter[id][lt]", "50", "filter[tags.name]", "tag 7"), []string{"post_tags_post_id_sort", "tags_name_key"}},
	} {
		plan := explainList(t, s.Svc.DB, buildFor(t, entry, c.table, c.query), false)
		_, used := planNodes(t, plan)
		for _, want := range c.indexes {
			if !contains(used, want) {
				t.Errorf("/%s?%s: plan reads indexes %v, want %s among them:\n%s", c.table, c.query, used, want, plan)
			}
		}
		walkPlan(t, plan, func(node map[string]any) {
			if node["Node Type"] == "Seq Scan" && node["Relation Name"] != c.table {
				t.Errorf("/%s?%s: plan scans %v", c.table, c.query, node["Relation Name"])
			}
		})
		s.API(p, "GET", "/"+c.table+"?"+c.query, nil).Must(t, 200)
	}
}
