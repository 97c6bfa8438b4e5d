package introspect

import (
	"encoding/json"
	"strings"
	"testing"

	"github.com/tablesmith/tablesmith/schema"
)

// catalogBuilder writes test catalogs tersely: a table with its columns,
// a primary key and whatever constraints follow.
type catalogBuilder struct{ cat Catalog }

func newCatalog() *catalogBuilder {
	return &catalogBuilder{cat: Catalog{Schema: "app", Enums: map[string][]string{}}}
}

func (b *catalogBuilder) table(name, kind string, cols ...CatalogColumn) *catalogBuilder {
	b.cat.Relations = append(b.cat.Relations, CatalogRelation{Name: name, Kind: kind, CanSelect: true, CanInsert: true, CanUpdate: true, CanDelete: true})
	for _, c := range cols {
		c.Table = name
		b.cat.Columns = append(b.cat.Columns, c)
	}
	return b
}

func (b *catalogBuilder) constraint(table, name, kind, def string, cols ...string) *catalogBuilder {
	b.cat.Constraints = append(b.cat.Constraints, CatalogConstraint{Table: table, Name: name, Kind: kind, Definition: def, Columns: cols})
	return b
}

func (b *catalogBuilder) fk(table, column, refTable, onDelete string) *catalogBuilder {
	b.cat.Constraints = append(b.cat.Constraints, CatalogConstraint{Table: table, Name: table + "_" + column + "_fkey", Kind: "f",
		Columns: []string{column}, RefSchema: "app", RefTable: refTable, RefColumns: []string{"id"}, OnDelete: onDelete})
	return b
}

func col(name, typ string, opts ...func(*CatalogColumn)) CatalogColumn {
	c := CatalogColumn{Name: name, Type: typ, BaseType: typ, TypeKind: "b"}
	switch typ {
	case "integer":
		c.BaseType = "int4"
	case "bigint":
		c.BaseType = "int8"
	case "text[]":
		c.BaseType, c.Category = "_text", "A"
	}
	for _, o := range opts {
		o(&c)
	}
	return c
}

func notNull(c *CatalogColumn) { c.NotNull = true }

func def(expr string) func(*CatalogColumn) { return func(c *CatalogColumn) { c.Default = expr } }

func serial(c *CatalogColumn) { c.NotNull, c.Default = true, "nextval('app.t_id_seq'::regclass)" }

func withPK(b *catalogBuilder, table string) *catalogBuilder {
	return b.constraint(table, table+"_pkey", "p", "PRIMARY KEY (id)", "id")
}

