package webhooks

import (
	"context"
	"database/sql"
	"encoding/json"
	"errors"
	"fmt"
	"strings"
	"time"

	"github.com/lib/pq"
)

// ErrNotFound is the answer about a webhook the project does not have.
var ErrNotFound = errors.New("webhook not found")

// Store keeps webhooks and their delivery log in the control database
// (migration 012_webhooks.sql).
type Store struct {
	DB *sql.DB
}

const webhookCols = `id, project_id, url, tables, events, conditions, enabled, disabled_reason, secret_gen,
	previous_until, cursor, attempts, failing_since, next_attempt_at, created_at, updated_at`

type rowScanner interface{ Scan(dest ...any) error }

func scanWebhook(r rowScanner) (Webhook, error) {
	var w Webhook
	var where []byte
	var previous, failing sql.NullTime
	err := r.Scan(&w.ID, &w.ProjectID, &w.URL, pq.Array(&w.Tables), pq.Array(&w.Events), &where, &w.Enabled,
		&w.DisabledReason, &w.secretGen, &previous, &w.Cursor, &w.Attempts, &failing, &w.NextAttemptAt, &w.CreatedAt, &w.UpdatedAt)
	if errors.Is(err, sql.ErrNoRows) {
		return w, ErrNotFound
	}
	if err != nil {
		return w, err
	}
	if err := json.Unmarshal(where, &w.Where); err != nil {
		return w, err
	}
	if previous.Valid {
		w.SecretRotating = &previous.Time
	}
	if failing.Valid {
		w.FailingSince = &failing.Time
	}
	return w, nil
}

// Count is how many webhooks a project has.
func (s *Store) Count(ctx context.Context, projectID string) (int, error) {
	var n int
	err := s.DB.QueryRowContext(ctx, `SELECT count(*) FROM tablesmith.webhooks WHERE project_id = $1`, projectID).Scan(&n)
	return n, err
}

// Create adds a checked spec as a webhook that starts after change cursor
// (the log's head: it delivers what commits from now on).
func (s *Store) Create(ctx context.Context, id, projectID string, spec Spec, cursor int64) (Webhook, error) {
	where, err := json.Marshal(*spec.Where)
	if err != nil {
		return Webhook{}, err
	}
	enabled := spec.Enabled == nil || *spec.Enabled
	return scanWebhook(s.DB.QueryRowContext(ctx, `INSERT INTO tablesmith.webhooks (id, project_id, url, tables, events, conditions, enabled, cursor)
		VALUES ($1, $2, $3, $4, $5, $6, $7, $8) RETURNING `+webhookCols,
		id, projectID, *spec.URL, pq.Array(*spec.Tables), pq.Array(*spec.Events), where, enabled, cursor))
}

// List is a project's webhooks, oldest first.
func (s *Store) List(ctx context.Context, projectID string) ([]Webhook, error) {
	return scanWebhooks(s.DB.QueryContext(ctx, `SELECT `+webhookCols+` FROM tablesmith.webhooks WHERE project_id = $1 ORDER BY created_at, id`, projectID))
}

// scanWebhooks reads every row of a query of webhookCols.
func scanWebhooks(rows *sql.Rows, err error) ([]Webhook, error) {
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	out := []Webhook{}
	for rows.Next() {
		w, err := scanWebhook(rows)
		if err != nil {
			return nil, err
		}
		out = append(out, w)
	}
	return out, rows.Err()
}

// Get is one of a project's webhooks.
func (s *Store) Get(ctx context.Context, projectID, id string) (Webhook, error) {
	return scanWebhook(s.DB.QueryRowContext(ctx, `SELECT `+webhookCols+` FROM tablesmith.webhooks WHERE project_id = $1 AND id = $2`, projectID, id))
}

// Update replaces a webhook's configuration with a checked spec (Check
// filled its missing fields). Enabling a webhook that retries disabled
// clears its failure: it tries again at once, from where it stopped.
func (s *Store) Update(ctx context.Context, projectID, id string, spec Spec) (Webhook, error) {
	where, err := json.Marshal(*spec.Where)
	if err != nil {
		return Webhook{}, err
	}
	var enabled any
	if spec.Enabled != nil {
		enabled = *spec.Enabled
	}
	return scanWebhook(s.DB.QueryRowContext(ctx, `UPDATE tablesmith.webhooks SET url = $3, tables = $4, events = $5, conditions = $6,
			enabled = coalesce($7, enabled),
			disabled_reason = CASE WHEN coalesce($7, enabled) THEN '' ELSE disabled_reason END,
			attempts = CASE WHEN $7 AND NOT enabled THEN 0 ELSE attempts END,
			failing_since = CASE WHEN $7 AND NOT enabled THEN NULL ELSE failing_since END,
			next_attempt_at = CASE WHEN $3 <> url OR ($7 AND NOT enabled) THEN now() ELSE next_attempt_at END,
			updated_at = now()
		WHERE project_id = $1 AND id = $2 RETURNING `+webhookCols,
		projectID, id, *spec.URL, pq.Array(*spec.Tables), pq.Array(*spec.Events), where, enabled))
}

