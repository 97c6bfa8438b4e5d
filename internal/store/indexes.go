package store

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"sync"
	"time"

	"github.com/lib/pq"

	"github.com/tablesmith/tablesmith/schema"
)

// States of an index build (tablesmith.index_builds.state).
const (
	IndexPending    = "pending"
	IndexBuilding   = "building"
	IndexReady      = "ready"
	IndexFailed     = "failed"
	IndexSuperseded = "superseded" // a newer version took its place
)

// IndexBuild is one index a published version still had to build after
// its migration committed.
type IndexBuild struct {
	Name      string    `json:"name"`
	Table     string    `json:"table"`
	Column    string    `json:"column"`
	State     string    `json:"state"`
	Attempts  int       `json:"attempts"`
	Error     string    `json:"error,omitempty"`
	UpdatedAt time.Time `json:"updated_at"`
}

// IndexStatus sums up a version's index builds. State is "building"
// while any build is pending or running, then "failed" if any failed,
// else "ready" (also when the version had nothing to build).
type IndexStatus struct {
	State  string       `json:"state"`
	Total  int          `json:"total"`
	Ready  int          `json:"ready"`
	Failed int          `json:"failed"`
	Items  []IndexBuild `json:"items"`
}

func (st *IndexStatus) add(b IndexBuild) {
	st.Items = append(st.Items, b)
	st.Total++
	switch b.State {
	case IndexReady:
		st.Ready++
	case IndexFailed:
		st.Failed++
	case IndexPending, IndexBuilding:
		st.State = IndexBuilding
	}
	if st.State != IndexBuilding {
		st.State = IndexReady
		if st.Failed > 0 {
			st.State = IndexFailed
		}
	}
}

func emptyIndexStatus() *IndexStatus {
	return &IndexStatus{State: IndexReady, Items: []IndexBuild{}}
}

// IndexStatuses returns the index builds of a project's versions (all of
// them when versions is empty), by version. A version without a row in
// the result had nothing to build.
func (s *Store) IndexStatuses(ctx context.Context, projectID string, versions ...int) (map[int]*IndexStatus, error) {
	if versions == nil {
		versions = []int{} // pq.Array(nil) is NULL, whose cardinality is NULL: no row
	}
	rows, err := s.DB.QueryContext(ctx, `SELECT version, name, table_name, column_name, state, attempts, error, updated_at
		FROM tablesmith.index_builds WHERE project_id = $1 AND (cardinality($2::int[]) = 0 OR version = ANY ($2))
		ORDER BY version, table_name, column_name, name`, projectID, pq.Array(versions))
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	out := map[int]*IndexStatus{}
	for rows.Next() {
		var v int
		var b IndexBuild
		if err := rows.Scan(&v, &b.Name, &b.Table, &b.Column, &b.State, &b.Attempts, &b.Error, &b.UpdatedAt); err != nil {
			return nil, err
		}
		if out[v] == nil {
			out[v] = emptyIndexStatus()
		}
		out[v].add(b)
	}
	return out, rows.Err()
}

// withIndexes attaches each version's index builds.
func (s *Store) withIndexes(ctx context.Context, projectID string, vs []Version) error {
	nums := make([]int, len(vs))
	for i, v := range vs {
		nums[i] = v.Version
	}
	st, err := s.IndexStatuses(ctx, projectID, nums...)
	if err != nil {
		return err
	}
	for i := range vs {
		if vs[i].Indexes = st[vs[i].Version]; vs[i].Indexes == nil {
			vs[i].Indexes = emptyIndexStatus()
		}
	}
	return nil
}

// recordIndexBuilds, in the migration's transaction, supersedes the
// unfinished builds of earlier versions (wanted lists every index of the
// new document) and records the wanted indexes that are missing or
// INVALID as pending builds of the new version. schemaQ reads the
// project's schema (the migration's transaction on its data server).
func recordIndexBuilds(ctx context.Context, tx *sql.Tx, schemaQ querier, projectID string, version int, wanted []schema.IndexSpec) error {
	if _, err := tx.ExecContext(ctx, `UPDATE tablesmith.index_builds SET state = 'superseded', updated_at = now()
		WHERE project_id = $1 AND state IN ('pending', 'building')`, projectID); err != nil {
		return err
	}
	if len(wanted) == 0 {
		return nil
	}
	valid, err := indexValidity(ctx, schemaQ, schema.ProjectSchema(projectID))
	if err != nil {
		return err
	}
	for _, ix := range wanted {
		_, replacedExists := valid[ix.Replaces]
		if valid[ix.Name] && (ix.Replaces == "" || !replacedExists) {
			continue
		}
		if _, err := tx.ExecContext(ctx, `INSERT INTO tablesmith.index_builds
			(project_id, version, name, table_name, column_name, create_sql, drop_sql, retire_sql) VALUES ($1, $2, $3, $4, $5, $6, $7, $8)`,
			projectID, version, ix.Name, ix.Table, ix.Column, ix.Create, ix.Drop, ix.Retire); err != nil {
			return err
		}
	}
	return nil
}

