// Package move moves a managed project's tables from one data server to
// another (issue 22, `caddy tablesmith move-project`): writes pause,
// announced to every node, while reads go on from the old copy; the
// tables are created on the new server from the published version, the
// rows copied in one consistent view, the counts checked; then every
// node switches, and the old copy stays, refusing writes, until an
// operator confirms the move.
package move

import (
	"context"
	"database/sql"
	"encoding/json"
	"errors"
	"fmt"
	"sort"
	"strings"
	"time"

	"github.com/tablesmith/tablesmith/apierr"
	"github.com/tablesmith/tablesmith/internal/publish"
	"github.com/tablesmith/tablesmith/internal/store"
	"github.com/tablesmith/tablesmith/schema"
)

// Options tune a move.
type Options struct {
	// Grace is how long the move waits after announcing the pause before
	// it locks the tables, so nodes stop sending writes first (default
	// 500 ms; a write that still comes waits for the lock, then is
	// refused by the old copy and answered 503).
	Grace time.Duration
	// LockTimeout bounds the wait for writes in flight (default 10 s).
	LockTimeout time.Duration
	// BatchRows is the rows per insert on the new server (default 1000).
	BatchRows int
	// ReplicaURLs are the new server's replicas: the switch waits, up to
	// 30 s, until they have replayed the copy, so that reads routed to
	// them find it.
	ReplicaURLs []string
	// Log reports progress (nil: quiet).
	Log func(format string, args ...any)
	// BeforeSwitch runs after the copy is verified, before the switch
	// (tests).
	BeforeSwitch func()
}

// Result is what a move did.
type Result struct {
	From, To string
	// Rows are the rows copied per table (the project's own tables and
	// its realtime change log).
	Rows map[string]int64
	// Paused is how long writes were refused.
	Paused time.Duration
}

// Project moves a project to the data server to (store.DefaultServer for
// database_url). It returns an error, with writes resumed on the old
// copy, when anything fails before the switch.
func Project(ctx context.Context, st *store.Store, projectID, to string, opt Options) (res Result, err error) {
	opt = opt.withDefaults()
	p, err := st.Project(ctx, projectID)
	if err != nil {
		return res, fmt.Errorf("project %s: %w", projectID, err)
	}
	if p.Engine != store.EngineManaged {
		return res, fmt.Errorf("project %s fronts an existing database: only managed projects move", projectID)
	}
	if p.MovingTo != "" {
		return res, fmt.Errorf("project %s is already moving (to %s); if that move died, run move-project --resume-writes", projectID, p.MovingTo)
	}
	res.From, res.To = name(p.DataServer), name(to)
	if res.From == res.To {
		return res, fmt.Errorf("project %s is already on %s", projectID, res.To)
	}
	src, err := st.ServerOf(res.From)
	if err != nil {
		return res, err
	}
	dst, err := st.ServerOf(res.To)
	if err != nil {
		return res, err
	}
	if err := store.Migrate(ctx, dst); err != nil {
		return res, fmt.Errorf("prepare %s: %w", res.To, err)
	}
	if err := clearTarget(ctx, st, dst, projectID, res.To); err != nil {
		return res, err
	}

	paused := time.Now()
	if err := st.PauseWrites(ctx, projectID, res.To); err != nil {
		return res, err
	}
	opt.Log("writes to %s paused; reads go on from %s", projectID, res.From)
	switched := false
	defer func() {
		res.Paused = time.Since(paused)
		if !switched {
			if rerr := st.ResumeWrites(context.WithoutCancel(ctx), projectID); rerr != nil {
				err = errors.Join(err, fmt.Errorf("resume writes: %w", rerr))
			}
		}
	}()
	select {
	case <-time.After(opt.Grace):
	case <-ctx.Done():
		return res, ctx.Err()
	}

	// The old copy: SHARE locks let reads on and hold every write, so
	// what the copy reads cannot change under it.
	srcTx, err := src.BeginTx(ctx, nil)
	if err != nil {
		return res, err
	}
	defer srcTx.Rollback()
	ns := schema.ProjectSchema(projectID)
	tables, err := tablesOf(ctx, srcTx, ns)
	if err != nil {
		return res, err
	}
	if err := lockTables(ctx, srcTx, ns, tables, opt.LockTimeout); err != nil {
		return res, err
	}
	if res.Rows, err = copyTo(ctx, st, srcTx, dst, projectID, tables, opt.BatchRows); err != nil {
		return res, err
	}
	opt.Log("copied %d tables to %s; row counts match", len(res.Rows), res.To)
	if err := waitForReplicas(ctx, dst, opt.ReplicaURLs, opt.Log); err != nil {
		return res, errors.Join(err, dropCopy(context.WithoutCancel(ctx), dst, ns))
	}
	if opt.BeforeSwitch != nil {
		opt.BeforeSwitch()
	}

	// From here the old copy refuses writes, even one that was waiting
	// for the locks: it ran its statement against the old tables.
	if err := refuseWrites(ctx, srcTx, ns, tables); err != nil {
		return res, errors.Join(err, dropCopy(context.WithoutCancel(ctx), dst, ns))
	}
	if err := srcTx.Commit(); err != nil {
		return res, errors.Join(err, dropCopy(context.WithoutCancel(ctx), dst, ns))
	}
	if err := st.SwitchServer(ctx, projectID, res.From, res.To); err != nil {
		cleanup := context.WithoutCancel(ctx)
		return res, errors.Join(err, acceptWrites(cleanup, src, ns, tables), dropCopy(cleanup, dst, ns))
	}
	switched = true
	opt.Log("%s now on %s; the old copy on %s is kept, refusing writes, until the move is confirmed", projectID, res.To, res.From)
	return res, nil
}

