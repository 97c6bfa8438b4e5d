package requestlog

import (
	"context"
	"database/sql"
	"fmt"
	"time"

	"github.com/lib/pq"
)

// copyEntries is the COPY insert runs; lib/pq sends each row of its
// prepared statement as copy data, the columns in this order.
const copyEntries = `COPY tablesmith.request_log (project_id, at, method, path, query, status, error_code, error_message,
    error_body, latency_us, credential, key_prefix, end_user, origin, request_id, rows_affected, bytes) FROM STDIN`

// insert writes entries with COPY, in one transaction: PostgreSQL's
// cheapest way in, a fifth of the INSERT … unnest it replaced in server
// time per row (bench/RESULTS.md, "Request log"). The error's code and
// message are read from its answer here, off the request path.
func insert(ctx context.Context, db *sql.DB, entries []Entry) (err error) {
	tx, err := db.BeginTx(ctx, nil)
	if err != nil {
		return fmt.Errorf("insert %d request log entries: %w", len(entries), err)
	}
	defer func() {
		if err != nil {
			_ = tx.Rollback()
		}
	}()
	stmt, err := tx.PrepareContext(ctx, copyEntries)
	if err != nil {
		return fmt.Errorf("insert %d request log entries: %w", len(entries), err)
	}
	for _, e := range entries {
		code, message := errorOf(e.ErrorBody)
		var rows any
		if e.Rows >= 0 {
			rows = e.Rows
		}
		if _, err = stmt.ExecContext(ctx, e.ProjectID, e.At, clean(e.Method), clean(capString(e.Path, maxQuery)),
			clean(Redacted(e.RawQuery)), e.Status, clean(code), clean(capString(message, MaxErrorBody)), clean(errorText(e.ErrorBody)),
			e.Latency.Microseconds(), e.Principal, clean(e.KeyPrefix), clean(e.EndUser), clean(capString(e.Origin, 256)),
			clean(e.RequestID), rows, e.Bytes); err != nil {
			return fmt.Errorf("insert %d request log entries: %w", len(entries), err)
		}
	}
	if _, err = stmt.ExecContext(ctx); err != nil {
		return fmt.Errorf("insert %d request log entries: %w", len(entries), err)
	}
	if err = stmt.Close(); err != nil {
		return fmt.Errorf("insert %d request log entries: %w", len(entries), err)
	}
	return tx.Commit()
}

// deleteExpiredSQL deletes, project by project along the (project_id,
// at) index, the entries older than the retention of the project's plan.
// Entries of projects deleted since are removed by deleteOrphansSQL.
const deleteExpiredSQL = `
WITH keep AS (
    SELECT p.id, coalesce(r.keep_us, $3) AS keep_us
    FROM tablesmith.projects p
    JOIN tablesmith.accounts a ON a.id = p.account_id
    LEFT JOIN unnest($1::text[], $2::bigint[]) AS r(plan, keep_us) ON r.plan = a.plan)
DELETE FROM tablesmith.request_log l USING keep k
WHERE l.project_id = k.id AND l.at < $4::timestamptz - k.keep_us * interval '1 microsecond'`

// deleteOrphansSQL deletes entries older than the longest retention, of
// whatever project: what is left of deleted projects.
const deleteOrphansSQL = `DELETE FROM tablesmith.request_log WHERE at < $1`

// deleteExpired runs deleteExpiredSQL, and deleteOrphansSQL too when
// sweep is set: that one reads the whole table, so it runs hourly.
func deleteExpired(ctx context.Context, db *sql.DB, now time.Time, byPlan map[string]time.Duration, other time.Duration, sweep bool) error {
	names, keeps := make([]string, 0, len(byPlan)), make([]int64, 0, len(byPlan))
	longest := other
	for name, d := range byPlan {
		names, keeps = append(names, name), append(keeps, d.Microseconds())
		longest = max(longest, d)
	}
	if _, err := db.ExecContext(ctx, deleteExpiredSQL, pq.Array(names), pq.Array(keeps), other.Microseconds(), now); err != nil {
		return fmt.Errorf("delete expired request log entries: %w", err)
	}
	if !sweep {
		return nil
	}
	if _, err := db.ExecContext(ctx, deleteOrphansSQL, now.Add(-longest)); err != nil {
		return fmt.Errorf("delete request log entries past every retention: %w", err)
	}
	return nil
}

// deleteBeyondCapSQL keeps a project's newest $2 entries.
const deleteBeyondCapSQL = `
DELETE FROM tablesmith.request_log
WHERE project_id = $1 AND (at, id) <= (
    SELECT at, id FROM tablesmith.request_log WHERE project_id = $1
    ORDER BY at DESC, id DESC OFFSET $2 LIMIT 1)`

func deleteBeyondCap(ctx context.Context, db *sql.DB, project string, maxRows int) error {
	if _, err := db.ExecContext(ctx, deleteBeyondCapSQL, project, maxRows); err != nil {
		return fmt.Errorf("keep the newest %d request log entries of %s: %w", maxRows, project, err)
	}
	return nil
}