type querier interface {
	QueryContext(ctx context.Context, query string, args ...any) (*sql.Rows, error)
}

// indexValidity maps the name of every index of a schema to whether it
// is valid (a failed or running concurrent build is not).
func indexValidity(ctx context.Context, q querier, schemaName string) (map[string]bool, error) {
	rows, err := q.QueryContext(ctx, `SELECT c.relname, i.indisvalid FROM pg_index i
		JOIN pg_class c ON c.oid = i.indexrelid JOIN pg_namespace n ON n.oid = c.relnamespace
		WHERE n.nspname = $1`, schemaName)
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	valid := map[string]bool{}
	for rows.Next() {
		var name string
		var ok bool
		if err := rows.Scan(&name, &ok); err != nil {
			return nil, err
		}
		valid[name] = ok
	}
	return valid, rows.Err()
}

// BuildOptions bound the builds of BuildIndexes.
type BuildOptions struct {
	// MaxAttempts is how many times a build is tried before it is
	// reported failed (default 3).
	MaxAttempts int
	// Backoff is the wait after a first failure; it doubles after each
	// further one (default 5 s).
	Backoff time.Duration
	// Timeout bounds one CREATE INDEX CONCURRENTLY (default 1 hour).
	Timeout time.Duration
	// BeforeBuild is a test hook run before each build, after its row
	// says building.
	BeforeBuild func(name string)
}

func (o BuildOptions) withDefaults() BuildOptions {
	if o.MaxAttempts <= 0 {
		o.MaxAttempts = 3
	}
	if o.Backoff <= 0 {
		o.Backoff = 5 * time.Second
	}
	if o.Timeout <= 0 {
		o.Timeout = time.Hour
	}
	return o
}

// ProjectsWithDueBuilds lists the projects that have pending builds due
// now, or builds marked building (whose builder may have died: the
// project's advisory lock tells), oldest first.
func (s *Store) ProjectsWithDueBuilds(ctx context.Context) ([]string, error) {
	rows, err := s.DB.QueryContext(ctx, `SELECT project_id FROM tablesmith.index_builds
		WHERE state IN ('pending', 'building') AND next_try_at <= now()
		GROUP BY project_id ORDER BY min(next_try_at)`)
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	var out []string
	for rows.Next() {
		var id string
		if err := rows.Scan(&id); err != nil {
			return nil, err
		}
		out = append(out, id)
	}
	return out, rows.Err()
}

// NextBuildDue returns when the earliest pending build that waits for a
// retry is due, or false if none waits.
func (s *Store) NextBuildDue(ctx context.Context) (time.Duration, bool, error) {
	var wait sql.NullFloat64
	err := s.DB.QueryRowContext(ctx, `SELECT extract(epoch FROM min(next_try_at) - now())::float8 FROM tablesmith.index_builds
		WHERE state = 'pending' AND next_try_at > now()`).Scan(&wait)
	if err != nil || !wait.Valid {
		return 0, false, err
	}
	return time.Duration(wait.Float64 * float64(time.Second)), true, nil
}

// finishLockKey is the advisory lock Finish holds while it runs.
func finishLockKey(schemaName string) string { return "tablesmith-finish:" + schemaName }

// rowsDB runs the statements of the builds' rows: a *sql.DB or *sql.Conn.
type rowsDB interface {
	QueryRowContext(ctx context.Context, query string, args ...any) *sql.Row
	ExecContext(ctx context.Context, query string, args ...any) (sql.Result, error)
}

// buildLockKey is the advisory lock held by whoever builds a project's
// indexes: builds of one project run one after another on one node, and
// a builder that dies releases it with its connection.
func buildLockKey(projectID string) string { return "tablesmith-index-builds:" + projectID }

