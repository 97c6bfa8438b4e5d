// Package store is the control plane on PostgreSQL: accounts, projects,
// drafts, published schema versions and API keys in the "tablesmith"
// schema, with versioned migrations applied on start.
package store

import (
	"context"
	"database/sql"
	"embed"
	"fmt"
	"sort"
	"strconv"
	"strings"
)

//go:embed migrations/*.sql
var migrationFiles embed.FS

// migrationLock is the advisory lock key that serializes migrations when
// several nodes start at once.
const migrationLock = 7_401_002_311

// Migrate applies the migrations not yet applied, each in its own
// transaction, under an advisory lock.
func Migrate(ctx context.Context, db *sql.DB) error {
	conn, err := db.Conn(ctx)
	if err != nil {
		return fmt.Errorf("migrate: %w", err)
	}
	defer conn.Close()
	restore, err := unboundedConn(ctx, conn)
	if err != nil {
		return fmt.Errorf("migrate: %w", err)
	}
	defer restore()
	if _, err := conn.ExecContext(ctx, `SELECT pg_advisory_lock($1)`, migrationLock); err != nil {
		return fmt.Errorf("migrate: lock: %w", err)
	}
	defer conn.ExecContext(context.Background(), `SELECT pg_advisory_unlock($1)`, migrationLock)

	if _, err := conn.ExecContext(ctx, `CREATE SCHEMA IF NOT EXISTS tablesmith;
		CREATE TABLE IF NOT EXISTS tablesmith.schema_migrations (
			version integer PRIMARY KEY, applied_at timestamptz NOT NULL DEFAULT now())`); err != nil {
		return fmt.Errorf("migrate: bootstrap: %w", err)
	}
	// pg_trgm makes search fast; it is a trusted extension, but a database
	// user without CREATE rights still works, only without search indexes.
	_, _ = conn.ExecContext(ctx, `CREATE EXTENSION IF NOT EXISTS pg_trgm WITH SCHEMA public`)

	entries, err := migrationFiles.ReadDir("migrations")
	if err != nil {
		return err
	}
	sort.Slice(entries, func(i, j int) bool { return entries[i].Name() < entries[j].Name() })
	for _, e := range entries {
		version, err := strconv.Atoi(strings.SplitN(e.Name(), "_", 2)[0])
		if err != nil {
			return fmt.Errorf("migrate: bad file name %s", e.Name())
		}
		var applied bool
		if err := conn.QueryRowContext(ctx, `SELECT EXISTS (SELECT 1 FROM tablesmith.schema_migrations WHERE version = $1)`, version).Scan(&applied); err != nil {
			return err
		}
		if applied {
			continue
		}
		body, _ := migrationFiles.ReadFile("migrations/" + e.Name())
		tx, err := conn.BeginTx(ctx, nil)
		if err != nil {
			return err
		}
		if _, err := tx.ExecContext(ctx, string(body)); err != nil {
			tx.Rollback()
			return fmt.Errorf("migrate: %s: %w", e.Name(), err)
		}
		if _, err := tx.ExecContext(ctx, `INSERT INTO tablesmith.schema_migrations (version) VALUES ($1)`, version); err != nil {
			tx.Rollback()
			return err
		}
		if err := tx.Commit(); err != nil {
			return fmt.Errorf("migrate: %s: %w", e.Name(), err)
		}
	}
	return nil
}

// TrigramAvailable reports whether pg_trgm is installed in the database.
func TrigramAvailable(ctx context.Context, db *sql.DB) bool {
	var ok bool
	_ = db.QueryRowContext(ctx, `SELECT EXISTS (SELECT 1 FROM pg_extension WHERE extname = 'pg_trgm')`).Scan(&ok)
	return ok
}

// MigrationNames lists the embedded migration files in order.
func MigrationNames() ([]string, error) {
	entries, err := migrationFiles.ReadDir("migrations")
	if err != nil {
		return nil, err
	}
	names := make([]string, 0, len(entries))
	for _, e := range entries {
		names = append(names, e.Name())
	}
	sort.Strings(names)
	return names, nil
}
