// Package fairshare bounds how many data statements one project runs at
// once on this node, so that one project's slow queries cannot take every
// connection of the data pool that all projects share.
//
// Each project has a counter of taken slots, made on its first statement
// and kept in a sync.Map. The fast path is a map load and a compare-and-
// swap: ~55 ns per take and release on two cores, where a buffered
// channel, the obvious semaphore, cost ~180 ns (BenchmarkAcquireRelease). A
// statement that finds every slot taken waits on the project's wake-up
// channel for at most Wait (less when its context ends sooner) and then
// gets ErrBusy.
//
// The share is a guarantee, not a ceiling for quick work: a project whose
// statements in flight are young on average (under BorrowAge) may also take
// idle connections of the pool beyond its share, as long as one share of the
// pool stays free for the others. A single busy tenant whose statements take
// a millisecond then runs as many at once as the pool allows (commits share
// WAL flushes, round trips overlap), while a project whose statements are
// slow, the case the gate is for, stays within its share.
package fairshare

import (
	"context"
	"errors"
	"sync"
	"sync/atomic"
	"time"
)

// ErrBusy is returned when a project's slots stayed taken for the whole wait.
var ErrBusy = errors.New("the project has too many statements running")

// DefaultWait is how long a statement waits for one of its project's slots.
const DefaultWait = 2 * time.Second

// BorrowAge is how old, on average, a project's statements in flight may be
// for it to take connections beyond its share.
const BorrowAge = 50 * time.Millisecond

// Gate holds the per-project counters; safe for concurrent use.
type Gate struct {
	limit int64
	// borrowUpTo is how many statements all projects together may run
	// before no project takes more than its share: the pool minus one
	// share; 0 means never beyond the share.
	borrowUpTo int64
	total      atomic.Int64 // statements in flight, all projects
	wait       time.Duration
	sems       sync.Map // project id -> *sem
	// rejected counts the ErrBusy answers (metrics).
	rejected atomic.Uint64
}

// sem is one project's slots.
type sem struct {
	taken atomic.Int64
	// startSum is the sum of the start times of the statements in
	// flight, so their mean age is now - startSum/taken.
	startSum atomic.Int64
	waiters  atomic.Int64
	// wake holds one wake-up for the waiters: a release sends it when
	// someone waits, and a waiter that took a slot passes it on while
	// slots remain, so two releases in a row wake two waiters.
	wake chan struct{}
}

// New returns a gate of limit concurrent statements per project for a
// data pool of pool connections, whose waiters give up after wait
// (DefaultWait when wait <= 0). Quick projects may borrow idle connections
// up to pool - limit statements in all; pool <= limit disables borrowing.
// A limit below 1 returns nil: no gate, every Acquire on a nil gate passes
// at once.
func New(limit, pool int, wait time.Duration) *Gate {
	if limit < 1 {
		return nil
	}
	if wait <= 0 {
		wait = DefaultWait
	}
	g := &Gate{limit: int64(limit), wait: wait}
	if pool > limit {
		g.borrowUpTo = int64(pool - limit)
	}
	return g
}

// clockBase turns times into monotonic nanoseconds for the age sums.
var clockBase = time.Now()

// DefaultLimit is the per-project limit for a data pool of poolSize
// connections: a quarter of the pool, at least one, so that at least
// three other projects still find connections while one is saturated.
func DefaultLimit(poolSize int) int { return max(1, poolSize/4) }

// Limit is the number of statements one project may run at once.
func (g *Gate) Limit() int { return int(g.limit) }

// Slot is one taken place; Release gives it back. The zero Slot (from a
// nil gate) releases nothing.
type Slot struct {
	g     *Gate
	s     *sem
	start int64
}

// Release frees the slot; call it once, when the statement has finished.
func (sl Slot) Release() {
	if sl.s != nil {
		sl.g.total.Add(-1)
		sl.s.startSum.Add(-sl.start)
		sl.s.release()
	}
}

