package platformhttp_test

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"reflect"
	"sort"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/tablesmith/tablesmith/apierr"
	"github.com/tablesmith/tablesmith/internal/publish"
	"github.com/tablesmith/tablesmith/internal/store"
	"github.com/tablesmith/tablesmith/internal/testserver"
	"github.com/tablesmith/tablesmith/schema"
)

// evo is a project under migration, with helpers to fill it, change its
// schema and look at what the database holds.
type evo struct {
	t      *testing.T
	s      *testserver.Server
	p      *testserver.Project
	schema string // quoted project schema, for SQL
	ns     string // the schema's name as the catalog prints it
}

func newEvo(t *testing.T, doc string) *evo {
	t.Helper()
	s := testserver.New(t)
	p := s.NewProject(doc)
	return &evo{t: t, s: s, p: p, schema: `"p_` + p.ID + `"`, ns: "p_" + p.ID}
}

func (e *evo) exec(q string, args ...any) {
	e.t.Helper()
	if _, err := e.s.Svc.DB.ExecContext(context.Background(), strings.ReplaceAll(q, "$schema", e.schema), args...); err != nil {
		e.t.Fatalf("%s: %v", q, err)
	}
}

// indexesBuilt waits until no index build of the project is pending or
// running: generate answers before them (TestGenerateAnswersBeforeItsIndexBuildsFinish).
func (e *evo) indexesBuilt() {
	e.t.Helper()
	deadline := time.Now().Add(time.Minute)
	for {
		e.s.Svc.Indexes.Kick()
		var n int
		if err := e.s.Svc.DB.QueryRow(`SELECT count(*) FROM tablesmith.index_builds WHERE project_id = $1 AND state IN ('pending', 'building')`, e.p.ID).Scan(&n); err != nil {
			e.t.Fatal(err)
		}
		if n == 0 {
			// The builder holds the schema's after-commit turn until its
			// builds and the Finish after them are done.
			turn, err := e.s.Svc.Store.TakeFinishTurn(context.Background(), e.p.ID)
			if err != nil {
				e.t.Fatal(err)
			}
			if turn != nil {
				turn.Release()
				return
			}
		}
		if time.Now().After(deadline) {
			e.t.Fatalf("%d index builds (or their Finish) still unfinished after a minute", n)
		}
		time.Sleep(20 * time.Millisecond)
	}
}

// generate saves doc as the draft and generates it.
func (e *evo) generate(doc string, confirm bool) *testserver.Response {
	e.t.Helper()
	e.s.Do("PUT", "/api/projects/"+e.p.ID+"/schema", e.p.Session, doc).Must(e.t, 200)
	return e.s.Do("POST", "/api/projects/"+e.p.ID+"/generate", e.p.Session, map[string]any{"confirm_destructive": confirm})
}

func (e *evo) version() float64 {
	e.t.Helper()
	return e.s.Do("GET", "/api/projects/"+e.p.ID, e.p.Session, nil).Must(e.t, 200).Data()["published_version"].(float64)
}

// rows reads every record of a table through the generated API, by id.
func (e *evo) rows(table string) map[string]map[string]any {
	e.t.Helper()
	out := map[string]map[string]any{}
	for page := 1; ; page++ {
		res := e.s.API(e.p, "GET", fmt.Sprintf("/%s?limit=100&page=%d&sort=id&count=none", table, page), nil).Must(e.t, 200)
		list := res.List()
		for _, r := range list {
			out[fmt.Sprint(r["id"])] = r
		}
		if len(list) < 100 {
			return out
		}
	}
}

// catalog describes everything PostgreSQL holds for the project's
// schema: relations, columns, constraints, indexes, sequences.
func (e *evo) catalog() []string {
	e.t.Helper()
	e.indexesBuilt()
	rows, err := e.s.Svc.DB.QueryContext(context.Background(), `
		SELECT 'relation ' || c.relname || ' ' || c.relkind::text FROM pg_class c
		WHERE c.relnamespace = $1::regnamespace
		UNION ALL
		SELECT 'column ' || c.relname || '.' || a.attnum || ' ' || a.attname || ' ' || format_type(a.atttypid, a.atttypmod) ||
		       CASE WHEN a.attnotnull THEN ' NOT NULL' ELSE '' END || CASE WHEN a.attisdropped THEN ' DROPPED' ELSE '' END ||
		       coalesce(' DEFAULT ' || pg_get_expr(d.adbin, d.adrelid), '')
		FROM pg_attribute a JOIN pg_class c ON c.oid = a.attrelid
		LEFT JOIN pg_attrdef d ON d.adrelid = a.attrelid AND d.adnum = a.attnum
		WHERE c.relnamespace = $1::regnamespace AND c.relkind = 'r' AND a.attnum > 0
		UNION ALL
		SELECT 'constraint ' || k.conrelid::regclass::text || ' ' || k.conname || ' ' || pg_get_constraintdef(k.oid) ||
		       CASE WHEN k.convalidated THEN '' ELSE ' NOT VALID' END
		FROM pg_constraint k WHERE k.connamespace = $1::regnamespace
		UNION ALL
		SELECT 'index ' || pg_get_indexdef(i.indexrelid) || CASE WHEN i.indisvalid THEN '' ELSE ' INVALID' END
		FROM pg_index i JOIN pg_class c ON c.oid = i.indexrelid WHERE c.relnamespace = $1::regnamespace
		ORDER BY 1`, e.schema)
	if err != nil {
		e.t.Fatal(err)
	}
	defer rows.Close()
	var out []string
	for rows.Next() {
		var s string
		if err := rows.Scan(&s); err != nil {
			e.t.Fatal(err)
		}
		out = append(out, s)
	}
	return out
}

// has fails unless some catalog line contains every part.
func (e *evo) has(cat []string, parts ...string) {
	e.t.Helper()
	for _, line := range cat {
		all := true
		for _, p := range parts {
			all = all && strings.Contains(line, p)
		}
		if all {
			return
		}
	}
	e.t.Errorf("catalog has no line with %q:\n  %s", parts, strings.Join(cat, "\n  "))
}

// hasNo fails if some catalog line contains every part.
func (e *evo) hasNo(cat []string, parts ...string) {
	e.t.Helper()
	for _, line := range cat {
		all := true
		for _, p := range parts {
			all = all && strings.Contains(line, p)
		}
		if all {
			e.t.Errorf("catalog still has %q", line)
		}
	}
}

// finished fails if a migration left work undone: constraints not
// validated, helper checks, invalid indexes.
func (e *evo) finished(cat []string) {
	e.t.Helper()
	e.hasNo(cat, "NOT VALID")
	e.hasNo(cat, "INVALID")
	e.hasNo(cat, "_not_null ")
}

// keep describes how values of a table survive a migration.
type keep struct {
	renamed   map[string]string        // old column → new column
	dropped   []string                 // old columns that are gone
	converted map[string]func(any) any // new column → expected new value from the old one
	added     map[string]any           // new column → value every row has
}

