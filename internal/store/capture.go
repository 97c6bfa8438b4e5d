package store

import (
	"context"
	"encoding/json"

	"github.com/lib/pq"
)

// WebhookTables are, per table a project's webhooks name, the ids of those
// webhooks (enabled or not), oldest first: a generate keeps capture on for
// each of these tables (publish.KeepCapture, docs/webhooks.md).
func (s *Store) WebhookTables(ctx context.Context, projectID string) (map[string][]string, error) {
	rows, err := s.DB.QueryContext(ctx, `SELECT t.name, array_agg(w.id ORDER BY w.created_at, w.id)
		FROM tablesmith.webhooks w, unnest(w.tables) AS t(name) WHERE w.project_id = $1 GROUP BY t.name`, projectID)
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	out := map[string][]string{}
	for rows.Next() {
		var name string
		var ids []string
		if err := rows.Scan(&name, pq.Array(&ids)); err != nil {
			return nil, err
		}
		out[name] = ids
	}
	return out, rows.Err()
}

// AmendDraft replaces a project's draft with doc if it still is was (the
// draft a generate read): a draft saved meanwhile is newer work and stays.
// It reports whether it replaced it.
func (s *Store) AmendDraft(ctx context.Context, projectID string, was, doc json.RawMessage) (bool, error) {
	res, err := s.DB.ExecContext(ctx, `UPDATE tablesmith.projects SET draft = $3, draft_updated_at = now(), updated_at = now()
		WHERE id = $1 AND draft = $2::jsonb`, projectID, string(was), string(doc))
	if err != nil {
		return false, err
	}
	n, _ := res.RowsAffected()
	return n == 1, nil
}