// Delete removes a webhook and its delivery log.
func (s *Store) Delete(ctx context.Context, projectID, id string) error {
	res, err := s.DB.ExecContext(ctx, `DELETE FROM tablesmith.webhooks WHERE project_id = $1 AND id = $2`, projectID, id)
	if err != nil {
		return err
	}
	if n, _ := res.RowsAffected(); n == 0 {
		return ErrNotFound
	}
	return nil
}

// Rotate moves a webhook to its next secret generation; the previous one
// still signs for PreviousSecretFor.
func (s *Store) Rotate(ctx context.Context, projectID, id string) (Webhook, error) {
	return scanWebhook(s.DB.QueryRowContext(ctx, `UPDATE tablesmith.webhooks SET secret_gen = secret_gen + 1,
			previous_until = now() + make_interval(secs => $3), updated_at = now()
		WHERE project_id = $1 AND id = $2 RETURNING `+webhookCols, projectID, id, PreviousSecretFor.Seconds()))
}

// Replay moves a webhook's cursor back (or forward) so that it delivers
// every change after change id from; the log must still hold them.
func (s *Store) Replay(ctx context.Context, projectID, id string, from int64) (Webhook, error) {
	return scanWebhook(s.DB.QueryRowContext(ctx, `UPDATE tablesmith.webhooks SET cursor = $3, attempts = 0, failing_since = NULL,
			next_attempt_at = now(), updated_at = now()
		WHERE project_id = $1 AND id = $2 RETURNING `+webhookCols, projectID, id, from))
}

// lease claims up to limit enabled webhooks that are due and that no
// other node holds (or this node held), for leaseFor.
func (s *Store) lease(ctx context.Context, node string, limit int, leaseFor time.Duration) ([]Webhook, error) {
	return scanWebhooks(s.DB.QueryContext(ctx, `UPDATE tablesmith.webhooks w SET leased_by = $1, lease_until = now() + make_interval(secs => $3)
		FROM (SELECT id FROM tablesmith.webhooks
		      WHERE enabled AND next_attempt_at <= now() AND (lease_until IS NULL OR lease_until < now() OR leased_by = $1)
		      ORDER BY next_attempt_at, id LIMIT $2 FOR UPDATE SKIP LOCKED) due
		WHERE w.id = due.id RETURNING `+prefixed("w.", webhookCols), node, limit, leaseFor.Seconds()))
}

// renew extends this node's leases of ids; it returns the ids it still
// holds.
func (s *Store) renew(ctx context.Context, node string, ids []string, leaseFor time.Duration) (map[string]bool, error) {
	rows, err := s.DB.QueryContext(ctx, `UPDATE tablesmith.webhooks SET lease_until = now() + make_interval(secs => $3)
		WHERE id = ANY($2) AND leased_by = $1 AND enabled RETURNING id`, node, pq.Array(ids), leaseFor.Seconds())
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	held := map[string]bool{}
	for rows.Next() {
		var id string
		if err := rows.Scan(&id); err != nil {
			return nil, err
		}
		held[id] = true
	}
	return held, rows.Err()
}

// leased reads a webhook while this node holds its lease and it is on;
// nil otherwise.
func (s *Store) leased(ctx context.Context, node, id string) (*Webhook, error) {
	w, err := scanWebhook(s.DB.QueryRowContext(ctx, `SELECT `+webhookCols+` FROM tablesmith.webhooks
		WHERE id = $1 AND leased_by = $2 AND enabled AND lease_until > now()`, id, node))
	if errors.Is(err, ErrNotFound) {
		return nil, nil
	}
	if err != nil {
		return nil, err
	}
	return &w, nil
}

