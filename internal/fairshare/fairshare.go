// Package fairshare bounds how many data statements one project runs at
// once on this node, so that one project's slow queries cannot take every
// connection of the data pool that all projects share.
//
// Each project has a counter of taken slots, made on its first statement
// and kept in a sync.Map. The fast path is a map load and a compare-and-
// swap: ~55 ns per take and release on two cores, where a buffered
// channel, the obvious semaphore, cost ~180 ns (BenchmarkAcquireRelease). A
// statement that finds every slot taken queues for at most Wait (less
// when its context ends sooner) and then gets ErrBusy; a release hands its
// slot to the oldest waiter.
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
	total      atomic.Int64  // statements in flight, all projects
	started    atomic.Uint64 // statements started, all projects (OthersStarted)
	wait       time.Duration
	sems       sync.Map // project id -> *sem
	// rejected counts the ErrBusy answers (metrics).
	rejected atomic.Uint64
	// holds and holdsAll bound the connections that work longer than a
	// statement keeps between its statements (Hold): per project, and for
	// the node under one key. Nil in themselves.
	holds, holdsAll *Gate
}

// sem is one project's slots.
type sem struct {
	taken atomic.Int64
	// started counts the project's statements started (OthersStarted).
	started atomic.Uint64
	// startSum is the sum of the start times of the statements in
	// flight, so their mean age is now - startSum/taken.
	startSum atomic.Int64
	// waiting is len(queue), read without the lock: arrivals take a
	// slot directly only while nobody waits, releases look at the queue
	// only when somebody does.
	waiting atomic.Int64
	mu      sync.Mutex
	queue   []*waiter // oldest first
}

// waiter is a statement waiting for a slot. A release hands the slot
// over directly (dispatch), so the oldest waiter gets it and nobody is
// woken for nothing.
type waiter struct {
	start int64
	slot  Slot          // the slot handed over, set before ready
	ready chan struct{} // receives the hand-over; capacity 1
	timer *time.Timer
}

var waiters = sync.Pool{New: func() any {
	t := time.NewTimer(time.Hour)
	t.Stop()
	return &waiter{ready: make(chan struct{}, 1), timer: t}
}}

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
	g.holds = &Gate{limit: int64(max(1, limit/2)), wait: wait}
	g.holdsAll = &Gate{limit: int64(limit), wait: wait}
	return g
}

// ErrNodeBusy is Hold's answer when the node's holds stayed taken for the
// whole wait (ErrBusy: the project's).
var ErrNodeBusy = errors.New("the node holds as many long reads as it allows")

// Hold is a connection kept by work longer than one statement (an
// export's cursor, read in batches that each take a Slot): Release gives
// it back. The zero Hold releases nothing.
type Hold struct {
	g             *Gate
	project, node Slot
}

// Hold takes one of the project's holds and one of the node's, waiting up
// to the gate's wait for each: a project keeps at most half its share of
// connections this way (at least one), the node at most one share, so
// that long work can neither fill a project's share between its batches
// nor the pool. A held connection counts against borrowing like a
// statement in flight. Errors as Acquire's, ErrNodeBusy when the node's
// holds are taken.
func (g *Gate) Hold(ctx context.Context, project string, now time.Time) (Hold, error) {
	if g == nil {
		return Hold{}, nil
	}
	ps, err := g.holds.acquire(ctx, project, now, g.wait)
	if err != nil {
		return Hold{}, err
	}
	ns, err := g.holdsAll.acquire(ctx, "", now, g.wait)
	if err != nil {
		ps.Release()
		if errors.Is(err, ErrBusy) {
			err = ErrNodeBusy
		}
		return Hold{}, err
	}
	g.total.Add(1)
	return Hold{g: g, project: ps, node: ns}, nil
}

// Release gives the hold back; call it once.
func (h Hold) Release() {
	if h.g == nil {
		return
	}
	h.g.total.Add(-1)
	h.node.Release()
	h.project.Release()
}

// HoldLimits are how many holds one project and the whole node may have.
func (g *Gate) HoldLimits() (project, node int) {
	if g == nil {
		return 0, 0
	}
	return int(g.holds.limit), int(g.holdsAll.limit)
}

// OthersStarted counts the statements that projects other than project
// have started on this node: long work of one project (an export's
// batches) compares two readings to tell whether anybody else wanted the
// node meanwhile, and gives way if so. A nil gate counts nothing.
func (g *Gate) OthersStarted(project string) uint64 {
	if g == nil {
		return 0
	}
	own := g.sem(project).started.Load() // first: the total read after it is never smaller
	return g.started.Load() - own
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
	if sl.s == nil {
		return
	}
	sl.g.total.Add(-1)
	sl.s.startSum.Add(-sl.start)
	sl.s.taken.Add(-1)
	// After the decrement: a waiter that queued before it is seen here;
	// one that queued after it sees the free slot itself (Acquire).
	if sl.s.waiting.Load() > 0 {
		sl.s.mu.Lock()
		sl.g.dispatch(sl.s)
		sl.s.mu.Unlock()
	}
}

