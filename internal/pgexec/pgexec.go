// Package pgexec runs data-plane statements that return one JSON value
// and maps PostgreSQL errors to the contract's errors.
package pgexec

import (
	"context"
	"database/sql"
	"database/sql/driver"
	"errors"
	"fmt"
	"io"
	"os"
	"strings"
	"syscall"

	"github.com/lib/pq"

	"github.com/tablesmith/tablesmith/apierr"
	"github.com/tablesmith/tablesmith/schema"
)

// Querier is what statements run on: a *sql.DB, a *sql.Tx or a pool's
// *Statements.
type Querier interface {
	QueryRowContext(ctx context.Context, query string, args ...any) *sql.Row
}

// ErrSchemaChanged marks a statement that named a table or column the
// database no longer has: the schema changed under the published version
// the statement was built from (a generate just committed, or someone
// altered the database by hand).
var ErrSchemaChanged = errors.New("the database does not match the published schema")

// ErrNoRow is returned when a statement matched no row.
var ErrNoRow = errors.New("no row")

// JSON runs a statement that selects one JSON text value and returns its
// bytes; ErrNoRow when it selects no row or NULL.
func JSON(ctx context.Context, q Querier, query string, args ...any) ([]byte, error) {
	var out []byte
	err := scanRow(ctx, q, query, args, &out)
	if errors.Is(err, sql.ErrNoRows) || (err == nil && out == nil) {
		return nil, ErrNoRow
	}
	return out, err
}

// ReadJSON is JSON for a statement that only reads: one that failed on a
// broken connection runs once more, on another connection.
func ReadJSON(ctx context.Context, q Querier, query string, args ...any) ([]byte, error) {
	out, err := JSON(ctx, q, query, args...)
	if retryRead(ctx, q, err) {
		out, err = JSON(ctx, q, query, args...)
	}
	return out, err
}

// retryRead says whether a read that failed with err runs again: only
// when its connection broke (the database restarted, a proxy or the
// network dropped it) while the request still has time. A deadline or a
// statement timeout is not retried: the second try would wait as long.
// The pool's idle connections are dropped first, as they most likely
// broke the same way, so the retry dials a fresh one.
func retryRead(ctx context.Context, q Querier, err error) bool {
	if err == nil || ctx.Err() != nil || !BrokenConnection(err) {
		return false
	}
	var db *sql.DB
	switch q := q.(type) {
	case *Statements:
		db = q.db
	case *sql.DB:
		db = q
	}
	if db != nil {
		n := db.Stats().MaxOpenConnections
		db.SetMaxIdleConns(0) // closes the idle connections
		db.SetMaxIdleConns(max(n, 2))
	}
	return true
}

// BrokenConnection reports whether err says the connection itself failed
// (closed, reset, or ended by the server) rather than the statement or
// its deadline.
func BrokenConnection(err error) bool {
	if errors.Is(err, context.DeadlineExceeded) || errors.Is(err, context.Canceled) || errors.Is(err, os.ErrDeadlineExceeded) {
		return false
	}
	var pe *pq.Error
	if errors.As(err, &pe) {
		return pe.Code == "57P01" || pe.Code == "57P02" || strings.HasPrefix(string(pe.Code), "08")
	}
	return errors.Is(err, io.EOF) || errors.Is(err, io.ErrUnexpectedEOF) || errors.Is(err, driver.ErrBadConn) ||
		errors.Is(err, syscall.ECONNRESET) || errors.Is(err, syscall.EPIPE)
}

// scanRow runs a one-row statement and scans it into dest. A statement
// whose prepared form the connection could not use runs once more,
// unprepared (Statements.retry says when that is safe).
func scanRow(ctx context.Context, q Querier, query string, args []any, dest ...any) error {
	err := q.QueryRowContext(ctx, query, args...).Scan(dest...)
	if s, ok := q.(*Statements); ok && s.retry(err, query) {
		err = s.db.QueryRowContext(ctx, query, args...).Scan(dest...)
	}
	return err
}

// Op is the operation a statement served: it decides whose mistake a
// value the database refuses is, and the wording.
type Op int

// Operations.
const (
	// OpRead is a list or a get: the values it binds come from the query
	// string, so a value the database refuses is INVALID_QUERY.
	OpRead Op = iota
	// OpWrite is a create or update: its values come from the body
	// (VALIDATION_ERROR).
	OpWrite
	// OpDelete is a delete: a record still referenced is a CONFLICT.
	OpDelete
)

// MapError turns the error of a statement on table t into a contract
// error. It is the one mapping of PostgreSQL's errors, called once, by
// the handler that ran the statement (which knows t and op). Constraint
// names are mapped back to columns with the same naming rule that created
// them. Errors it does not know, a lost connection or a deadline among
// them, pass through: apierr.As classifies those where the answer is
// written.
func MapError(err error, t *schema.CTable, op Op) error {
	if err == nil {
		return nil // before pe: taking its address moves it to the heap
	}
	var pe *pq.Error
	if !errors.As(err, &pe) {
		return err
	}
	switch pe.Code {
	case "23505": // unique_violation
		col := columnOfConstraint(t, pe.Constraint, "key")
		return apierr.Fields(apierr.CodeConflict, "A record with this value already exists",
			map[string]string{col: "already exists"})
	case "23503": // foreign_key_violation
		if op == OpDelete {
			return apierr.Fields(apierr.CodeConflict, "The record is still referenced by "+pe.Table+" records",
				map[string]string{pe.Table: "references this record"})
		}
		col := columnOfConstraint(t, pe.Constraint, "fkey")
		target := "the referenced table"
		if c, ok := t.Column(col); ok && c.References != nil {
			target = c.References.Table
		}
		return apierr.Fields(apierr.CodeValidation, "Validation failed",
			map[string]string{col: "references a record in " + target + " that does not exist"})
	case "23502": // not_null_violation
		return apierr.Fields(apierr.CodeValidation, "Validation failed", map[string]string{pe.Column: schema.MsgRequired})
	case "23514": // check_violation
		col := columnOfConstraint(t, pe.Constraint, "check")
		return apierr.Fields(apierr.CodeValidation, "Validation failed", map[string]string{col: "is not an allowed value"})
	case "42P01", "42703": // undefined table/column: the database changed under a published schema
		e := apierr.New(apierr.CodeInternal, "An internal error occurred")
		e.Cause = fmt.Errorf("table %s: %w: %w", t.Name, ErrSchemaChanged, err)
		return e
	}
	if strings.HasPrefix(string(pe.Code), "22") { // data exceptions: out of range, bad representation
		if op == OpRead {
			return apierr.New(apierr.CodeInvalidQuery, "A filter value is out of range for its column")
		}
		return apierr.New(apierr.CodeValidation, "A value is out of range for its column")
	}
	return err
}

func columnOfConstraint(t *schema.CTable, constraint, suffix string) string {
	for _, c := range t.Columns {
		if schema.ConstraintName(t.Name, c.Name, suffix) == constraint {
			return c.Input
		}
	}
	return constraint
}
