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

// Sequence asks for a numbering round of every project this node has
// subscribers of and returns: each project's rounds run on their own,
// one at a time, each in one of the project's fair-share slots, so a
// project whose share is taken delays its own numbering, not the others'.
// A round that numbered changes wakes this node's subscribers (its NOTIFY
// wakes the other nodes').
func (h *Hub) Sequence(ctx context.Context) {
	h.mu.Lock()
	ids := make([]string, 0, len(h.feeds))
	for id := range h.feeds {
		ids = append(ids, id)
	}
	h.mu.Unlock()
	for _, id := range ids {
		h.roundsOf(id).ask(ctx, false, func(r *round) { h.runRound(id, r) })
	}
}

// startingPoint runs a numbering round that starts after the call (with
// the other streams of the project that open meanwhile) and returns where
// the log then stands: what committed before the stream opened is
// numbered before its cursor is fixed.
func (h *Hub) startingPoint(ctx context.Context, projectID string) (logState, error) {
	r := h.roundsOf(projectID).ask(context.WithoutCancel(ctx), true, func(r *round) { h.runRound(projectID, r) })
	if err := r.wait(ctx); err != nil {
		return logState{}, err
	}
	return r.state, nil
}

// roundsOf is the project's rounds, made on first use.
func (h *Hub) roundsOf(projectID string) *rounds {
	h.mu.Lock()
	defer h.mu.Unlock()
	rs := h.rounds[projectID]
	if rs == nil {
		rs = &rounds{}
		h.rounds[projectID] = rs
	}
	return rs
}

// runRound is one round of a project: number its committed changes and,
// when asked, read where its log stands, in one fair-share slot.
func (h *Hub) runRound(projectID string, r *round) {
	ctx, cancel := context.WithTimeout(r.ctx, roundTimeout)
	defer cancel()
	r.numbered, r.state, r.err = h.numberInSlot(ctx, projectID, r.withState)
	if r.err != nil && ctx.Err() == nil {
		h.cfg.Logger.Warn("realtime sequencing", "project", projectID, "err", r.err)
	}
	if r.numbered > 0 {
		h.Changed(projectID, r.numbered)
	}
}

func (h *Hub) numberInSlot(ctx context.Context, projectID string, withState bool) (int64, logState, error) {
	entry, err := h.cfg.Registry.Get(ctx, projectID)
	if err != nil {
		return 0, logState{}, err
	}
	slot, err := h.cfg.Gate.AcquireUntil(ctx, projectID, time.Now())
	if err != nil {
		return 0, logState{}, err
	}
	defer slot.Release()
	db, schemaName := entry.Tables.DB(), entry.Published.Schema
	numbered, err := sequence(ctx, db, schemaName, projectID)
	if err != nil || !withState {
		return numbered, logState{}, err
	}
	st, err := readLogState(ctx, db, schemaName)
	return numbered, st, err
}

// projectOf is the project id of a managed project's schema.
func projectOf(schemaName string) string {
	id, _ := schema.ProjectOfSchema(schemaName)
	return id
}
