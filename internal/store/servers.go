package store

import (
	"context"
	"database/sql"
	"encoding/json"
	"errors"
	"fmt"

	"github.com/tablesmith/tablesmith/internal/events"
	"github.com/tablesmith/tablesmith/schema"
)

// projectServer is where a project's schema is: its data server's name
// ("" for database_url) and the pool for schema work there.
func (s *Store) projectServer(ctx context.Context, q queryer, projectID string) (string, *sql.DB, error) {
	var name string
	err := q.QueryRowContext(ctx, `SELECT coalesce(data_server, '') FROM tablesmith.projects WHERE id = $1`, projectID).Scan(&name)
	if errors.Is(err, sql.ErrNoRows) {
		return "", s.DB, nil // deleted meanwhile: nothing of it is left on a data server to reach
	}
	if err != nil {
		return "", nil, err
	}
	db, err := s.server(name)
	return name, db, err
}

// server is the pool for schema work on a data server ("" and
// DefaultServer: database_url).
func (s *Store) server(name string) (*sql.DB, error) {
	if name == "" || name == DefaultServer {
		return s.DB, nil
	}
	if s.Servers == nil {
		return nil, fmt.Errorf("data server %q is not configured on this node", name)
	}
	return s.Servers(name)
}

// dataVersion is a data server's record of the version its copy of a
// project's schema has (tablesmith.data_versions).
type dataVersion struct {
	Version           int
	Document, Applied json.RawMessage
	Indexes           []schema.IndexSpec
}

// RecordCopiedVersion writes, in tx on a data server, that the project's
// schema there is a copy of version (move-project): its document, no
// changes applied and no index builds pending.
func RecordCopiedVersion(ctx context.Context, tx *sql.Tx, projectID string, version Version) error {
	return recordDataVersion(ctx, tx, projectID, dataVersion{Version: version.Version, Document: version.Document, Applied: json.RawMessage(`[]`)})
}

// recordDataVersion writes, in the data server's migration transaction,
// the version the project's schema there now has.
func recordDataVersion(ctx context.Context, tx *sql.Tx, projectID string, v dataVersion) error {
	if v.Indexes == nil {
		v.Indexes = []schema.IndexSpec{}
	}
	indexes, err := json.Marshal(v.Indexes)
	if err != nil {
		return err
	}
	_, err = tx.ExecContext(ctx, `INSERT INTO tablesmith.data_versions (project_id, version, document, applied, indexes)
		VALUES ($1, $2, $3, $4, $5)
		ON CONFLICT (project_id) DO UPDATE SET version = excluded.version, document = excluded.document,
			applied = excluded.applied, indexes = excluded.indexes, created_at = now()`,
		projectID, v.Version, string(v.Document), string(v.Applied), string(indexes))
	return err
}

// Reconcile rolls the control schema forward when a project's data server
// committed a migration whose record in the control schema never did (the
// node stopped between the two commits): the data server's copy is then
// the truth, and the control schema takes its version. It does nothing
// for projects on database_url, where both commit as one.
func (s *Store) Reconcile(ctx context.Context, projectID string) error {
	tx, err := s.DB.BeginTx(ctx, nil)
	if err != nil {
		return err
	}
	defer tx.Rollback()
	var server string
	var current int
	err = tx.QueryRowContext(ctx, `SELECT coalesce(data_server, ''), published_version FROM tablesmith.projects WHERE id = $1`,
		projectID).Scan(&server, &current)
	if errors.Is(err, sql.ErrNoRows) || (err == nil && server == "") {
		return nil
	}
	if err != nil {
		return err
	}
	db, err := s.server(server)
	if err != nil {
		return err
	}
	var v dataVersion
	var indexes []byte
	err = db.QueryRowContext(ctx, `SELECT version, document, applied, indexes FROM tablesmith.data_versions WHERE project_id = $1`,
		projectID).Scan(&v.Version, &v.Document, &v.Applied, &indexes)
	if errors.Is(err, sql.ErrNoRows) || (err == nil && v.Version <= current) {
		return nil
	}
	if err != nil {
		return err
	}
	if v.Version != current+1 {
		return fmt.Errorf("project %s: data server %s has version %d, the control schema %d", projectID, server, v.Version, current)
	}
	if err := json.Unmarshal(indexes, &v.Indexes); err != nil {
		return err
	}
	// Lock the row, then check again: another node may be doing the same.
	if current, err = lockVersion(ctx, tx, projectID, current); err != nil {
		if errors.Is(err, ErrStaleVersion) {
			return nil
		}
		return err
	}
	if err := recordVersion(ctx, tx, projectID, v.Version, v.Document, v.Applied); err != nil {
		return err
	}
	if err := recordIndexBuilds(ctx, tx, db, projectID, v.Version, v.Indexes); err != nil {
		return err
	}
	return tx.Commit()
}

