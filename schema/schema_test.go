package schema

import (
	"encoding/json"
	"strings"
	"testing"
)

func mustParse(t *testing.T, s string) Document {
	t.Helper()
	d, err := Parse([]byte(s))
	if err != nil {
		t.Fatal(err)
	}
	return d
}

func TestParseRejectsUnknownKeys(t *testing.T) {
	if _, err := Parse([]byte(`{"tables": [{"name": "a", "columns": [{"name": "b", "type": "text", "requird": true}]}]}`)); err == nil {
		t.Fatal("a misspelled constraint parsed")
	}
}

func TestValidateAcceptsTheContractExample(t *testing.T) {
	d := mustParse(t, `{"tables": [
	  {"name": "users", "auth": true,
	   "columns": [
	     {"name": "email", "type": "email", "required": true, "unique": true},
	     {"name": "name", "type": "text", "max_length": 100},
	     {"name": "password_hash", "type": "password", "required": true},
	     {"name": "age", "type": "integer", "min": 0},
	     {"name": "is_active", "type": "boolean", "default": true}]},
	  {"name": "posts", "owner_column": "author_id", "permissions": {"read": "public", "update": "owner"},
	   "columns": [
	     {"name": "title", "type": "text", "required": true, "searchable": true},
	     {"name": "author_id", "type": "integer", "references": {"table": "users", "on_delete": "cascade"}}]}]}`)
	if p := Validate(d); len(p) > 0 {
		t.Fatalf("problems: %v", p)
	}
	c, err := Compile(d)
	if err != nil {
		t.Fatal(err)
	}
	posts, _ := c.Table("posts")
	users, _ := c.Table("users")
	if r := posts.Relations["author"]; r == nil || r.Many || r.To != users || r.FromCol.Name != "author_id" || r.ToCol.Name != "id" {
		t.Fatalf("forward relation = %+v", posts.Relations["author"])
	}
	if r := users.Relations["posts"]; r == nil || !r.Many || r.To != posts || r.ToCol.Name != "author_id" {
		t.Fatalf("reverse relation = %+v", users.Relations["posts"])
	}
	if pw, _ := users.Column("password_hash"); !pw.Hidden || pw.Input != "password" || users.Inputs["password"] != pw {
		t.Fatalf("password column = %+v", pw)
	}
	if c.Auth != users || posts.Owner == nil || posts.Level("read") != LevelPublic || posts.Level("delete") != LevelAuthenticated {
		t.Fatal("auth table, owner or permission levels not compiled")
	}
	names := []string{}
	for _, col := range users.Columns {
		names = append(names, col.Name)
	}
	if got := strings.Join(names, ","); got != "id,email,name,password_hash,age,is_active,created_at,updated_at" {
		t.Fatalf("column order = %s", got)
	}
}

