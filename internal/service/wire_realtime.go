package service

import (
	"context"
	"net/http"
	"strings"
	"time"

	"github.com/tablesmith/tablesmith/internal/analytics"
	"github.com/tablesmith/tablesmith/internal/apihttp"
	"github.com/tablesmith/tablesmith/internal/events"
	"github.com/tablesmith/tablesmith/internal/realtime"
)

// wireRealtime adds the change stream (issue 21): the route, the wake-ups
// and rechecks that arrive on the node's one LISTEN connection, and the
// retention cleanup of the change logs.
func (s *Service) wireRealtime() error {
	hub := realtime.NewHub(realtime.Config{
		Registry:  s.Registry,
		Streams:   s.realtimeStreams,
		Events:    s.countRealtimeEvents,
		Retention: s.cfg.RealtimeRetention,
		Reads:     s.apiDeps.Replicas,
		Gate:      s.apiDeps.Gate, // wired before (wireFairShare)
		Logger:    s.log,
		Now:       s.cfg.Now,
	})
	s.Realtime = hub
	s.apiDeps.Routes[realtime.RouteName] = hub.Route
	s.apiDeps.LongLived = func(r *http.Request) bool {
		return r.Method == http.MethodGet && strings.HasSuffix(strings.TrimSuffix(r.URL.Path, "/"), "/"+realtime.RouteName)
	}
	events.On(&s.events, func(e events.RealtimeChanged) { hub.Changed(e.ProjectID, e.Seq) })
	// The caches these events drop were registered first, so a recheck
	// reads the new state.
	events.On(&s.events, func(events.KeyRevoked) { hub.Recheck() })
	events.On(&s.events, func(events.SessionEnded) { hub.Recheck() })
	events.On(&s.events, func(events.PlanChanged) { hub.Recheck() })
	events.On(&s.events, func(events.ProjectChanged) { hub.Recheck() })
	s.onReconnect = append(s.onReconnect, func() {
		go func() {
			ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
			defer cancel()
			hub.Resync(ctx)
		}()
	})
	s.starters = append(s.starters, func(ctx context.Context) error {
		// Before the node serves: projects published by an older version
		// capture with this version's function from the first request.
		s.upgradeCapture(ctx)
		s.every(ctx, time.Minute, s.PruneRealtime)
		// Changes are numbered and announced here, not by the writers.
		s.every(ctx, hub.SequenceEvery(), hub.Sequence)
		return nil
	})
	return nil
}

// PruneRealtime removes the changes older than the retention window from
// the managed projects' change logs (once a minute, off the request path),
// and replaces capture functions that are not this version's (a data
// server that became reachable since the start, or an older node that
// wrote its own during a rolling deploy).
func (s *Service) PruneRealtime(ctx context.Context) {
	s.upgradeCapture(ctx)
	// Changes webhooks have not delivered yet are kept.
	holds, err := s.webhooks.Holds(ctx)
	if err != nil {
		s.log.Warn("prune realtime change logs: read the webhooks' cursors", "err", err)
		return
	}
	for _, srv := range s.dataServers() {
		if _, err := realtime.Prune(ctx, srv.pool, s.Realtime.Retention(), holds); err != nil {
			s.log.Warn("prune realtime change logs", "data_server", srv.name, "err", err)
		}
	}
}

// realtimeStreams is the cap of the project's plan on concurrent streams.
func (s *Service) realtimeStreams(ctx context.Context, projectID string) (int, error) {
	l := s.limitsOf()
	if l == nil { // served without metering: no cap
		return -1, nil
	}
	p, err := l.plans.Plan(ctx, projectID, s.cfg.Now())
	if err != nil {
		return 0, err
	}
	return p.RealtimeStreams, nil
}

// countRealtimeEvents counts delivered events in analytics, per table,
// as the "event" operation; the rate limiter never sees them.
func (s *Service) countRealtimeEvents(projectID, table, credential string, n int) {
	l := s.limitsOf()
	if l == nil {
		return
	}
	now := s.cfg.Now()
	for range n {
		l.Record(apihttp.Sample{ProjectID: projectID, Table: table, Operation: analytics.OperationEvent, Method: "EVENT",
			Credential: credential, Status: http.StatusOK, At: now})
	}
}

// upgradeCapture gives every project on the ready data servers this
// version's capture function (realtime.UpgradeCapture); a server that
// fails is tried again with the next cleanup.
func (s *Service) upgradeCapture(ctx context.Context) {
	for _, srv := range s.dataServers() {
		n, err := realtime.UpgradeCapture(ctx, srv.schemaDB)
		if err != nil {
			s.log.Warn("upgrade realtime capture functions", "data_server", srv.name, "err", err)
		}
		if n > 0 {
			s.log.Info("upgraded realtime capture functions", "data_server", srv.name, "projects", n)
		}
	}
}
