package requestlog

import (
	"context"
	"database/sql"
	"fmt"
	"time"

	"github.com/lib/pq"
)

// insertChunk bounds the rows of one INSERT.
const insertChunk = 1000

const insertEntries = `
INSERT INTO tablesmith.request_log (project_id, at, method, path, query, status, error_code, error_message,
    error_body, latency_us, credential, key_prefix, end_user, origin, request_id, rows_affected, bytes)
SELECT p, 'epoch'::timestamptz + a * interval '1 microsecond', m, pa, q, s, ec, em, eb, l, c, k, u, o, r, nullif(n, -1), b
FROM unnest($1::text[], $2::bigint[], $3::text[], $4::text[], $5::text[], $6::smallint[], $7::text[], $8::text[],
            $9::text[], $10::bigint[], $11::text[], $12::text[], $13::text[], $14::text[], $15::text[], $16::bigint[],
            $17::bigint[]) AS u(p, a, m, pa, q, s, ec, em, eb, l, c, k, u, o, r, n, b)`

// insert writes entries, a thousand rows a statement. The error's code
// and message are read from its answer here, off the request path.
func insert(ctx context.Context, db *sql.DB, entries []Entry) error {
	for start := 0; start < len(entries); start += insertChunk {
		chunk := entries[start:min(start+insertChunk, len(entries))]
		n := len(chunk)
		projects, methods, paths, queries, codes, messages, bodies := make([]string, n), make([]string, n),
			make([]string, n), make([]string, n), make([]string, n), make([]string, n), make([]string, n)
		creds, prefixes, users, origins, ids := make([]string, n), make([]string, n), make([]string, n),
			make([]string, n), make([]string, n)
		ats, statuses, latencies, rows, sizes := make([]int64, n), make([]int64, n), make([]int64, n),
			make([]int64, n), make([]int64, n)
		for i, e := range chunk {
			projects[i], methods[i], paths[i] = e.ProjectID, e.Method, capString(e.Path, maxQuery)
			queries[i] = Redacted(e.RawQuery)
			codes[i], messages[i] = errorOf(e.ErrorBody)
			messages[i] = capString(messages[i], MaxErrorBody)
			bodies[i] = errorText(e.ErrorBody)
			creds[i], prefixes[i], users[i], origins[i] = e.Principal, e.KeyPrefix, e.EndUser, capString(e.Origin, 256)
			ids[i] = e.RequestID
			ats[i], statuses[i], latencies[i] = e.At.UnixMicro(), int64(e.Status), e.Latency.Microseconds()
			rows[i], sizes[i] = max(e.Rows, -1), e.Bytes
		}
		if _, err := db.ExecContext(ctx, insertEntries, pq.Array(projects), pq.Array(ats), pq.Array(methods),
			pq.Array(paths), pq.Array(queries), pq.Array(statuses), pq.Array(codes), pq.Array(messages),
			pq.Array(bodies), pq.Array(latencies), pq.Array(creds), pq.Array(prefixes), pq.Array(users),
			pq.Array(origins), pq.Array(ids), pq.Array(rows), pq.Array(sizes)); err != nil {
			return fmt.Errorf("insert %d request log entries: %w", n, err)
		}
	}
	return nil
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
