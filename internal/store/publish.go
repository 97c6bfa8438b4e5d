package store

import (
	"context"
	"database/sql"
	"encoding/json"
	"errors"
	"fmt"
	"strings"
	"time"

	"github.com/tablesmith/tablesmith/internal/events"
	"github.com/tablesmith/tablesmith/schema"
)

// The store's part of a publish: the control schema's records of a new
// version (the version row, the data server's copy, the pending index
// builds) and the transaction that keeps them together with the project's
// schema. What the migration runs is publish.Migration's business; the
// store hands it the transaction (RunMigration). The after-commit work
// stays here because the control schema's rows and advisory turn drive
// it (docs/architecture.md, "Generate").

// DefaultLockTimeout is how long a migration waits for a table lock
// before it gives up and changes nothing, so that requests queued behind
// its lock request never wait longer than this.
const DefaultLockTimeout = 5 * time.Second

// NewVersion is what a publish records of the version it makes.
type NewVersion struct {
	Document json.RawMessage
	// Applied is the plan's changes, as the version history shows them.
	Applied json.RawMessage
	// Indexes are every index the new document asks for; those missing
	// after the migration are recorded as pending builds of the new
	// version (see BuildIndexes).
	Indexes []schema.IndexSpec
}

// RunMigration runs a migration in the transaction it is given: the
// schema work of a publish (publish.Migration.Run), which the store does
// not look into.
type RunMigration func(ctx context.Context, tx *sql.Tx) error

// PublishVersion runs a project's migration and records the new version
// in one transaction: either both happen or neither. expected is the
// version the plan was computed against; another generate in between
// makes it ErrStaleVersion, a move in progress ErrMoving. migrate runs in
// the transaction that holds the project's schema (on its data server,
// see publishOnServer), after the project's row is locked; its error is
// returned as it is.
func (s *Store) PublishVersion(ctx context.Context, projectID string, expected int, v NewVersion, migrate RunMigration) (int, error) {
	tx, err := s.DB.BeginTx(ctx, nil)
	if err != nil {
		return 0, err
	}
	defer tx.Rollback()
	current, err := lockVersion(ctx, tx, projectID, expected)
	if err != nil {
		return 0, err
	}
	// A move pauses with an update of this row, so under its lock the
	// pause is either seen here or waits for this migration to commit.
	var moving bool
	if err := tx.QueryRowContext(ctx, `SELECT moving_to IS NOT NULL FROM tablesmith.projects WHERE id = $1`, projectID).Scan(&moving); err != nil {
		return 0, err
	}
	if moving {
		return 0, ErrMoving
	}
	next := current + 1
	server, data, err := s.projectServer(ctx, tx, projectID)
	if err != nil {
		return 0, err
	}
	if server == "" {
		if err := migrate(ctx, tx); err != nil {
			return 0, err
		}
		if err := recordVersion(ctx, tx, projectID, next, v.Document, v.Applied); err != nil {
			return 0, err
		}
		if err := recordIndexBuilds(ctx, tx, tx, projectID, next, v.Indexes); err != nil {
			return 0, err
		}
		return next, tx.Commit()
	}
	return next, publishOnServer(ctx, tx, data, projectID, next, v, migrate)
}

// publishOnServer runs the migration of a project on a data server in a
// transaction there, which records the new version beside the schema
// (data_versions), and records it in the control schema's tx too. The
// data server commits first: if the control schema's commit then fails,
// Reconcile copies the version over from the data server, so a schema
// never runs ahead of the version the nodes serve it with for longer than
// the next load of the project.
func publishOnServer(ctx context.Context, tx *sql.Tx, data *sql.DB, projectID string, next int, v NewVersion, migrate RunMigration) error {
	dtx, err := data.BeginTx(ctx, nil)
	if err != nil {
		return err
	}
	defer dtx.Rollback()
	if _, err := dtx.ExecContext(ctx, `CREATE SCHEMA IF NOT EXISTS `+schema.QuoteIdent(schema.ProjectSchema(projectID))); err != nil {
		return fmt.Errorf("create project schema: %w", err)
	}
	if err := migrate(ctx, dtx); err != nil {
		return err
	}
	if err := recordDataVersion(ctx, dtx, projectID, dataVersion{Version: next, Document: v.Document, Applied: v.Applied, Indexes: v.Indexes}); err != nil {
		return err
	}
	if err := recordVersion(ctx, tx, projectID, next, v.Document, v.Applied); err != nil {
		return err
	}
	if err := recordIndexBuilds(ctx, tx, dtx, projectID, next, v.Indexes); err != nil {
		return err
	}
	if err := dtx.Commit(); err != nil {
		return err
	}
	return tx.Commit()
}

type queryer interface {
	QueryRowContext(ctx context.Context, query string, args ...any) *sql.Row
}