// release gives up this node's lease of a webhook.
func (s *Store) release(ctx context.Context, node, id string) error {
	_, err := s.DB.ExecContext(ctx, `UPDATE tablesmith.webhooks SET leased_by = NULL, lease_until = NULL WHERE id = $1 AND leased_by = $2`, id, node)
	return err
}

// advance records that webhook w is done with every change up to cursor,
// while this node holds its lease and its configuration is the one the
// worker started with; held is false otherwise (the webhook was taken
// over, changed, replayed or turned off: the worker stops).
func (s *Store) advance(ctx context.Context, node string, w *Webhook, cursor int64) (held bool, err error) {
	res, err := s.DB.ExecContext(ctx, `UPDATE tablesmith.webhooks SET cursor = $3, attempts = 0, failing_since = NULL,
			next_attempt_at = now()
		WHERE id = $1 AND leased_by = $2 AND enabled AND lease_until > now() AND updated_at = $4`, w.ID, node, cursor, w.UpdatedAt)
	if err != nil {
		return false, err
	}
	n, _ := res.RowsAffected()
	return n == 1, nil
}

// acknowledge records delivered attempts (ds, in the order they were
// made) and moves the cursor to cursor, in one transaction: one commit
// for a run of deliveries rather than two for each. held is false, and
// the cursor stays, when this node no longer holds the webhook or its
// configuration changed since it was read; the attempts are kept in the
// log either way, as they happened.
func (s *Store) acknowledge(ctx context.Context, node string, w *Webhook, ds []Delivery, cursor int64) (held bool, err error) {
	n := len(ds)
	changes, attempts, statuses, latencies := make([]int64, n), make([]int64, n), make([]int64, n), make([]int64, n)
	tables, events, responses, ats := make([]string, n), make([]string, n), make([]string, n), make([]string, n)
	for i, d := range ds {
		changes[i], attempts[i], statuses[i], latencies[i] = d.ChangeID, int64(d.Attempt), int64(d.Status), int64(d.LatencyMS)
		tables[i], events[i], responses[i], ats[i] = d.Table, d.Event, d.Response, d.At.UTC().Format(time.RFC3339Nano)
	}
	tx, err := s.DB.BeginTx(ctx, nil)
	if err != nil {
		return false, err
	}
	defer tx.Rollback() // no-op after Commit
	if _, err := tx.ExecContext(ctx, `INSERT INTO tablesmith.webhook_deliveries
		(webhook_id, project_id, change_id, table_name, event, attempt, status, latency_ms, error, response, at)
		SELECT $1, $2, c, t, e, a, st, l, '', r, ts::timestamptz
		FROM unnest($3::bigint[], $4::text[], $5::text[], $6::int[], $7::int[], $8::int[], $9::text[], $10::text[])
			WITH ORDINALITY AS u(c, t, e, a, st, l, r, ts, n) ORDER BY n`,
		w.ID, w.ProjectID, pq.Array(changes), pq.Array(tables), pq.Array(events), pq.Array(attempts), pq.Array(statuses),
		pq.Array(latencies), pq.Array(responses), pq.Array(ats)); err != nil {
		return false, fmt.Errorf("record %d deliveries of %s: %w", n, w.ID, err)
	}
	res, err := tx.ExecContext(ctx, `UPDATE tablesmith.webhooks SET cursor = $3, attempts = 0, failing_since = NULL,
			next_attempt_at = now()
		WHERE id = $1 AND leased_by = $2 AND enabled AND lease_until > now() AND updated_at = $4`, w.ID, node, cursor, w.UpdatedAt)
	if err != nil {
		return false, err
	}
	moved, _ := res.RowsAffected()
	return moved == 1, tx.Commit()
}

// fail records a failed attempt: the next one waits until next, or the
// webhook is disabled with reason when its failures began RetryFor ago.
func (s *Store) fail(ctx context.Context, node, id string, next time.Time, reason string) (disabled bool, err error) {
	err = s.DB.QueryRowContext(ctx, `UPDATE tablesmith.webhooks SET attempts = attempts + 1,
			failing_since = coalesce(failing_since, now()),
			enabled = coalesce(failing_since, now()) > now() - make_interval(secs => $5),
			disabled_reason = CASE WHEN coalesce(failing_since, now()) > now() - make_interval(secs => $5) THEN ''
				ELSE 'Deliveries failed for 24 hours; the last error: ' || $4 END,
			next_attempt_at = $3, leased_by = NULL, lease_until = NULL, updated_at = now()
		WHERE id = $1 AND leased_by = $2 RETURNING NOT enabled`, id, node, next, reason, RetryFor.Seconds()).Scan(&disabled)
	if errors.Is(err, sql.ErrNoRows) {
		return false, nil
	}
	return disabled, err
}

