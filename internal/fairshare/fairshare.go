// Package fairshare bounds how many data statements one project runs at
// once on this node, so that one project's slow queries cannot take every
// connection of the data pool that all projects share.
//
// Each project has a semaphore: a buffered channel of Limit slots, made on
// the project's first statement and kept in a sync.Map. The fast path is a
// map load and a channel send that does not block; a request that finds
// every slot taken waits at most Wait (less when its context ends sooner)
// and then gets ErrBusy.
package fairshare

import (
	"context"
	"errors"
	"sync"
	"time"
)

// ErrBusy is returned when a project's slots stayed taken for the whole wait.
var ErrBusy = errors.New("the project has too many statements running")

// DefaultWait is how long a statement waits for one of its project's slots.
const DefaultWait = 2 * time.Second

// Gate holds the per-project semaphores; safe for concurrent use.
type Gate struct {
	limit int
	wait  time.Duration
	sems  sync.Map // project id -> chan struct{}
}

// New returns a gate of limit concurrent statements per project, whose
// waiters give up after wait (DefaultWait when wait <= 0). A limit below
// 1 returns nil: no gate, every Acquire on a nil gate passes at once.
func New(limit int, wait time.Duration) *Gate {
	if limit < 1 {
		return nil
	}
	if wait <= 0 {
		wait = DefaultWait
	}
	return &Gate{limit: limit, wait: wait}
}

// DefaultLimit is the per-project limit for a data pool of poolSize
// connections: a quarter of the pool, at least one, so that at least
// three other projects still find connections while one is saturated.
func DefaultLimit(poolSize int) int { return max(1, poolSize/4) }

// Limit is the number of statements one project may run at once.
func (g *Gate) Limit() int { return g.limit }

// Slot is one taken place; Release gives it back. The zero Slot (from a
// nil gate) releases nothing.
type Slot struct{ sem chan struct{} }

// Release frees the slot; call it once, when the statement has finished.
func (s Slot) Release() {
	if s.sem != nil {
		<-s.sem
	}
}

// Acquire takes one of project's slots, waiting up to the gate's wait or
// until ctx ends. It returns ErrBusy when the wait ran out (or ctx's
// deadline came first) and ctx.Err() when ctx was cancelled.
func (g *Gate) Acquire(ctx context.Context, project string) (Slot, error) {
	if g == nil {
		return Slot{}, nil
	}
	sem := g.sem(project)
	select {
	case sem <- struct{}{}:
		return Slot{sem}, nil
	default:
	}
	t := time.NewTimer(g.wait)
	defer t.Stop()
	select {
	case sem <- struct{}{}:
		return Slot{sem}, nil
	case <-t.C:
		return Slot{}, ErrBusy
	case <-ctx.Done():
		if errors.Is(ctx.Err(), context.DeadlineExceeded) {
			return Slot{}, ErrBusy
		}
		return Slot{}, ctx.Err()
	}
}

// Running is how many of project's slots are taken now (metrics, tests).
func (g *Gate) Running(project string) int {
	if g == nil {
		return 0
	}
	if v, ok := g.sems.Load(project); ok {
		return len(v.(chan struct{}))
	}
	return 0
}

func (g *Gate) sem(project string) chan struct{} {
	if v, ok := g.sems.Load(project); ok {
		return v.(chan struct{})
	}
	v, _ := g.sems.LoadOrStore(project, make(chan struct{}, g.limit))
	return v.(chan struct{})
}
