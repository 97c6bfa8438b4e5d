package schema

import (
	"fmt"
	"strings"
	"testing"
)

// oneColumn builds a document with table t holding the given column
// (JSON) and a table u for references.
func oneColumn(t *testing.T, col string) Document {
	t.Helper()
	return mustParse(t, `{"tables": [{"name": "u", "columns": []}, {"name": "t", "columns": [`+col+`]}]}`)
}

func TestDiffPlansEveryKindOfColumnChange(t *testing.T) {
	cases := []struct {
		name, from, to string
		destructive    bool
		rewrites       bool
		statements     []string // substrings of the in-transaction statements, in order
		after          []string // substrings of the after-commit statements
		checks         []string // substrings of the precheck rules
		// unlocked: the prechecks take no lock (writes never wait).
		unlocked bool
	}{
		{name: "integer to number", from: `{"name": "c", "type": "integer"}`, to: `{"name": "c", "type": "number"}`,
			rewrites: true, statements: []string{`ALTER COLUMN "c" TYPE double precision USING ("c")::double precision`}, checks: []string{"2^53"}},
		{name: "integer to decimal", from: `{"name": "c", "type": "integer"}`, to: `{"name": "c", "type": "decimal"}`,
			rewrites: true, statements: []string{`TYPE numeric USING ("c")::numeric`}},
		{name: "integer to text", from: `{"name": "c", "type": "integer"}`, to: `{"name": "c", "type": "text"}`,
			rewrites: true, statements: []string{`TYPE text USING ("c")::text`}},
		{name: "number to integer narrows", from: `{"name": "c", "type": "number"}`, to: `{"name": "c", "type": "integer"}`,
			destructive: true, rewrites: true, statements: []string{`TYPE bigint`}, checks: []string{"whole number"}},
		{name: "decimal to number narrows", from: `{"name": "c", "type": "decimal"}`, to: `{"name": "c", "type": "number"}`,
			destructive: true, rewrites: true, statements: []string{`TYPE double precision`}, checks: []string{"exactly"}},
		{name: "text to email checks the format", from: `{"name": "c", "type": "text"}`, to: `{"name": "c", "type": "email"}`,
			statements: []string{`ADD CONSTRAINT "t_c_check" CHECK (position('@' in "c") > 1) NOT VALID`},
			after:      []string{`VALIDATE CONSTRAINT "t_c_check"`}, checks: []string{"e-mail address", "contains @"}},
		{name: "text to url", from: `{"name": "c", "type": "text"}`, to: `{"name": "c", "type": "url"}`, checks: []string{"URL"}},
		{name: "text to enum", from: `{"name": "c", "type": "text"}`, to: `{"name": "c", "type": "enum", "values": ["a", "b"]}`,
			statements: []string{`CHECK ("c" IN ('a', 'b')) NOT VALID`}, checks: []string{"one of: a, b"}},
		{name: "text to integer narrows", from: `{"name": "c", "type": "text"}`, to: `{"name": "c", "type": "integer"}`,
			destructive: true, rewrites: true, statements: []string{`TYPE bigint USING ("c")::bigint`}, checks: []string{"digits only"}},
		{name: "text to date", from: `{"name": "c", "type": "text"}`, to: `{"name": "c", "type": "date"}`,
			destructive: true, rewrites: true, checks: []string{"YYYY-MM-DD"}},
		{name: "date to timestamp", from: `{"name": "c", "type": "date"}`, to: `{"name": "c", "type": "timestamp"}`,
			rewrites: true, statements: []string{`AT TIME ZONE 'UTC'`}},
		{name: "timestamp to date narrows", from: `{"name": "c", "type": "timestamp"}`, to: `{"name": "c", "type": "date"}`,
			destructive: true, rewrites: true, checks: []string{"midnight UTC"}},
		{name: "timestamp to text keeps the API's form", from: `{"name": "c", "type": "timestamp"}`, to: `{"name": "c", "type": "text"}`,
			rewrites: true, statements: []string{`YYYY-MM-DD"T"HH24:MI:SS.US"Z"`}},
		{name: "a type change keeps a default in the new type", from: `{"name": "c", "type": "integer", "default": 1}`, to: `{"name": "c", "type": "decimal", "default": 1}`,
			rewrites: true, statements: []string{`DROP DEFAULT`, `TYPE numeric`, `SET DEFAULT '1'::numeric`}},
		{name: "required", from: `{"name": "c", "type": "text"}`, to: `{"name": "c", "type": "text", "required": true}`,
			statements: []string{`ADD CONSTRAINT "t_c_not_null" CHECK ("c" IS NOT NULL) NOT VALID`},
			after:      []string{`VALIDATE CONSTRAINT "t_c_not_null"`, `SET NOT NULL`, `DROP CONSTRAINT "t_c_not_null"`}, checks: []string{"has a value"}},
		{name: "no longer required", from: `{"name": "c", "type": "text", "required": true}`, to: `{"name": "c", "type": "text"}`,
			statements: []string{`ALTER COLUMN "c" DROP NOT NULL`}},
		{name: "unique is built before any exclusive lock", from: `{"name": "c", "type": "text"}`, to: `{"name": "c", "type": "text", "unique": true}`,
			statements: []string{`CREATE UNIQUE INDEX "t_c_key"`, `ADD CONSTRAINT "t_c_key" UNIQUE USING INDEX "t_c_key"`}, checks: []string{"no two rows"}},
		{name: "no longer unique", from: `{"name": "c", "type": "text", "unique": true}`, to: `{"name": "c", "type": "text"}`,
			statements: []string{`DROP CONSTRAINT IF EXISTS "t_c_key"`}},
		{name: "default added", from: `{"name": "c", "type": "text"}`, to: `{"name": "c", "type": "text", "default": "x"}`,
			statements: []string{`ALTER COLUMN "c" SET DEFAULT 'x'`}},
		{name: "default changed", from: `{"name": "c", "type": "text", "default": "x"}`, to: `{"name": "c", "type": "text", "default": "y"}`,
			statements: []string{`DROP DEFAULT`, `SET DEFAULT 'y'`}},
		{name: "default removed", from: `{"name": "c", "type": "text", "default": "x"}`, to: `{"name": "c", "type": "text"}`,
			statements: []string{`DROP DEFAULT`}},
		{name: "bounds tightened", from: `{"name": "c", "type": "integer", "min": 0}`, to: `{"name": "c", "type": "integer", "min": 1, "max": 9}`,
			statements: []string{`DROP CONSTRAINT IF EXISTS "t_c_check"`, `CHECK ("c" >= 1 AND "c" <= 9) NOT VALID`},
			after:      []string{`VALIDATE CONSTRAINT "t_c_check"`}, checks: []string{"at least 1, at most 9"}},
		{name: "lengths added", from: `{"name": "c", "type": "text"}`, to: `{"name": "c", "type": "text", "min_length": 2, "max_length": 5}`,
			statements: []string{`CHECK (char_length("c") >= 2 AND char_length("c") <= 5) NOT VALID`}, checks: []string{"at most 5 characters"}},
		{name: "enum value removed", from: `{"name": "c", "type": "enum", "values": ["a", "b"]}`, to: `{"name": "c", "type": "enum", "values": ["a"]}`,
			statements: []string{`CHECK ("c" IN ('a')) NOT VALID`}, checks: []string{"one of: a"}},
		{name: "reference added", from: `{"name": "c", "type": "integer"}`, to: `{"name": "c", "type": "integer", "references": {"table": "u"}}`,
			statements: []string{`FOREIGN KEY ("c") REFERENCES "s"."u" ("id") ON DELETE RESTRICT NOT VALID`},
			after:      []string{`VALIDATE CONSTRAINT "t_c_fkey"`, `CREATE INDEX CONCURRENTLY IF NOT EXISTS "t_c_sort" ON "s"."t" ("c", "id")`}, checks: []string{"id of a row of u"}},
		{name: "on_delete changed", from: `{"name": "c", "type": "integer", "references": {"table": "u"}}`, to: `{"name": "c", "type": "integer", "references": {"table": "u", "on_delete": "cascade"}}`,
			statements: []string{`DROP CONSTRAINT IF EXISTS "t_c_fkey"`, `ON DELETE CASCADE NOT VALID`}, after: []string{`VALIDATE CONSTRAINT "t_c_fkey"`}},
		{name: "reference removed", from: `{"name": "c", "type": "integer", "references": {"table": "u"}}`, to: `{"name": "c", "type": "integer"}`,
			statements: []string{`DROP CONSTRAINT IF EXISTS "t_c_fkey"`, `DROP INDEX IF EXISTS "s"."t_c_sort"`, `DROP INDEX IF EXISTS "s"."t_c_idx"`}},
		{name: "index added", from: `{"name": "c", "type": "text"}`, to: `{"name": "c", "type": "text", "index": true}`,
			after:  []string{`CREATE INDEX CONCURRENTLY IF NOT EXISTS "t_c_sort" ON "s"."t" ("c", "id")`},
			checks: []string{"every value is at most 600 characters"}, unlocked: true},
		{name: "index removed", from: `{"name": "c", "type": "text", "index": true}`, to: `{"name": "c", "type": "text"}`,
			statements: []string{`DROP INDEX IF EXISTS "s"."t_c_sort"`, `DROP INDEX IF EXISTS "s"."t_c_idx"`}},
		{name: "searchable added", from: `{"name": "c", "type": "text"}`, to: `{"name": "c", "type": "text", "searchable": true}`,
			after: []string{`CREATE INDEX CONCURRENTLY IF NOT EXISTS "t_c_trgm" ON "s"."t" USING gin ("c" public.gin_trgm_ops)`}},
		{name: "searchable removed", from: `{"name": "c", "type": "text", "searchable": true}`, to: `{"name": "c", "type": "text"}`,
			statements: []string{`DROP INDEX IF EXISTS "s"."t_c_trgm"`}},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			p := Diff(DDL{Schema: "s", Trigram: true}, oneColumn(t, tc.from), oneColumn(t, tc.to))
			if len(p.Changes) != 1 {
				t.Fatalf("changes = %+v", p.Changes)
			}
			c := p.Changes[0]
			if c.Kind != ChangeAlterColumn || c.Unsupported != "" || c.Destructive != tc.destructive || p.Destructive != tc.destructive || c.RewritesTable != tc.rewrites {
				t.Fatalf("change = %+v", c)
			}
			inOrder(t, "statements", p.Statements, tc.statements)
			inOrder(t, "after_commit", p.After, tc.after)
			var rules []string
			for _, pc := range p.Prechecks {
				rules = append(rules, pc.Rule)
				if pc.Table != "t" || pc.Column != "c" || !strings.Contains(pc.SQL, `FROM "s"."t" AS`) || !strings.Contains(pc.Examples, `FROM "s"."t" AS t`) {
					t.Errorf("precheck = %+v", pc)
				}
			}
			inOrder(t, "prechecks", rules, tc.checks)
			if len(p.Prechecks) > 0 && !tc.unlocked && (len(p.Locks) == 0 || p.Locks[0] != `"s"."t"`) {
				t.Errorf("locks = %v", p.Locks)
			}
			if tc.unlocked && len(p.Locks) > 0 {
				t.Errorf("locks = %v, want none: writes must not wait for this change", p.Locks)
			}
			if len(tc.checks) == 0 && len(p.Prechecks) > 0 {
				t.Errorf("unexpected prechecks %v", rules)
			}
		})
	}
}