// stopBuilder ends the project's index builder, if one runs, and keeps
// another from starting until release is called: it takes the build lock
// itself, cancelling the holder's statement until the holder lets go. One
// cancel is not enough: it finds nothing to cancel when it lands between
// two of the builder's statements, and the builder's next one (a
// concurrent build waiting for old snapshots) would then hold up the
// schema's drop. ctx bounds the wait; release may be called more than
// once.
func (s *Store) stopBuilder(ctx context.Context, projectID string) (release func(), err error) {
	_, db, err := s.projectServer(ctx, s.DB, projectID)
	if err != nil {
		return nil, err
	}
	return stopBuilderOn(ctx, db, projectID)
}

// stopBuilderOn is stopBuilder on the data server db, where builders hold
// the lock.
func stopBuilderOn(ctx context.Context, db *sql.DB, projectID string) (release func(), err error) {
	conn, err := db.Conn(ctx)
	if err != nil {
		return nil, err
	}
	key := buildLockKey(projectID)
	for {
		var got bool
		if err := conn.QueryRowContext(ctx, `SELECT pg_try_advisory_lock(hashtext($1))`, key).Scan(&got); err != nil {
			conn.Close()
			return nil, err
		}
		if got {
			return sync.OnceFunc(func() {
				_, _ = conn.ExecContext(context.WithoutCancel(ctx), `SELECT pg_advisory_unlock(hashtext($1))`, key)
				conn.Close()
			}), nil
		}
		if err := cancelBuilderOn(ctx, db, projectID); err != nil {
			conn.Close()
			return nil, err
		}
		select {
		case <-ctx.Done():
			conn.Close()
			return nil, ctx.Err()
		case <-time.After(20 * time.Millisecond):
		}
	}
}

// cancelBuilderOn cancels the statement of whichever session holds the
// project's build lock on the data server db (an int8 advisory lock shows
// in pg_locks as its high and low 32 bits).
func cancelBuilderOn(ctx context.Context, db *sql.DB, projectID string) error {
	_, err := db.ExecContext(ctx, `SELECT pg_cancel_backend(l.pid) FROM pg_locks l
		WHERE l.locktype = 'advisory' AND l.granted AND l.objsubid = 1
		  AND ((l.classid::int8 << 32) | l.objid::int8) = hashtext($1)::int8`, buildLockKey(projectID))
	return err
}

// BuildIndexes runs the due builds of a project one after another, on
// one connection that holds the project's build lock; it returns at once
// with claimed false when another builder holds it. A build whose row
// says building when the lock is free was interrupted (its node died):
// it is built again. An INVALID index left by an interrupted or failed
// build is dropped (DROP INDEX CONCURRENTLY) before the next try; a
// failed build is tried again after a backoff, up to MaxAttempts, then
// reported failed with no index left behind.
func (s *Store) BuildIndexes(ctx context.Context, projectID string, opt BuildOptions) (claimed bool, err error) {
	opt = opt.withDefaults()
	_, data, err := s.projectServer(ctx, s.DB, projectID)
	if err != nil {
		return false, err
	}
	// The lock and the builds are on the project's data server; the
	// builds' rows are in the control schema (s.DB, the same database
	// for a project on database_url).
	conn, err := data.Conn(ctx)
	if err != nil {
		return false, err
	}
	defer conn.Close()
	if err := conn.QueryRowContext(ctx, `SELECT pg_try_advisory_lock(hashtext($1))`, buildLockKey(projectID)).Scan(&claimed); err != nil || !claimed {
		return false, err
	}
	defer conn.ExecContext(context.WithoutCancel(ctx), `SELECT pg_advisory_unlock(hashtext($1))`, buildLockKey(projectID))
	restore, err := unboundedConn(ctx, conn)
	if err != nil {
		return true, err
	}
	defer restore()
	// A build and a generate's after-commit work (Finish) on one table
	// would wait on each other's locks until one gives up, so they take
	// turns on Finish's lock. The builder holds it through its builds and
	// then runs Finish itself before letting go: a generate that found it
	// taken skipped its after-commit work, and it is done here; and once
	// the lock is free with no build due, nothing is left to do.
	turn, err := s.TakeFinishTurn(ctx, projectID)
	if err != nil || turn == nil {
		return false, err // a generate is finishing: its kick comes next
	}
	defer turn.Release()
	// The builds' rows go through the build's own connection when the
	// project is on database_url: a builder whose connection dies (its
	// node died) then leaves its row building, for the next to take over.
	var book rowsDB = s.DB
	if data == s.DB {
		book = conn
	}
	for {
		more, err := s.buildNext(ctx, conn, book, projectID, opt)
		if err != nil {
			return true, err
		}
		if !more {
			_, err = turn.Finish(ctx, nil, 0)
			return true, err
		}
	}
}