// sameRows fails unless every row of before is in after, with every
// surviving value equal (after the expected conversion).
func sameRows(t *testing.T, table string, before, after map[string]map[string]any, k keep) {
	t.Helper()
	if len(before) != len(after) {
		t.Fatalf("%s: %d rows before, %d after", table, len(before), len(after))
	}
	gone := map[string]bool{}
	for _, c := range k.dropped {
		gone[c] = true
	}
	checked := 0
	for id, old := range before {
		now, ok := after[id]
		if !ok {
			t.Fatalf("%s: row %s is gone", table, id)
		}
		for col, v := range old {
			if gone[col] {
				if _, still := now[col]; still {
					t.Errorf("%s.%s was dropped but row %s still has it", table, col, id)
				}
				continue
			}
			name := col
			if n, ok := k.renamed[col]; ok {
				name = n
			}
			want := v
			if f := k.converted[name]; f != nil && v != nil {
				want = f(v)
			}
			if !reflect.DeepEqual(want, now[name]) {
				t.Errorf("%s row %s: %s was %#v, want %#v, got %#v", table, id, name, v, want, now[name])
			}
			checked++
		}
		for col, v := range k.added {
			if !reflect.DeepEqual(v, now[col]) {
				t.Errorf("%s row %s: new column %s = %#v, want %#v", table, id, col, now[col], v)
			}
		}
	}
	t.Logf("%s: %d values compared across %d rows", table, checked, len(before))
}

const evoV1 = `{"tables": [
 {"name": "authors", "columns": [
   {"name": "name", "type": "text", "required": true},
   {"name": "email", "type": "text"},
   {"name": "site", "type": "text"},
   {"name": "rating", "type": "integer"},
   {"name": "score", "type": "number"},
   {"name": "price", "type": "decimal"},
   {"name": "born", "type": "date"},
   {"name": "seen", "type": "timestamp"},
   {"name": "active", "type": "boolean"},
   {"name": "kind", "type": "text"},
   {"name": "code", "type": "text"},
   {"name": "flag", "type": "text"},
   {"name": "legacy", "type": "text"},
   {"name": "bio", "type": "text"},
   {"name": "old", "type": "text"},
   {"name": "meta", "type": "json"}]},
 {"name": "posts", "columns": [
   {"name": "title", "type": "text", "required": true},
   {"name": "author_id", "type": "integer", "references": {"table": "authors"}},
   {"name": "editor_id", "type": "integer"},
   {"name": "stars", "type": "integer"}]},
 {"name": "drafts", "columns": [{"name": "note", "type": "text"}]}]}`

// Renames and additions: a table and a column renamed, a new optional
// column, a new required column with a default, a new table.
const evoV2 = `{"tables": [
 {"name": "writers", "renamed_from": "authors", "columns": [
   {"name": "name", "type": "text", "required": true},
   {"name": "email", "type": "text"},
   {"name": "site", "type": "text"},
   {"name": "rating", "type": "integer"},
   {"name": "score", "type": "number"},
   {"name": "price", "type": "decimal"},
   {"name": "born", "type": "date"},
   {"name": "seen", "type": "timestamp"},
   {"name": "active", "type": "boolean"},
   {"name": "kind", "type": "text"},
   {"name": "code", "type": "text"},
   {"name": "flag", "type": "text"},
   {"name": "legacy", "type": "text"},
   {"name": "about", "renamed_from": "bio", "type": "text"},
   {"name": "old", "type": "text"},
   {"name": "meta", "type": "json"},
   {"name": "nickname", "type": "text"},
   {"name": "status", "type": "text", "required": true, "default": "new"}]},
 {"name": "posts", "columns": [
   {"name": "title", "type": "text", "required": true},
   {"name": "author_id", "type": "integer", "references": {"table": "writers"}},
   {"name": "editor_id", "type": "integer"},
   {"name": "stars", "type": "integer"}]},
 {"name": "drafts", "columns": [{"name": "note", "type": "text"}]},
 {"name": "tags", "columns": [{"name": "label", "type": "text", "unique": true}]}]}`

// Type changes, each kept exactly.
var evoV3 = strings.NewReplacer(
	`{"name": "email", "type": "text"}`, `{"name": "email", "type": "email"}`,
	`{"name": "site", "type": "text"}`, `{"name": "site", "type": "url"}`,
	`{"name": "rating", "type": "integer"}`, `{"name": "rating", "type": "number"}`,
	`{"name": "score", "type": "number"}`, `{"name": "score", "type": "integer"}`,
	`{"name": "price", "type": "decimal"}`, `{"name": "price", "type": "number"}`,
	`{"name": "born", "type": "date"}`, `{"name": "born", "type": "timestamp"}`,
	`{"name": "seen", "type": "timestamp"}`, `{"name": "seen", "type": "date"}`,
	`{"name": "kind", "type": "text"}`, `{"name": "kind", "type": "enum", "values": ["a", "b", "c"]}`,
	`{"name": "code", "type": "text"}`, `{"name": "code", "type": "integer"}`,
	`{"name": "flag", "type": "text"}`, `{"name": "flag", "type": "boolean"}`,
	`{"name": "legacy", "type": "text"}`, `{"name": "legacy", "type": "uuid"}`,
	`{"name": "meta", "type": "json"}`, `{"name": "meta", "type": "text"}`,
	`{"name": "stars", "type": "integer"}`, `{"name": "stars", "type": "text"}`,
).Replace(evoV2)

// Constraints added: required, unique, bounds, lengths, defaults, enum
// value, on_delete, a new reference, an index, a search index.
var evoV4 = strings.NewReplacer(
	`{"name": "email", "type": "email"}`, `{"name": "email", "type": "email", "required": true, "unique": true}`,
	`{"name": "rating", "type": "number"}`, `{"name": "rating", "type": "number", "min": 0, "max": 1000}`,
	`"values": ["a", "b", "c"]`, `"values": ["a", "b", "c", "d"]`,
	`{"name": "about", "renamed_from": "bio", "type": "text"}`, `{"name": "about", "renamed_from": "bio", "type": "text", "max_length": 100, "searchable": true}`,
	`{"name": "nickname", "type": "text"}`, `{"name": "nickname", "type": "text", "default": "anon"}`,
	`"default": "new"`, `"default": "active"`,
	`{"name": "code", "type": "integer"}`, `{"name": "code", "type": "integer", "index": true}`,
	`{"name": "author_id", "type": "integer", "references": {"table": "writers"}}`, `{"name": "author_id", "type": "integer", "references": {"table": "writers", "on_delete": "cascade"}}`,
	`{"name": "editor_id", "type": "integer"}`, `{"name": "editor_id", "type": "integer", "references": {"table": "writers", "on_delete": "set_null"}, "reverse_relation": "edited_posts"}`,
	`{"name": "title", "type": "text", "required": true}`, `{"name": "title", "type": "text", "required": true, "min_length": 1}`,
).Replace(evoV3)

// Constraints removed, a column and a table dropped.
var evoV5 = strings.NewReplacer(
	`{"name": "name", "type": "text", "required": true}`, `{"name": "name", "type": "text"}`,
	`{"name": "email", "type": "email", "required": true, "unique": true}`, `{"name": "email", "type": "email"}`,
	`{"name": "rating", "type": "number", "min": 0, "max": 1000}`, `{"name": "rating", "type": "number"}`,
	`"values": ["a", "b", "c", "d"]`, `"values": ["a", "b", "c"]`,
	`"max_length": 100, "searchable": true}`, `"max_length": 100}`,
	`{"name": "nickname", "type": "text", "default": "anon"}`, `{"name": "nickname", "type": "text"}`,
	`{"name": "code", "type": "integer", "index": true}`, `{"name": "code", "type": "integer"}`,
	`{"name": "editor_id", "type": "integer", "references": {"table": "writers", "on_delete": "set_null"}, "reverse_relation": "edited_posts"}`, `{"name": "editor_id", "type": "integer"}`,
	`{"name": "title", "type": "text", "required": true, "min_length": 1}`, `{"name": "title", "type": "text"}`,
	`   {"name": "old", "type": "text"},
`, ``,
	` {"name": "drafts", "columns": [{"name": "note", "type": "text"}]},
`, ``,
).Replace(evoV4)