// inOrder checks that each want is a substring of some got, in order.
func inOrder(t *testing.T, what string, got, want []string) {
	t.Helper()
	i := 0
	for _, w := range want {
		for i < len(got) && !strings.Contains(got[i], w) {
			i++
		}
		if i == len(got) {
			t.Errorf("%s lack %q in order:\n  %s", what, w, strings.Join(got, "\n  "))
			return
		}
		i++
	}
}

func TestLooserRulesNeedNoCheckOfExistingRows(t *testing.T) {
	for _, pair := range [][2]string{
		{`{"name": "c", "type": "enum", "values": ["a"]}`, `{"name": "c", "type": "enum", "values": ["a", "b"]}`},
		{`{"name": "c", "type": "integer", "min": 1, "max": 5}`, `{"name": "c", "type": "integer", "min": 0}`},
		{`{"name": "c", "type": "text", "max_length": 5}`, `{"name": "c", "type": "text", "max_length": 50}`},
	} {
		p := Diff(DDL{Schema: "s"}, oneColumn(t, pair[0]), oneColumn(t, pair[1]))
		if len(p.Prechecks) != 0 || len(p.Locks) != 0 {
			t.Errorf("%s → %s: prechecks %v, locks %v", pair[0], pair[1], p.Prechecks, p.Locks)
		}
		if !strings.Contains(strings.Join(p.Statements, ";"), "NOT VALID") || len(p.After) != 1 {
			t.Errorf("%s → %s: the constraint must still be replaced: %v / %v", pair[0], pair[1], p.Statements, p.After)
		}
	}
}