// Acquire takes one of project's slots, waiting up to the gate's wait or
// until ctx ends. It returns ErrBusy when the wait ran out (or ctx's
// deadline came first) and ctx.Err() when ctx was cancelled. now is when
// the request arrived (the handler's one clock reading): the statement's
// age for borrowing counts from it.
func (g *Gate) Acquire(ctx context.Context, project string, now time.Time) (Slot, error) {
	if g == nil {
		return Slot{}, nil
	}
	s := g.sem(project)
	start := int64(now.Sub(clockBase))
	// A statement that arrives while others wait queues behind them
	// rather than taking the slot a release just freed for them: without
	// that, newcomers win most releases and a few waiters wait many
	// times longer than the rest (the tail of the latency).
	if s.waiters.Load() == 0 {
		if sl, ok := g.take(s, start); ok {
			return sl, nil
		}
	}
	// Counted as a waiter before looking again, so that a release after
	// that look sees the waiter and wakes it. One with nobody ahead looks
	// at once; the others look when woken.
	look := s.waiters.Add(1) == 1
	defer s.waiters.Add(-1)
	t := time.NewTimer(g.wait)
	defer t.Stop()
	for {
		if look {
			if sl, ok := g.take(s, start); ok {
				// Pass the wake-up on while slots remain, borrowed ones
				// included: two releases in a row leave one wake-up.
				if s.waiters.Load() > 1 {
					if n := s.taken.Load(); n < g.limit || g.mayBorrow(s, n, start) {
						s.signal()
					}
				}
				return sl, nil
			}
		}
		look = true
		select {
		case <-s.wake:
		case <-t.C:
			g.rejected.Add(1)
			return Slot{}, ErrBusy
		case <-ctx.Done():
			if errors.Is(ctx.Err(), context.DeadlineExceeded) {
				g.rejected.Add(1)
				return Slot{}, ErrBusy
			}
			return Slot{}, ctx.Err()
		}
	}
}

// take takes one of the project's slots if one is free, or borrows one
// (see the package comment).
func (g *Gate) take(s *sem, now int64) (Slot, bool) {
	for {
		n := s.taken.Load()
		if n >= g.limit && !g.mayBorrow(s, n, now) {
			return Slot{}, false
		}
		if s.taken.CompareAndSwap(n, n+1) {
			g.total.Add(1)
			s.startSum.Add(now)
			return Slot{g: g, s: s, start: now}, true
		}
	}
}

// mayBorrow reports whether a project with n statements in flight may
// run one more beyond its share: the pool has room to spare and its
// statements are quick.
func (g *Gate) mayBorrow(s *sem, n, now int64) bool {
	if g.borrowUpTo == 0 || g.total.Load() >= g.borrowUpTo {
		return false
	}
	meanStart := s.startSum.Load() / max(n, 1)
	return now-meanStart < int64(BorrowAge)
}

func (s *sem) release() {
	s.taken.Add(-1)
	if s.waiters.Load() > 0 {
		s.signal()
	}
}

// signal leaves a wake-up unless one is already waiting to be taken.
func (s *sem) signal() {
	select {
	case s.wake <- struct{}{}:
	default:
	}
}

// Running is how many of project's slots are taken now (metrics, tests).
func (g *Gate) Running(project string) int {
	if g == nil {
		return 0
	}
	if v, ok := g.sems.Load(project); ok {
		return int(v.(*sem).taken.Load())
	}
	return 0
}

// Rejected is how many statements got ErrBusy since the gate was made.
func (g *Gate) Rejected() uint64 {
	if g == nil {
		return 0
	}
	return g.rejected.Load()
}

func (g *Gate) sem(project string) *sem {
	if v, ok := g.sems.Load(project); ok {
		return v.(*sem)
	}
	v, _ := g.sems.LoadOrStore(project, &sem{wake: make(chan struct{}, 1)})
	return v.(*sem)
}
