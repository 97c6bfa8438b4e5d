package publish

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"strings"
	"time"

	"github.com/lib/pq"

	"github.com/tablesmith/tablesmith/internal/store"
	"github.com/tablesmith/tablesmith/schema"
)

// Migration is what a generate runs in a project's schema, inside the
// transaction the store opens to record the new version
// (store.PublishVersion) or a fronted database's (External).
type Migration struct {
	// Locks are tables locked in SHARE mode before the prechecks: writes
	// to them wait, reads go on, and what the prechecks found stays true.
	Locks     []string
	Prechecks []schema.Precheck
	// Statements run in order after the prechecks passed.
	Statements []string
	// LockTimeout bounds every lock wait (default store.DefaultLockTimeout).
	LockTimeout time.Duration
	// BeforeStatement, when set, runs before each statement; an error
	// fails the migration there. Tests inject faults with it.
	BeforeStatement func(i int, statement string) error
}

// empty reports whether the migration has nothing to run.
func (m Migration) empty() bool {
	return len(m.Locks) == 0 && len(m.Prechecks) == 0 && len(m.Statements) == 0
}

// Run runs the migration's locks, prechecks and statements in tx; rows
// that would break it come back as a *ViolationError before any statement
// runs, a failed statement as a *StatementError.
func (m Migration) Run(ctx context.Context, tx *sql.Tx) error {
	if err := store.UnboundedTx(ctx, tx); err != nil {
		return err
	}
	if err := m.prepare(ctx, tx); err != nil {
		return err
	}
	if v, err := runPrechecks(ctx, tx, m.Prechecks); err != nil {
		return err
	} else if len(v) > 0 {
		return &ViolationError{Violations: v}
	}
	for i, st := range m.Statements {
		if m.BeforeStatement != nil {
			if err := m.BeforeStatement(i, st); err != nil {
				return &StatementError{Statement: st, Err: err}
			}
		}
		if _, err := tx.ExecContext(ctx, st); err != nil {
			return &StatementError{Statement: st, Err: err}
		}
	}
	return nil
}

// prepare bounds lock waits, fixes the settings conversions depend on,
// and takes the SHARE locks.
func (m Migration) prepare(ctx context.Context, tx *sql.Tx) error {
	timeout := m.LockTimeout
	if timeout <= 0 {
		timeout = store.DefaultLockTimeout
	}
	// A migration waits at most this long for a table lock, so it never
	// queues the API's requests behind it for longer.
	settings := fmt.Sprintf(`SET LOCAL lock_timeout = '%dms'`, timeout.Milliseconds())
	// Numbers converted to text print their shortest exact form whatever
	// the connection's setting.
	for _, st := range []string{settings, `SET LOCAL extra_float_digits = 1`} {
		if _, err := tx.ExecContext(ctx, st); err != nil {
			return err
		}
	}
	if len(m.Locks) > 0 {
		st := "LOCK TABLE " + strings.Join(m.Locks, ", ") + " IN SHARE MODE"
		if _, err := tx.ExecContext(ctx, st); err != nil {
			return &StatementError{Statement: st, Err: err}
		}
	}
	return nil
}

// External returns the migration step of store.PublishExternal for a
// fronted database: a transaction of target that has run m, which the
// store commits once the version row is written. It is nil when m has
// nothing to run (target may then be nil).
func External(target *sql.DB, m Migration) func(ctx context.Context) (store.Tx, error) {
	if m.empty() {
		return nil
	}
	return func(ctx context.Context) (store.Tx, error) {
		if target == nil {
			return nil, errors.New("publish external: no database to migrate")
		}
		tx, err := target.BeginTx(ctx, nil)
		if err != nil {
			return nil, err
		}
		if err := m.Run(ctx, tx); err != nil {
			_ = tx.Rollback()
			return nil, err
		}
		return externalTx{tx}, nil
	}
}

// externalTx is a fronted database's migration transaction: a failed
// commit is the migration's failure, and changed nothing.
type externalTx struct{ *sql.Tx }

func (t externalTx) Commit() error {
	if err := t.Tx.Commit(); err != nil {
		return &StatementError{Statement: "COMMIT", Err: err}
	}
	return nil
}

// Violation is what a precheck found: existing rows that break a rule.
type Violation struct {
	Table    string   `json:"table"`
	Column   string   `json:"column,omitempty"`
	Rule     string   `json:"rule"`
	Count    int64    `json:"count"`
	Examples []string `json:"examples"`
}

// Message says in one sentence what is wrong, for error details.
func (v Violation) Message() string {
	rows := "rows break"
	if v.Count == 1 {
		rows = "row breaks"
	}
	return fmt.Sprintf("%d existing %s this: %s (ids %s)", v.Count, rows, v.Rule, strings.Join(v.Examples, ", "))
}

// ViolationError is returned by Migration.Run when prechecks found rows
// that the migration could not keep; nothing ran.
type ViolationError struct {
	Violations []Violation
}

func (e *ViolationError) Error() string {
	msgs := make([]string, len(e.Violations))
	for i, v := range e.Violations {
		msgs[i] = v.Table + "." + v.Column + ": " + v.Message()
	}
	return "existing rows do not fit the new schema: " + strings.Join(msgs, "; ")
}

// StatementError says which statement of a migration failed.
type StatementError struct {
	Statement string
	Err       error
}

func (e *StatementError) Error() string { return fmt.Sprintf("statement %q: %v", e.Statement, e.Err) }
func (e *StatementError) Unwrap() error { return e.Err }

// runPrechecks runs every precheck (not only up to the first that
// fails, so one answer lists everything to fix) and returns what they
// found.
func runPrechecks(ctx context.Context, tx *sql.Tx, checks []schema.Precheck) ([]Violation, error) {
	var out []Violation
	for _, c := range checks {
		var n int64
		if err := tx.QueryRowContext(ctx, c.SQL).Scan(&n); err != nil {
			return nil, &StatementError{Statement: c.SQL, Err: err}
		}
		if n <= int64(c.Allowed) {
			continue
		}
		var ids pq.StringArray
		if err := tx.QueryRowContext(ctx, "SELECT ARRAY("+c.Examples+")").Scan(&ids); err != nil {
			return nil, &StatementError{Statement: c.Examples, Err: err}
		}
		out = append(out, Violation{Table: c.Table, Column: c.Column, Rule: c.Rule, Count: n, Examples: []string(ids)})
	}
	return out, nil
}

// CheckRows runs prechecks on db without migrating, in a read-only
// transaction, so a plan can show what would block a generate.
func CheckRows(ctx context.Context, db *sql.DB, checks []schema.Precheck) ([]Violation, error) {
	tx, err := db.BeginTx(ctx, &sql.TxOptions{ReadOnly: true})
	if err != nil {
		return nil, err
	}
	defer tx.Rollback()
	if _, err := tx.ExecContext(ctx, `SET LOCAL extra_float_digits = 1`); err != nil {
		return nil, err
	}
	v, err := runPrechecks(ctx, tx, checks)
	if v == nil {
		v = []Violation{}
	}
	return v, err
}

// CheckProjectRows is CheckRows where a managed project's tables are (its
// data server).
func CheckProjectRows(ctx context.Context, st *store.Store, projectID string, checks []schema.Precheck) ([]Violation, error) {
	db, err := st.ProjectDB(ctx, projectID)
	if err != nil {
		return nil, err
	}
	return CheckRows(ctx, db, checks)
}