func TestEveryKindOfChangeKeepsEverySurvivingValue(t *testing.T) {
	t.Parallel()
	e := newEvo(t, evoV1)
	e.exec(`INSERT INTO $schema.authors (name, email, site, rating, score, price, born, seen, active, kind, code, flag, legacy, bio, old, meta)
		SELECT 'Author ' || i, 'author' || i || '@example.com', 'https://example.com/authors/' || i, i * 3, i * 2.0, (i || '.25')::numeric,
		       date '2020-01-01' + i, timestamptz '2024-01-01 00:00:00Z' + i * interval '1 day', i % 2 = 0,
		       (ARRAY['a', 'b', 'c'])[1 + i % 3], (i * 7)::text, CASE WHEN i % 2 = 0 THEN 'true' ELSE 'false' END,
		       md5(i::text)::uuid::text, CASE WHEN i % 5 = 0 THEN NULL ELSE 'Bio of ' || i END, 'old ' || i,
		       jsonb_build_object('i', i)
		FROM generate_series(1, 30) i`)
	e.exec(`INSERT INTO $schema.authors (name, email) VALUES ('Sparse', 'sparse@example.com')`) // every other column null
	e.exec(`INSERT INTO $schema.posts (title, author_id, editor_id, stars)
		SELECT 'Post ' || i, 1 + i % 31, 1 + (i * 7) % 31, i % 5 FROM generate_series(1, 60) i`)
	e.exec(`INSERT INTO $schema.drafts (note) SELECT 'note ' || i FROM generate_series(1, 3) i`)
	authors, posts, drafts := e.rows("authors"), e.rows("posts"), e.rows("drafts")

	// v2: renames and additions.
	res := e.generate(evoV2, false).Must(t, 200)
	if res.Data()["version"] != float64(2) {
		t.Fatalf("generate v2 = %s", res.Raw)
	}
	e.s.API(e.p, "GET", "/authors", nil).Must(t, 404)
	writers := e.rows("writers")
	sameRows(t, "writers", authors, writers, keep{renamed: map[string]string{"bio": "about"}, added: map[string]any{"nickname": nil, "status": "new"}})
	sameRows(t, "posts", posts, e.rows("posts"), keep{})
	sameRows(t, "drafts", drafts, e.rows("drafts"), keep{})
	cat := e.catalog()
	e.has(cat, "constraint "+e.ns+".posts posts_author_id_fkey FOREIGN KEY (author_id) REFERENCES "+e.ns+".writers(id)")
	e.has(cat, "index CREATE UNIQUE INDEX writers_pkey")
	e.has(cat, "relation writers_id_seq S")
	e.has(cat, "writers", "status text NOT NULL DEFAULT 'new'::text")
	e.finished(cat)

	// v3: type changes. Narrowing ones need confirmation.
	if r := e.generate(evoV3, false).Must(t, 409); r.ErrorCode() != "DESTRUCTIVE_CHANGE" || r.Details()["writers.score"] == nil || r.Details()["writers.email"] != nil {
		t.Fatalf("unconfirmed narrowing = %s", r.Raw)
	}
	e.generate(evoV3, true).Must(t, 200)
	before := writers
	writers = e.rows("writers")
	asString := func(v any) any { return fmt.Sprint(v) }
	sameRows(t, "writers", before, writers, keep{converted: map[string]func(any) any{
		"code":   func(v any) any { var n float64; _, _ = fmt.Sscan(v.(string), &n); return n },
		"flag":   func(v any) any { return v == "true" },
		"born":   func(v any) any { return v.(string) + "T00:00:00.000000Z" },
		"seen":   func(v any) any { return v.(string)[:10] },
		"meta":   func(v any) any { return fmt.Sprintf(`{"i": %v}`, v.(map[string]any)["i"]) },
		"rating": func(v any) any { return v },
	}})
	sameRows(t, "posts", posts, e.rows("posts"), keep{converted: map[string]func(any) any{"stars": asString}})
	cat = e.catalog()
	e.has(cat, "writers", "score bigint")
	e.has(cat, "writers", "price double precision")
	e.has(cat, "writers", "born timestamp with time zone")
	e.has(cat, "writers", "legacy uuid")
	e.has(cat, "writers_kind_check CHECK ((kind = ANY (ARRAY['a'::text, 'b'::text, 'c'::text])))")
	e.has(cat, "writers_email_check CHECK ((POSITION(('@'::text) IN (email)) > 1))")
	e.finished(cat)
	// The API takes the new types at once.
	e.s.API(e.p, "POST", "/writers", map[string]any{"name": "New", "kind": "z"}).Must(t, 400)

	// v4: constraints added.
	res = e.generate(evoV4, false).Must(t, 200)
	sameRows(t, "writers", writers, e.rows("writers"), keep{})
	sameRows(t, "posts", posts, e.rows("posts"), keep{converted: map[string]func(any) any{"stars": asString}})
	cat = e.catalog()
	e.has(cat, "writers", "email text NOT NULL")
	e.has(cat, "writers_email_key UNIQUE (email)")
	e.has(cat, "writers_rating_check CHECK (((rating >= (0)::double precision) AND (rating <= (1000)::double precision)))")
	e.has(cat, "writers_about_check CHECK ((char_length(about) <= 100))")
	e.has(cat, "posts_title_check CHECK ((char_length(title) >= 1))")
	e.has(cat, "posts_author_id_fkey", "ON DELETE CASCADE")
	e.has(cat, "posts_editor_id_fkey", "ON DELETE SET NULL")
	e.has(cat, "CREATE INDEX writers_code_sort ON "+e.ns+".writers USING btree (code, id)")
	e.has(cat, "CREATE INDEX posts_editor_id_sort")
	e.has(cat, "nickname text DEFAULT 'anon'::text")
	if store.TrigramAvailable(context.Background(), e.s.Svc.DB) {
		e.has(cat, "CREATE INDEX writers_about_trgm")
	}
	e.finished(cat)
	after := res.Data()["after_commit"].([]any)
	if len(after) == 0 {
		t.Fatalf("v4 ran nothing after its commit: %s", res.Raw)
	}
	for _, step := range after {
		if step.(map[string]any)["error"] != nil {
			t.Fatalf("after-commit step failed: %v", step)
		}
	}
	e.s.API(e.p, "POST", "/writers", map[string]any{"name": "Dup", "email": "author1@example.com"}).Must(t, 409)

	// v5: constraints removed, a column and a table dropped.
	if r := e.generate(evoV5, false).Must(t, 409); r.ErrorCode() != "DESTRUCTIVE_CHANGE" || r.Details()["writers.old"] == nil || r.Details()["drafts"] == nil {
		t.Fatalf("unconfirmed drops = %s", r.Raw)
	}
	e.generate(evoV5, true).Must(t, 200)
	sameRows(t, "writers", writers, e.rows("writers"), keep{dropped: []string{"old"}})
	sameRows(t, "posts", posts, e.rows("posts"), keep{converted: map[string]func(any) any{"stars": asString}})
	e.s.API(e.p, "GET", "/drafts", nil).Must(t, 404)
	cat = e.catalog()
	for _, gone := range []string{"writers_email_key", "writers_rating_check", "writers_code_sort", "writers_about_trgm", "posts_editor_id_fkey", "posts_title_check", "relation drafts", " old text", "DEFAULT 'anon'"} {
		e.hasNo(cat, gone)
	}
	e.hasNo(cat, "email text NOT NULL")
	e.hasNo(cat, "name text NOT NULL")
	e.has(cat, "writers_kind_check CHECK ((kind = ANY (ARRAY['a'::text, 'b'::text, 'c'::text])))")
	e.finished(cat)

	// What survives still behaves: cascade from v4, a name the rename freed.
	byFirst := 0
	for _, post := range posts {
		if post["author_id"] == float64(1) {
			byFirst++
		}
	}
	e.s.API(e.p, "DELETE", "/writers/1", nil).Must(t, 200)
	if n := len(e.rows("posts")); byFirst == 0 || n != len(posts)-byFirst {
		t.Fatalf("cascade left %d of %d posts (%d by writer 1)", n, len(posts), byFirst)
	}
	versions := e.s.Do("GET", "/api/projects/"+e.p.ID+"/schema/versions", e.p.Session, nil).Must(t, 200).List()
	if len(versions) != 5 {
		t.Fatalf("%d versions", len(versions))
	}
}

