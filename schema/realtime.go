package schema

import (
	"strconv"
	"strings"
)

// The objects realtime capture creates in a project's schema. Their names
// start with an underscore, which no table name may (ValidName), so they
// can never meet a user's table.
const (
	// RealtimeLog is the change log: one row per changed row, numbered by
	// a per-project sequence (seq), with the row's image as jsonb (the new
	// row of a create or update, the old row of a delete).
	RealtimeLog = "_realtime_log"
	// RealtimeState holds one row: the highest seq the retention cleanup
	// has removed, so a resume from an older id is known to have missed
	// changes (and not merely to fall in a gap of rolled-back numbers).
	RealtimeState = "_realtime_state"
	// RealtimeCapture is the trigger function every realtime table calls.
	RealtimeCapture = "_realtime_capture"
	// RealtimeLockClass is the first key of the transaction-level advisory
	// lock the capture takes (the second is hashtext of the schema name):
	// writers of one project's realtime tables number their changes one
	// transaction at a time, so seq order is commit order and a reader
	// that has seen seq n will never later find a smaller one committed.
	RealtimeLockClass = 7431
)

// realtimeTriggers are the three statement-level triggers of a realtime
// table: transition tables give the capture every changed row of a
// statement at once, and PostgreSQL allows one per trigger and event.
var realtimeTriggers = []struct{ name, event, transition string }{
	{"_realtime_insert", "INSERT", "NEW TABLE AS _new"},
	{"_realtime_update", "UPDATE", "NEW TABLE AS _new"},
	{"_realtime_delete", "DELETE", "OLD TABLE AS _old"},
}

// RealtimeSetup creates the project's change log, its state row and the
// capture function, or leaves them as they are. The function notifies
// events.Channel with "realtime:<project id>:<last seq>" once per
// statement: the wake-up every node's listener hands to its subscribers.
func (g DDL) RealtimeSetup() []string {
	log, state := g.table(RealtimeLog), g.table(RealtimeState)
	project := strings.TrimPrefix(g.Schema, "p_")
	return []string{
		"CREATE TABLE IF NOT EXISTS " + log + ` (
  "seq" bigint GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
  "tbl" text NOT NULL,
  "op" text NOT NULL,
  "row" jsonb NOT NULL,
  "at" timestamptz NOT NULL DEFAULT clock_timestamp()
)`,
		"CREATE TABLE IF NOT EXISTS " + state + ` ("pruned_through" bigint NOT NULL)`,
		"INSERT INTO " + state + " (pruned_through) SELECT 0 WHERE NOT EXISTS (SELECT 1 FROM " + state + ")",
		"CREATE OR REPLACE FUNCTION " + g.table(RealtimeCapture) + `() RETURNS trigger LANGUAGE plpgsql AS $fn$
DECLARE
  changed bigint;
BEGIN
  PERFORM pg_advisory_xact_lock(` + strconv.Itoa(RealtimeLockClass) + `, hashtext(TG_TABLE_SCHEMA));
  IF TG_OP = 'DELETE' THEN
    INSERT INTO ` + log + ` (tbl, op, "row") SELECT TG_TABLE_NAME, 'delete', to_jsonb(o) FROM _old o;
  ELSIF TG_OP = 'INSERT' THEN
    INSERT INTO ` + log + ` (tbl, op, "row") SELECT TG_TABLE_NAME, 'create', to_jsonb(n) FROM _new n;
  ELSE
    INSERT INTO ` + log + ` (tbl, op, "row") SELECT TG_TABLE_NAME, 'update', to_jsonb(n) FROM _new n;
  END IF;
  GET DIAGNOSTICS changed = ROW_COUNT;
  IF changed > 0 THEN
    PERFORM pg_notify('tablesmith_events', 'realtime:` + project + `:' || currval(pg_get_serial_sequence('` +
			strings.ReplaceAll(log, "'", "''") + `', 'seq')));
  END IF;
  RETURN NULL;
END
$fn$`,
	}
}

// RealtimeOn creates table's capture triggers (after RealtimeSetup).
func (g DDL) RealtimeOn(table string) []string {
	var out []string
	for _, tr := range realtimeTriggers {
		out = append(out, "CREATE TRIGGER "+QuoteIdent(tr.name)+" AFTER "+tr.event+" ON "+g.table(table)+
			" REFERENCING "+tr.transition+" FOR EACH STATEMENT EXECUTE FUNCTION "+g.table(RealtimeCapture)+"()")
	}
	return out
}

// RealtimeOff drops table's capture triggers; its past changes stay in
// the log until the retention cleanup removes them.
func (g DDL) RealtimeOff(table string) []string {
	var out []string
	for _, tr := range realtimeTriggers {
		out = append(out, "DROP TRIGGER IF EXISTS "+QuoteIdent(tr.name)+" ON "+g.table(table))
	}
	return out
}
