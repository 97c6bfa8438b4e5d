package realtime_test

import (
	"context"
	"fmt"
	"strings"
	"testing"

	"github.com/tablesmith/tablesmith/internal/realtime"
	"github.com/tablesmith/tablesmith/internal/testserver"
)

// aliasSchema names its realtime table's columns after every name the
// capture function used or uses: its row aliases (n, o, and the new _n,
// _o, which no column may take), and PL/pgSQL's variables.
const aliasSchema = `{"tables": [{"name": "things", "realtime": true, "columns": [
	{"name": "n", "type": "integer"},
	{"name": "o", "type": "text"},
	{"name": "tg_table_name", "type": "text"},
	{"name": "tg_op", "type": "text"},
	{"name": "tbl", "type": "text"},
	{"name": "op", "type": "text"},
	{"name": "row", "type": "boolean"}]}]}`

func TestColumnsNamedLikeTheCaptureFunctionsAliasesAreWrittenAndStreamed(t *testing.T) {
	s := testserver.New(t)
	p := s.NewProject(aliasSchema)
	st := open(t, s, "/v1/"+p.ID+"/realtime?tables=things&where[things]="+urlQuery("n > 1"), p.Key)

	body := map[string]any{"n": 7, "o": "oh", "tg_table_name": "tn", "tg_op": "to", "tbl": "tb", "op": "op", "row": true}
	id := fmt.Sprint(s.API(p, "POST", "/things", body).Must(t, 201).Data()["id"])
	s.API(p, "PATCH", "/things/"+id, map[string]any{"o": "changed"}).Must(t, 200)
	s.API(p, "DELETE", "/things/"+id, nil).Must(t, 200)

	for _, want := range []struct{ name, o string }{{"create", "oh"}, {"update", "changed"}, {"delete", "changed"}} {
		ev := st.next(t)
		rec := record(ev)
		if ev.Name != want.name || rec["n"] != float64(7) || rec["o"] != want.o || rec["tg_table_name"] != "tn" || rec["row"] != true {
			t.Errorf("event %+v, want %s of the row with n 7 and o %q: a column named like an alias must not replace the row image", ev, want.name, want.o)
		}
	}
}

// oldCapture is the capture function Tablesmith wrote before the row
// aliases were made impossible to shadow: to_jsonb(n) of a table with a
// column n is that column, not the row.
const oldCapture = `CREATE OR REPLACE FUNCTION $s."_realtime_capture"() RETURNS trigger LANGUAGE plpgsql AS $fn$
BEGIN
  IF TG_OP = 'DELETE' THEN
    INSERT INTO $s."_realtime_pending" (tbl, op, "row") SELECT TG_TABLE_NAME, 'delete', to_jsonb(o) FROM _old o;
  ELSIF TG_OP = 'INSERT' THEN
    INSERT INTO $s."_realtime_pending" (tbl, op, "row") SELECT TG_TABLE_NAME, 'create', to_jsonb(n) FROM _new n;
  ELSE
    INSERT INTO $s."_realtime_pending" (tbl, op, "row") SELECT TG_TABLE_NAME, 'update', to_jsonb(n) FROM _new n;
  END IF;
  RETURN NULL;
END
$fn$`

func TestANodeStartingGivesAProjectPublishedBeforeTheFixThisVersionsCaptureFunction(t *testing.T) {
	s := testserver.New(t)
	p := s.NewProject(`{"tables": [{"name": "things", "realtime": true, "columns": [{"name": "n", "type": "integer"}]}]}`)
	sqlIn(t, s, p, oldCapture)
	// The old function fails every create whose n is null (the image is
	// a JSON null, and the change log's row is NOT NULL).
	if r := s.API(p, "POST", "/things", map[string]any{}); r.Status != 400 {
		t.Fatalf("with the old capture function a create answered %d %s, want the old failure (400)", r.Status, r.Raw)
	}

	// A node of this version starts on the same database, as after an
	// upgrade, and serves the project with the function replaced.
	upgraded := testserver.New(t)
	var src string
	if err := s.Svc.DB.QueryRow(`SELECT prosrc FROM pg_proc p JOIN pg_namespace n ON n.oid = p.pronamespace
		WHERE proname = '_realtime_capture' AND nspname = 'p_' || $1`, p.ID).Scan(&src); err != nil {
		t.Fatal(err)
	}
	if strings.Contains(src, "to_jsonb(n)") || !strings.Contains(src, "to_jsonb(_n.*)") {
		t.Fatalf("after a start the capture function is still the old one:\n%s", src)
	}
	st := open(t, upgraded, "/v1/"+p.ID+"/realtime?tables=things", p.Key)
	upgraded.API(p, "POST", "/things", map[string]any{"n": 3}).Must(t, 201)
	if ev := st.next(t); ev.Name != "create" || record(ev)["n"] != float64(3) {
		t.Errorf("after the upgrade: %+v, want the create of the row with n 3", ev)
	}

	// Nothing left to replace: a second pass changes nothing.
	if n, err := realtime.UpgradeCapture(context.Background(), s.Svc.DB); err != nil || n != 0 {
		t.Errorf("a second upgrade replaced %d functions (%v), want 0", n, err)
	}
}
