package realtime_test

import (
	"context"
	"database/sql"
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/tablesmith/tablesmith/internal/realtime"
	"github.com/tablesmith/tablesmith/internal/testserver"
	"github.com/tablesmith/tablesmith/schema"
)

const thingsSchema = `{"tables": [{"name": "things", "realtime": true, "columns": [{"name": "n", "type": "integer"}]}]}`

// previousCapture turns a project's capture back into what the version
// before old images set up: no "old" columns, its capture function, and
// an update trigger without the old rows (nor an argument).
const previousCapture = `ALTER TABLE $s."_realtime_pending" DROP COLUMN "old";
ALTER TABLE $s."_realtime_log" DROP COLUMN "old";
CREATE OR REPLACE FUNCTION $s."_realtime_capture"() RETURNS trigger LANGUAGE plpgsql AS $fn$
DECLARE
  _tbl text := TG_TABLE_NAME;
BEGIN
  IF TG_OP = 'DELETE' THEN
    INSERT INTO $s."_realtime_pending" (tbl, op, "row") SELECT _tbl, 'delete', to_jsonb(_o.*) FROM _old _o;
  ELSIF TG_OP = 'INSERT' THEN
    INSERT INTO $s."_realtime_pending" (tbl, op, "row") SELECT _tbl, 'create', to_jsonb(_n.*) FROM _new _n;
  ELSE
    INSERT INTO $s."_realtime_pending" (tbl, op, "row") SELECT _tbl, 'update', to_jsonb(_n.*) FROM _new _n;
  END IF;
  RETURN NULL;
END
$fn$;
DROP TRIGGER "_realtime_update" ON $s."things";
CREATE TRIGGER "_realtime_update" AFTER UPDATE ON $s."things" REFERENCING NEW TABLE AS _new
  FOR EACH STATEMENT EXECUTE FUNCTION $s."_realtime_capture"()`

// lastUpdate is the n of the newest captured update of table, after it
// and before it ("" when the capture kept no old image).
func lastUpdate(t *testing.T, s *testserver.Server, p *testserver.Project, table string) (n, old string) {
	t.Helper()
	q := strings.ReplaceAll(`SELECT "row"->>'n', "old"->>'n' FROM (
		SELECT "row", "old", at FROM $s."_realtime_pending" WHERE tbl = $1 AND op = 'update'
		UNION ALL SELECT "row", "old", at FROM $s."_realtime_log" WHERE tbl = $1 AND op = 'update') u
		ORDER BY at DESC LIMIT 1`, "$s", `"`+schema.ProjectSchema(p.ID)+`"`)
	var o sql.NullString
	if err := s.Svc.DB.QueryRow(q, table).Scan(&n, &o); err != nil {
		t.Fatalf("read the last update of %s: %v", table, err)
	}
	return n, o.String
}

func TestAProjectPublishedBeforeOldImagesKeepsWritingThroughTheUpgradeAndThenCapturesTheRowBeforeAnUpdate(t *testing.T) {
	s := testserver.New(t)
	p := s.NewProject(thingsSchema)
	sqlIn(t, s, p, previousCapture)
	id := fmt.Sprint(s.API(p, "POST", "/things", map[string]any{"n": 1}).Must(t, 201).Data()["id"])
	s.API(p, "PATCH", "/things/"+id, map[string]any{"n": 2}).Must(t, 200)

	// This version generates for the old project before any upgrade: its
	// setup adds the columns and replaces the function, and the existing
	// table keeps the previous update trigger, which has no _old.
	s.Publish(p.Session, p.ID, `{"tables": [{"name": "things", "realtime": true, "columns": [{"name": "n", "type": "integer"}]},
		{"name": "others", "realtime": true, "columns": [{"name": "n", "type": "integer"}]}]}`)
	s.API(p, "PATCH", "/things/"+id, map[string]any{"n": 3}).Must(t, 200)
	if n, old := lastUpdate(t, s, p, "things"); n != "3" || old != "" {
		t.Errorf("through the previous trigger: update to %s with old n %q, want 3 and no old image", n, old)
	}

	if n, err := realtime.UpgradeCapture(context.Background(), s.Svc.DB); err != nil || n != 1 {
		t.Fatalf("the upgrade replaced %d projects' capture (%v), want 1: the function is this version's, a trigger is not", n, err)
	}
	s.API(p, "PATCH", "/things/"+id, map[string]any{"n": 4}).Must(t, 200)
	if n, old := lastUpdate(t, s, p, "things"); n != "4" || old != "3" {
		t.Errorf("after the upgrade: update to %s with old n %q, want 4 from 3", n, old)
	}
	other := fmt.Sprint(s.API(p, "POST", "/others", map[string]any{"n": 10}).Must(t, 201).Data()["id"])
	s.API(p, "PATCH", "/others/"+other, map[string]any{"n": 11}).Must(t, 200)
	if n, old := lastUpdate(t, s, p, "others"); n != "11" || old != "10" {
		t.Errorf("a table turned on by this version: update to %s with old n %q, want 11 from 10", n, old)
	}

	// The sequencer moves the old image into the log with the change.
	st := open(t, s, "/v1/"+p.ID+"/realtime?tables=things", p.Key)
	s.API(p, "PATCH", "/things/"+id, map[string]any{"n": 5}).Must(t, 200)
	ev := st.next(t)
	var old string
	if err := s.Svc.DB.QueryRow(`SELECT "old"->>'n' FROM "`+schema.ProjectSchema(p.ID)+`"."_realtime_log" WHERE seq = $1`, ev.ID).Scan(&old); err != nil || ev.Name != "update" || old != "4" {
		t.Errorf("event %+v, logged with old n %q (%v), want the update from 4", ev, old, err)
	}

	if n, err := realtime.UpgradeCapture(context.Background(), s.Svc.DB); err != nil || n != 0 {
		t.Errorf("a second upgrade replaced %d projects' capture (%v), want 0", n, err)
	}
}