func TestIntrospectMapsColumnsKeysAndConstraints(t *testing.T) {
	b := newCatalog().table("accounts", "r",
		col("id", "integer", serial),
		col("email", "varchar", notNull, func(c *CatalogColumn) { c.Type, c.Length = "character varying(254)", 254 }),
		col("plan", "text", notNull, def("'free'::text")),
		col("score", "numeric", def("'1.50'::numeric")),
		col("active", "bool", notNull, def("true")),
		col("tags", "text[]", notNull, def("'{}'::text[]")),
		col("settings", "jsonb", notNull, def(`'{"a": 1}'::jsonb`)),
		col("joined", "timestamptz", notNull, def("now()")),
		col("token", "uuid", notNull, def("gen_random_uuid()")),
		col("rank", "int2", notNull, func(c *CatalogColumn) { c.Identity = "d" }),
		col("doc", "tsvector", func(c *CatalogColumn) { c.Generated = true }),
		col("created_at", "timestamp", notNull, def("CURRENT_TIMESTAMP")),
		col("updated_at", "timestamptz"),
		col("Legacy", "text", notNull),
	)
	withPK(b, "accounts").
		constraint("accounts", "accounts_email_key", "u", "UNIQUE (email)", "email").
		constraint("accounts", "accounts_plan_check", "c", "CHECK ((plan = ANY (ARRAY['free'::text, 'pro'::text])))", "plan").
		constraint("accounts", "accounts_score_check", "c", "CHECK (((score >= (0)::numeric) AND (score <= 10.5)))", "score")
	b.cat.Indexes = append(b.cat.Indexes, CatalogIndex{Table: "accounts", Name: "accounts_joined_idx", Columns: []string{"joined"}, Method: "btree"})
	in := Read(b.cat)
	if p := schema.Validate(in.Document); len(p) > 0 {
		t.Fatalf("invalid document: %v", p)
	}
	tb, _ := in.Document.Table("accounts")
	if tb.External == nil || *tb.External != (schema.ExternalTable{PrimaryKey: "id", HasCreatedAt: true, HasUpdatedAt: true}) || tb.IDType != "" {
		t.Fatalf("table = %+v", tb)
	}
	got, _ := json.Marshal(tb.Columns)
	want := `[{"name":"id","type":"integer"},` +
		`{"name":"email","type":"text","required":true,"unique":true,"max_length":254},` +
		`{"name":"plan","type":"enum","required":true,"default":"free","values":["free","pro"]},` +
		`{"name":"score","type":"decimal","default":1.50,"min":0,"max":10.5},` +
		`{"name":"active","type":"boolean","required":true,"default":true},` +
		`{"name":"tags","type":"passthrough","required":true,"pg_type":"text[]"},` +
		`{"name":"settings","type":"json","required":true,"default":{"a":1}},` +
		`{"name":"joined","type":"timestamp","required":true,"default":"now","index":true},` +
		`{"name":"token","type":"uuid"},` +
		`{"name":"rank","type":"integer"},` +
		`{"name":"doc","type":"passthrough","pg_type":"tsvector"},` +
		`{"name":"created_at","type":"timestamp","required":true,"default":"now"},` +
		`{"name":"updated_at","type":"timestamp"}]`
	if string(got) != want {
		t.Fatalf("columns:\n got %s\nwant %s", got, want)
	}
	notes := notesText(in)
	for _, want := range []string{"accounts.Legacy: left out of the API", "it is required and has no default, so creating records through the API fails",
		"accounts.tags: type text[] is not modeled", "accounts.doc: the database computes its value"} {
		if !strings.Contains(notes, want) {
			t.Errorf("notes lack %q:\n%s", want, notes)
		}
	}
	if _, err := schema.Compile(in.Document); err != nil {
		t.Fatal(err)
	}
}

func notesText(in Result) string {
	var lines []string
	for _, n := range in.Notes {
		where := n.Table
		if n.Column != "" {
			where += "." + n.Column
		}
		lines = append(lines, where+": "+n.Note)
	}
	return strings.Join(lines, "\n")
}

func TestIntrospectReportsWhatItCannotServeWithTheReason(t *testing.T) {
	b := newCatalog().
		table("no_key", "r", col("name", "text")).
		table("pair", "r", col("a", "integer", notNull), col("b", "integer", notNull)).
		constraint("pair", "pair_pkey", "p", "PRIMARY KEY (a, b)", "a", "b").
		table("codes", "r", col("code", "bpchar", notNull)).
		constraint("codes", "codes_pkey", "p", "PRIMARY KEY (code)", "code").
		table("report", "v", col("n", "bigint")).
		table("stats", "m", col("n", "bigint")).
		table("remote", "f", col("id", "integer")).
		table("log_2026", "r", col("id", "integer", notNull)).
		table("Mixed", "r", col("id", "integer", serial)).
		table("docs", "r", col("id", "integer", serial)).
		table("secret", "r", col("id", "integer", serial))
	withPK(b, "Mixed")
	withPK(b, "docs")
	withPK(b, "secret")
	b.cat.Relations[6].PartitionOf = "log"
	b.cat.Relations[9].CanSelect = false
	in := Read(b.cat)
	if len(in.Document.Tables) != 0 {
		t.Fatalf("served %v", in.Document.Tables)
	}
	want := map[string]string{
		"no_key": "table: it has no primary key", "pair": "table: its primary key is composite (a, b)",
		"codes": "table: its primary key code has type bpchar", "report": "view: views are not served",
		"stats": "materialized_view:", "remote": "foreign_table:", "log_2026": "partition: a partition of log",
		"Mixed": "table: its name cannot be an API path", "docs": `table: "docs" is a reserved path`,
		"secret": "table: the connection's role has no SELECT privilege",
	}
	for _, u := range in.Unsupported {
		if w, ok := want[u.Table]; !ok || !strings.HasPrefix(u.Kind+": "+u.Reason, w) {
			t.Errorf("%s: %s: %s, want %q", u.Table, u.Kind, u.Reason, w)
		}
		delete(want, u.Table)
	}
	if len(want) > 0 {
		t.Errorf("not reported: %v", want)
	}
}