func TestValidateReportsEachProblemByPath(t *testing.T) {
	cases := []struct{ doc, path, sub string }{
		{`{"tables": [{"name": "9x", "columns": []}]}`, "tables[0].name", "lowercase"},
		{`{"tables": [{"name": "docs", "columns": []}]}`, "tables[0].name", "reserved"},
		{`{"tables": [{"name": "a", "columns": []}, {"name": "a", "columns": []}]}`, "tables[1].name", "duplicate"},
		{`{"tables": [{"name": "a", "columns": [{"name": "created_at", "type": "text"}]}]}`, "tables[0].columns[0].name", "system column"},
		{`{"tables": [{"name": "a", "columns": [{"name": "b", "type": "text"}, {"name": "b", "type": "text"}]}]}`, "tables[0].columns[1].name", "duplicate"},
		{`{"tables": [{"name": "a", "columns": [{"name": "b", "type": "varchar"}]}]}`, "tables[0].columns[0].type", "unknown type"},
		{`{"tables": [{"name": "a", "columns": [{"name": "b", "type": "text", "min": 1}]}]}`, "tables[0].columns[0].min", "integer, number and decimal"},
		{`{"tables": [{"name": "a", "columns": [{"name": "b", "type": "integer", "max_length": 1}]}]}`, "tables[0].columns[0].max_length", "text-like"},
		{`{"tables": [{"name": "a", "columns": [{"name": "b", "type": "text", "pattern": "("}]}]}`, "tables[0].columns[0].pattern", "regular expression"},
		{`{"tables": [{"name": "a", "columns": [{"name": "b", "type": "enum", "values": ["x", "x"]}]}]}`, "tables[0].columns[0].values", "distinct"},
		{`{"tables": [{"name": "a", "columns": [{"name": "b", "type": "text", "values": ["x"]}]}]}`, "tables[0].columns[0].values", "enum columns only"},
		{`{"tables": [{"name": "a", "columns": [{"name": "b", "type": "integer", "searchable": true}]}]}`, "tables[0].columns[0].searchable", "searchable"},
		{`{"tables": [{"name": "a", "columns": [{"name": "b", "type": "integer", "default": "x"}]}]}`, "tables[0].columns[0].default", "integer"},
		{`{"tables": [{"name": "a", "columns": [{"name": "b", "type": "enum", "values": ["x"], "default": "y"}]}]}`, "tables[0].columns[0].default", "one of"},
		{`{"tables": [{"name": "a", "columns": [{"name": "b_id", "type": "text", "references": {"table": "a"}}]}]}`, "tables[0].columns[0].type", "must be integer"},
		{`{"tables": [{"name": "a", "columns": [{"name": "b_id", "type": "integer", "required": true, "references": {"table": "a", "on_delete": "set_null"}}]}]}`, "tables[0].columns[0].references.on_delete", "not required"},
		{`{"tables": [{"name": "a", "columns": [{"name": "b_id", "type": "integer", "references": {"table": "a", "on_delete": "explode"}}]}]}`, "tables[0].columns[0].references.on_delete", "cascade"},
		{`{"tables": [{"name": "a", "auth": true, "columns": [{"name": "email", "type": "email"}]}]}`, "tables[0].auth", "password"},
		{`{"tables": [{"name": "a", "owner_column": "nope", "columns": []}]}`, "tables[0].owner_column", "no column"},
		{`{"tables": [{"name": "a", "permissions": {"read": "owner"}, "columns": []}]}`, "tables[0].permissions.read", "owner_column"},
		{`{"tables": [{"name": "a", "permissions": {"delete": "admins"}, "columns": []}]}`, "tables[0].permissions.delete", "public"},
		{`{"tables": [{"name": "a", "id_type": "serial", "columns": []}]}`, "tables[0].id_type", "integer or uuid"},
		{`{"tables": [{"name": "u", "columns": []}, {"name": "p", "columns": [
			{"name": "author_id", "type": "integer", "references": {"table": "u"}},
			{"name": "editor_id", "type": "integer", "references": {"table": "u"}}]}]}`, "tables[1].columns[1].reverse_relation", "also defined"},
		{`{"tables": [{"name": "u", "columns": [{"name": "p", "type": "text"}]}, {"name": "p", "columns": [
			{"name": "u_id", "type": "integer", "references": {"table": "u"}}]}]}`, "tables[1].columns[0].reverse_relation", "clashes with a column"},
	}
	for _, c := range cases {
		p := Validate(mustParse(t, c.doc))
		if !strings.Contains(p[c.path], c.sub) {
			t.Errorf("%s\n  problems = %v\n  want %s to mention %q", c.doc, p, c.path, c.sub)
		}
	}
}