// buildNext builds the project's next due index; more is false when none
// was due.
func (s *Store) buildNext(ctx context.Context, conn *sql.Conn, book rowsDB, projectID string, opt BuildOptions) (more bool, err error) {
	var version, attempts int
	var name, create, drop, retire string
	err = book.QueryRowContext(ctx, `UPDATE tablesmith.index_builds b SET state = 'building', attempts = attempts + 1, updated_at = now()
			FROM (SELECT version, name FROM tablesmith.index_builds
			      WHERE project_id = $1 AND state IN ('pending', 'building') AND next_try_at <= now()
			      ORDER BY version, table_name, column_name, name LIMIT 1) n
			WHERE b.project_id = $1 AND b.version = n.version AND b.name = n.name
			RETURNING b.version, b.name, b.create_sql, b.drop_sql, b.retire_sql, b.attempts`, projectID).Scan(&version, &name, &create, &drop, &retire, &attempts)
	if errors.Is(err, sql.ErrNoRows) {
		return false, nil
	}
	if err != nil {
		return false, err
	}
	if opt.BeforeBuild != nil {
		opt.BeforeBuild(name)
	}
	buildErr := buildIndex(ctx, conn, schema.ProjectSchema(projectID), name, create, drop, opt.Timeout)
	if buildErr == nil && retire != "" {
		// The index this one replaces goes only once this one is valid,
		// so lists are never left without either.
		buildErr = retireIndex(ctx, conn, retire, opt.Timeout)
	}
	if ctx.Err() != nil {
		// Shutting down: the row stays building and the next
		// builder (this node restarted, or another) takes it over.
		return false, ctx.Err()
	}
	if buildErr == nil {
		_, err = book.ExecContext(ctx, `UPDATE tablesmith.index_builds SET state = 'ready', error = '', updated_at = now()
				WHERE project_id = $1 AND version = $2 AND name = $3 AND state = 'building'`, projectID, version, name)
	} else if attempts >= opt.MaxAttempts {
		_, err = book.ExecContext(ctx, `UPDATE tablesmith.index_builds SET state = 'failed', error = $4, updated_at = now()
				WHERE project_id = $1 AND version = $2 AND name = $3 AND state = 'building'`, projectID, version, name, buildErr.Error())
	} else {
		wait := opt.Backoff << (attempts - 1)
		_, err = book.ExecContext(ctx, `UPDATE tablesmith.index_builds SET state = 'pending', error = $4, updated_at = now(),
				next_try_at = now() + make_interval(secs => $5)
				WHERE project_id = $1 AND version = $2 AND name = $3 AND state = 'building'`, projectID, version, name, buildErr.Error(), wait.Seconds())
	}
	return err == nil, err
}

// retireIndex drops an index a new one replaced, without blocking writes.
func retireIndex(ctx context.Context, conn *sql.Conn, retire string, timeout time.Duration) error {
	rctx, cancel := context.WithTimeout(ctx, timeout)
	defer cancel()
	if _, err := conn.ExecContext(rctx, retire); err != nil {
		return fmt.Errorf("dropping the index this one replaces: %w", err)
	}
	return nil
}

// buildIndex builds one index concurrently: an INVALID one (from an
// interrupted build) is dropped first, and one a failed build left
// INVALID is dropped after it, so a failure never leaves an index that
// writes maintain but reads cannot use.
func buildIndex(ctx context.Context, conn *sql.Conn, schemaName, name, create, drop string, timeout time.Duration) error {
	bctx, cancel := context.WithTimeout(ctx, timeout)
	defer cancel()
	valid, err := indexValidity(bctx, conn, schemaName)
	if err != nil {
		return err
	}
	if ok, exists := valid[name]; exists && ok {
		return nil
	} else if exists {
		if _, err := conn.ExecContext(bctx, drop); err != nil {
			return fmt.Errorf("dropping the invalid index left by an earlier build: %w", err)
		}
	}
	if _, err := conn.ExecContext(bctx, create); err != nil {
		// Dropped on a context of its own: a build cut by its timeout
		// must not leave its INVALID index either.
		dctx, dcancel := context.WithTimeout(context.WithoutCancel(ctx), time.Minute)
		defer dcancel()
		_, _ = conn.ExecContext(dctx, drop)
		return err
	}
	return nil
}
