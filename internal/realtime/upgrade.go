package realtime

import (
	"context"
	"database/sql"
	"errors"
	"fmt"

	"github.com/tablesmith/tablesmith/schema"
)

// upgradeLockClass is the first key of the advisory lock under which one
// project's capture function is replaced (the second is hashtext of the
// schema name), so that two nodes starting at once do not replace it
// together (PostgreSQL answers the second "tuple concurrently updated").
const upgradeLockClass = schema.RealtimeLockClass + 1

// UpgradeCapture replaces every project's capture function (in db, a
// data server's database) whose source is not this version's
// (schema.DDL.RealtimeCaptureSource), and reports how many it replaced.
//
// A generate creates the function only when a table turns realtime on, so
// without this a project published by an older version would keep that
// version's capture for good, defects included. It runs when a node
// starts and with the retention cleanup, so a function an older node
// wrote again during a rolling deploy is replaced too. Replacing it
// changes what the next write captures; writes already captured and the
// triggers stay as they are.
func UpgradeCapture(ctx context.Context, db *sql.DB) (int, error) {
	rows, err := db.QueryContext(ctx, `SELECT n.nspname, p.prosrc FROM pg_proc p JOIN pg_namespace n ON n.oid = p.pronamespace
		WHERE p.proname = $1 AND n.nspname LIKE 'p\_%'`, schema.RealtimeCapture)
	if err != nil {
		return 0, fmt.Errorf("find capture functions: %w", err)
	}
	var stale []string
	for rows.Next() {
		var ns, src string
		if err := rows.Scan(&ns, &src); err != nil {
			rows.Close()
			return 0, err
		}
		if src != (schema.DDL{Schema: ns}).RealtimeCaptureSource() {
			stale = append(stale, ns)
		}
	}
	rows.Close()
	if err := rows.Err(); err != nil {
		return 0, err
	}
	n := 0
	for _, ns := range stale {
		replaced, err := upgradeOne(ctx, db, ns)
		if err != nil {
			return n, err
		}
		if replaced {
			n++
		}
	}
	return n, nil
}

// upgradeOne replaces one project's capture function under the upgrade
// lock, unless another node replaced it meanwhile or the project's schema
// is gone.
func upgradeOne(ctx context.Context, db *sql.DB, ns string) (bool, error) {
	tx, err := db.BeginTx(ctx, nil)
	if err != nil {
		return false, err
	}
	defer tx.Rollback() // no-op after Commit
	if _, err := tx.ExecContext(ctx, `SELECT pg_advisory_xact_lock($1, hashtext($2))`, upgradeLockClass, ns); err != nil {
		return false, fmt.Errorf("lock the capture function of %s: %w", ns, err)
	}
	g := schema.DDL{Schema: ns}
	var src sql.NullString
	err = tx.QueryRowContext(ctx, `SELECT p.prosrc FROM pg_proc p JOIN pg_namespace n ON n.oid = p.pronamespace
		WHERE p.proname = $1 AND n.nspname = $2`, schema.RealtimeCapture, ns).Scan(&src)
	if errors.Is(err, sql.ErrNoRows) || (err == nil && src.String == g.RealtimeCaptureSource()) {
		return false, nil
	}
	if err != nil {
		return false, fmt.Errorf("read the capture function of %s: %w", ns, err)
	}
	if _, err := tx.ExecContext(ctx, g.RealtimeCaptureFunction()); err != nil {
		return false, fmt.Errorf("replace the capture function of %s: %w", ns, err)
	}
	return true, tx.Commit()
}
