package store

import (
	"context"
	"database/sql"
)

// The control pool's connections carry a statement_timeout equal to the
// request deadline, so that PostgreSQL itself ends a request's statement
// that outlived it. Some work on the same pool is long by nature and is
// bounded by its own context instead: migrations, a generate's schema
// change, index builds, constraint validation, dropping a project. It
// lifts the timeout for its transaction or its dedicated connection.

// UnboundedTx lifts the statement timeout for the rest of tx (a
// migration's transaction: publish.Migration.Run).
func UnboundedTx(ctx context.Context, tx *sql.Tx) error {
	_, err := tx.ExecContext(ctx, `SET LOCAL statement_timeout = 0`)
	return err
}

// unboundedConn lifts the statement timeout on a dedicated connection
// until restore, which puts back the connection's own (RESET returns to
// the value it was opened with).
func unboundedConn(ctx context.Context, conn *sql.Conn) (restore func(), err error) {
	if _, err := conn.ExecContext(ctx, `SET statement_timeout = 0`); err != nil {
		return nil, err
	}
	return func() {
		// A connection whose RESET fails is broken, and is dropped.
		_, _ = conn.ExecContext(context.WithoutCancel(ctx), `RESET statement_timeout`)
	}, nil
}