func TestConversionsWithoutAnExactPathAreRefusedWithAReason(t *testing.T) {
	for _, pair := range [][2]string{
		{TypeText, TypeTimestamp}, {TypeText, TypeJSON}, {TypePassword, TypeText}, {TypeText, TypePassword},
		{TypeBoolean, TypeInteger}, {TypeUUID, TypeInteger}, {TypeJSON, TypeInteger},
	} {
		p := Diff(DDL{Schema: "s"}, oneColumn(t, `{"name": "c", "type": "`+pair[0]+`"}`), oneColumn(t, `{"name": "c", "type": "`+pair[1]+`"}`))
		if len(p.Unsupported()) != 1 || p.Unsupported()[0].Unsupported == "" || len(p.Statements) != 0 {
			t.Errorf("%s → %s: %+v", pair[0], pair[1], p.Changes)
		}
	}
	// Every type becomes text, and text-like types change among
	// themselves without a rewrite.
	for _, from := range Types {
		if ct := typeOf(from); ct.Traits.Secret || ct.Traits.Upload {
			continue
		}
		if _, why := convert(from, TypeText); why != "" {
			t.Errorf("%s → text: %s", from, why)
		}
		for _, to := range []string{TypeText, TypeEmail, TypeURL, TypeEnum} {
			if c, _ := convert(from, to); isTextual(from) && c.using != nil {
				t.Errorf("%s → %s rewrites the table", from, to)
			}
		}
	}
}

