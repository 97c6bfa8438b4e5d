package realtime

import (
	"context"
	"database/sql"
	"fmt"
	"time"

	"github.com/tablesmith/tablesmith/internal/events"
	"github.com/tablesmith/tablesmith/schema"
)

// DefaultSequenceEvery is how often a node numbers the changes of the
// projects it has subscribers of: what a change waits, at most, before
// streams can see it.
const DefaultSequenceEvery = 100 * time.Millisecond

// sequence runs one numbering round of a project's change log
// (schema.DDL.RealtimeSequence): it numbers the committed changes no round
// has numbered yet and announces them to every node. head is the newest
// number it gave, 0 when it gave none (nothing new, or another node's
// round holds the lock and will announce).
func sequence(ctx context.Context, db *sql.DB, schemaName, projectID string) (int64, error) {
	var head sql.NullInt64
	var notified sql.NullString
	err := db.QueryRowContext(ctx, schema.DDL{Schema: schemaName}.RealtimeSequence(), schemaName, events.Channel, projectID).Scan(&head, &notified)
	if err != nil {
		return 0, fmt.Errorf("number the changes of %s: %w", schemaName, err)
	}
	return head.Int64, nil
}

// Sequence runs a numbering round for every project this node has
// subscribers of, and wakes them when it numbered changes (the round's
// NOTIFY wakes the other nodes' subscribers).
func (h *Hub) Sequence(ctx context.Context) {
	for id, entry := range h.subscribed(ctx) {
		head, err := sequence(ctx, entry.Tables.DB(), entry.Published.Schema, id)
		if err != nil {
			if ctx.Err() == nil {
				h.cfg.Logger.Warn("realtime sequencing", "project", id, "err", err)
			}
			continue
		}
		if head > 0 {
			h.Changed(id, head)
		}
	}
}

// projectOf is the project id of a managed project's schema.
func projectOf(schemaName string) string {
	id, _ := schema.ProjectOfSchema(schemaName)
	return id
}