func TestARenamedTableFreesItsNameAndConstraintNames(t *testing.T) {
	t.Parallel()
	e := newEvo(t, `{"tables": [{"name": "users", "columns": [{"name": "email", "type": "email", "unique": true}]}]}`)
	e.s.API(e.p, "POST", "/users", map[string]any{"email": "a@example.com"}).Must(t, 201)
	renamed := `{"name": "members", "renamed_from": "users", "columns": [{"name": "email", "type": "email", "unique": true}]}`
	e.generate(`{"tables": [`+renamed+`]}`, false).Must(t, 200)
	// The next version creates a new table under the old name: the
	// names PostgreSQL and Tablesmith derived from it are free again.
	e.generate(`{"tables": [`+renamed+`, {"name": "users", "columns": [{"name": "email", "type": "email", "unique": true}]}]}`, false).Must(t, 200)
	if got := e.s.API(e.p, "GET", "/members/1", nil).Must(t, 200).Data()["email"]; got != "a@example.com" {
		t.Fatalf("renamed row = %v", got)
	}
	// The unique constraints map back to their own columns: a duplicate
	// in each table names the field.
	e.s.API(e.p, "POST", "/users", map[string]any{"email": "a@example.com"}).Must(t, 201)
	for _, table := range []string{"users", "members"} {
		r := e.s.API(e.p, "POST", "/"+table, map[string]any{"email": "a@example.com"}).Must(t, 409)
		if r.Details()["email"] == nil {
			t.Errorf("%s duplicate = %s", table, r.Raw)
		}
	}
	cat := e.catalog()
	e.has(cat, "members_email_key UNIQUE (email)")
	e.has(cat, "users_email_key UNIQUE (email)")
	e.has(cat, "index CREATE UNIQUE INDEX members_pkey")
	e.has(cat, "index CREATE UNIQUE INDEX users_pkey")
}

const blockedV1 = `{"tables": [{"name": "people", "columns": [
	{"name": "name", "type": "text"},
	{"name": "email", "type": "text"},
	{"name": "age", "type": "integer"},
	{"name": "kind", "type": "text"},
	{"name": "score", "type": "number"},
	{"name": "boss_id", "type": "integer"},
	{"name": "code", "type": "text"}]}]}`

const blockedV2 = `{"tables": [{"name": "people", "columns": [
	{"name": "name", "type": "text", "required": true},
	{"name": "email", "type": "email", "unique": true},
	{"name": "age", "type": "integer", "min": 0},
	{"name": "kind", "type": "enum", "values": ["a", "b"]},
	{"name": "score", "type": "integer"},
	{"name": "boss_id", "type": "integer", "references": {"table": "people"}},
	{"name": "code", "type": "integer"},
	{"name": "level", "type": "integer", "required": true}]},
	{"name": "extra", "columns": [{"name": "x", "type": "text"}]}]}`

func TestRowsThatWouldBreakAChangeAreReportedBeforeAnythingRuns(t *testing.T) {
	t.Parallel()
	e := newEvo(t, blockedV1)
	e.exec(`INSERT INTO $schema.people (name, email, age, kind, score, boss_id, code)
		SELECT CASE WHEN i BETWEEN 2 AND 8 THEN NULL ELSE 'P' || i END,
		       CASE WHEN i IN (1, 3) THEN 'same@example.com' WHEN i = 10 THEN 'Not-An-Email' ELSE 'p' || i || '@example.com' END,
		       CASE WHEN i = 5 THEN -1 ELSE i END, CASE WHEN i = 6 THEN 'z' ELSE 'a' END,
		       CASE WHEN i = 7 THEN 1.5 ELSE i END, CASE WHEN i = 8 THEN 999 ELSE 1 END,
		       CASE WHEN i = 9 THEN 'x1' ELSE i::text END
		FROM generate_series(1, 12) i`)
	beforeRows, beforeCat := e.rows("people"), e.catalog()

	// The plan can show what blocks it without running anything.
	e.s.Do("PUT", "/api/projects/"+e.p.ID+"/schema", e.p.Session, blockedV2).Must(t, 200)
	plan := e.s.Do("GET", "/api/projects/"+e.p.ID+"/schema/plan?check=true", e.p.Session, nil).Must(t, 200).Data()
	if vs, _ := plan["violations"].([]any); len(vs) != 9 {
		t.Fatalf("plan violations = %v", plan["violations"])
	}

	res := e.s.Do("POST", "/api/projects/"+e.p.ID+"/generate", e.p.Session, map[string]any{"confirm_destructive": true}).Must(t, 409)
	if res.ErrorCode() != "CONFLICT" || !strings.Contains(res.Message(), "changed nothing") {
		t.Fatalf("generate = %s", res.Raw)
	}
	want := map[string]string{
		"people.name":    "7 existing rows break this: every row has a value (the column becomes required) (ids 2, 3, 4, 5, 6)",
		"people.email":   "2 existing rows break this: no two rows share a value (the column becomes unique) (ids 1, 3)",
		"people.age":     "1 existing row breaks this: every value follows the new rule: at least 0 (ids 5)",
		"people.kind":    "1 existing row breaks this: every value follows the new rule: one of: a, b (ids 6)",
		"people.score":   "1 existing row breaks this: every value is a whole number within the integer range (ids 7)",
		"people.boss_id": "1 existing row breaks this: every value is the id of a row of people (ids 8)",
		"people.code":    "1 existing row breaks this: every value is a whole number (digits only) within the integer range (ids 9)",
		"people.level":   "12 existing rows break this: the table is empty",
	}
	for path, msg := range want {
		got, _ := res.Details()[path].(string)
		if !strings.Contains(got, msg) {
			t.Errorf("details[%s] = %q\n  want it to contain %q", path, got, msg)
		}
	}
	if got, _ := res.Details()["people.email"].(string); !strings.Contains(got, "valid e-mail address in lower case (ids 10)") {
		t.Errorf("the e-mail format check is missing: %q", got)
	}
	info := res.Body["error"].(map[string]any)["info"].(map[string]any)
	vs := info["violations"].([]any)
	if len(vs) != 9 {
		t.Fatalf("violations = %v", vs)
	}
	first := vs[0].(map[string]any)
	if first["table"] != "people" || first["column"] != "name" || first["count"] != float64(7) || len(first["examples"].([]any)) != 5 {
		t.Fatalf("first violation = %v", first)
	}

	// Nothing ran: same catalog (no table extra), same version, same rows.
	if got := e.catalog(); !reflect.DeepEqual(got, beforeCat) {
		t.Fatalf("catalog changed:\n%s", diffLines(beforeCat, got))
	}
	if v := e.version(); v != 1 {
		t.Fatalf("published version = %v", v)
	}
	sameRows(t, "people", beforeRows, e.rows("people"), keep{})

	// Fixing the rows lets the same draft through, with every value kept.
	e.exec(`UPDATE $schema.people SET name = 'fixed' WHERE name IS NULL`)
	e.exec(`UPDATE $schema.people SET email = 'p' || id || '@example.com' WHERE id IN (3, 10)`)
	e.exec(`UPDATE $schema.people SET age = 0 WHERE age < 0`)
	e.exec(`UPDATE $schema.people SET kind = 'b' WHERE kind = 'z'`)
	e.exec(`UPDATE $schema.people SET score = 2 WHERE score = 1.5`)
	e.exec(`UPDATE $schema.people SET boss_id = NULL WHERE boss_id = 999`)
	e.exec(`UPDATE $schema.people SET code = '9' WHERE code = 'x1'`)
	blocked := e.generate(blockedV2, true).Must(t, 409)
	if len(blocked.Details()) != 1 || blocked.Details()["people.level"] == nil {
		t.Fatalf("only the new required column should block now: %s", blocked.Raw)
	}
	fixedRows := e.rows("people")
	e.generate(strings.Replace(blockedV2, `{"name": "level", "type": "integer", "required": true}`, `{"name": "level", "type": "integer", "required": true, "default": 1}`, 1), true).Must(t, 200)
	sameRows(t, "people", fixedRows, e.rows("people"), keep{converted: map[string]func(any) any{"code": func(v any) any {
		var n float64
		_, _ = fmt.Sscan(v.(string), &n)
		return n
	}}, added: map[string]any{"level": float64(1)}})
	e.finished(e.catalog())
}

