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

// captureState reads, per project schema, the capture function's source
// and setting and whether a realtime table's update trigger lacks the old
// rows (an older version's): what tells an upgrade is due, from the
// catalog alone. %s is the condition on the schema's name (n.nspname).
const captureState = `SELECT n.nspname, p.prosrc, coalesce(array_to_string(p.proconfig, ','), ''),
	EXISTS (SELECT 1 FROM pg_trigger t JOIN pg_class c ON c.oid = t.tgrelid
		WHERE c.relnamespace = n.oid AND t.tgname = $2 AND (t.tgnargs = 0 OR t.tgoldtable IS NULL))
	FROM pg_proc p JOIN pg_namespace n ON n.oid = p.pronamespace WHERE p.proname = $1 AND %s`

// UpgradeCapture gives every project (in db, a data server's database)
// whose capture is not this version's this version's: the capture
// function (schema.DDL.RealtimeCaptureSource) and the update triggers that
// keep the old rows. It reports how many projects it upgraded.
//
// A generate creates the function only when a table turns realtime on, so
// without this a project published by an older version would keep that
// version's capture for good, defects included. It runs when a node
// starts and with the retention cleanup, so a function an older node
// wrote again during a rolling deploy is replaced too. The upgrade
// changes what the next write captures; writes already captured stay as
// they are.
func UpgradeCapture(ctx context.Context, db *sql.DB) (int, error) {
	rows, err := db.QueryContext(ctx, fmt.Sprintf(captureState, `n.nspname LIKE 'p\_%'`), schema.RealtimeCapture, schema.RealtimeUpdateTrigger)
	if err != nil {
		return 0, fmt.Errorf("find capture functions: %w", err)
	}
	var stale []string
	for rows.Next() {
		var ns, src, cfg string
		var oldTriggers bool
		if err := rows.Scan(&ns, &src, &cfg, &oldTriggers); err != nil {
			rows.Close()
			return 0, err
		}
		if !current(ns, src, cfg, oldTriggers) {
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

// current reports whether a project's capture is this version's.
func current(ns, src, cfg string, oldTriggers bool) bool {
	return src == (schema.DDL{Schema: ns}).RealtimeCaptureSource() && cfg == schema.RealtimeCaptureConfig && !oldTriggers
}

// upgradeOne upgrades one project's capture under the upgrade lock, in
// one transaction, unless another node upgraded it meanwhile or the
// project's schema is gone: the old image's columns first, then the
// function, then the update triggers, so that no write meets a trigger
// the function cannot serve or a column it lacks.
func upgradeOne(ctx context.Context, db *sql.DB, ns string) (bool, error) {
	tx, err := db.BeginTx(ctx, nil)
	if err != nil {
		return false, err
	}
	defer tx.Rollback() // no-op after Commit
	if _, err := tx.ExecContext(ctx, `SELECT pg_advisory_xact_lock($1, hashtext($2))`, upgradeLockClass, ns); err != nil {
		return false, fmt.Errorf("lock the capture function of %s: %w", ns, err)
	}
	var src, cfg string
	var oldTriggers bool
	err = tx.QueryRowContext(ctx, fmt.Sprintf(captureState, `n.nspname = $3`), schema.RealtimeCapture, schema.RealtimeUpdateTrigger, ns).
		Scan(&ns, &src, &cfg, &oldTriggers)
	if errors.Is(err, sql.ErrNoRows) || (err == nil && current(ns, src, cfg, oldTriggers)) {
		return false, nil
	}
	if err != nil {
		return false, fmt.Errorf("read the capture function of %s: %w", ns, err)
	}
	// The changes take locks writers of the project wait behind (the
	// pending table's, the realtime tables'): a long transaction holding
	// one fails the upgrade, tried again with the next cleanup, rather
	// than stalling the writers queued behind it.
	if _, err := tx.ExecContext(ctx, `SET LOCAL lock_timeout = '5s'`); err != nil {
		return false, err
	}
	g := schema.DDL{Schema: ns}
	for _, st := range append(g.RealtimeAddOld(), g.RealtimeCaptureFunction()) {
		if _, err := tx.ExecContext(ctx, st); err != nil {
			return false, fmt.Errorf("upgrade the capture of %s: %w", ns, err)
		}
	}
	if err := recreateUpdateTriggers(ctx, tx, g); err != nil {
		return false, err
	}
	return true, tx.Commit()
}

// recreateUpdateTriggers gives every table of g's project whose update
// trigger lacks the old rows this version's.
func recreateUpdateTriggers(ctx context.Context, tx *sql.Tx, g schema.DDL) error {
	rows, err := tx.QueryContext(ctx, `SELECT c.relname FROM pg_trigger t JOIN pg_class c ON c.oid = t.tgrelid
		JOIN pg_namespace n ON n.oid = c.relnamespace
		WHERE n.nspname = $1 AND t.tgname = $2 AND (t.tgnargs = 0 OR t.tgoldtable IS NULL)`, g.Schema, schema.RealtimeUpdateTrigger)
	if err != nil {
		return fmt.Errorf("find the update triggers of %s: %w", g.Schema, err)
	}
	var tables []string
	for rows.Next() {
		var t string
		if err := rows.Scan(&t); err != nil {
			rows.Close()
			return err
		}
		tables = append(tables, t)
	}
	rows.Close()
	if err := rows.Err(); err != nil {
		return err
	}
	for _, t := range tables {
		for _, st := range g.RealtimeRecreateUpdate(t) {
			if _, err := tx.ExecContext(ctx, st); err != nil {
				return fmt.Errorf("recreate the update trigger of %s.%s: %w", g.Schema, t, err)
			}
		}
	}
	return nil
}
