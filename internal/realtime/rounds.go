package realtime

import (
	"context"
	"sync"
	"time"
)

// roundTimeout bounds one numbering round, its wait for a fair-share slot
// included.
const roundTimeout = 10 * time.Second

// rounds runs one project's numbering rounds on this node one at a time.
// A caller asks for a round that starts after it asked; every caller that
// asks while a round runs shares the next one. So 2,000 streams opening at
// once run a few rounds, not 2,000 statements, and the node never runs two
// numbering statements of a project at once (issue 35.9: a burst of opens
// held the data pool with the sequencer's statements).
type rounds struct {
	mu      sync.Mutex
	running bool
	next    *round // the round the next run serves; nil when nobody asked
}

// round is one numbering round and what it found.
type round struct {
	// ctx is the first asker's: the service's for a periodic round (its
	// stop ends the round), a request's without its cancellation for an
	// opening stream (others may share the round).
	ctx  context.Context
	done chan struct{} // closed when the round has ended
	// withState asks the round to read the log's state too (an opening
	// stream's starting point); set only while the round is next.
	withState bool
	state     logState
	numbered  int64 // the newest number the round gave, 0 when none
	err       error
}

// ask returns a round that starts after the call, starting the runner if
// none runs. run does the round's work; it is called on the runner's
// goroutine, one round after the other.
func (rs *rounds) ask(ctx context.Context, withState bool, run func(*round)) *round {
	rs.mu.Lock()
	defer rs.mu.Unlock()
	if rs.next == nil {
		rs.next = &round{ctx: ctx, done: make(chan struct{})}
	}
	r := rs.next
	r.withState = r.withState || withState
	if !rs.running {
		rs.running = true
		go rs.runAll(run)
	}
	return r
}

// runAll runs the asked rounds until nobody waits for another.
func (rs *rounds) runAll(run func(*round)) {
	for {
		rs.mu.Lock()
		r := rs.next
		rs.next = nil
		if r == nil {
			rs.running = false
			rs.mu.Unlock()
			return
		}
		rs.mu.Unlock()
		run(r)
		close(r.done)
	}
}

// wait waits for r to end, or for ctx; a caller that leaves does not stop
// the round, which others may share.
func (r *round) wait(ctx context.Context) error {
	select {
	case <-r.done:
		return r.err
	case <-ctx.Done():
		return ctx.Err()
	}
}
