package service

import (
	"context"
	"time"

	"github.com/tablesmith/tablesmith/internal/fairshare"
)

// wireFairShare bounds each project's concurrent data statements on this
// node and each statement's run time by its plan (issue 16): one project's
// slow queries must not take the data pool that every project shares.
func (s *Service) wireFairShare() error {
	limit := s.cfg.ProjectConcurrency
	if limit == 0 {
		limit = fairshare.DefaultLimit(s.cfg.MaxOpenConns)
	}
	s.apiDeps.Gate = fairshare.New(limit, s.cfg.ProjectQueueWait)
	l := s.limitsOf()
	if l == nil {
		return nil
	}
	lim := l.limiter
	// The plan comes from the limiter's cache of project owners (a map
	// read per request) and the current plan definitions, so a reload or
	// a set-plan applies as it does to the rate limit.
	s.apiDeps.StatementTimeout = func(ctx context.Context, projectID string) time.Duration {
		p, err := lim.PlanOf(ctx, projectID)
		if err != nil {
			return 0 // the request's own deadline still bounds it
		}
		return p.StatementTimeout
	}
	return nil
}

// FairShareStats are the fair-share counters: statements turned away
// because their project's slots stayed taken, and statements cut by
// their plan's timeout.
type FairShareStats struct{ Rejected, TimedOut uint64 }

// FairShareStats reads the counters.
func (s *Service) FairShareStats() FairShareStats {
	return FairShareStats{Rejected: s.apiDeps.Gate.Rejected(), TimedOut: s.api.StatementTimeouts()}
}