const faultV1 = `{"tables": [
	{"name": "a", "columns": [{"name": "x", "type": "text"}, {"name": "y", "type": "integer"}, {"name": "z", "type": "text", "index": true}]},
	{"name": "b", "columns": [{"name": "w", "type": "text"}]},
	{"name": "c", "columns": [{"name": "v", "type": "text"}]}]}`

const faultV2 = `{"tables": [
	{"name": "a2", "renamed_from": "a", "columns": [
		{"name": "x2", "renamed_from": "x", "type": "text", "required": true, "unique": true},
		{"name": "y", "type": "decimal", "min": 0, "default": 1},
		{"name": "q", "type": "text", "default": "q"}]},
	{"name": "b", "columns": [{"name": "w", "type": "text", "max_length": 20, "searchable": true}, {"name": "a_id", "type": "integer", "references": {"table": "a2"}}]},
	{"name": "d", "columns": [{"name": "a_id", "type": "integer", "references": {"table": "a2", "on_delete": "cascade"}}]}]}`

func TestAFaultAtAnyStatementLeavesCatalogDataAndVersionAsTheyWere(t *testing.T) {
	t.Parallel()
	e := newEvo(t, faultV1)
	e.exec(`INSERT INTO $schema.a (x, y, z) SELECT 'x' || i, i, 'z' || i FROM generate_series(1, 20) i`)
	e.exec(`INSERT INTO $schema.b (w) SELECT 'w' || i FROM generate_series(1, 5) i`)
	e.exec(`INSERT INTO $schema.c (v) VALUES ('v')`)
	beforeCat := e.catalog()
	before := map[string]map[string]map[string]any{"a": e.rows("a"), "b": e.rows("b"), "c": e.rows("c")}
	e.s.Do("PUT", "/api/projects/"+e.p.ID+"/schema", e.p.Session, faultV2).Must(t, 200)
	plan := e.s.Do("GET", "/api/projects/"+e.p.ID+"/schema/plan", e.p.Session, nil).Must(t, 200).Data()
	statements := plan["statements"].([]any)
	if len(statements) < 15 {
		t.Fatalf("the plan is too small to test faults inside it: %v", statements)
	}
	ctx := context.Background()
	trigram := store.TrigramAvailable(ctx, e.s.Svc.DB)
	injected := errors.New("injected fault")
	t.Logf("injecting a fault before each of %d statements", len(statements))
	for k := range statements {
		_, err := publish.Generate(ctx, e.s.Svc.Store, e.p.ID, publish.Options{ConfirmDestructive: true, Trigram: trigram,
			BeforeStatement: func(i int, _ string) error {
				if i == k {
					return injected
				}
				return nil
			}})
		var env *apierr.Error
		if !errors.As(err, &env) || env.Code != apierr.CodeConflict || !strings.Contains(env.Message, "changed nothing") || !errors.Is(err, injected) {
			t.Fatalf("fault before statement %d: %v", k, err)
		}
		if got := e.catalog(); !reflect.DeepEqual(got, beforeCat) {
			t.Fatalf("fault before statement %d (%s) changed the catalog:\n%s", k, statements[k], diffLines(beforeCat, got))
		}
		if v := e.version(); v != 1 {
			t.Fatalf("fault before statement %d: published version %v", k, v)
		}
	}
	for table, rows := range before {
		sameRows(t, table, rows, e.rows(table), keep{})
	}
	// The API still serves version 1.
	e.s.API(e.p, "GET", "/a/1", nil).Must(t, 200)
	e.s.API(e.p, "GET", "/a2/1", nil).Must(t, 404)

	// Without the fault the same plan goes through and keeps the data.
	res, err := publish.Generate(ctx, e.s.Svc.Store, e.p.ID, publish.Options{ConfirmDestructive: true, Trigram: trigram})
	if err != nil || res.Version != 2 || len(res.Pending()) != 0 {
		t.Fatalf("generate = %+v, %v", res, err)
	}
	e.s.Svc.Registry.Invalidate(e.p.ID)
	sameRows(t, "a2", before["a"], e.rows("a2"), keep{renamed: map[string]string{"x": "x2"}, dropped: []string{"z"},
		converted: map[string]func(any) any{"y": func(v any) any { return v }}, added: map[string]any{"q": "q"}})
	sameRows(t, "b", before["b"], e.rows("b"), keep{added: map[string]any{"a_id": nil}})
	e.finished(e.catalog())
}

// TestAFailedStatementOnRealDataChangesNothing makes PostgreSQL itself
// fail a statement in the middle of a migration: the plan runs without
// its prechecks, so the unique index build meets duplicate rows after
// the statements before it (a rename, a new column) already ran.
func TestAFailedStatementOnRealDataChangesNothing(t *testing.T) {
	t.Parallel()
	e := newEvo(t, `{"tables": [{"name": "a", "columns": [{"name": "x", "type": "text"}]}, {"name": "b", "columns": [{"name": "y", "type": "text"}]}]}`)
	e.exec(`INSERT INTO $schema.a (x) VALUES ('one'), ('two')`)
	e.exec(`INSERT INTO $schema.b (y) VALUES ('dup'), ('dup')`)
	beforeCat := e.catalog()
	pub, _ := schema.Parse([]byte(`{"tables": [{"name": "a", "columns": [{"name": "x", "type": "text"}]}, {"name": "b", "columns": [{"name": "y", "type": "text"}]}]}`))
	draft, _ := schema.Parse([]byte(`{"tables": [{"name": "a", "columns": [{"name": "x", "type": "text", "required": true}, {"name": "n", "type": "integer", "default": 0}]},
		{"name": "b2", "renamed_from": "b", "columns": [{"name": "y", "type": "text", "unique": true}]}]}`))
	plan := schema.Diff(publish.DDL(e.p.ID, false), pub, draft)
	doc, _ := json.Marshal(draft)
	m := publish.Migration{Statements: plan.Statements}
	_, err := e.s.Svc.Store.PublishVersion(context.Background(), e.p.ID, 1, store.NewVersion{Document: doc, Applied: []byte(`[]`)}, m.Run)
	var se *publish.StatementError
	if !errors.As(err, &se) || !strings.Contains(se.Statement, "CREATE UNIQUE INDEX") {
		t.Fatalf("migration = %v", err)
	}
	if got := e.catalog(); !reflect.DeepEqual(got, beforeCat) {
		t.Fatalf("catalog changed:\n%s", diffLines(beforeCat, got))
	}
	if v := e.version(); v != 1 {
		t.Fatalf("published version = %v", v)
	}
	env := apierr.As(publish.MigrationError(err))
	if env.Code != apierr.CodeConflict || !strings.Contains(env.Message, "changed nothing") {
		t.Fatalf("error = %+v", env)
	}
}

