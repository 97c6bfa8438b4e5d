package schema

import (
	"strings"
	"testing"
)

func TestTurningRealtimeOnAndOffPlansTriggersAsAMetadataChange(t *testing.T) {
	g := DDL{Schema: "p_abc"}
	off := mustParse(t, `{"tables": [{"name": "posts", "columns": [{"name": "title", "type": "text"}]}]}`)
	on := mustParse(t, `{"tables": [{"name": "posts", "realtime": true, "columns": [{"name": "title", "type": "text"}]}]}`)

	p := Diff(g, off, on)
	if len(p.Changes) != 1 || p.Changes[0].Kind != ChangeMetadata || p.Destructive {
		t.Fatalf("turning realtime on: want one non-destructive metadata change, got %+v", p.Changes)
	}
	all := strings.Join(p.Statements, "\n")
	for _, want := range []string{`CREATE TABLE IF NOT EXISTS "p_abc"."_realtime_log"`, `CREATE SEQUENCE IF NOT EXISTS "p_abc"."_realtime_seq"`,
		`CREATE TRIGGER "_realtime_insert" AFTER INSERT ON "p_abc"."posts" REFERENCING NEW TABLE AS _new FOR EACH STATEMENT`,
		`CREATE TRIGGER "_realtime_update" AFTER UPDATE ON "p_abc"."posts" REFERENCING OLD TABLE AS _old NEW TABLE AS _new FOR EACH STATEMENT EXECUTE FUNCTION "p_abc"."_realtime_capture"('old')`,
		`CREATE TRIGGER "_realtime_delete" AFTER DELETE ON "p_abc"."posts" REFERENCING OLD TABLE AS _old`,
		// A project an older version set up gets the update's old image.
		`ALTER TABLE "p_abc"."_realtime_log" ADD COLUMN IF NOT EXISTS "old" jsonb`} {
		if !strings.Contains(all, want) {
			t.Errorf("turning realtime on: statements lack %q:\n%s", want, all)
		}
	}

	// The writers' capture takes no lock and sends no NOTIFY: the
	// sequencer numbers and announces (bench/RESULTS.md, Realtime).
	if strings.Contains(all, "pg_advisory") || strings.Contains(all, "pg_notify") {
		t.Errorf("the capture serialises writers:\n%s", all)
	}

	p = Diff(g, on, off)
	if len(p.Changes) != 1 || len(p.Statements) != 3 || !strings.HasPrefix(p.Statements[0], `DROP TRIGGER IF EXISTS "_realtime_insert" ON "p_abc"."posts"`) {
		t.Fatalf("turning realtime off: want three DROP TRIGGER statements, got %q", p.Statements)
	}
	if p := Diff(g, on, on); len(p.Statements) != 0 {
		t.Errorf("an unchanged realtime table plans nothing, got %q", p.Statements)
	}
}

func TestANewRealtimeTableGetsItsTriggersAfterItExistsAndTheLogOnce(t *testing.T) {
	g := DDL{Schema: "p_abc"}
	draft := mustParse(t, `{"tables": [{"name": "a", "realtime": true, "columns": []}, {"name": "b", "realtime": true, "columns": []}]}`)
	p := Diff(g, Document{}, draft)
	all := strings.Join(p.Statements, "\n")
	if n := strings.Count(all, `CREATE TABLE IF NOT EXISTS "p_abc"."_realtime_log"`); n != 1 {
		t.Errorf("the change log is created %d times, want once", n)
	}
	if strings.Index(all, `CREATE TABLE "p_abc"."b"`) > strings.Index(all, `ON "p_abc"."a"`) {
		t.Errorf("triggers come before the tables they are on:\n%s", all)
	}
}

func TestRealtimeIsRefusedOnAFrontedTable(t *testing.T) {
	d := mustParse(t, `{"tables": [{"name": "a", "realtime": true, "external": {"primary_key": "id"}, "columns": []}]}`)
	if msg := Validate(d)["tables[0].realtime"]; !strings.Contains(msg, "fronted database") {
		t.Errorf("want tables[0].realtime refused on a fronted table, got %q (all: %v)", msg, Validate(d))
	}
}

func TestAPlanSaysWhyItTurnsRealtimeOnWhenSomethingElseAsked(t *testing.T) {
	off := mustParse(t, `{"tables": [{"name": "posts", "columns": []}, {"name": "notes", "columns": []}]}`)
	on := mustParse(t, `{"tables": [{"name": "posts", "realtime": true, "columns": []}, {"name": "notes", "realtime": true, "columns": []}]}`)
	p := Diff(DDL{Schema: "p_abc"}, off, on)
	p.ExplainRealtime("posts", "webhook wh_1 delivers its changes")
	want := map[string]string{
		"posts": "turn realtime on for posts (webhook wh_1 delivers its changes; capture triggers write its changes to the project's change log)",
		"notes": "turn realtime on for notes (capture triggers write its changes to the project's change log)",
	}
	for _, c := range p.Changes {
		if c.Description != want[c.Table] {
			t.Errorf("%s: description %q, want %q", c.Table, c.Description, want[c.Table])
		}
	}
}
