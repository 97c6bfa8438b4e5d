package service

import (
	"github.com/tablesmith/tablesmith/internal/fairshare"
)

// wireFairShare bounds each project's concurrent data statements on this
// node (issue 16): one project's slow queries must not take the data pool
// that every project shares. Each statement's bound by its plan comes with
// the rate limiter's decision (apihttp.Quota.StatementTimeout).
func (s *Service) wireFairShare() error {
	limit := s.cfg.ProjectConcurrency
	if limit == 0 {
		limit = fairshare.DefaultLimit(s.cfg.MaxOpenConns)
	}
	s.apiDeps.Gate = fairshare.New(limit, s.cfg.MaxOpenConns, s.cfg.ProjectQueueWait)
	return nil
}

// FairShareStats are the fair-share counters: statements turned away
// because their project's slots stayed taken, statements cut by their
// plan's timeout, and the pauses exports made for other projects.
type FairShareStats struct{ Rejected, TimedOut, ExportPauses uint64 }

// FairShareStats reads the counters.
func (s *Service) FairShareStats() FairShareStats {
	return FairShareStats{Rejected: s.apiDeps.Gate.Rejected(), TimedOut: s.api.StatementTimeouts(), ExportPauses: s.api.ExportPauses()}
}