func TestNewRequiredColumnWithoutDefaultNeedsAnEmptyTable(t *testing.T) {
	p := Diff(DDL{Schema: "s"}, oneColumn(t, `{"name": "a", "type": "text"}`),
		oneColumn(t, `{"name": "a", "type": "text"}, {"name": "b", "type": "integer", "required": true}, {"name": "c", "type": "integer", "required": true, "default": 0, "unique": true}`))
	if len(p.Changes) != 2 || p.Changes[0].Kind != ChangeAddColumn {
		t.Fatalf("changes = %+v", p.Changes)
	}
	inOrder(t, "statements", p.Statements, []string{`ADD COLUMN "b" bigint NOT NULL`, `ADD COLUMN "c" bigint DEFAULT 0 NOT NULL`, `CREATE UNIQUE INDEX "t_c_key"`})
	if len(p.Prechecks) != 2 || p.Prechecks[0].SQL == "" || !strings.Contains(p.Prechecks[0].Rule, "empty") ||
		p.Prechecks[1].Allowed != 1 || !strings.Contains(p.Prechecks[1].Rule, "at most one row") {
		t.Fatalf("prechecks = %+v", p.Prechecks)
	}
}

func TestRenamesCarryConstraintAndIndexNames(t *testing.T) {
	pub := mustParse(t, `{"tables": [{"name": "u", "columns": []}, {"name": "t", "columns": [
		{"name": "c", "type": "integer", "unique": true, "min": 0, "references": {"table": "u"}},
		{"name": "d", "type": "text", "index": true, "searchable": true}]}]}`)
	draft := mustParse(t, `{"tables": [{"name": "u", "columns": []}, {"name": "t2", "renamed_from": "t", "columns": [
		{"name": "c2", "renamed_from": "c", "type": "integer", "unique": true, "min": 0, "references": {"table": "u"}},
		{"name": "d", "type": "text", "index": true, "searchable": true}]}]}`)
	p := Diff(DDL{Schema: "s", Trigram: true}, pub, draft)
	inOrder(t, "statements", p.Statements, []string{
		`ALTER TABLE "s"."t" RENAME TO "t2"`,
		`ALTER INDEX IF EXISTS "s"."t_pkey" RENAME TO "t2_pkey"`,
		`ALTER SEQUENCE IF EXISTS "s"."t_id_seq" RENAME TO "t2_id_seq"`,
		`ALTER TABLE "s"."t2" RENAME COLUMN "c" TO "c2"`,
		`RENAME CONSTRAINT "t_c_key" TO "t2_c2_key"`,
		`RENAME CONSTRAINT "t_c_check" TO "t2_c2_check"`,
		`RENAME CONSTRAINT "t_c_fkey" TO "t2_c2_fkey"`,
		`ALTER INDEX IF EXISTS "s"."t_d_sort" RENAME TO "t2_d_sort"`,
		`ALTER INDEX IF EXISTS "s"."t_d_idx" RENAME TO "t2_d_idx"`,
		`ALTER INDEX IF EXISTS "s"."t_d_trgm" RENAME TO "t2_d_trgm"`,
	})
	if len(p.Prechecks) != 0 || p.Destructive {
		t.Fatalf("a rename checks nothing and loses nothing: %+v", p)
	}
}