// copyTo creates the project's tables on dst from the published version
// and copies the rows read in srcTx (which holds the old copy's locks),
// checks the counts, and commits.
func copyTo(ctx context.Context, st *store.Store, srcTx *sql.Tx, dst *sql.DB, projectID string, tables []string, batch int) (map[string]int64, error) {
	ns := schema.ProjectSchema(projectID)
	// Generates are refused from the pause on, and one that ran before
	// held the locks until it committed: the version read now is the
	// one the tables have.
	p, err := st.Project(ctx, projectID)
	if err != nil {
		return nil, err
	}
	doc, err := publish.Published(ctx, st, p)
	if err != nil {
		return nil, err
	}
	dstTx, err := dst.BeginTx(ctx, nil)
	if err != nil {
		return nil, err
	}
	defer dstTx.Rollback()
	if _, err := dstTx.ExecContext(ctx, `SET LOCAL statement_timeout = 0`); err != nil {
		return nil, err
	}
	ddl := publish.DDL(projectID, store.TrigramAvailable(ctx, dst))
	before, after := splitDDL(schema.Diff(ddl, schema.Document{}, doc).Statements)
	if err := execAll(ctx, dstTx, append([]string{`CREATE SCHEMA ` + schema.QuoteIdent(ns)}, before...)); err != nil {
		return nil, err
	}
	rows, err := copyRows(ctx, srcTx, dstTx, ns, tables, batch)
	if err != nil {
		return nil, err
	}
	if err := execAll(ctx, dstTx, after); err != nil {
		return nil, err
	}
	if err := copySequences(ctx, srcTx, dstTx, ns); err != nil {
		return nil, err
	}
	if err := verifyCounts(ctx, srcTx, dstTx, ns, rows); err != nil {
		return nil, err
	}
	if dst != st.DB { // database_url records versions in the control schema itself
		if err := recordVersion(ctx, st, dstTx, p); err != nil {
			return nil, err
		}
	}
	return rows, dstTx.Commit()
}

// Confirm drops the old copies a project's moves left.
func Confirm(ctx context.Context, st *store.Store, projectID string) (int, error) {
	n, err := st.ConfirmMove(ctx, projectID)
	if errors.Is(err, store.ErrNotFound) {
		return 0, fmt.Errorf("project %s has no old copy waiting for confirmation", projectID)
	}
	return n, err
}

// ResumeWrites ends the pause of a move that died before its switch.
func ResumeWrites(ctx context.Context, st *store.Store, projectID string) error {
	return st.ResumeWrites(ctx, projectID)
}

func (o Options) withDefaults() Options {
	if o.Grace <= 0 {
		o.Grace = 500 * time.Millisecond
	}
	if o.LockTimeout <= 0 {
		o.LockTimeout = 10 * time.Second
	}
	if o.BatchRows <= 0 {
		o.BatchRows = 1000
	}
	if o.Log == nil {
		o.Log = func(string, ...any) {}
	}
	return o
}

