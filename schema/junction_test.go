package schema

import (
	"strings"
	"testing"
)

const shopJunctions = `{"tables": [
  {"name": "posts", "columns": [{"name": "title", "type": "text"}]},
  {"name": "tags", "columns": [{"name": "name", "type": "text"}]},
  {"name": "post_tags", "columns": [
    {"name": "post_id", "type": "integer", "required": true, "references": {"table": "posts"}},
    {"name": "tag_id", "type": "integer", "required": true, "references": {"table": "tags"}}]},
  {"name": "memberships", "junction": true, "columns": [
    {"name": "post_id", "type": "integer", "required": true, "references": {"table": "posts"}, "reverse_relation": "post_memberships"},
    {"name": "tag_id", "type": "integer", "required": true, "references": {"table": "tags"}, "reverse_relation": "tag_memberships"},
    {"name": "role", "type": "text"}]},
  {"name": "links", "columns": [
    {"name": "post_id", "type": "integer", "references": {"table": "posts"}, "reverse_relation": "post_links"},
    {"name": "tag_id", "type": "integer", "required": true, "references": {"table": "tags"}, "reverse_relation": "tag_links"}]},
  {"name": "follows", "columns": [
    {"name": "follower_id", "type": "integer", "required": true, "references": {"table": "posts"}, "reverse_relation": "out"},
    {"name": "followee_id", "type": "integer", "required": true, "references": {"table": "posts"}, "reverse_relation": "in"}]}
]}`

func TestJunctionsLinkBothWays(t *testing.T) {
	c, err := Compile(mustParse(t, shopJunctions))
	if err != nil {
		t.Fatal(err)
	}
	posts, _ := c.Table("posts")
	tags, _ := c.Table("tags")
	want := map[string]struct {
		from          *CTable
		to, via, near string
	}{
		// The first junction takes the plain names.
		"tags":  {posts, "tags", "post_tags", "post_id"},
		"posts": {tags, "posts", "post_tags", "tag_id"},
		// A marked junction with a column of its own links too; its plain
		// names are taken, so it is named after itself.
		"memberships_tag":  {posts, "tags", "memberships", "post_id"},
		"memberships_post": {tags, "posts", "memberships", "tag_id"},
		// A junction of a table with itself is named after the far end.
		"follows_followee": {posts, "posts", "follows", "follower_id"},
		"follows_follower": {posts, "posts", "follows", "followee_id"},
	}
	for name, w := range want {
		r, ok := w.from.Relations[name]
		if !ok {
			t.Errorf("%s has no relation %s (has %v)", w.from.Name, name, w.from.RelationNames)
			continue
		}
		if !r.Many || r.To.Name != w.to || r.Through == nil || r.Through.Name != w.via || r.ThroughFrom.Name != w.near ||
			r.FromCol != w.from.PK || r.ToCol != r.To.PK {
			t.Errorf("%s.%s = %+v", w.from.Name, name, r)
		}
	}
	// An optional reference makes links an ordinary table.
	for _, n := range posts.RelationNames {
		if strings.HasPrefix(n, "links_") {
			t.Errorf("links is not a junction, yet posts has %s", n)
		}
	}
	if got := strings.Join(tags.RelationNames, ","); got != "memberships_post,post_tags,posts,tag_links,tag_memberships" {
		t.Errorf("tags relations = %s", got)
	}
}

func TestJunctionMarkNeedsTwoRequiredReferences(t *testing.T) {
	for _, doc := range []string{
		`{"tables": [{"name": "a", "columns": []}, {"name": "j", "junction": true, "columns": [
			{"name": "a_id", "type": "integer", "required": true, "references": {"table": "a"}}]}]}`,
		`{"tables": [{"name": "a", "columns": []}, {"name": "j", "junction": true, "columns": [
			{"name": "a_id", "type": "integer", "required": true, "references": {"table": "a"}, "reverse_relation": "x"},
			{"name": "b_id", "type": "integer", "references": {"table": "a"}, "reverse_relation": "y"}]}]}`,
	} {
		p := Validate(mustParse(t, doc))
		if !strings.Contains(p["tables[1].junction"], "exactly two required reference columns") {
			t.Errorf("%s: problems = %v", doc, p)
		}
	}
}

func TestJunctionMarkReportsANameClash(t *testing.T) {
	// Both candidate names of the relation from a to b are columns of a.
	doc := `{"tables": [{"name": "a", "columns": [{"name": "b", "type": "text"}, {"name": "j_b", "type": "text"}]},
		{"name": "b", "columns": []},
		{"name": "j", "junction": true, "columns": [
			{"name": "a_id", "type": "integer", "required": true, "references": {"table": "a"}},
			{"name": "b_id", "type": "integer", "required": true, "references": {"table": "b"}}]}]}`
	p := Validate(mustParse(t, doc))
	if !strings.Contains(p["tables[2].junction"], "has no free name") {
		t.Fatalf("problems = %v", p)
	}
	// Unmarked, the same table is a junction without that relation.
	c, err := Compile(mustParse(t, strings.Replace(doc, `"junction": true, `, "", 1)))
	if err != nil {
		t.Fatal(err)
	}
	a, _ := c.Table("a")
	b, _ := c.Table("b")
	if _, ok := a.Relations["b"]; ok {
		t.Errorf("a's column b became a relation")
	}
	if r, ok := b.Relations["a"]; !ok || r.Through == nil {
		t.Errorf("b lost its relation a through j: %v", b.RelationNames)
	}
}
