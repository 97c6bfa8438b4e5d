package store

import (
	"context"
	"database/sql"
	"encoding/json"
	"errors"
	"fmt"
	"time"

	"github.com/tablesmith/tablesmith/internal/events"
)

// ExternalConnection is what projects.connection holds for a project of
// the postgres_external engine. The URL is kept only sealed (encrypted
// with a key derived from the master secret) and, for display, with its
// password masked.
type ExternalConnection struct {
	Schema    string `json:"schema"`
	MaskedURL string `json:"url_masked"`
	SealedURL string `json:"url_sealed"`
}

// ExternalConnectionOf decodes a project's connection; ok is false for a
// project that fronts no database.
func ExternalConnectionOf(p Project) (ExternalConnection, bool) {
	var c ExternalConnection
	if p.Engine != EngineExternal || len(p.Connection) == 0 || json.Unmarshal(p.Connection, &c) != nil || c.SealedURL == "" {
		return ExternalConnection{}, false
	}
	return c, true
}

// CreateExternalProject inserts a project that fronts an existing
// database together with its first published version, the introspected
// document, in one transaction and without any DDL: the tables are
// already there. The plan limit is checked as in CreateProject.
func (s *Store) CreateExternalProject(ctx context.Context, accountID int64, name string, conn ExternalConnection, doc, report json.RawMessage, maxProjects int) (Project, error) {
	tx, err := s.DB.BeginTx(ctx, nil)
	if err != nil {
		return Project{}, err
	}
	defer tx.Rollback()
	if err := checkProjectLimit(ctx, tx, accountID, maxProjects); err != nil {
		return Project{}, err
	}
	connJSON, err := json.Marshal(conn)
	if err != nil {
		return Project{}, err
	}
	p := Project{ID: RandomID(12), AccountID: accountID, Name: name, Engine: EngineExternal, Connection: connJSON, PublishedVersion: 1, CORS: DefaultCORS()}
	err = tx.QueryRowContext(ctx, `INSERT INTO tablesmith.projects
		(id, account_id, name, engine, connection, draft, published_version, introspection, introspected_at)
		VALUES ($1, $2, $3, $4, $5, $6, 1, $7, now()) RETURNING created_at, updated_at`,
		p.ID, accountID, name, EngineExternal, string(connJSON), string(doc), string(report)).Scan(&p.CreatedAt, &p.UpdatedAt)
	if err != nil {
		return Project{}, err
	}
	if _, err := tx.ExecContext(ctx, `INSERT INTO tablesmith.schema_versions (project_id, version, document, applied)
		VALUES ($1, 1, $2, '[]')`, p.ID, string(doc)); err != nil {
		return Project{}, err
	}
	return p, tx.Commit()
}

// Introspection returns the report of a project's last introspection
// and when it ran; nil for a project that fronts no database.
func (s *Store) Introspection(ctx context.Context, projectID string) (json.RawMessage, *time.Time, error) {
	var report []byte
	var at *time.Time
	err := s.DB.QueryRowContext(ctx, `SELECT introspection, introspected_at FROM tablesmith.projects WHERE id = $1`, projectID).Scan(&report, &at)
	if errors.Is(err, sql.ErrNoRows) {
		return nil, nil, ErrNotFound
	}
	return report, at, err
}

// SetIntrospection records the report of a new introspection.
func (s *Store) SetIntrospection(ctx context.Context, projectID string, report json.RawMessage) error {
	_, err := s.DB.ExecContext(ctx, `UPDATE tablesmith.projects SET introspection = $2, introspected_at = now() WHERE id = $1`,
		projectID, string(report))
	return err
}

// SetConnection replaces a project's connection (a new password, host or
// schema), checked by the caller.
func (s *Store) SetConnection(ctx context.Context, projectID string, conn ExternalConnection) error {
	raw, err := json.Marshal(conn)
	if err != nil {
		return err
	}
	res, err := s.DB.ExecContext(ctx, `UPDATE tablesmith.projects SET connection = $2, updated_at = now()
		WHERE id = $1 AND engine = $3`, projectID, string(raw), EngineExternal)
	if err != nil {
		return err
	}
	if n, _ := res.RowsAffected(); n == 0 {
		return ErrNotFound
	}
	if err := events.Notify(ctx, s.DB, events.ProjectChanged{ProjectID: projectID}); err != nil {
		return err
	}
	return nil
}

// Tx is a transaction that the caller began and the store ends: a
// *sql.Tx, or one that explains its own commit's failure.
type Tx interface {
	Commit() error
	Rollback() error
}

// PublishExternal runs a migration on a fronted database and records
// the new version in the control schema. Two databases cannot share one
// transaction, so the order keeps the window small: the control
// transaction takes the project's row lock and checks the version;
// migrate runs the migration in a transaction of the fronted database
// (publish.External) and hands that transaction back; the version row is
// written; the fronted transaction commits, then the control one. Any
// failure before the first commit changes nothing anywhere; only a
// failure of the control commit right after the fronted one would leave
// a change unrecorded, which "Refresh from database" then shows and
// adopts. migrate is nil when the migration has nothing to run.
func (s *Store) PublishExternal(ctx context.Context, projectID string, expected int, doc, applied json.RawMessage,
	migrate func(ctx context.Context) (Tx, error)) (int, error) {
	tx, err := s.DB.BeginTx(ctx, nil)
	if err != nil {
		return 0, err
	}
	defer tx.Rollback()
	current, err := lockVersion(ctx, tx, projectID, expected)
	if err != nil {
		return 0, err
	}
	var ext Tx
	if migrate != nil {
		if ext, err = migrate(ctx); err != nil {
			return 0, err
		}
		// After a commit this does nothing; before one, its error has
		// no one to go to (the error that stopped the publish is returned).
		defer func() { _ = ext.Rollback() }()
	}
	next := current + 1
	if err := recordVersion(ctx, tx, projectID, next, doc, applied); err != nil {
		return 0, err
	}
	if ext != nil {
		if err := ext.Commit(); err != nil {
			return 0, err
		}
	}
	if err := tx.Commit(); err != nil {
		return 0, fmt.Errorf("record version %d of %s after migrating its database: %w", next, projectID, err)
	}
	return next, nil
}

// RunAfterCommit runs the statements a migration of a fronted database
// leaves for after its commit (concurrent index builds, constraint
// validation), each on its own, with a lock timeout. Unlike Finish it
// runs exactly these statements: it never looks for other work in a
// schema that Tablesmith does not own.
func RunAfterCommit(ctx context.Context, db *sql.DB, statements []string, lockTimeout time.Duration) []FinishStep {
	steps := []FinishStep{}
	if len(statements) == 0 {
		return steps
	}
	if lockTimeout <= 0 {
		lockTimeout = DefaultLockTimeout
	}
	conn, err := db.Conn(ctx)
	if err != nil {
		for _, st := range statements {
			steps = append(steps, FinishStep{Statement: st, Error: err.Error()})
		}
		return steps
	}
	defer conn.Close()
	_, _ = conn.ExecContext(ctx, fmt.Sprintf(`SET lock_timeout = '%dms'`, lockTimeout.Milliseconds()))
	defer conn.ExecContext(context.WithoutCancel(ctx), `RESET lock_timeout`)
	if restore, err := unboundedConn(ctx, conn); err == nil { // index builds and validations take long
		defer restore()
	}
	for _, st := range statements {
		step := FinishStep{Statement: st}
		if _, err := conn.ExecContext(ctx, st); err != nil {
			step.Error = err.Error()
		}
		steps = append(steps, step)
	}
	return steps
}
