package batchqueue

import (
	"context"
	"sync"
	"sync/atomic"
)

// Runner is a consumer's lifecycle: it starts the consumer's goroutines
// once, hands a Flush to the goroutine that owns the batches and waits for
// its answer, and on Close stops them all and waits until they returned.
// The analytics recorder and the request log embed one; make it with
// NewRunner.
type Runner struct {
	flushReq chan chan error
	stop     chan struct{}
	wg       sync.WaitGroup
	running  atomic.Bool
	stopOnce sync.Once
}

// NewRunner returns a runner that has not started.
func NewRunner() *Runner {
	return &Runner{flushReq: make(chan chan error), stop: make(chan struct{})}
}

// Start runs each loop on a goroutine of its own, the first time only;
// a loop returns once Stopping is closed.
func (r *Runner) Start(loops ...func()) {
	if !r.running.CompareAndSwap(false, true) {
		return
	}
	r.wg.Add(len(loops))
	for _, loop := range loops {
		go func() {
			defer r.wg.Done()
			loop()
		}()
	}
}

// FlushRequests is where the batches' owner receives a Flush: it writes
// what waits and sends the outcome on the channel it received.
func (r *Runner) FlushRequests() <-chan chan error { return r.flushReq }

// Stopping is closed by Close: the loops write what is pending and return.
func (r *Runner) Stopping() <-chan struct{} { return r.stop }

// Flush asks the batches' owner to write everything queued so far and
// returns its outcome; before Start and after Close it does nothing.
func (r *Runner) Flush(ctx context.Context) error {
	if !r.running.Load() {
		return nil
	}
	reply := make(chan error, 1)
	select {
	case r.flushReq <- reply:
	case <-r.stop:
		return nil
	case <-ctx.Done():
		return ctx.Err()
	}
	select {
	case err := <-reply:
		return err
	case <-ctx.Done():
		return ctx.Err()
	}
}

// Close stops the loops and returns when every one has returned.
func (r *Runner) Close() {
	if !r.running.Load() {
		return
	}
	r.stopOnce.Do(func() { close(r.stop) })
	r.wg.Wait()
}