// DropLeftSchemas drops the project schemas the control schema has let go
// of on data servers: deleted projects' right away, and old copies of
// moved projects once an operator confirmed the move. A drop that fails
// stays listed for the next call.
func (s *Store) DropLeftSchemas(ctx context.Context) (int, error) { return s.dropLeftSchemas(ctx, "") }

// dropLeftSchemas is DropLeftSchemas for one project, or all ("").
func (s *Store) dropLeftSchemas(ctx context.Context, projectID string) (int, error) {
	rows, err := s.DB.QueryContext(ctx, `SELECT project_id, data_server FROM tablesmith.schema_drops
		WHERE confirmed AND ($1 = '' OR project_id = $1) ORDER BY created_at`, projectID)
	if err != nil {
		return 0, err
	}
	type left struct{ project, server string }
	var all []left
	for rows.Next() {
		var l left
		if err := rows.Scan(&l.project, &l.server); err != nil {
			rows.Close()
			return 0, err
		}
		all = append(all, l)
	}
	rows.Close()
	if err := rows.Err(); err != nil {
		return 0, err
	}
	dropped := 0
	var firstErr error
	for _, l := range all {
		if err := s.dropLeftSchema(ctx, l.project, l.server); err != nil {
			if firstErr == nil {
				firstErr = fmt.Errorf("drop the schema of project %s on data server %s: %w", l.project, l.server, err)
			}
			continue
		}
		dropped++
	}
	return dropped, firstErr
}

func (s *Store) dropLeftSchema(ctx context.Context, projectID, server string) error {
	db, err := s.server(server)
	if err != nil {
		return err
	}
	release, err := stopBuilderOn(ctx, db, projectID)
	if err != nil {
		return err
	}
	defer release()
	conn, err := db.Conn(ctx)
	if err != nil {
		return err
	}
	defer conn.Close()
	restore, err := unboundedConn(ctx, conn) // dropping a large schema
	if err != nil {
		return err
	}
	defer restore()
	if _, err := conn.ExecContext(ctx, `DROP SCHEMA IF EXISTS `+schema.QuoteIdent(schema.ProjectSchema(projectID))+` CASCADE`); err != nil {
		return err
	}
	if server != DefaultServer {
		if _, err := conn.ExecContext(ctx, `DELETE FROM tablesmith.data_versions WHERE project_id = $1`, projectID); err != nil {
			return err
		}
	}
	_, err = s.DB.ExecContext(ctx, `DELETE FROM tablesmith.schema_drops WHERE project_id = $1 AND data_server = $2`, projectID, server)
	return err
}

// ServerCounts counts the managed projects on each data server, for
// placing a new one; database_url's count is under DefaultServer.
func (s *Store) ServerCounts(ctx context.Context) (map[string]int, error) {
	rows, err := s.DB.QueryContext(ctx, `SELECT coalesce(data_server, $2), count(*) FROM tablesmith.projects
		WHERE engine = $1 GROUP BY 1`, EngineManaged, DefaultServer)
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	out := map[string]int{}
	for rows.Next() {
		var name string
		var n int
		if err := rows.Scan(&name, &n); err != nil {
			return nil, err
		}
		out[name] = n
	}
	return out, rows.Err()
}

