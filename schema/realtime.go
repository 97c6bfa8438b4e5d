package schema

import (
	"strconv"
	"strings"
)

// The objects realtime capture creates in a project's schema. Their names
// start with an underscore, which no table name may (ValidName), so they
// can never meet a user's table.
const (
	// RealtimePending is where the capture writes: one row per changed
	// row, in insert order (id), with the row's image as jsonb (the new row
	// of a create or update, the old row of a delete). It has no index, so
	// a write pays for one heap insert; the sequencer empties it.
	RealtimePending = "_realtime_pending"
	// RealtimeLog is the numbered change log streams read: the changes the
	// sequencer moved out of RealtimePending, keyed by their delivery
	// number (seq).
	RealtimeLog = "_realtime_log"
	// RealtimeSeq numbers the log's changes in the order they are found
	// committed (RealtimeSequence).
	RealtimeSeq = "_realtime_seq"
	// RealtimeState holds one row: the highest seq the retention cleanup
	// has removed, so a resume from an older id is known to have missed
	// changes (and not merely to fall in a gap of unused numbers).
	RealtimeState = "_realtime_state"
	// RealtimeCapture is the trigger function every realtime table calls.
	RealtimeCapture = "_realtime_capture"
	// RealtimeLockClass is the first key of the transaction-level advisory
	// lock the sequencer takes (the second is hashtext of the schema
	// name), so that one numbering round of a project commits before the
	// next starts: seq order is the order rounds commit in, and a reader
	// that has seen seq n never later finds a smaller one.
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

// RealtimeSetup creates the project's pending changes, change log, its
// sequence, its state row and the capture function, or leaves them as
// they are.
//
// The capture only inserts into the pending table: a writer takes no lock,
// maintains no index and sends
// no NOTIFY. Both were measured to cost most of a realtime table's write
// rate (a NOTIFY serialises every notifying commit of the server on one
// lock; numbering under a per-project lock serialises the project's
// commits): bench/RESULTS.md, "Realtime". Numbering in commit order and
// the wake-up are the sequencer's (RealtimeSequence), off the write path.
func (g DDL) RealtimeSetup() []string {
	pending, log, state := g.table(RealtimePending), g.table(RealtimeLog), g.table(RealtimeState)
	return []string{
		"CREATE TABLE IF NOT EXISTS " + pending + ` (
  "id" bigint GENERATED ALWAYS AS IDENTITY,
  "tbl" text NOT NULL,
  "op" text NOT NULL,
  "row" jsonb NOT NULL,
  "at" timestamptz NOT NULL DEFAULT clock_timestamp()
)`,
		"CREATE TABLE IF NOT EXISTS " + log + ` (
  "seq" bigint PRIMARY KEY,
  "tbl" text NOT NULL,
  "op" text NOT NULL,
  "row" jsonb NOT NULL,
  "at" timestamptz NOT NULL
)`,
		"CREATE SEQUENCE IF NOT EXISTS " + g.table(RealtimeSeq),
		"CREATE TABLE IF NOT EXISTS " + state + ` ("pruned_through" bigint NOT NULL)`,
		"INSERT INTO " + state + " (pruned_through) SELECT 0 WHERE NOT EXISTS (SELECT 1 FROM " + state + ")",
		g.RealtimeCaptureFunction(),
	}
}

// RealtimeCaptureFunction is the statement that creates, or replaces, the
// project's capture function. Changing its text changes what every
// published project runs: realtime.UpgradeCapture replaces the functions
// whose source differs from RealtimeCaptureSource.
func (g DDL) RealtimeCaptureFunction() string {
	return "CREATE OR REPLACE FUNCTION " + g.table(RealtimeCapture) + "() RETURNS trigger LANGUAGE plpgsql AS $fn$" +
		g.RealtimeCaptureSource() + "$fn$"
}

// RealtimeCaptureSource is the capture function's body, as PostgreSQL
// keeps it (pg_proc.prosrc).
//
// No name in it can meet a user's column: the row aliases (_o, _n) and
// the variable (_tbl) start with an underscore, which no column name may,
// and the images are whole-row references (_n.*), never a bare name that
// a column of that name would shadow. PL/pgSQL's own variables are not
// used inside the statements: TG_TABLE_NAME there would be ambiguous
// beside a column named tg_table_name (variable_conflict = error).
func (g DDL) RealtimeCaptureSource() string {
	pending := g.table(RealtimePending)
	return `
DECLARE
  _tbl text := TG_TABLE_NAME;
BEGIN
  IF TG_OP = 'DELETE' THEN
    INSERT INTO ` + pending + ` (tbl, op, "row") SELECT _tbl, 'delete', to_jsonb(_o.*) FROM _old _o;
  ELSIF TG_OP = 'INSERT' THEN
    INSERT INTO ` + pending + ` (tbl, op, "row") SELECT _tbl, 'create', to_jsonb(_n.*) FROM _new _n;
  ELSE
    INSERT INTO ` + pending + ` (tbl, op, "row") SELECT _tbl, 'update', to_jsonb(_n.*) FROM _new _n;
  END IF;
  RETURN NULL;
END
`
}

// RealtimeSequence is the sequencer's one statement: when it gets the
// project's sequencing lock ($1: the schema name) it moves every committed
// pending change into the log, numbered in insert order, announces the
// new head with one NOTIFY per round that moved anything ($2: the
// channel, $3: the project id), and selects that head (NULL when it moved
// nothing). A node that does not get the lock moves nothing: the holder's
// round will announce.
//
// A round whose snapshot predates the previous round's commit finds the
// rows that round moved already deleted, and skips them.
func (g DDL) RealtimeSequence() string {
	return `WITH lock AS (SELECT pg_try_advisory_xact_lock(` + strconv.Itoa(RealtimeLockClass) + `, hashtext($1)) AS got),
moved AS (DELETE FROM ` + g.table(RealtimePending) + ` WHERE (SELECT got FROM lock) RETURNING id, tbl, op, "row", at),
numbered AS (INSERT INTO ` + g.table(RealtimeLog) + ` (seq, tbl, op, "row", at)
  SELECT nextval('` + strings.ReplaceAll(g.table(RealtimeSeq), "'", "''") + `'), tbl, op, "row", at FROM (SELECT * FROM moved ORDER BY id) m RETURNING seq),
head AS (SELECT max(seq) AS h FROM numbered)
SELECT h, CASE WHEN h IS NOT NULL THEN pg_notify($2, 'realtime:' || $3 || ':' || h) END FROM head`
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