func TestForeignKeysBecomeRelationsWithNamesThatNeverClash(t *testing.T) {
	b := newCatalog().
		table("users", "r", col("id", "integer", serial), col("author", "text")).
		table("posts", "r", col("id", "uuid", notNull, def("gen_random_uuid()")),
			col("author_id", "integer", notNull), col("editor_id", "integer"), col("author", "text"),
			col("posts", "text"), col("external_id", "integer")).
		table("comments", "r", col("id", "bigint", serial), col("post_id", "uuid", notNull), col("parent_id", "bigint"))
	withPK(b, "users")
	withPK(b, "posts")
	withPK(b, "comments")
	b.fk("posts", "author_id", "users", "c").fk("posts", "editor_id", "users", "n").
		fk("comments", "post_id", "posts", "a").fk("comments", "parent_id", "comments", "d")
	b.cat.Constraints = append(b.cat.Constraints, CatalogConstraint{Table: "posts", Name: "posts_external_id_fkey", Kind: "f",
		Columns: []string{"external_id"}, RefSchema: "billing", RefTable: "invoices", RefColumns: []string{"id"}})
	in := Read(b.cat)
	if p := schema.Validate(in.Document); len(p) > 0 {
		t.Fatalf("invalid: %v", p)
	}
	c, err := schema.Compile(in.Document)
	if err != nil {
		t.Fatal(err)
	}
	users, _ := c.Table("users")
	posts, _ := c.Table("posts")
	comments, _ := c.Table("comments")
	if got := strings.Join(users.RelationNames, ","); got != "posts,posts_by_editor" {
		t.Errorf("users relations = %s", got)
	}
	// posts has a column named author, so the relation of author_id
	// cannot be "author"; its reverse relation from comments is "comments".
	if got := strings.Join(posts.RelationNames, ","); got != "author_ref,comments,editor" {
		t.Errorf("posts relations = %s", got)
	}
	if got := strings.Join(comments.RelationNames, ","); got != "comments,parent,post" {
		t.Errorf("comments relations = %s", got)
	}
	p, _ := in.Document.Table("posts")
	author, _ := p.Column("author_id")
	editor, _ := p.Column("editor_id")
	ext, _ := p.Column("external_id")
	if author.References.OnDelete != schema.OnDeleteCascade || editor.References.OnDelete != schema.OnDeleteSetNull || ext.References != nil {
		t.Errorf("references = %+v %+v %+v", author.References, editor.References, ext.References)
	}
	if !strings.Contains(notesText(in), "posts.external_id: it references billing.invoices in another schema") ||
		!strings.Contains(notesText(in), "comments.parent_id: its foreign key sets the default on delete") {
		t.Errorf("notes = %s", notesText(in))
	}
}