// lockVersion locks a project's row for the rest of tx and checks that its
// published version is still the one the plan was computed against.
func lockVersion(ctx context.Context, tx *sql.Tx, projectID string, expected int) (int, error) {
	var current int
	err := tx.QueryRowContext(ctx, `SELECT published_version FROM tablesmith.projects WHERE id = $1 FOR UPDATE`, projectID).Scan(&current)
	if errors.Is(err, sql.ErrNoRows) {
		return 0, ErrNotFound
	}
	if err != nil {
		return 0, err
	}
	if current != expected {
		return 0, ErrStaleVersion
	}
	return current, nil
}

// recordVersion stores a published version, moves the project to it and
// tells every node, in the caller's transaction.
func recordVersion(ctx context.Context, tx *sql.Tx, projectID string, version int, doc, applied json.RawMessage) error {
	if _, err := tx.ExecContext(ctx, `INSERT INTO tablesmith.schema_versions (project_id, version, document, applied)
		VALUES ($1, $2, $3, $4)`, projectID, version, string(doc), string(applied)); err != nil {
		return err
	}
	if _, err := tx.ExecContext(ctx, `UPDATE tablesmith.projects SET published_version = $2, updated_at = now() WHERE id = $1`, projectID, version); err != nil {
		return err
	}
	return events.Notify(ctx, tx, events.ProjectChanged{ProjectID: projectID})
}

// VersionByNumber returns one published version of a project.
func (s *Store) VersionByNumber(ctx context.Context, projectID string, version int) (Version, error) {
	var v Version
	err := s.DB.QueryRowContext(ctx, `SELECT version, document, applied, created_at FROM tablesmith.schema_versions
		WHERE project_id = $1 AND version = $2`, projectID, version).Scan(&v.Version, &v.Document, &v.Applied, &v.CreatedAt)
	if errors.Is(err, sql.ErrNoRows) {
		return v, ErrNotFound
	}
	if err != nil {
		return v, err
	}
	vs := []Version{v}
	err = s.withIndexes(ctx, projectID, vs)
	return vs[0], err
}

// FinishStep is one statement Finish ran, with its error if it failed.
type FinishStep struct {
	Statement string `json:"statement"`
	Error     string `json:"error,omitempty"`
}

// Finish completes what a migration leaves for after its commit, reading
// what is left from the catalog so that work a crash or a failure left
// undone is picked up by the next call:
//
//   - every NOT VALID constraint of the schema is validated (SHARE UPDATE
//     EXCLUSIVE: reads and writes go on);
//   - a validated helper check "<table>_<column>_not_null" (CHECK (c IS
//     NOT NULL)) becomes the column's NOT NULL (instant: the check proves
//     it) and is dropped;
//   - every index of wanted that is missing is built with CREATE INDEX
//     CONCURRENTLY; one left INVALID by a failed build is dropped first,
//     and dropped again if the build fails. Generate passes none: its
//     builds run in the background (BuildIndexes).
//
// It returns the steps it ran; a failed step does not stop the others.
// Two calls for one schema do not run at once: the second returns at once.
func (s *Store) Finish(ctx context.Context, projectID string, wanted []schema.IndexSpec, lockTimeout time.Duration) ([]FinishStep, error) {
	turn, err := s.TakeFinishTurn(ctx, projectID)
	if err != nil || turn == nil {
		return nil, err
	}
	defer turn.Release()
	return turn.Finish(ctx, wanted, lockTimeout)
}

// FinishTurn is a held turn at a schema's after-commit work: while one is
// held, no other Finish and no index build of the schema runs.
type FinishTurn struct {
	conn       *sql.Conn
	schemaName string
	restore    func()
}

// TakeFinishTurn takes the turn at the project schema's after-commit work
// if it is free, and returns nil if another Finish or an index build has
// it. Generate takes it before its migration commits, so the background
// builds of the new version start only after its after-commit work. The
// turn's connection is to the project's data server.
func (s *Store) TakeFinishTurn(ctx context.Context, projectID string) (*FinishTurn, error) {
	_, data, err := s.projectServer(ctx, s.DB, projectID)
	if err != nil {
		return nil, err
	}
	schemaName := schema.ProjectSchema(projectID)
	conn, err := data.Conn(ctx)
	if err != nil {
		return nil, err
	}
	var mine bool
	if err := conn.QueryRowContext(ctx, `SELECT pg_try_advisory_lock(hashtext($1))`, finishLockKey(schemaName)).Scan(&mine); err != nil || !mine {
		conn.Close()
		return nil, err
	}
	restore, err := unboundedConn(ctx, conn)
	if err != nil {
		_, _ = conn.ExecContext(context.WithoutCancel(ctx), `SELECT pg_advisory_unlock(hashtext($1))`, finishLockKey(schemaName))
		conn.Close()
		return nil, err
	}
	return &FinishTurn{conn: conn, schemaName: schemaName, restore: restore}, nil
}

// Release gives the turn back.
func (t *FinishTurn) Release() {
	t.restore()
	_, _ = t.conn.ExecContext(context.Background(), `SELECT pg_advisory_unlock(hashtext($1))`, finishLockKey(t.schemaName))
	t.conn.Close()
}