// Acquire takes one of project's slots, waiting up to the gate's wait or
// until ctx ends. It returns ErrBusy when the wait ran out (or ctx's
// deadline came first) and ctx.Err() when ctx was cancelled. now is when
// the request arrived (the handler's one clock reading): the statement's
// age for borrowing counts from it. Waiters get slots in the order they
// came: a statement that arrives while others wait queues behind them
// rather than taking the slot a release freed for them, which would let
// newcomers win most releases and leave a few waiters waiting many times
// longer than the rest (the tail of the latency).
func (g *Gate) Acquire(ctx context.Context, project string, now time.Time) (Slot, error) {
	if g == nil {
		return Slot{}, nil
	}
	return g.acquire(ctx, project, now, g.wait)
}

// AcquireUntil is Acquire for work that may wait for its turn as long as
// ctx allows rather than the gate's wait (a realtime stream's reads, an
// export's later batches, background rounds): it returns ctx.Err() when
// ctx ends first, and is not counted as a rejection.
func (g *Gate) AcquireUntil(ctx context.Context, project string, now time.Time) (Slot, error) {
	if g == nil {
		return Slot{}, nil
	}
	return g.acquire(ctx, project, now, 0)
}

// acquire takes a slot, waiting up to wait (0: until ctx ends).
func (g *Gate) acquire(ctx context.Context, project string, now time.Time, wait time.Duration) (Slot, error) {
	s := g.sem(project)
	start := int64(now.Sub(clockBase))
	if s.waiting.Load() == 0 {
		if sl, ok := g.take(s, start); ok {
			return sl, nil
		}
	}
	w := waiters.Get().(*waiter)
	w.start = start
	s.mu.Lock()
	s.queue = append(s.queue, w)
	s.waiting.Add(1)
	g.dispatch(s) // a slot freed before the queue had w
	s.mu.Unlock()

	var expired <-chan time.Time
	if wait > 0 {
		w.timer.Reset(wait)
		expired = w.timer.C
	}
	select {
	case <-w.ready:
		return handedOver(w), nil
	case <-expired:
	case <-ctx.Done():
	}
	s.mu.Lock()
	queued := s.remove(w)
	s.mu.Unlock()
	if !queued { // handed a slot as the wait ended: take it
		<-w.ready
		return handedOver(w), nil
	}
	w.timer.Stop()
	waiters.Put(w)
	if err := ctx.Err(); err != nil && (wait == 0 || !errors.Is(err, context.DeadlineExceeded)) {
		return Slot{}, err
	}
	g.rejected.Add(1)
	return Slot{}, ErrBusy
}

func handedOver(w *waiter) Slot {
	w.timer.Stop()
	sl := w.slot
	w.slot = Slot{}
	waiters.Put(w)
	return sl
}

// dispatch hands free slots to the oldest waiters; s.mu is held.
func (g *Gate) dispatch(s *sem) {
	for len(s.queue) > 0 {
		w := s.queue[0]
		sl, ok := g.take(s, w.start)
		if !ok {
			return
		}
		w.slot = sl
		s.queue[0] = nil
		s.queue = s.queue[1:]
		if len(s.queue) == 0 {
			s.queue = s.queue[:0:0] // let the drained array go
		}
		s.waiting.Add(-1)
		w.ready <- struct{}{}
	}
}

// remove takes w out of the queue, reporting whether it was there; s.mu
// is held.
func (s *sem) remove(w *waiter) bool {
	for i, q := range s.queue {
		if q == w {
			s.queue = append(s.queue[:i], s.queue[i+1:]...)
			s.waiting.Add(-1)
			return true
		}
	}
	return false
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
			g.started.Add(1)
			s.started.Add(1)
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

// Rejected is how many statements and holds got ErrBusy or ErrNodeBusy
// since the gate was made.
func (g *Gate) Rejected() uint64 {
	if g == nil {
		return 0
	}
	return g.rejected.Load() + g.holds.rejected.Load() + g.holdsAll.rejected.Load()
}

func (g *Gate) sem(project string) *sem {
	if v, ok := g.sems.Load(project); ok {
		return v.(*sem)
	}
	v, _ := g.sems.LoadOrStore(project, &sem{})
	return v.(*sem)
}