func name(server string) string {
	if server == "" {
		return store.DefaultServer
	}
	return server
}

// clearTarget removes an old copy an earlier move left on the target
// (moving back before confirming); any other schema of the project there
// stops the move.
func clearTarget(ctx context.Context, st *store.Store, dst *sql.DB, projectID, to string) error {
	ns := schema.ProjectSchema(projectID)
	var exists bool
	if err := dst.QueryRowContext(ctx, `SELECT EXISTS (SELECT 1 FROM pg_namespace WHERE nspname = $1)`, ns).Scan(&exists); err != nil || !exists {
		return err
	}
	left, err := st.LeftCopy(ctx, projectID, to)
	if err != nil {
		return err
	}
	if !left {
		return fmt.Errorf("%s already has a schema %s that no move left; drop it or pick another server", to, ns)
	}
	return dropCopy(ctx, dst, ns)
}

func dropCopy(ctx context.Context, db *sql.DB, ns string) error {
	_, err := db.ExecContext(ctx, `DROP SCHEMA IF EXISTS `+schema.QuoteIdent(ns)+` CASCADE`)
	return err
}

// tablesOf lists the schema's tables, by name.
func tablesOf(ctx context.Context, tx *sql.Tx, ns string) ([]string, error) {
	return names(ctx, tx, `SELECT c.relname FROM pg_class c JOIN pg_namespace n ON n.oid = c.relnamespace
		WHERE n.nspname = $1 AND c.relkind IN ('r', 'p') ORDER BY c.relname`, ns)
}

// names runs a query of one text column and returns its values.
func names(ctx context.Context, tx *sql.Tx, query string, args ...any) ([]string, error) {
	rows, err := tx.QueryContext(ctx, query, args...)
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	var out []string
	for rows.Next() {
		var v string
		if err := rows.Scan(&v); err != nil {
			return nil, err
		}
		out = append(out, v)
	}
	return out, rows.Err()
}

func rel(ns, table string) string { return schema.QuoteIdent(ns) + "." + schema.QuoteIdent(table) }

func lockTables(ctx context.Context, tx *sql.Tx, ns string, tables []string, timeout time.Duration) error {
	if len(tables) == 0 {
		return nil
	}
	if _, err := tx.ExecContext(ctx, fmt.Sprintf(`SET LOCAL lock_timeout = '%dms'`, timeout.Milliseconds())); err != nil {
		return err
	}
	rels := make([]string, len(tables))
	for i, t := range tables {
		rels[i] = rel(ns, t)
	}
	if _, err := tx.ExecContext(ctx, `LOCK TABLE `+strings.Join(rels, ", ")+` IN SHARE MODE`); err != nil {
		return fmt.Errorf("wait for the writes in flight: %w", err)
	}
	_, err := tx.ExecContext(ctx, `SET LOCAL statement_timeout = 0`)
	return err
}

// splitDDL separates what must wait for the rows: indexes (built once,
// after), foreign keys (rows may point forward within a table) and
// triggers (the copy is not a change to capture).
func splitDDL(stmts []string) (before, after []string) {
	for _, st := range stmts {
		switch {
		case strings.HasPrefix(st, "CREATE INDEX"), strings.HasPrefix(st, "CREATE UNIQUE INDEX"),
			strings.HasPrefix(st, "CREATE TRIGGER"),
			strings.HasPrefix(st, "ALTER TABLE") && strings.Contains(st, " FOREIGN KEY "):
			after = append(after, st)
		default:
			before = append(before, st)
		}
	}
	return before, after
}

func execAll(ctx context.Context, tx *sql.Tx, stmts []string) error {
	for _, st := range stmts {
		if _, err := tx.ExecContext(ctx, st); err != nil {
			return fmt.Errorf("%s: %w", firstLine(st), err)
		}
	}
	return nil
}

func firstLine(s string) string {
	if i := strings.IndexByte(s, '\n'); i >= 0 {
		return s[:i] + " …"
	}
	return s
}