// Finish runs the schema's after-commit work (see Store.Finish) in this turn.
func (t *FinishTurn) Finish(ctx context.Context, wanted []schema.IndexSpec, lockTimeout time.Duration) ([]FinishStep, error) {
	if lockTimeout <= 0 {
		lockTimeout = DefaultLockTimeout
	}
	conn, schemaName := t.conn, t.schemaName
	var steps []FinishStep
	run := func(st string) error {
		_, err := conn.ExecContext(ctx, st)
		step := FinishStep{Statement: st}
		if err != nil {
			step.Error = err.Error()
		}
		steps = append(steps, step)
		return err
	}

	// Validate NOT VALID constraints.
	var validate []string
	if err := collect(ctx, conn, &validate, `SELECT format('ALTER TABLE %s VALIDATE CONSTRAINT %I', c.conrelid::regclass, c.conname)
		FROM pg_constraint c JOIN pg_namespace n ON n.oid = c.connamespace
		WHERE n.nspname = $1 AND NOT c.convalidated ORDER BY c.conrelid, c.conname`, schemaName); err != nil {
		return steps, err
	}
	for _, st := range validate {
		_ = run(st)
	}

	// Turn validated helper checks into NOT NULL.
	rows, err := conn.QueryContext(ctx, `SELECT c.conrelid::regclass::text, cl.relname, a.attname, c.conname,
		       pg_get_constraintdef(c.oid) = format('CHECK ((%s IS NOT NULL))', quote_ident(a.attname))
		FROM pg_constraint c
		JOIN pg_namespace n ON n.oid = c.connamespace
		JOIN pg_class cl ON cl.oid = c.conrelid
		JOIN pg_attribute a ON a.attrelid = c.conrelid AND a.attnum = c.conkey[1]
		WHERE n.nspname = $1 AND c.contype = 'c' AND c.convalidated AND array_length(c.conkey, 1) = 1
		ORDER BY c.conrelid, c.conname`, schemaName)
	if err != nil {
		return steps, err
	}
	type helper struct{ rel, col, name string }
	var helpers []helper
	for rows.Next() {
		var rel, relname, col, name string
		var notNull bool
		if err := rows.Scan(&rel, &relname, &col, &name, &notNull); err != nil {
			rows.Close()
			return steps, err
		}
		// A helper is named after its table and column, or was, before
		// a rename that came before its after-commit step could run.
		if notNull && (name == schema.ConstraintName(relname, col, "not_null") || strings.HasSuffix(name, "_not_null")) {
			helpers = append(helpers, helper{rel, col, name})
		}
	}
	rows.Close()
	for _, h := range helpers {
		stmts := []string{
			"ALTER TABLE " + h.rel + " ALTER COLUMN " + schema.QuoteIdent(h.col) + " SET NOT NULL",
			"ALTER TABLE " + h.rel + " DROP CONSTRAINT " + schema.QuoteIdent(h.name),
		}
		err := inTx(ctx, conn, lockTimeout, stmts)
		step := FinishStep{Statement: strings.Join(stmts, "; ")}
		if err != nil {
			step.Error = err.Error()
		}
		steps = append(steps, step)
	}

	// Build missing indexes concurrently.
	valid, err := indexValidity(ctx, conn, schemaName)
	if err != nil {
		return steps, err
	}
	for _, ix := range wanted {
		if !valid[ix.Name] {
			step := FinishStep{Statement: ix.Create}
			if err := buildIndex(ctx, conn, schemaName, ix.Name, ix.Create, ix.Drop, time.Hour); err != nil {
				step.Error = err.Error()
				steps = append(steps, step)
				continue
			}
			steps = append(steps, step)
		}
		if _, replaced := valid[ix.Replaces]; ix.Replaces != "" && replaced {
			step := FinishStep{Statement: ix.Retire}
			if err := retireIndex(ctx, conn, ix.Retire, time.Hour); err != nil {
				step.Error = err.Error()
			}
			steps = append(steps, step)
		}
	}
	return steps, nil
}

func collect(ctx context.Context, conn *sql.Conn, out *[]string, query string, args ...any) error {
	rows, err := conn.QueryContext(ctx, query, args...)
	if err != nil {
		return err
	}
	defer rows.Close()
	for rows.Next() {
		var s string
		if err := rows.Scan(&s); err != nil {
			return err
		}
		*out = append(*out, s)
	}
	return rows.Err()
}

// inTx runs statements in one transaction with a lock timeout.
func inTx(ctx context.Context, conn *sql.Conn, lockTimeout time.Duration, stmts []string) error {
	tx, err := conn.BeginTx(ctx, nil)
	if err != nil {
		return err
	}
	defer tx.Rollback()
	all := append([]string{fmt.Sprintf(`SET LOCAL lock_timeout = '%dms'`, lockTimeout.Milliseconds())}, stmts...)
	for _, st := range all {
		if _, err := tx.ExecContext(ctx, st); err != nil {
			return err
		}
	}
	return tx.Commit()
}