func TestABulkUpdatePairsEveryRowWithItsOwnOldImageInLinearTime(t *testing.T) {
	const rows = 20000
	s := testserver.New(t)
	p := s.NewProject(thingsSchema)
	sqlIn(t, s, p, fmt.Sprintf(`INSERT INTO $s."things" (n) SELECT g FROM generate_series(1, %d) g`, rows))
	things := `"` + schema.ProjectSchema(p.ID) + `"."things"`

	// One session: its capture plans the join at the first update (one
	// row), and keeps that plan for the bulk update.
	ctx := context.Background()
	conn, err := s.Svc.DB.Conn(ctx)
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close()
	if _, err := conn.ExecContext(ctx, `UPDATE `+things+` SET n = 0 WHERE n = 1`); err != nil {
		t.Fatal(err)
	}
	start := time.Now()
	if _, err := conn.ExecContext(ctx, `UPDATE `+things+` SET n = n + 1 WHERE n > 0`); err != nil {
		t.Fatal(err)
	}
	// A nested loop takes about 40 s for 20,000 rows; hashed, 0.2 s.
	if took := time.Since(start); took > 10*time.Second {
		t.Errorf("a bulk update of %d rows took %v: the capture pairs old and new rows quadratically", rows, took)
	}

	var paired, all int
	err = s.Svc.DB.QueryRow(strings.ReplaceAll(`SELECT count(*) FILTER (WHERE "row"->'id' = "old"->'id'
		AND ("row"->>'n')::int = ("old"->>'n')::int + 1), count(*) FROM (
		SELECT "row", "old" FROM $s."_realtime_pending" WHERE op = 'update' AND "row"->>'n' <> '0'
		UNION ALL SELECT "row", "old" FROM $s."_realtime_log" WHERE op = 'update' AND "row"->>'n' <> '0') u`,
		"$s", `"`+schema.ProjectSchema(p.ID)+`"`)).Scan(&paired, &all)
	if err != nil || paired != rows-1 || all != rows-1 {
		t.Errorf("%d of %d captured updates pair the row with its own old image (%v), want all %d", paired, all, err, rows-1)
	}
}

func TestARowUpdatedTwiceByOneStatementGetsEachUpdatesOwnOldImage(t *testing.T) {
	s := testserver.New(t)
	p := s.NewProject(`{"tables": [{"name": "parents", "columns": [{"name": "name", "type": "text"}]},
		{"name": "kids", "realtime": true, "columns": [
			{"name": "a", "type": "integer", "references": {"table": "parents", "on_delete": "set_null"}, "relation": "pa", "reverse_relation": "kids_a"},
			{"name": "b", "type": "integer", "references": {"table": "parents", "on_delete": "set_null"}, "relation": "pb", "reverse_relation": "kids_b"}]}]}`)
	parent := s.API(p, "POST", "/parents", map[string]any{"name": "gone"}).Must(t, 201).Data()["id"]
	s.API(p, "POST", "/kids", map[string]any{"a": parent, "b": parent}).Must(t, 201)
	// The delete's two set_null actions update the kid twice, and one
	// firing of its update trigger sees both versions of the row.
	s.API(p, "DELETE", fmt.Sprintf("/parents/%v", parent), nil).Must(t, 200)

	rows, err := s.Svc.DB.Query(strings.ReplaceAll(`SELECT "old" - 'updated_at', "row" - 'updated_at' FROM (
		SELECT "row", "old", id AS k FROM $s."_realtime_pending" WHERE tbl = 'kids' AND op = 'update'
		UNION ALL SELECT "row", "old", seq FROM $s."_realtime_log" WHERE tbl = 'kids' AND op = 'update') u ORDER BY k`,
		"$s", `"`+schema.ProjectSchema(p.ID)+`"`))
	if err != nil {
		t.Fatal(err)
	}
	defer rows.Close()
	var pairs [][2]string
	for rows.Next() {
		var old, row string
		if err := rows.Scan(&old, &row); err != nil {
			t.Fatal(err)
		}
		pairs = append(pairs, [2]string{old, row})
	}
	// Each update's old image is the row the one before it left.
	if len(pairs) != 2 || pairs[1][0] != pairs[0][1] || pairs[0][0] == pairs[0][1] || pairs[1][0] == pairs[1][1] {
		t.Errorf("captured (old, new) pairs %v, want two updates, the second starting where the first ended", pairs)
	}
}
