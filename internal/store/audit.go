package store

import (
	"context"
	"database/sql"
	"encoding/json"
	"time"
)

// AuditEntry is one change to a project, as its audit log keeps it
// (docs/teams.md). Details never hold a secret.
type AuditEntry struct {
	ID         int64          `json:"id"`
	ProjectID  string         `json:"-"`
	At         time.Time      `json:"at"`
	ActorID    *int64         `json:"actor_id"`
	ActorEmail string         `json:"actor_email"`
	Action     string         `json:"action"`
	Target     string         `json:"target"`
	Details    map[string]any `json:"details"`
}

func writeAudit(ctx context.Context, db interface {
	ExecContext(context.Context, string, ...any) (sql.Result, error)
}, a AuditEntry) error {
	details := a.Details
	if details == nil {
		details = map[string]any{}
	}
	raw, err := json.Marshal(details)
	if err != nil {
		return err
	}
	_, err = db.ExecContext(ctx, `INSERT INTO tablesmith.audit_log (project_id, actor_id, actor_email, action, target, details)
		VALUES ($1, $2, $3, $4, $5, $6)`, a.ProjectID, a.ActorID, a.ActorEmail, a.Action, a.Target, string(raw))
	return err
}

// Audit writes an entry of a change that its own store method committed
// already (the entry follows it at once).
func (s *Store) Audit(ctx context.Context, a AuditEntry) error {
	return writeAudit(ctx, s.DB, a)
}

// AuditLog reads up to limit entries of a project older than the entry
// before (0: the newest), newest first.
func (s *Store) AuditLog(ctx context.Context, projectID string, before int64, limit int) ([]AuditEntry, error) {
	rows, err := s.DB.QueryContext(ctx, `SELECT id, at, actor_id, actor_email, action, target, details
		FROM tablesmith.audit_log WHERE project_id = $1 AND ($2 = 0 OR id < $2) ORDER BY id DESC LIMIT $3`,
		projectID, before, limit)
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	out := []AuditEntry{}
	for rows.Next() {
		var a AuditEntry
		var raw []byte
		if err := rows.Scan(&a.ID, &a.At, &a.ActorID, &a.ActorEmail, &a.Action, &a.Target, &raw); err != nil {
			return nil, err
		}
		if err := json.Unmarshal(raw, &a.Details); err != nil {
			return nil, err
		}
		out = append(out, a)
	}
	return out, rows.Err()
}
