package service

import (
	"context"
	"time"

	"github.com/tablesmith/tablesmith/internal/apihttp"
)

// idempotencySweep is how often expired Idempotency-Key records are
// deleted; the handler ignores them from the moment they expire.
const idempotencySweep = 10 * time.Minute

// wireIdempotency enables the Idempotency-Key header of the generated API
// (issue 16): its records live in the control schema, which the managed
// projects' data pool reaches in the write's own transaction, and a
// periodic sweep deletes those past apihttp.IdempotencyTTL.
func (s *Service) wireIdempotency() error {
	s.apiDeps.Idempotency = s.dataDB
	s.starters = append(s.starters, func(ctx context.Context) error {
		s.every(ctx, idempotencySweep, s.sweepIdempotencyKeys)
		return nil
	})
	return nil
}

// sweepIdempotencyKeys deletes the records older than the TTL.
func (s *Service) sweepIdempotencyKeys(ctx context.Context) {
	if _, err := s.Store.DeleteExpiredIdempotencyKeys(ctx, apihttp.IdempotencyTTL); err != nil {
		s.log.Warn("delete expired Idempotency-Key records", "err", err)
	}
}
