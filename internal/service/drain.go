package service

import (
	"context"

	"github.com/tablesmith/tablesmith/internal/events"
)

// Drain begins this node's graceful stop (issue 43, docs/deployment.md):
// the process is exiting, and Caddy goes on serving for shutdown_delay,
// then finishes the requests in flight within grace_period. From now on
// GET /api/ready answers 503, so load balancers take the node out while it
// still serves; realtime streams end with a reconnect event, so clients
// resume on another node by Last-Event-ID; the index builder stops (a cut
// build is taken over where it stands) and the webhook workers finish the
// delivery in flight and give their leases up; then the other nodes are
// told to look for that work now. It returns when the handoff is done or
// ctx ends; a second call does nothing.
func (s *Service) Drain(ctx context.Context) {
	if !s.draining.CompareAndSwap(false, true) {
		return
	}
	s.log.Info("draining: not ready, handing streams, webhooks and index builds to other nodes")
	s.Realtime.Drain()
	if s.stopBuilds != nil {
		s.stopBuilds()
		// The build lock goes with the builder's connection: the others
		// are told only once it has.
		select {
		case <-s.buildsDone:
		case <-ctx.Done():
		}
	}
	s.Webhooks.Handoff(ctx)
	if err := events.Notify(ctx, s.DB, events.NodeLeaving{Node: s.node}); err != nil {
		s.log.Warn("draining: telling the other nodes", "err", err)
	}
}

// Draining reports whether Drain has begun.
func (s *Service) Draining() bool { return s.draining.Load() }

// takeOverFromLeavingNodes makes this node look for the work a stopping
// node gave up (its NodeLeaving event) at once, not at the next poll.
func (s *Service) takeOverFromLeavingNodes() {
	events.On(&s.events, func(e events.NodeLeaving) {
		if e.Node == s.node || s.draining.Load() {
			return
		}
		s.Indexes.Kick()
		s.Webhooks.Kick()
	})
}

// wireDrain registers the take-over (after wireIndexes and wireWebhooks,
// whose workers it kicks).
func (s *Service) wireDrain() error {
	s.takeOverFromLeavingNodes()
	return nil
}
