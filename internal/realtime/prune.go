package realtime

import (
	"context"
	"database/sql"
	"fmt"
	"time"

	"github.com/tablesmith/tablesmith/schema"
)

// Prune removes the changes older than the retention window from every
// project's change log (in db, the managed projects' database), and
// records the highest removed sequence number so that a resume from
// before it is answered with a reset. holds are, per project, the last
// change its webhooks are done with: what follows is kept, however old,
// until they have delivered it. Each log is pruned in one statement;
// several nodes pruning at once remove nothing twice.
func Prune(ctx context.Context, db *sql.DB, retention time.Duration, holds map[string]int64) (removed int64, err error) {
	rows, err := db.QueryContext(ctx, `SELECT n.nspname FROM pg_class c JOIN pg_namespace n ON n.oid = c.relnamespace
		WHERE c.relname = $1 AND c.relkind = 'r' AND n.nspname LIKE $2`, schema.RealtimeLog, schema.ProjectSchemaPattern())
	if err != nil {
		return 0, fmt.Errorf("find change logs: %w", err)
	}
	var schemas []string
	for rows.Next() {
		var s string
		if err := rows.Scan(&s); err != nil {
			rows.Close()
			return 0, err
		}
		schemas = append(schemas, s)
	}
	rows.Close()
	if err := rows.Err(); err != nil {
		return 0, err
	}
	for _, s := range schemas {
		var hold *int64
		if h, ok := holds[projectOf(s)]; ok {
			hold = &h
		}
		n, err := pruneOne(ctx, db, s, retention, hold)
		if err != nil {
			return removed, err
		}
		removed += n
	}
	return removed, nil
}

func pruneOne(ctx context.Context, db *sql.DB, schemaName string, retention time.Duration, hold *int64) (int64, error) {
	// Changes nobody was watching are numbered first, so that pruning them
	// raises the mark a late resume is checked against.
	if _, err := sequence(ctx, db, schemaName, projectOf(schemaName)); err != nil {
		return 0, err
	}
	log := logRel(schemaName)
	state := schema.QuoteIdent(schemaName) + "." + schema.QuoteIdent(schema.RealtimeState)
	// Numbers follow the order rounds commit in, so "every change up to
	// the newest expired one" is a prefix of the numbered log; a change
	// numbered after the cut waits for the next minute. A hold only lowers
	// the cut: with no expired change there is none (least ignores a
	// NULL, so least(max(seq), hold) alone would cut at the hold and
	// remove changes inside the window).
	var n int64
	err := db.QueryRowContext(ctx, `WITH cut AS (SELECT least(expired, $2) AS seq FROM (SELECT max(seq) AS expired FROM `+log+`
			WHERE at < clock_timestamp() - make_interval(secs => $1)) old WHERE expired IS NOT NULL),
		gone AS (DELETE FROM `+log+` WHERE seq <= (SELECT seq FROM cut) RETURNING seq),
		mark AS (UPDATE `+state+` SET pruned_through = (SELECT seq FROM cut) WHERE (SELECT seq FROM cut) > pruned_through RETURNING 1)
		SELECT (SELECT count(*) FROM gone) + 0 * (SELECT count(*) FROM mark)`, retention.Seconds(), hold).Scan(&n)
	if err != nil {
		return 0, fmt.Errorf("prune the change log of %s: %w", schemaName, err)
	}
	return n, nil
}

// NumberChanges runs a numbering round of a project's change log outside
// the hub's rounds, for the webhook deliverer, which follows projects that
// may have no stream on this node. head is the newest number it gave, 0
// when it gave none.
func NumberChanges(ctx context.Context, db *sql.DB, schemaName, projectID string) (head int64, err error) {
	return sequence(ctx, db, schemaName, projectID)
}

// LogHead is the newest number of a project's change log (or its pruning
// mark, when it is empty).
func LogHead(ctx context.Context, db *sql.DB, schemaName string) (int64, error) {
	return logHead(ctx, db, schemaName)
}

// HasLog reports whether a project's change log exists: the first
// generate that turns realtime on for a table creates it.
func HasLog(ctx context.Context, db *sql.DB, schemaName string) (bool, error) {
	var ok bool
	if err := db.QueryRowContext(ctx, `SELECT to_regclass($1) IS NOT NULL`, logRel(schemaName)).Scan(&ok); err != nil {
		return false, fmt.Errorf("look for the change log: %w", err)
	}
	return ok, nil
}

// LogState is where a project's change log stands: its newest number and
// the highest number the retention cleanup removed.
type LogState struct{ Head, Pruned int64 }

// ReadLogState reads a project's LogState.
func ReadLogState(ctx context.Context, db *sql.DB, schemaName string) (LogState, error) {
	st, err := readLogState(ctx, db, schemaName)
	return LogState{Head: st.head, Pruned: st.pruned}, err
}

// ChangeBefore is the number of the last change captured before t; found
// is false when the log holds none that old.
func ChangeBefore(ctx context.Context, db *sql.DB, schemaName string, t time.Time) (seq int64, found bool, err error) {
	var n sql.NullInt64
	if err := db.QueryRowContext(ctx, `SELECT max(seq) FROM `+logRel(schemaName)+` WHERE at < $1`, t).Scan(&n); err != nil {
		return 0, false, fmt.Errorf("read the change log: %w", err)
	}
	return n.Int64, n.Valid, nil
}