// copyRows copies every table the new copy has, in batches of rows as
// JSON: PostgreSQL converts each value to JSON and back, so no value is
// read into Go's types. Tables of the old copy that the published
// version does not have (none, unless created by hand) are not copied.
func copyRows(ctx context.Context, src, dst *sql.Tx, ns string, tables []string, batch int) (map[string]int64, error) {
	counts := map[string]int64{}
	for _, t := range tables {
		var exists bool
		if err := dst.QueryRowContext(ctx, `SELECT to_regclass($1) IS NOT NULL`, rel(ns, t)).Scan(&exists); err != nil {
			return nil, err
		}
		if !exists {
			continue
		}
		cols, err := insertableColumns(ctx, dst, ns, t)
		if err != nil {
			return nil, err
		}
		n, err := copyTable(ctx, src, dst, rel(ns, t), cols, batch)
		if err != nil {
			return nil, fmt.Errorf("copy %s: %w", t, err)
		}
		counts[t] = n
	}
	return counts, nil
}

// insertableColumns are the table's columns on the new copy, without
// generated ones (computed there again).
func insertableColumns(ctx context.Context, tx *sql.Tx, ns, table string) ([]string, error) {
	return names(ctx, tx, `SELECT a.attname FROM pg_attribute a
		WHERE a.attrelid = $1::regclass AND a.attnum > 0 AND NOT a.attisdropped AND a.attgenerated = ''
		ORDER BY a.attnum`, rel(ns, table))
}

func copyTable(ctx context.Context, src, dst *sql.Tx, relation string, cols []string, batch int) (int64, error) {
	quoted := make([]string, len(cols))
	for i, c := range cols {
		quoted[i] = schema.QuoteIdent(c)
	}
	list := strings.Join(quoted, ", ")
	insert := `INSERT INTO ` + relation + ` (` + list + `) OVERRIDING SYSTEM VALUE SELECT ` + list +
		` FROM jsonb_populate_recordset(NULL::` + relation + `, $1::jsonb)`
	// The new copy's DDL seeds some tables (the realtime state row): the
	// old copy's rows replace them.
	if _, err := dst.ExecContext(ctx, `DELETE FROM `+relation); err != nil {
		return 0, err
	}
	// The alias is quoted upper case, which no column name can be
	// (schema names are lower case): to_jsonb of a column named like
	// the alias would copy that column instead of the row.
	rows, err := src.QueryContext(ctx, `SELECT to_jsonb("Row") FROM `+relation+` AS "Row"`)
	if err != nil {
		return 0, err
	}
	defer rows.Close()
	var n int64
	buf := make([]json.RawMessage, 0, batch)
	flush := func() error {
		if len(buf) == 0 {
			return nil
		}
		all, err := json.Marshal(buf)
		if err != nil {
			return err
		}
		if _, err := dst.ExecContext(ctx, insert, string(all)); err != nil {
			return err
		}
		n += int64(len(buf))
		buf = buf[:0]
		return nil
	}
	for rows.Next() {
		var row []byte
		if err := rows.Scan(&row); err != nil {
			return n, err
		}
		buf = append(buf, json.RawMessage(row))
		if len(buf) == batch {
			if err := flush(); err != nil {
				return n, err
			}
		}
	}
	if err := rows.Err(); err != nil {
		return n, err
	}
	return n, flush()
}

// copySequences sets every sequence of the new copy (identity columns,
// the realtime change numbers) where the old copy's is, so ids and
// change numbers go on without reuse.
func copySequences(ctx context.Context, src, dst *sql.Tx, ns string) error {
	seqs, err := names(ctx, src, `SELECT c.relname FROM pg_class c JOIN pg_namespace n ON n.oid = c.relnamespace
		WHERE n.nspname = $1 AND c.relkind = 'S'`, ns)
	if err != nil {
		return err
	}
	for _, s := range seqs {
		var last int64
		var called bool
		if err := src.QueryRowContext(ctx, `SELECT last_value, is_called FROM `+rel(ns, s)).Scan(&last, &called); err != nil {
			return err
		}
		var exists bool
		if err := dst.QueryRowContext(ctx, `SELECT to_regclass($1) IS NOT NULL`, rel(ns, s)).Scan(&exists); err != nil {
			return err
		}
		if !exists {
			continue
		}
		if _, err := dst.ExecContext(ctx, `SELECT setval($1::regclass, $2, $3)`, rel(ns, s), last, called); err != nil {
			return err
		}
	}
	return nil
}