// Delivery is one attempt in a webhook's delivery log.
type Delivery struct {
	ID          int64      `json:"id"`
	ChangeID    int64      `json:"change_id"`
	Table       string     `json:"table"`
	Event       string     `json:"event"`
	Attempt     int        `json:"attempt"`
	Status      int        `json:"status"`
	LatencyMS   int        `json:"latency_ms"`
	Error       string     `json:"error"`
	Response    string     `json:"response"`
	NextRetryAt *time.Time `json:"next_retry_at"`
	At          time.Time  `json:"at"`
}

func (s *Store) record(ctx context.Context, w *Webhook, d Delivery) error {
	_, err := s.DB.ExecContext(ctx, `INSERT INTO tablesmith.webhook_deliveries
		(webhook_id, project_id, change_id, table_name, event, attempt, status, latency_ms, error, response, next_retry_at)
		VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11)`,
		w.ID, w.ProjectID, d.ChangeID, d.Table, d.Event, d.Attempt, d.Status, d.LatencyMS, d.Error, d.Response, d.NextRetryAt)
	return err
}

// Deliveries is a page of a webhook's delivery log, newest first, before
// the attempt id before (0: from the newest).
func (s *Store) Deliveries(ctx context.Context, webhookID string, before int64, limit int) ([]Delivery, error) {
	rows, err := s.DB.QueryContext(ctx, `SELECT id, change_id, table_name, event, attempt, status, latency_ms, error, response, next_retry_at, at
		FROM tablesmith.webhook_deliveries WHERE webhook_id = $1 AND ($2 = 0 OR id < $2) ORDER BY id DESC LIMIT $3`, webhookID, before, limit)
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	out := []Delivery{}
	for rows.Next() {
		var d Delivery
		var next sql.NullTime
		if err := rows.Scan(&d.ID, &d.ChangeID, &d.Table, &d.Event, &d.Attempt, &d.Status, &d.LatencyMS, &d.Error, &d.Response, &next, &d.At); err != nil {
			return nil, err
		}
		if next.Valid {
			d.NextRetryAt = &next.Time
		}
		out = append(out, d)
	}
	return out, rows.Err()
}

// pause makes a webhook wait until next (its plan's deliveries for the
// hour are used) and gives up this node's lease.
func (s *Store) pause(ctx context.Context, node, id string, next time.Time) error {
	_, err := s.DB.ExecContext(ctx, `UPDATE tablesmith.webhooks SET next_attempt_at = $3, leased_by = NULL, lease_until = NULL
		WHERE id = $1 AND leased_by = $2`, id, node, next)
	return err
}

// deliveredThisHour counts a project's delivery attempts since the hour
// began, against its plan's deliveries per hour.
func (s *Store) deliveredThisHour(ctx context.Context, projectID string) (int, error) {
	var n int
	err := s.DB.QueryRowContext(ctx, `SELECT count(*) FROM tablesmith.webhook_deliveries
		WHERE project_id = $1 AND at >= date_trunc('hour', now())`, projectID).Scan(&n)
	return n, err
}

// Holds are, per project, the lowest cursor of its enabled webhooks: the
// change log keeps every change after it.
func (s *Store) Holds(ctx context.Context) (map[string]int64, error) {
	rows, err := s.DB.QueryContext(ctx, `SELECT project_id, min(cursor) FROM tablesmith.webhooks WHERE enabled GROUP BY project_id`)
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	out := map[string]int64{}
	for rows.Next() {
		var p string
		var c int64
		if err := rows.Scan(&p, &c); err != nil {
			return nil, err
		}
		out[p] = c
	}
	return out, rows.Err()
}

// PruneDeliveries removes attempts older than KeepDeliveries.
func (s *Store) PruneDeliveries(ctx context.Context) error {
	_, err := s.DB.ExecContext(ctx, `DELETE FROM tablesmith.webhook_deliveries WHERE at < now() - make_interval(secs => $1)`, KeepDeliveries.Seconds())
	return err
}

// prefixed qualifies each of a column list's names with p.
func prefixed(p, cols string) string {
	parts := strings.Split(cols, ",")
	for i := range parts {
		parts[i] = p + strings.TrimSpace(parts[i])
	}
	return strings.Join(parts, ", ")
}