func TestCreateTableDDLCarriesEveryConstraint(t *testing.T) {
	d := mustParse(t, `{"tables": [{"name": "items", "columns": [
		{"name": "title", "type": "text", "required": true, "max_length": 80, "searchable": true},
		{"name": "sku", "type": "text", "unique": true},
		{"name": "qty", "type": "integer", "min": 0, "default": 1, "index": true},
		{"name": "kind", "type": "enum", "values": ["a", "it's"]},
		{"name": "meta", "type": "json", "default": {"x": 1}},
		{"name": "seen", "type": "timestamp", "default": "now"}]}]}`)
	g := DDL{Schema: "p_test", Trigram: true}
	got := strings.Join(g.CreateTable(d.Tables[0]), ";\n")
	for _, want := range []string{
		`CREATE TABLE "p_test"."items"`,
		`"id" bigint GENERATED BY DEFAULT AS IDENTITY PRIMARY KEY`,
		`"title" text NOT NULL CONSTRAINT "items_title_check" CHECK (char_length("title") <= 80)`,
		`"sku" text CONSTRAINT "items_sku_key" UNIQUE`,
		`"qty" bigint DEFAULT 1 CONSTRAINT "items_qty_check" CHECK ("qty" >= 0)`,
		`"kind" text CONSTRAINT "items_kind_check" CHECK ("kind" IN ('a', 'it''s'))`,
		`"meta" jsonb DEFAULT '{"x":1}'::jsonb`,
		`"seen" timestamptz DEFAULT now()`,
		`"created_at" timestamptz NOT NULL DEFAULT now()`,
		`CREATE INDEX "items_qty_sort" ON "p_test"."items" ("qty", "id")`,
		`CREATE INDEX "items_sku_sort" ON "p_test"."items" ("sku", "id")`, // unique but nullable
		`CREATE INDEX "items_title_trgm" ON "p_test"."items" USING gin ("title" public.gin_trgm_ops)`,
	} {
		if !strings.Contains(got, want) {
			t.Errorf("DDL lacks %s\n%s", want, got)
		}
	}
}

func TestDiffPlansRenamesAndFlagsDrops(t *testing.T) {
	pub := mustParse(t, `{"tables": [
		{"name": "users", "columns": [{"name": "mail", "type": "email"}, {"name": "old", "type": "text"}]},
		{"name": "tmp", "columns": []}]}`)
	draft := mustParse(t, `{"tables": [
		{"name": "people", "renamed_from": "users", "columns": [{"name": "email", "type": "email", "renamed_from": "mail"}, {"name": "bio", "type": "text"}]}]}`)
	p := Diff(DDL{Schema: "s"}, pub, draft)
	kinds := []string{}
	for _, c := range p.Changes {
		kinds = append(kinds, c.Kind+":"+c.Table+"."+c.Column)
	}
	got := strings.Join(kinds, " ")
	for _, want := range []string{"rename_table:people.", "rename_column:people.email", "add_column:people.bio", "drop_column:people.old", "drop_table:tmp."} {
		if !strings.Contains(got, want) {
			t.Errorf("changes %s lack %s", got, want)
		}
	}
	if !p.Destructive || len(p.Lost()) != 2 {
		t.Fatalf("destructive = %v, lost = %v", p.Destructive, p.Lost())
	}
	if !strings.HasPrefix(p.Statements[0], `ALTER TABLE "s"."users" RENAME TO "people"`) {
		t.Fatalf("the table rename must run first: %v", p.Statements)
	}
	raw, _ := json.Marshal(p)
	if !json.Valid(raw) {
		t.Fatal("plan does not marshal")
	}
}

func TestCheckValueNormalizesAndRejects(t *testing.T) {
	email := &Column{Name: "e", Type: TypeEmail}
	if v, msg := CheckValue(email, " A@B.CO "); msg != "" || v != "a@b.co" {
		t.Fatalf("email = %v %q", v, msg)
	}
	if _, msg := CheckValue(email, "a@b"); msg != MsgInvalidEmail {
		t.Fatalf("email without a dot in the domain = %q", msg)
	}
	req := &Column{Name: "r", Type: TypeText, Required: true}
	if _, msg := CheckValue(req, nil); msg == "" {
		t.Fatal("null accepted for a required column")
	}
}

func TestConstraintNamesStayWithinPostgresLimit(t *testing.T) {
	long := strings.Repeat("a", 63)
	n := ConstraintName(long, long, "key")
	if len(n) > 63 || n == ConstraintName(long, long+"b", "key") {
		t.Fatalf("name %q (%d bytes)", n, len(n))
	}
}
