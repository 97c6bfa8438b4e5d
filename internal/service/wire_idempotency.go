package service

import (
	"context"
	"time"

	"github.com/tablesmith/tablesmith/internal/apihttp"
	"github.com/tablesmith/tablesmith/internal/store"
)

// idempotencySweep is how often expired Idempotency-Key records are
// deleted; the handler ignores them from the moment they expire.
const idempotencySweep = 10 * time.Minute

// wireIdempotency enables the Idempotency-Key header of the generated API
// (issue 16): its records live in the tablesmith schema of the data
// server the project is on, which its data pool reaches in the write's
// own transaction, and a
// periodic sweep deletes those past apihttp.IdempotencyTTL.
func (s *Service) wireIdempotency() error {
	s.apiDeps.Idempotency = s.isDataPool
	s.starters = append(s.starters, func(ctx context.Context) error {
		s.every(ctx, idempotencySweep, s.sweepIdempotencyKeys)
		return nil
	})
	return nil
}

// sweepIdempotencyKeys deletes the records older than the TTL.
func (s *Service) sweepIdempotencyKeys(ctx context.Context) {
	for _, srv := range s.dataServers() {
		st := &store.Store{DB: srv.schemaDB}
		if _, err := st.DeleteExpiredIdempotencyKeys(ctx, apihttp.IdempotencyTTL); err != nil {
			s.log.Warn("delete expired Idempotency-Key records", "data_server", srv.name, "err", err)
		}
	}
}
