package analytics

import (
	"cmp"
	"context"
	"database/sql"
	"fmt"
	"slices"
	"time"

	"github.com/lib/pq"
)

// Retention of the two resolutions.
const (
	// MinuteRetention is how long minute buckets are kept before they are
	// rolled up into hour buckets (counted back from the current hour).
	MinuteRetention = 24 * time.Hour
	// HourRetention is how long hour buckets are kept.
	HourRetention = 90 * 24 * time.Hour
)

// writeChunk bounds the rows of one INSERT.
const writeChunk = 1000

const upsertMinutes = `
INSERT INTO tablesmith.analytics_minute AS a
    (project_id, bucket, table_name, operation, method, status, credential, requests, latency_sum_us, sketch)
SELECT p, to_timestamp(b), t, o, m, s, c, n, l, k
FROM unnest($1::text[], $2::bigint[], $3::text[], $4::text[], $5::text[], $6::smallint[], $7::text[],
            $8::bigint[], $9::bigint[], $10::jsonb[]) AS u(p, b, t, o, m, s, c, n, l, k)
ON CONFLICT (project_id, bucket, table_name, operation, method, status, credential) DO UPDATE SET
    requests = a.requests + excluded.requests,
    latency_sum_us = a.latency_sum_us + excluded.latency_sum_us,
    sketch = tablesmith.sketch_add(a.sketch, excluded.sketch)`

const upsertDrops = `
INSERT INTO tablesmith.analytics_dropped AS d (project_id, bucket, dropped)
SELECT p, to_timestamp(b), n FROM unnest($1::text[], $2::bigint[], $3::bigint[]) AS u(p, b, n)
ON CONFLICT (project_id, bucket) DO UPDATE SET dropped = d.dropped + excluded.dropped`

// writeBatch adds a batch's buckets to the minute table. Rows go in key
// order so that two nodes upserting the same buckets lock them in the
// same order and cannot deadlock.
func writeBatch(ctx context.Context, db *sql.DB, b *batch) error {
	keys := make([]bucketKey, 0, len(b.rows))
	for k := range b.rows {
		keys = append(keys, k)
	}
	slices.SortFunc(keys, compareKeys)
	for start := 0; start < len(keys); start += writeChunk {
		chunk := keys[start:min(start+writeChunk, len(keys))]
		n := len(chunk)
		projects, tables, ops, methods, creds, sketches := make([]string, n), make([]string, n), make([]string, n),
			make([]string, n), make([]string, n), make([]string, n)
		buckets, statuses, requests, latencies := make([]int64, n), make([]int64, n), make([]int64, n), make([]int64, n)
		for i, k := range chunk {
			a := b.rows[k]
			js, err := a.sketch.MarshalJSON()
			if err != nil {
				return err
			}
			projects[i], tables[i], ops[i], methods[i], creds[i], sketches[i] = k.project, k.table, k.operation, k.method, k.credential, string(js)
			buckets[i], statuses[i], requests[i], latencies[i] = k.bucket, int64(k.status), int64(a.requests), a.latencyUS
		}
		if _, err := db.ExecContext(ctx, upsertMinutes, pq.Array(projects), pq.Array(buckets), pq.Array(tables), pq.Array(ops),
			pq.Array(methods), pq.Array(statuses), pq.Array(creds), pq.Array(requests), pq.Array(latencies), pq.Array(sketches)); err != nil {
			return fmt.Errorf("upsert %d minute buckets: %w", n, err)
		}
	}
	if len(b.drops) > 0 {
		var projects []string
		var hours, counts []int64
		dk := make([]dropKey, 0, len(b.drops))
		for k := range b.drops {
			dk = append(dk, k)
		}
		slices.SortFunc(dk, func(x, y dropKey) int { return cmp.Or(cmp.Compare(x.project, y.project), cmp.Compare(x.hour, y.hour)) })
		for _, k := range dk {
			projects, hours, counts = append(projects, k.project), append(hours, k.hour), append(counts, b.drops[k])
		}
		if _, err := db.ExecContext(ctx, upsertDrops, pq.Array(projects), pq.Array(hours), pq.Array(counts)); err != nil {
			return fmt.Errorf("upsert dropped-sample counts: %w", err)
		}
	}
	return nil
}

func compareKeys(x, y bucketKey) int {
	return cmp.Or(
		cmp.Compare(x.project, y.project), cmp.Compare(x.bucket, y.bucket), cmp.Compare(x.table, y.table),
		cmp.Compare(x.operation, y.operation), cmp.Compare(x.method, y.method), cmp.Compare(x.status, y.status),
		cmp.Compare(x.credential, y.credential))
}

// compactLock is the advisory lock that lets one node at a time compact.
const compactLock = 7_401_002_606

const rollUp = `
WITH moved AS (
    DELETE FROM tablesmith.analytics_minute WHERE bucket < $1 RETURNING *
)
INSERT INTO tablesmith.analytics_hour AS h
    (project_id, bucket, table_name, operation, method, status, credential, requests, latency_sum_us, sketch)
SELECT project_id, to_timestamp(floor(extract(epoch FROM bucket) / 3600) * 3600), table_name, operation, method, status,
       credential, sum(requests)::bigint, sum(latency_sum_us)::bigint, tablesmith.sketch_sum(sketch)
FROM moved
GROUP BY 1, 2, 3, 4, 5, 6, 7
ORDER BY 1, 2, 3, 4, 5, 6, 7
ON CONFLICT (project_id, bucket, table_name, operation, method, status, credential) DO UPDATE SET
    requests = h.requests + excluded.requests,
    latency_sum_us = h.latency_sum_us + excluded.latency_sum_us,
    sketch = tablesmith.sketch_add(h.sketch, excluded.sketch)`

// Compact rolls minute buckets of hours that ended more than
// MinuteRetention before now into hour buckets, deletes hour buckets and
// drop counts older than HourRetention, and deletes the rows of projects
// that no longer exist. One node at a time does it; the others skip.
func Compact(ctx context.Context, db *sql.DB, now time.Time) error {
	tx, err := db.BeginTx(ctx, nil)
	if err != nil {
		return err
	}
	defer tx.Rollback()
	var locked bool
	if err := tx.QueryRowContext(ctx, `SELECT pg_try_advisory_xact_lock($1)`, compactLock).Scan(&locked); err != nil {
		return err
	}
	if !locked {
		return nil
	}
	minuteCutoff := now.Add(-MinuteRetention).Truncate(time.Hour)
	hourCutoff := now.Add(-HourRetention).Truncate(time.Hour)
	steps := []struct {
		what string
		sql  string
		arg  time.Time
	}{
		{"roll up minute buckets", rollUp, minuteCutoff},
		{"expire hour buckets", `DELETE FROM tablesmith.analytics_hour WHERE bucket < $1`, hourCutoff},
		{"expire drop counts", `DELETE FROM tablesmith.analytics_dropped WHERE bucket < $1`, hourCutoff},
	}
	for _, s := range steps {
		if _, err := tx.ExecContext(ctx, s.sql, s.arg); err != nil {
			return fmt.Errorf("%s: %w", s.what, err)
		}
	}
	for _, table := range []string{"analytics_minute", "analytics_hour", "analytics_dropped"} {
		if _, err := tx.ExecContext(ctx, `DELETE FROM tablesmith.`+table+` a
			WHERE NOT EXISTS (SELECT 1 FROM tablesmith.projects p WHERE p.id = a.project_id)`); err != nil {
			return fmt.Errorf("delete analytics of deleted projects: %w", err)
		}
	}
	return tx.Commit()
}