// verifyCounts counts each copied table on both sides before the switch.
func verifyCounts(ctx context.Context, src, dst *sql.Tx, ns string, copied map[string]int64) error {
	names := make([]string, 0, len(copied))
	for t := range copied {
		names = append(names, t)
	}
	sort.Strings(names)
	for _, t := range names {
		var a, b int64
		if err := src.QueryRowContext(ctx, `SELECT count(*) FROM `+rel(ns, t)).Scan(&a); err != nil {
			return err
		}
		if err := dst.QueryRowContext(ctx, `SELECT count(*) FROM `+rel(ns, t)).Scan(&b); err != nil {
			return err
		}
		if a != b || a != copied[t] {
			return fmt.Errorf("table %s: %d rows on the old copy, %d on the new (%d copied): the move stops", t, a, b, copied[t])
		}
	}
	return nil
}

// recordVersion writes the new server's data_versions row, so that its
// copy's version is known there like a generate's.
func recordVersion(ctx context.Context, st *store.Store, tx *sql.Tx, p store.Project) error {
	v, err := st.LatestVersion(ctx, p.ID)
	if err != nil {
		return err
	}
	return store.RecordCopiedVersion(ctx, tx, p.ID, v)
}

// refuseWrites makes the old copy's tables refuse every write with
// apierr.MovedSQLState, which the API answers 503 (try again).
func refuseWrites(ctx context.Context, tx *sql.Tx, ns string, tables []string) error {
	if len(tables) == 0 {
		return nil // never generated: there is no schema to write to
	}
	fn := rel(ns, "_moved_refuse")
	stmts := []string{`CREATE OR REPLACE FUNCTION ` + fn + `() RETURNS trigger LANGUAGE plpgsql AS $fn$
BEGIN
  RAISE EXCEPTION 'this project moved to another database server' USING ERRCODE = '` + apierr.MovedSQLState + `';
END
$fn$`}
	for _, t := range tables {
		stmts = append(stmts, `CREATE TRIGGER "_moved_refuse" BEFORE INSERT OR UPDATE OR DELETE OR TRUNCATE ON `+rel(ns, t)+
			` FOR EACH STATEMENT EXECUTE FUNCTION `+fn+`()`)
	}
	return execAll(ctx, tx, stmts)
}

// acceptWrites undoes refuseWrites when the switch failed.
func acceptWrites(ctx context.Context, db *sql.DB, ns string, tables []string) error {
	tx, err := db.BeginTx(ctx, nil)
	if err != nil {
		return err
	}
	defer tx.Rollback()
	for _, t := range tables {
		if _, err := tx.ExecContext(ctx, `DROP TRIGGER IF EXISTS "_moved_refuse" ON `+rel(ns, t)); err != nil {
			return err
		}
	}
	return tx.Commit()
}

// waitForReplicas waits until each replica has replayed the primary's
// current position (the copy's commit), up to 30 s each.
func waitForReplicas(ctx context.Context, primary *sql.DB, urls []string, log func(string, ...any)) error {
	if len(urls) == 0 {
		return nil
	}
	var lsn string
	if err := primary.QueryRowContext(ctx, `SELECT pg_current_wal_lsn()::text`).Scan(&lsn); err != nil {
		return err
	}
	for _, u := range urls {
		if err := waitForReplica(ctx, u, lsn); err != nil {
			return err
		}
		log("a replica of the new server has replayed the copy")
	}
	return nil
}

func waitForReplica(ctx context.Context, url, lsn string) error {
	db, err := sql.Open("postgres", url)
	if err != nil {
		return err
	}
	defer db.Close()
	deadline := time.Now().Add(30 * time.Second)
	for {
		var caught bool
		err := db.QueryRowContext(ctx, `SELECT coalesce(pg_last_wal_replay_lsn() >= $1::pg_lsn, true)`, lsn).Scan(&caught)
		if err == nil && caught {
			return nil
		}
		if time.Now().After(deadline) {
			return fmt.Errorf("a replica of the new server did not replay the copy within 30 s (%v): the move stops", err)
		}
		select {
		case <-ctx.Done():
			return ctx.Err()
		case <-time.After(50 * time.Millisecond):
		}
	}
}
