package replica

import (
	"context"
	"database/sql"
	"sync"
	"time"
)

// checkReplica reads whether the server is a replica, what it has
// replayed and whether replay is paused. pg_is_wal_replay_paused() fails
// on a server that is not in recovery (a promoted replica), hence CASE.
const checkReplica = `SELECT r,
	CASE WHEN r THEN pg_last_wal_replay_lsn()::text END,
	CASE WHEN r THEN pg_is_wal_replay_paused() END
	FROM pg_is_in_recovery() AS r`

// checkAll samples the primary's position, then checks every replica
// against it, all replicas at once.
func (s *Set) checkAll(ctx context.Context) {
	at := s.cfg.Now()
	pctx, cancel := context.WithTimeout(ctx, checkTimeout)
	var text string
	err := s.sampleDB.QueryRowContext(pctx, currentLSN).Scan(&text)
	cancel()
	if err == nil {
		if lsn, perr := ParseLSN(text); perr == nil {
			s.mu.Lock()
			s.hist.add(sample{at: at, lsn: lsn})
			s.mu.Unlock()
		}
	}
	// Without a fresh primary sample the history still bounds the lag:
	// its newest sample only gets older.
	var wg sync.WaitGroup
	for _, r := range s.replicas {
		wg.Add(1)
		go func() {
			defer wg.Done()
			s.check(ctx, r)
		}()
	}
	wg.Wait()
}

// check reads one replica's state and decides whether it serves reads.
func (s *Set) check(ctx context.Context, r *Replica) {
	ctx, cancel := context.WithTimeout(ctx, checkTimeout)
	defer cancel()
	var (
		inRecovery bool
		replayText sql.NullString
		paused     sql.NullBool
	)
	err := r.check.QueryRowContext(ctx, checkReplica).Scan(&inRecovery, &replayText, &paused)
	now := s.cfg.Now()
	old := r.state.Load()
	var h *health
	switch {
	case err != nil:
		h = &health{replay: old.replay, lag: old.lag, reason: "unreachable: " + err.Error()}
		r.declareLost()
		if ctx.Err() != nil {
			// Its connection may be stuck on a dead peer: dial afresh.
			r.check.SetMaxIdleConns(0)
			r.check.SetMaxIdleConns(1)
		}
	case !inRecovery:
		h = &health{up: true, reason: "not a replica (promoted?): it no longer follows the primary"}
	case !replayText.Valid:
		h = &health{up: true, reason: "has replayed nothing yet"}
	default:
		replay, perr := ParseLSN(replayText.String)
		if perr != nil {
			h = &health{up: true, reason: perr.Error()}
			break
		}
		s.mu.Lock()
		lag, known := s.hist.lag(replay, now)
		s.mu.Unlock()
		h = &health{up: true, replay: replay, lag: lag}
		switch {
		case paused.Bool:
			h.reason = "replay is paused"
		case !known:
			h.reason = "the primary's position is not known yet"
		case lag > s.cfg.MaxLag:
			h.reason = "lags " + lag.Round(time.Millisecond).String() + ", more than max_replica_lag " + s.cfg.MaxLag.String()
		default:
			h.fit = true
		}
	}
	r.state.Store(h)
	if old.fit != h.fit {
		if h.fit {
			r.log.Info("replica: serving reads", "replica", r.Name)
		} else {
			r.log.Warn("replica: out of service; its reads go elsewhere", "replica", r.Name, "reason", h.reason)
		}
	}
}