// reader reads one record over and over through the generated API and
// records how long each read took.
type reader struct {
	mu        sync.Mutex
	latencies []time.Duration
	failures  []string
}

func (r *reader) run(ctx context.Context, url, key string) {
	for ctx.Err() == nil {
		req, _ := http.NewRequestWithContext(ctx, "GET", url, nil)
		req.Header.Set("Authorization", "Bearer "+key)
		start := time.Now()
		res, err := http.DefaultClient.Do(req)
		took := time.Since(start)
		if ctx.Err() != nil {
			return
		}
		r.mu.Lock()
		switch {
		case err != nil:
			r.failures = append(r.failures, err.Error())
		case res.StatusCode != 200:
			body, _ := io.ReadAll(res.Body)
			r.failures = append(r.failures, fmt.Sprintf("%d %s", res.StatusCode, body))
		default:
			r.latencies = append(r.latencies, took)
		}
		r.mu.Unlock()
		if res != nil {
			_, _ = io.Copy(io.Discard, res.Body)
			res.Body.Close()
		}
		time.Sleep(5 * time.Millisecond)
	}
}

func (r *reader) summary() (n int, max time.Duration, failures []string) {
	r.mu.Lock()
	defer r.mu.Unlock()
	for _, l := range r.latencies {
		if l > max {
			max = l
		}
	}
	return len(r.latencies), max, r.failures
}

func TestReadsOfOtherTablesGoOnWhileAMigrationWaitsForALock(t *testing.T) {
	t.Parallel()
	e := newEvo(t, `{"tables": [{"name": "a", "columns": [{"name": "x", "type": "text"}]}, {"name": "b", "columns": [{"name": "y", "type": "text"}]}]}`)
	e.s.API(e.p, "POST", "/a", map[string]any{"x": "a1"}).Must(t, 201)
	e.s.API(e.p, "POST", "/b", map[string]any{"y": "b1"}).Must(t, 201)
	beforeCat := e.catalog()
	ctx := context.Background()

	// Another transaction holds a lock on a (an open read), so the
	// migration of a cannot take its exclusive lock.
	holder, err := e.s.Svc.DB.BeginTx(ctx, nil)
	if err != nil {
		t.Fatal(err)
	}
	defer holder.Rollback()
	if _, err := holder.ExecContext(ctx, `SELECT count(*) FROM `+e.schema+`.a`); err != nil {
		t.Fatal(err)
	}
	e.s.Do("PUT", "/api/projects/"+e.p.ID+"/schema", e.p.Session,
		`{"tables": [{"name": "a", "columns": [{"name": "x", "type": "text"}, {"name": "n", "type": "integer"}]}, {"name": "b", "columns": [{"name": "y", "type": "text"}]}]}`).Must(t, 200)

	readCtx, stopReads := context.WithCancel(ctx)
	var rb reader
	var wg sync.WaitGroup
	wg.Add(1)
	go func() { defer wg.Done(); rb.run(readCtx, e.s.URL+"/v1/"+e.p.ID+"/b/1", e.p.Key) }()

	const lockTimeout = 1500 * time.Millisecond
	start := time.Now()
	genDone := make(chan error, 1)
	go func() {
		_, err := publish.Generate(ctx, e.s.Svc.Store, e.p.ID, publish.Options{LockTimeout: lockTimeout})
		genDone <- err
	}()
	// While the migration waits, a read of a queues behind its lock
	// request; the lock timeout bounds that wait.
	time.Sleep(300 * time.Millisecond)
	aStart := time.Now()
	e.s.API(e.p, "GET", "/a/1", nil).Must(t, 200)
	aWait := time.Since(aStart)
	err = <-genDone
	genTook := time.Since(start)
	time.Sleep(200 * time.Millisecond)
	stopReads()
	wg.Wait()

	env := apierr.As(err)
	if env.Code != apierr.CodeConflict || !strings.Contains(env.Message, "busy") {
		t.Fatalf("generate = %v", err)
	}
	if genTook < lockTimeout || genTook > lockTimeout+3*time.Second {
		t.Errorf("generate gave up after %v, lock timeout %v", genTook, lockTimeout)
	}
	if aWait > lockTimeout+time.Second {
		t.Errorf("a read of the migrating table waited %v, more than the lock timeout", aWait)
	}
	n, max, failures := rb.summary()
	t.Logf("generate gave up after %v; a read of a waited %v; %d reads of b, slowest %v", genTook, aWait, n, max)
	if len(failures) > 0 || n < 10 {
		t.Fatalf("reads of b: %d ok, failures %v", n, failures)
	}
	// The migration waited lockTimeout; a read of b held up by it would
	// have waited that long too (the margin is for a loaded machine).
	if max >= lockTimeout {
		t.Errorf("a read of b took %v while a's migration waited", max)
	}
	if got := e.catalog(); !reflect.DeepEqual(got, beforeCat) {
		t.Fatalf("catalog changed:\n%s", diffLines(beforeCat, got))
	}
	if v := e.version(); v != 1 {
		t.Fatalf("published version = %v", v)
	}
	holder.Rollback()
	if _, err := publish.Generate(ctx, e.s.Svc.Store, e.p.ID, publish.Options{LockTimeout: lockTimeout}); err != nil {
		t.Fatalf("generate once the lock is gone: %v", err)
	}
}

