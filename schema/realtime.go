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
	// of a create or update, the old row of a delete) and, for an update,
	// the row before it ("old"). It has no index, so a write pays for one
	// heap insert; the sequencer empties it.
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
	// RealtimeUpdateTrigger is a realtime table's update trigger, the one
	// an upgrade recreates (realtime.UpgradeCapture).
	RealtimeUpdateTrigger = "_realtime_update"
	// RealtimeCaptureConfig is the capture function's setting, as
	// pg_proc.proconfig keeps it: the update capture joins the old rows to
	// the new ones, and PL/pgSQL plans that join once, with the row count
	// of the first statement it ran for (one row, usually), so a nested
	// loop chosen then would run a bulk update quadratically (20,000 rows:
	// 42 s, against 0.2 s hashed).
	RealtimeCaptureConfig = "enable_nestloop=off"
	// RealtimeLockClass is the first key of the transaction-level advisory
	// lock the sequencer takes (the second is hashtext of the schema
	// name), so that one numbering round of a project commits before the
	// next starts: seq order is the order rounds commit in, and a reader
	// that has seen seq n never later finds a smaller one.
	RealtimeLockClass = 7431
)

// realtimeTriggers are the three statement-level triggers of a realtime
// table: transition tables give the capture every changed row of a
// statement at once, and PostgreSQL allows one per trigger and event. The
// update trigger's argument tells the capture it has the old rows too: an
// update trigger an older version created has no _old, and a statement
// naming a transition table the trigger lacks would fail the write.
var realtimeTriggers = []realtimeTrigger{
	{"_realtime_insert", "INSERT", "NEW TABLE AS _new", ""},
	updateTrigger,
	{"_realtime_delete", "DELETE", "OLD TABLE AS _old", ""},
}

var updateTrigger = realtimeTrigger{RealtimeUpdateTrigger, "UPDATE", "OLD TABLE AS _old NEW TABLE AS _new", "'old'"}

type realtimeTrigger struct{ name, event, transition, args string }

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
  "old" jsonb,
  "at" timestamptz NOT NULL DEFAULT clock_timestamp()
)`,
		"CREATE TABLE IF NOT EXISTS " + log + ` (
  "seq" bigint PRIMARY KEY,
  "tbl" text NOT NULL,
  "op" text NOT NULL,
  "row" jsonb NOT NULL,
  "old" jsonb,
  "at" timestamptz NOT NULL
)`,
		g.RealtimeAddOld()[0], g.RealtimeAddOld()[1],
		"CREATE SEQUENCE IF NOT EXISTS " + g.table(RealtimeSeq),
		"CREATE TABLE IF NOT EXISTS " + state + ` ("pruned_through" bigint NOT NULL)`,
		"INSERT INTO " + state + " (pruned_through) SELECT 0 WHERE NOT EXISTS (SELECT 1 FROM " + state + ")",
		g.RealtimeCaptureFunction(),
	}
}

// RealtimeAddOld adds the old image's column to the pending changes and
// the log of a project whose capture an older version set up (they are
// created with it now). Adding a nullable column without a default only
// changes the catalog.
func (g DDL) RealtimeAddOld() []string {
	return []string{
		"ALTER TABLE " + g.table(RealtimePending) + ` ADD COLUMN IF NOT EXISTS "old" jsonb`,
		"ALTER TABLE " + g.table(RealtimeLog) + ` ADD COLUMN IF NOT EXISTS "old" jsonb`,
	}
}

// RealtimeCaptureFunction is the statement that creates, or replaces, the
// project's capture function. Changing its text changes what every
// published project runs: realtime.UpgradeCapture replaces the functions
// whose source differs from RealtimeCaptureSource (or whose setting from
// RealtimeCaptureConfig).
func (g DDL) RealtimeCaptureFunction() string {
	return "CREATE OR REPLACE FUNCTION " + g.table(RealtimeCapture) + "() RETURNS trigger LANGUAGE plpgsql SET " +
		strings.Replace(RealtimeCaptureConfig, "=", " = ", 1) + " AS $fn$" +
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
//
// An update pairs each new row with its old one by position and id.
// PostgreSQL appends a row's old and new versions to the two transition
// tables together, so the nth rows are one update's; the position tells
// apart the versions of a row updated twice in a statement (two set_null
// references to one deleted parent: both updates fire one trigger), and
// the id keeps a mismatch from pairing two rows. Every table realtime can
// be on has an id primary key (Validate refuses realtime on a fronted
// database's tables, whose key may be another column). A row whose id the
// update changed keeps a null old image. An update trigger
// without an argument is an older version's, without _old: PL/pgSQL plans
// a statement when it first runs it, so the branch that names _old never
// meets it.
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
  ELSIF TG_NARGS = 0 THEN
    INSERT INTO ` + pending + ` (tbl, op, "row") SELECT _tbl, 'update', to_jsonb(_n.*) FROM _new _n;
  ELSE
    INSERT INTO ` + pending + ` (tbl, op, "row", "old") SELECT _tbl, 'update', _n._j, _o._j
      FROM (SELECT row_number() OVER () AS _k, _n."id" AS _id, to_jsonb(_n.*) AS _j FROM _new _n) _n
      LEFT JOIN (SELECT row_number() OVER () AS _k, _o."id" AS _id, to_jsonb(_o.*) AS _j FROM _old _o) _o
      ON _o._k = _n._k AND _o._id = _n._id;
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
moved AS (DELETE FROM ` + g.table(RealtimePending) + ` WHERE (SELECT got FROM lock) RETURNING id, tbl, op, "row", "old", at),
numbered AS (INSERT INTO ` + g.table(RealtimeLog) + ` (seq, tbl, op, "row", "old", at)
  SELECT nextval('` + strings.ReplaceAll(g.table(RealtimeSeq), "'", "''") + `'), tbl, op, "row", "old", at FROM (SELECT * FROM moved ORDER BY id) m RETURNING seq),
head AS (SELECT max(seq) AS h FROM numbered)
SELECT h, CASE WHEN h IS NOT NULL THEN pg_notify($2, 'realtime:' || $3 || ':' || h) END FROM head`
}

// RealtimeOn creates table's capture triggers (after RealtimeSetup).
func (g DDL) RealtimeOn(table string) []string {
	var out []string
	for _, tr := range realtimeTriggers {
		out = append(out, g.createTrigger(table, tr))
	}
	return out
}

func (g DDL) createTrigger(table string, tr realtimeTrigger) string {
	return "CREATE TRIGGER " + QuoteIdent(tr.name) + " AFTER " + tr.event + " ON " + g.table(table) +
		" REFERENCING " + tr.transition + " FOR EACH STATEMENT EXECUTE FUNCTION " + g.table(RealtimeCapture) + "(" + tr.args + ")"
}

// RealtimeRecreateUpdate replaces the update trigger of a table an older
// version turned realtime on with this version's, which has the old rows.
// Run in one transaction, no update goes uncaptured between the two.
func (g DDL) RealtimeRecreateUpdate(table string) []string {
	return []string{
		"DROP TRIGGER IF EXISTS " + QuoteIdent(RealtimeUpdateTrigger) + " ON " + g.table(table),
		g.createTrigger(table, updateTrigger),
	}
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
