package store

import (
	"context"
	"time"
)

// sweepBatch bounds one DELETE of the sweep, so that it never holds many
// row locks or one long transaction.
const sweepBatch = 5000

// DeleteExpiredIdempotencyKeys deletes the recorded answers of the
// generated API's Idempotency-Key header that are older than ttl (the
// handler already ignores them) and returns how many went.
func (s *Store) DeleteExpiredIdempotencyKeys(ctx context.Context, ttl time.Duration) (int64, error) {
	var total int64
	for {
		res, err := s.DB.ExecContext(ctx, `DELETE FROM tablesmith.idempotency_keys WHERE ctid = ANY (ARRAY(
			SELECT ctid FROM tablesmith.idempotency_keys WHERE created_at < now() - $1 * interval '1 second' LIMIT $2))`,
			ttl.Seconds(), sweepBatch)
		if err != nil {
			return total, err
		}
		n, _ := res.RowsAffected()
		total += n
		if n < sweepBatch {
			return total, nil
		}
	}
}