func TestCheckConstraintsThatMapToColumnRules(t *testing.T) {
	intCol := schema.Column{Name: "n", Type: schema.TypeInteger}
	numCol := schema.Column{Name: "x", Type: schema.TypeNumber}
	textCol := schema.Column{Name: "s", Type: schema.TypeText}
	cases := []struct {
		col  schema.Column
		def  string
		ok   bool
		want string
	}{
		{intCol, "CHECK ((n >= 0))", true, `"min":0`},
		{intCol, "CHECK (((n >= 1) AND (n <= 5)))", true, `"min":1,"max":5`},
		{intCol, "CHECK ((n > 0))", true, `"min":1`},
		{intCol, "CHECK ((n < 10))", true, `"max":9`},
		{intCol, "CHECK ((n >= '-5'::integer))", true, `"min":-5`},
		{intCol, "CHECK ((n >= (-5)))", true, `"min":-5`},
		{intCol, "CHECK (((n % 2) = 0))", false, ``},
		{intCol, "CHECK (((n >= 0) OR (n IS NULL)))", false, ``},
		{numCol, "CHECK (((x > (0)::double precision) AND (x <= (1000)::double precision)))", false, `"max":1000`},
		{numCol, "CHECK ((x >= (0.5)::double precision)) NOT VALID", true, `"min":0.5`},
		{textCol, "CHECK ((char_length(s) <= 100))", true, `"max_length":100`},
		{textCol, "CHECK (((char_length((s)::text) >= 2) AND (char_length((s)::text) <= 8)))", true, `"min_length":2,"max_length":8`},
		{textCol, "CHECK ((length(s) > 0))", true, `"min_length":1`},
		{textCol, "CHECK ((s = ANY (ARRAY['a'::text, 'b c'::text, 'it''s'::text])))", true, `"type":"enum","values":["a","b c","it's"]`},
		{textCol, "CHECK (((s)::text = ANY ((ARRAY['x'::character varying, 'y'::character varying])::text[])))", true, `"type":"enum","values":["x","y"]`},
		{textCol, "CHECK ((s ~ '^[a-z]+$'::text))", false, ``},
		{textCol, "CHECK ((lower(s) = s))", false, ``},
	}
	for _, c := range cases {
		col := c.col
		ok := applyCheck(&col, c.def)
		got, _ := json.Marshal(col)
		if ok != c.ok || (c.want != "" && !strings.Contains(string(got), c.want)) {
			t.Errorf("%s on %s: ok=%v %s, want ok=%v with %s", c.def, c.col.Type, ok, got, c.ok, c.want)
		}
	}
}

func TestDefaultsTheDocumentCanState(t *testing.T) {
	cases := []struct {
		col  schema.Column
		expr string
		want string // "" when only the database can evaluate it
	}{
		{schema.Column{Type: schema.TypeInteger}, "0", "0"},
		{schema.Column{Type: schema.TypeInteger}, "'-3'::integer", "-3"},
		{schema.Column{Type: schema.TypeDecimal}, "'1.50'::numeric", "1.50"},
		{schema.Column{Type: schema.TypeNumber}, "(2.5)::double precision", "2.5"},
		{schema.Column{Type: schema.TypeText}, "'it''s'::text", `"it's"`},
		{schema.Column{Type: schema.TypeText}, "'draft'::character varying", `"draft"`},
		{schema.Column{Type: schema.TypeEnum, Values: []string{"a", "b"}}, "'b'::app.kind", `"b"`},
		{schema.Column{Type: schema.TypeEnum, Values: []string{"a"}}, "'z'::app.kind", ""},
		{schema.Column{Type: schema.TypeBoolean}, "false", "false"},
		{schema.Column{Type: schema.TypeTimestamp}, "now()", `"now"`},
		{schema.Column{Type: schema.TypeTimestamp}, "CURRENT_TIMESTAMP", `"now"`},
		{schema.Column{Type: schema.TypeTimestamp}, "(now() AT TIME ZONE 'utc'::text)", ""},
		{schema.Column{Type: schema.TypeDate}, "CURRENT_DATE", `"now"`},
		{schema.Column{Type: schema.TypeDate}, "'2026-01-31'::date", `"2026-01-31"`},
		{schema.Column{Type: schema.TypeJSON}, `'{"a": [1]}'::jsonb`, `{"a": [1]}`},
		{schema.Column{Type: schema.TypeUUID}, "gen_random_uuid()", ""},
		{schema.Column{Type: schema.TypeInteger}, "nextval('app.t_id_seq'::regclass)", ""},
		{schema.Column{Type: schema.TypeText, MaxLength: intPtr(2)}, "'abc'::text", ""},
	}
	for _, c := range cases {
		got, ok := defaultValue(c.expr, c.col)
		if string(got) != c.want || ok != (c.want != "") {
			t.Errorf("default %s on %s = %s %v, want %q", c.expr, c.col.Type, got, ok, c.want)
		}
	}
}