// TestReadsGoOnWhileAMigrationHoldsAnotherTable pauses a migration of a
// in the middle, after a's exclusive lock is taken, and reads b (and
// reads a, which waits for the commit).
func TestReadsGoOnWhileAMigrationHoldsAnotherTable(t *testing.T) {
	t.Parallel()
	e := newEvo(t, `{"tables": [{"name": "a", "columns": [{"name": "x", "type": "integer"}]}, {"name": "b", "columns": [{"name": "y", "type": "text"}]}]}`)
	e.exec(`INSERT INTO $schema.a (x) SELECT i FROM generate_series(1, 1000) i`)
	e.s.API(e.p, "POST", "/b", map[string]any{"y": "b1"}).Must(t, 201)
	e.s.Do("PUT", "/api/projects/"+e.p.ID+"/schema", e.p.Session,
		`{"tables": [{"name": "a", "columns": [{"name": "x", "type": "decimal"}, {"name": "n", "type": "text"}]}, {"name": "b", "columns": [{"name": "y", "type": "text"}]}]}`).Must(t, 200)
	ctx := context.Background()
	paused, resume := make(chan struct{}), make(chan struct{})
	genDone := make(chan error, 1)
	go func() {
		_, err := publish.Generate(ctx, e.s.Svc.Store, e.p.ID, publish.Options{BeforeStatement: func(i int, _ string) error {
			if i == 1 { // after the ADD COLUMN of a: its exclusive lock is held
				close(paused)
				<-resume
			}
			return nil
		}})
		genDone <- err
	}()
	<-paused
	readCtx, stopReads := context.WithCancel(ctx)
	var rb reader
	var wg sync.WaitGroup
	wg.Add(1)
	go func() { defer wg.Done(); rb.run(readCtx, e.s.URL+"/v1/"+e.p.ID+"/b/1", e.p.Key) }()
	aRead := make(chan time.Duration, 1)
	go func() {
		start := time.Now()
		req, _ := http.NewRequest("GET", e.s.URL+"/v1/"+e.p.ID+"/a/1", nil)
		req.Header.Set("Authorization", "Bearer "+e.p.Key)
		if res, err := http.DefaultClient.Do(req); err == nil {
			res.Body.Close()
		}
		aRead <- time.Since(start)
	}()
	time.Sleep(time.Second)
	select {
	case d := <-aRead:
		t.Fatalf("a read of a finished in %v while its migration held the table", d)
	default:
	}
	stopReads()
	wg.Wait()
	close(resume)
	if err := <-genDone; err != nil {
		t.Fatalf("generate = %v", err)
	}
	if d := <-aRead; d < time.Second {
		t.Fatalf("a read of a took %v", d)
	}
	n, max, failures := rb.summary()
	t.Logf("%d reads of b during the pause, slowest %v", n, max)
	// A read of b that waited on a's migration would have waited the
	// whole pause (a second) and let few others through; the bounds say
	// neither happened, with room for a machine loaded by the suite,
	// where a read under -race once took 528 ms.
	if len(failures) > 0 || n < 10 || max >= time.Second {
		t.Fatalf("reads of b: %d ok, slowest %v, failures %v", n, max, failures)
	}
}

// TestReadsOfATableGoOnWhileItsNewConstraintsAreChecked pauses a
// migration after its SHARE lock and prechecks, at the unique index
// build: reads of that very table go on, writes wait for the commit.
func TestReadsOfATableGoOnWhileItsNewConstraintsAreChecked(t *testing.T) {
	t.Parallel()
	e := newEvo(t, `{"tables": [{"name": "a", "columns": [{"name": "x", "type": "text"}]}]}`)
	e.exec(`INSERT INTO $schema.a (x) SELECT 'x' || i FROM generate_series(1, 1000) i`)
	e.s.API(e.p, "GET", "/a/1", nil).Must(t, 200) // loads the published API first
	e.s.Do("PUT", "/api/projects/"+e.p.ID+"/schema", e.p.Session,
		`{"tables": [{"name": "a", "columns": [{"name": "x", "type": "text", "unique": true, "required": true}]}]}`).Must(t, 200)
	ctx := context.Background()
	paused, resume := make(chan struct{}), make(chan struct{})
	genDone := make(chan error, 1)
	go func() {
		_, err := publish.Generate(ctx, e.s.Svc.Store, e.p.ID, publish.Options{BeforeStatement: func(i int, st string) error {
			if i == 0 && strings.HasPrefix(st, "CREATE UNIQUE INDEX") {
				close(paused)
				<-resume
			}
			return nil
		}})
		genDone <- err
	}()
	select {
	case <-paused:
	case err := <-genDone:
		t.Fatalf("the migration did not start with the unique index build: %v", err)
	}
	start := time.Now()
	e.s.API(e.p, "GET", "/a/1", nil).Must(t, 200)
	if d := time.Since(start); d > 500*time.Millisecond {
		t.Errorf("a read during the checks took %v", d)
	}
	wrote := make(chan int, 1)
	go func() {
		req, _ := http.NewRequest("POST", e.s.URL+"/v1/"+e.p.ID+"/a", strings.NewReader(`{"x": "new"}`))
		req.Header.Set("Authorization", "Bearer "+e.p.Key)
		req.Header.Set("Content-Type", "application/json")
		res, err := http.DefaultClient.Do(req)
		if err != nil {
			wrote <- 0
			return
		}
		res.Body.Close()
		wrote <- res.StatusCode
	}()
	select {
	case code := <-wrote:
		t.Fatalf("a write went through (%d) while the checks held the SHARE lock", code)
	case <-time.After(500 * time.Millisecond):
	}
	close(resume)
	if err := <-genDone; err != nil {
		t.Fatalf("generate = %v", err)
	}
	if code := <-wrote; code != 201 {
		t.Fatalf("the waiting write answered %d", code)
	}
	e.s.API(e.p, "POST", "/a", map[string]any{"x": "new"}).Must(t, 409)
	cat := e.catalog()
	e.has(cat, "a_x_key UNIQUE (x)")
	e.has(cat, "a.2 x text NOT NULL")
	e.finished(cat)
}

func TestFinishRebuildsAnIndexThatAFailedConcurrentBuildLeftInvalid(t *testing.T) {
	t.Parallel()
	e := newEvo(t, `{"tables": [{"name": "a", "columns": [{"name": "x", "type": "text", "index": true}, {"name": "y", "type": "integer"}]}]}`)
	e.exec(`INSERT INTO $schema.a (x, y) SELECT 'x' || i, i FROM generate_series(1, 10) i`)
	// Leave what a crash in the middle of the after-commit work would:
	// an INVALID index, a NOT VALID check, a helper NOT NULL check.
	e.exec(`UPDATE pg_index SET indisvalid = false WHERE indexrelid = (SELECT oid FROM pg_class WHERE relname = 'a_x_sort' AND relnamespace = '` + e.schema + `'::regnamespace)`)
	e.exec(`ALTER TABLE $schema.a ADD CONSTRAINT a_y_check CHECK (y >= 0) NOT VALID`)
	e.exec(`ALTER TABLE $schema.a ADD CONSTRAINT a_y_not_null CHECK (y IS NOT NULL) NOT VALID`)
	cat := e.catalog()
	e.has(cat, "a_x_sort", "INVALID")
	e.has(cat, "a_y_not_null", "NOT VALID")

	steps, err := e.s.Svc.Store.Finish(context.Background(), e.p.ID, publish.DDL(e.p.ID, false).WantedIndexes(mustDoc(t, `{"tables": [{"name": "a", "columns": [{"name": "x", "type": "text", "index": true}, {"name": "y", "type": "integer"}]}]}`)), time.Second)
	if err != nil {
		t.Fatal(err)
	}
	for _, s := range steps {
		if s.Error != "" {
			t.Fatalf("step %s: %s", s.Statement, s.Error)
		}
	}
	cat = e.catalog()
	e.finished(cat)
	e.has(cat, "CREATE INDEX a_x_sort ON "+e.ns+".a USING btree (x, id)")
	e.has(cat, "a_y_check CHECK ((y >= 0))")
	e.has(cat, "a.2 x text")
	e.has(cat, "y bigint NOT NULL")
}

func mustDoc(t *testing.T, s string) schema.Document {
	t.Helper()
	d, err := schema.Parse([]byte(s))
	if err != nil {
		t.Fatal(err)
	}
	return d
}