func TestRenamedFromThatMatchesNothingIsIgnoredWithANote(t *testing.T) {
	pub := mustParse(t, `{"tables": [{"name": "a", "columns": [{"name": "x", "type": "text"}]}]}`)
	// b claims a, which is still in the draft under its own name; y
	// claims a column that never existed; c claims a table that never was.
	draft := mustParse(t, `{"tables": [
		{"name": "a", "columns": [{"name": "x", "type": "text"}, {"name": "y", "renamed_from": "nope", "type": "text"}]},
		{"name": "b", "renamed_from": "a", "columns": []},
		{"name": "c", "renamed_from": "ghost", "columns": []}]}`)
	p := Diff(DDL{Schema: "s"}, pub, draft)
	kinds := []string{}
	for _, c := range p.Changes {
		kinds = append(kinds, c.Kind+":"+c.Table+"."+c.Column)
	}
	if got := strings.Join(kinds, " "); got != "add_column:a.y create_table:b. create_table:c." {
		t.Fatalf("changes = %s", got)
	}
	if len(p.Notes) != 3 || !strings.Contains(p.Notes[0], `"a"`) || !strings.Contains(p.Notes[1], `"ghost"`) || !strings.Contains(p.Notes[2], `"nope"`) {
		t.Fatalf("notes = %q", p.Notes)
	}
	// A marker left over from an earlier rename changes nothing.
	again := Diff(DDL{Schema: "s"}, mustParse(t, `{"tables": [{"name": "b", "renamed_from": "a", "columns": []}]}`),
		mustParse(t, `{"tables": [{"name": "b", "renamed_from": "a", "columns": []}]}`))
	if len(again.Changes) != 0 || len(again.Notes) != 0 {
		t.Fatalf("stale marker: %+v", again)
	}
}

func TestMetadataChangesAreListedWithoutSQL(t *testing.T) {
	pub := mustParse(t, `{"tables": [{"name": "t", "columns": [{"name": "c", "type": "text"}]}]}`)
	draft := mustParse(t, `{"tables": [{"name": "t", "permissions": {"read": "public"}, "columns": [{"name": "c", "type": "text", "pattern": "^a", "description": "d"}]}]}`)
	p := Diff(DDL{Schema: "s"}, pub, draft)
	if len(p.Changes) != 2 || len(p.Statements) != 0 || p.Changes[0].Kind != ChangeMetadata || !strings.Contains(p.Changes[0].Description, "pattern") ||
		!strings.Contains(p.Changes[1].Description, "permissions") {
		t.Fatalf("plan = %+v", p)
	}
}

func TestPostgresObjectNamesAreShortenedLikePostgres(t *testing.T) {
	long := strings.Repeat("a", 62)
	for _, c := range []struct{ n1, n2, label, want string }{
		{"users", "", "pkey", "users_pkey"},
		{"users", "id", "seq", "users_id_seq"},
		{long, "", "pkey", long[:58] + "_pkey"},
		{long, "id", "seq", long[:56] + "_id_seq"},
	} {
		if got := pgObjectName(c.n1, c.n2, c.label); got != c.want || len(got) > 63 {
			t.Errorf("pgObjectName(%d chars, %q, %q) = %q", len(c.n1), c.n2, c.label, got)
		}
	}
}

func ExampleDiff() {
	pub := Document{Tables: []Table{{Name: "t", Columns: []Column{{Name: "n", Type: TypeNumber}}}}}
	draft := Document{Tables: []Table{{Name: "t", Columns: []Column{{Name: "n", Type: TypeInteger}}}}}
	p := Diff(DDL{Schema: "s"}, pub, draft)
	fmt.Println(p.Changes[0].Description)
	fmt.Println(p.Statements[0])
	fmt.Println(p.Prechecks[0].Rule)
	// Output:
	// change column t.n: type number → integer (narrowing: integer holds fewer values than number)
	// ALTER TABLE "s"."t" ALTER COLUMN "n" TYPE bigint USING ("n")::bigint
	// every value is a whole number within the integer range
}

func TestACacheLifetimeChangeIsAMetadataChange(t *testing.T) {
	pub := mustParse(t, `{"tables": [{"name": "t", "permissions": {"read": "public"}, "columns": [{"name": "c", "type": "text"}]}]}`)
	cached := mustParse(t, `{"tables": [{"name": "t", "permissions": {"read": "public"}, "cache": {"max_age": 30}, "columns": [{"name": "c", "type": "text"}]}]}`)
	p := Diff(DDL{Schema: "s"}, pub, cached)
	if len(p.Changes) != 1 || len(p.Statements) != 0 || p.Changes[0].Kind != ChangeMetadata || !strings.Contains(p.Changes[0].Description, "cache") {
		t.Fatalf("turning cache on: plan = %+v", p)
	}
	p = Diff(DDL{Schema: "s"}, cached, pub)
	if len(p.Changes) != 1 || !strings.Contains(p.Changes[0].Description, "cache") {
		t.Fatalf("turning cache off: plan = %+v", p)
	}
}