// PauseWrites marks a project as moving to a data server (to, "" for
// database_url) and tells every node: its writes answer 503 until
// SwitchServer or ResumeWrites.
func (s *Store) PauseWrites(ctx context.Context, projectID, to string) error {
	return s.setMoving(ctx, projectID, nullable(to))
}

// ResumeWrites ends a pause whose move did not happen.
func (s *Store) ResumeWrites(ctx context.Context, projectID string) error {
	return s.setMoving(ctx, projectID, nil)
}

func (s *Store) setMoving(ctx context.Context, projectID string, to any) error {
	tx, err := s.DB.BeginTx(ctx, nil)
	if err != nil {
		return err
	}
	defer tx.Rollback()
	res, err := tx.ExecContext(ctx, `UPDATE tablesmith.projects SET moving_to = $2 WHERE id = $1`, projectID, to)
	if err != nil {
		return err
	}
	if n, _ := res.RowsAffected(); n == 0 {
		return ErrNotFound
	}
	if err := events.Notify(ctx, tx, events.ProjectChanged{ProjectID: projectID}); err != nil {
		return err
	}
	return tx.Commit()
}

// SwitchServer records that a project's tables are now on data server to
// ("" for database_url), ends the pause, lists the old copy on from as
// left until the move is confirmed (ConfirmMove), and tells every node.
func (s *Store) SwitchServer(ctx context.Context, projectID, from, to string) error {
	tx, err := s.DB.BeginTx(ctx, nil)
	if err != nil {
		return err
	}
	defer tx.Rollback()
	if _, err := tx.ExecContext(ctx, `UPDATE tablesmith.projects SET data_server = $2, moving_to = NULL, updated_at = now() WHERE id = $1`,
		projectID, nullable(to)); err != nil {
		return err
	}
	if from == "" {
		from = DefaultServer
	}
	if err := leaveSchema(ctx, tx, projectID, from, "moved", false); err != nil {
		return err
	}
	// A copy left there by an earlier move back is the new home now.
	if _, err := tx.ExecContext(ctx, `DELETE FROM tablesmith.schema_drops WHERE project_id = $1 AND data_server = $2`,
		projectID, serverName(to)); err != nil {
		return err
	}
	if err := events.Notify(ctx, tx, events.ProjectChanged{ProjectID: projectID}); err != nil {
		return err
	}
	return tx.Commit()
}

// LeftCopy says whether the project's schema on server is an old copy a
// move left (so a move back may replace it).
func (s *Store) LeftCopy(ctx context.Context, projectID, server string) (bool, error) {
	var n int
	err := s.DB.QueryRowContext(ctx, `SELECT count(*) FROM tablesmith.schema_drops WHERE project_id = $1 AND data_server = $2`,
		projectID, serverName(server)).Scan(&n)
	return n > 0, err
}

// ConfirmMove lets the old copies a project's moves left go, and drops
// them; it returns how many it dropped.
func (s *Store) ConfirmMove(ctx context.Context, projectID string) (int, error) {
	res, err := s.DB.ExecContext(ctx, `UPDATE tablesmith.schema_drops SET confirmed = true WHERE project_id = $1 AND reason = 'moved'`, projectID)
	if err != nil {
		return 0, err
	}
	if n, _ := res.RowsAffected(); n == 0 {
		return 0, ErrNotFound
	}
	return s.dropLeftSchemas(ctx, projectID)
}

// ServerOf is the pool for schema work on a data server by name ("" and
// DefaultServer: database_url).
func (s *Store) ServerOf(name string) (*sql.DB, error) { return s.server(name) }

func nullable(name string) any {
	if name == "" || name == DefaultServer {
		return nil
	}
	return name
}

func serverName(name string) string {
	if name == "" {
		return DefaultServer
	}
	return name
}

// ProjectDB is the pool for schema work where a managed project's tables
// are: its data server's, or database_url's.
func (s *Store) ProjectDB(ctx context.Context, projectID string) (*sql.DB, error) {
	_, db, err := s.projectServer(ctx, s.DB, projectID)
	return db, err
}