func TestVersionsCanBeReadResetAndExported(t *testing.T) {
	t.Parallel()
	e := newEvo(t, `{"tables": [{"name": "a", "columns": [{"name": "x", "type": "text"}]}]}`)
	e.generate(`{"tables": [{"name": "a", "columns": [{"name": "x", "type": "text"}, {"name": "y", "type": "integer"}]}]}`, false).Must(t, 200)
	base := "/api/projects/" + e.p.ID

	v1 := e.s.Do("GET", base+"/schema/versions/1", e.p.Session, nil).Must(t, 200).Data()
	if v1["version"] != float64(1) || len(v1["document"].(map[string]any)["tables"].([]any)[0].(map[string]any)["columns"].([]any)) != 1 {
		t.Fatalf("version 1 = %v", v1)
	}
	e.s.Do("GET", base+"/schema/versions/9", e.p.Session, nil).Must(t, 404)
	e.s.Do("GET", base+"/schema/versions/x", e.p.Session, nil).Must(t, 404)

	// Reset: the draft becomes version 1; nothing is generated.
	reset := e.s.Do("POST", base+"/schema/reset", e.p.Session, map[string]any{"version": 1}).Must(t, 200)
	meta := reset.Body["meta"].(map[string]any)
	if meta["has_unpublished_changes"] != true || meta["published_version"] != float64(2) || !strings.Contains(reset.Message(), "version 1") {
		t.Fatalf("reset = %s", reset.Raw)
	}
	if cols := e.s.Do("GET", base+"/schema", e.p.Session, nil).Must(t, 200).Data()["tables"].([]any)[0].(map[string]any)["columns"].([]any); len(cols) != 1 {
		t.Fatalf("draft after reset = %v", cols)
	}
	e.s.Do("POST", base+"/schema/reset", e.p.Session, map[string]any{"version": 7}).Must(t, 404)
	if r := e.s.Do("POST", base+"/schema/reset", e.p.Session, map[string]any{}).Must(t, 400); r.Details()["version"] == nil {
		t.Fatalf("reset without a version = %s", r.Raw)
	}
	// Generating the reset draft is a migration like any other: dropping
	// y needs confirmation.
	if r := e.s.Do("POST", base+"/generate", e.p.Session, map[string]any{}).Must(t, 409); r.ErrorCode() != "DESTRUCTIVE_CHANGE" {
		t.Fatalf("generate after reset = %s", r.Raw)
	}

	// Export: a file, not an envelope, that PUT schema takes back.
	res, err := http.NewRequest("GET", e.s.URL+base+"/schema/export", nil)
	if err != nil {
		t.Fatal(err)
	}
	res.Header.Set("Authorization", "Bearer "+e.p.Session)
	file, err := http.DefaultClient.Do(res)
	if err != nil {
		t.Fatal(err)
	}
	body, _ := io.ReadAll(file.Body)
	file.Body.Close()
	if file.StatusCode != 200 || file.Header.Get("Content-Disposition") != `attachment; filename="`+e.p.ID+`-schema.json"` ||
		!strings.HasPrefix(file.Header.Get("Content-Type"), "application/json") || !strings.HasPrefix(string(body), "{\n  \"tables\"") {
		t.Fatalf("export = %d %v\n%s", file.StatusCode, file.Header, body)
	}
	if _, err := schema.Parse(body); err != nil {
		t.Fatalf("the export does not parse as a schema: %v", err)
	}
	e.s.Do("PUT", base+"/schema", e.p.Session, string(body)).Must(t, 200)
	v2 := e.s.Do("GET", base+"/schema/export?version=2", e.p.Session, nil)
	if v2.Status != 200 || !strings.Contains(v2.Header.Get("Content-Disposition"), "-schema-v2.json") || !strings.Contains(string(v2.Raw), `"y"`) {
		t.Fatalf("export of version 2 = %d %v", v2.Status, v2.Header)
	}
	e.s.Do("GET", base+"/schema/export?version=5", e.p.Session, nil).Must(t, 404)
	stranger := e.s.Signup("stranger-" + e.p.ID + "@example.com")
	e.s.Do("GET", base+"/schema/export", stranger, nil).Must(t, 404)
}

func TestRenamedFromThatMatchesNothingIsNotedInThePlan(t *testing.T) {
	t.Parallel()
	e := newEvo(t, `{"tables": [{"name": "a", "columns": [{"name": "x", "type": "text"}]}]}`)
	e.s.API(e.p, "POST", "/a", map[string]any{"x": "kept"}).Must(t, 201)
	res := e.generate(`{"tables": [{"name": "a", "columns": [{"name": "x", "type": "text"}, {"name": "y", "renamed_from": "ghost", "type": "text"}]},
		{"name": "b", "renamed_from": "nothing", "columns": []}]}`, false).Must(t, 200)
	notes, _ := res.Data()["notes"].([]any)
	if len(notes) != 2 {
		t.Fatalf("notes = %s", res.Raw)
	}
	if got := e.s.API(e.p, "GET", "/a/1", nil).Must(t, 200).Data(); got["x"] != "kept" || got["y"] != nil {
		t.Fatalf("row = %v", got)
	}
}

// TestSQLFormatChecksAgreeWithTheValidators runs the SQL that prechecks
// use for e-mail and URL values against the validators: the SQL never
// accepts what the validator refuses.
func TestSQLFormatChecksAgreeWithTheValidators(t *testing.T) {
	t.Parallel()
	s := testserver.New(t)
	samples := map[string][]string{
		schema.TypeEmail: {"a@b.co", "ann.lee+x@mail.example.org", "A@b.co", "a b@c.de", "a@b", "@b.co", "a@@b.co", "a@b..co", "a@.b.co",
			" a@b.co", "a@b.co ", "ü@bücher.de", "a@b.c", strings.Repeat("x", 250) + "@b.co", "a@b.co\n", "x@y.z\t"},
		schema.TypeURL: {"https://example.com", "http://example.com/a/b?q=1#f", "HTTPS://EXAMPLE.COM", "ftp://example.com", "http://", "http:///x",
			"http://a b", "http://x/%zz", "http://x/%20", "http://[::1]:8080/", "http://user:pw@host/", "http://host:port", "example.com",
			"http://bücher.de", "http://x/\u0001", "http://x/a b", "https://a.b/c%2", "http://a@b@c", "http://[::1", "http://x:80"},
	}
	for typ, values := range samples {
		col := &schema.Column{Name: "v", Type: typ}
		for _, v := range values {
			var sqlOK bool
			if err := s.Svc.DB.QueryRow(`SELECT `+schema.FormatSQL(typ, "$1::text"), v).Scan(&sqlOK); err != nil {
				t.Fatalf("%s %q: %v", typ, v, err)
			}
			stored, msg := schema.CheckValue(col, v)
			goOK := msg == "" && stored == v
			if sqlOK && !goOK {
				t.Errorf("%s %q: the SQL accepts what the validator refuses (%s)", typ, v, msg)
			}
			if !sqlOK && goOK {
				t.Logf("%s %q: refused by the SQL, accepted by the validator (the safe direction)", typ, v)
			}
		}
	}
}

// diffLines shows what two sorted catalogs do not share.
func diffLines(a, b []string) string {
	in := func(list []string) map[string]bool {
		m := map[string]bool{}
		for _, s := range list {
			m[s] = true
		}
		return m
	}
	ma, mb := in(a), in(b)
	var out []string
	for _, s := range a {
		if !mb[s] {
			out = append(out, "- "+s)
		}
	}
	for _, s := range b {
		if !ma[s] {
			out = append(out, "+ "+s)
		}
	}
	sort.Strings(out)
	return strings.Join(out, "\n")
}