func TestIntrospectedDocumentsAreAlwaysValid(t *testing.T) {
	// Shapes that break the document's rules unless introspection takes
	// them apart: a set-null foreign key on a required column, a key type
	// that does not match, an enum with no labels.
	b := newCatalog().
		table("owners", "r", col("id", "uuid", notNull, def("gen_random_uuid()"))).
		table("pets", "r", col("id", "integer", serial), col("owner_id", "integer", notNull),
			col("mood", "mood", notNull, func(c *CatalogColumn) { c.TypeKind, c.EnumType = "e", "app.mood" })).
		table("vets", "r", col("id", "integer", serial), col("owner_id", "uuid", notNull))
	withPK(b, "owners")
	withPK(b, "pets")
	withPK(b, "vets")
	b.fk("pets", "owner_id", "owners", "n").fk("vets", "owner_id", "owners", "n")
	in := Read(b.cat)
	if p := schema.Validate(in.Document); len(p) > 0 {
		t.Fatalf("invalid: %v", p)
	}
	pets, _ := in.Document.Table("pets")
	if c, _ := pets.Column("owner_id"); c.References != nil || c.Type != schema.TypeInteger {
		t.Errorf("a foreign key of the wrong type became a relation: %+v", c)
	}
	if c, _ := pets.Column("mood"); c.Type != schema.TypePassthrough {
		t.Errorf("an enum without labels = %+v", c)
	}
	vets, _ := in.Document.Table("vets")
	if c, _ := vets.Column("owner_id"); c.References == nil || c.References.OnDelete != "" {
		t.Errorf("set null on a required column = %+v", c.References)
	}
}

func doc(t *testing.T, s string) schema.Document {
	t.Helper()
	d, err := schema.Parse([]byte(s))
	if err != nil {
		t.Fatal(err)
	}
	return d
}

func TestReconcileTellsDatabaseChangesFromDraftEditsAndKeepsTheEdits(t *testing.T) {
	published := doc(t, `{"tables": [
		{"name": "users", "external": {"primary_key": "id"}, "columns": [
			{"name": "id", "type": "integer"},
			{"name": "email", "type": "text", "required": true, "description": "Sign-in address"},
			{"name": "bio", "type": "text"},
			{"name": "age", "type": "integer"}]},
		{"name": "notes", "columns": [{"name": "body", "type": "text"}]},
		{"name": "old", "external": {"primary_key": "id"}, "columns": [{"name": "id", "type": "integer"}]}]}`)
	draft := doc(t, `{"tables": [
		{"name": "users", "external": {"primary_key": "id"}, "columns": [
			{"name": "id", "type": "integer"},
			{"name": "email", "type": "email", "required": true, "description": "Sign-in address"},
			{"name": "bio", "type": "text", "max_length": 10},
			{"name": "age", "type": "integer"},
			{"name": "vip", "type": "boolean"}]},
		{"name": "notes", "columns": [{"name": "body", "type": "text"}]},
		{"name": "old", "external": {"primary_key": "id"}, "columns": [{"name": "id", "type": "integer"}]},
		{"name": "drafts", "columns": [{"name": "title", "type": "text"}]}]}`)
	// The database: users.age became required and bio is gone, a column
	// and a table were added, "old" was dropped; the managed table notes
	// has its system columns, which do not count.
	db := doc(t, `{"tables": [
		{"name": "users", "external": {"primary_key": "id"}, "columns": [
			{"name": "id", "type": "integer"},
			{"name": "email", "type": "text", "required": true},
			{"name": "age", "type": "integer", "required": true},
			{"name": "phone", "type": "text"}]},
		{"name": "notes", "external": {"primary_key": "id", "has_created_at": true, "has_updated_at": true}, "columns": [
			{"name": "id", "type": "integer"}, {"name": "body", "type": "text"},
			{"name": "created_at", "type": "timestamp", "required": true, "default": "now"},
			{"name": "updated_at", "type": "timestamp", "required": true, "default": "now"}]},
		{"name": "tags", "external": {"primary_key": "id"}, "columns": [{"name": "id", "type": "integer"}]}]}`)
	r := Reconcile(published, draft, db)
	var got []string
	for _, c := range r.Changes {
		got = append(got, c.Origin+" "+c.Kind+" "+c.Table+"."+c.Column)
	}
	want := []string{
		"draft column_changed users.email", "database column_changed users.age", "database column_added users.phone",
		"database column_removed users.bio", "draft column_added users.vip", "database table_removed old.",
		"database table_added tags.", "draft table_added drafts.",
	}
	if strings.Join(got, "\n") != strings.Join(want, "\n") {
		t.Fatalf("changes:\n%s\nwant:\n%s", strings.Join(got, "\n"), strings.Join(want, "\n"))
	}
	if len(r.Replaced) != 1 || !strings.Contains(r.Replaced[0], "users.bio") {
		t.Errorf("replaced = %v", r.Replaced)
	}
	pub, _ := json.Marshal(r.Published)
	wantPub := `{"tables":[{"name":"users","columns":[{"name":"id","type":"integer"},` +
		`{"name":"email","type":"text","description":"Sign-in address","required":true},` +
		`{"name":"age","type":"integer","required":true},{"name":"phone","type":"text"}],"external":{"primary_key":"id"}},` +
		`{"name":"notes","columns":[{"name":"body","type":"text"}]},` +
		`{"name":"tags","columns":[{"name":"id","type":"integer"}],"external":{"primary_key":"id"}}]}`
	if string(pub) != wantPub {
		t.Errorf("published:\n got %s\nwant %s", pub, wantPub)
	}
	// The draft keeps its edits (email as an email, vip, drafts) and
	// takes the database's changes; a diff of the two is exactly the edits.
	plan := schema.Diff(schema.DDL{Schema: "app"}, r.Published, r.Draft)
	var kinds []string
	for _, c := range plan.Changes {
		kinds = append(kinds, c.Kind+" "+c.Table+"."+c.Column)
	}
	if got := strings.Join(kinds, ", "); got != "alter_column users.email, add_column users.vip, create_table drafts." {
		t.Errorf("plan after reconcile = %s", got)
	}
	if p := schema.Validate(r.Published); len(p) > 0 {
		t.Errorf("published after reconcile is invalid: %v", p)
	}
}

func TestReconcileOfAnUnchangedDatabaseChangesNothing(t *testing.T) {
	d := doc(t, `{"tables": [{"name": "users", "external": {"primary_key": "id", "has_created_at": true}, "columns": [
		{"name": "id", "type": "integer"}, {"name": "email", "type": "text", "required": true, "unique": true},
		{"name": "score", "type": "decimal", "default": "1.5"},
		{"name": "created_at", "type": "timestamp", "required": true, "default": "now"}]}]}`)
	db := doc(t, `{"tables": [{"name": "users", "external": {"primary_key": "id", "has_created_at": true}, "columns": [
		{"name": "id", "type": "integer"}, {"name": "email", "type": "text", "required": true, "unique": true},
		{"name": "score", "type": "decimal", "default": 1.50},
		{"name": "created_at", "type": "timestamp", "required": true, "default": "now"}]}]}`)
	r := Reconcile(d, d, db)
	if len(r.Changes) != 0 || len(r.Replaced) != 0 {
		t.Fatalf("changes = %v, replaced = %v", r.Changes, r.Replaced)
	}
	a, _ := json.Marshal(r.Published)
	b, _ := json.Marshal(d)
	if string(a) != string(b) {
		t.Fatalf("published changed:\n%s\n%s", a, b)
	}
}
