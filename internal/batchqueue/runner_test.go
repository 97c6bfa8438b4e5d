package batchqueue

import (
	"context"
	"errors"
	"sync/atomic"
	"testing"
)

func TestRunnerHandsAFlushToItsOwnerAndClosesEveryLoop(t *testing.T) {
	r := NewRunner()
	if err := r.Flush(context.Background()); err != nil {
		t.Fatalf("a flush before Start: %v, want nothing done", err)
	}
	r.Close() // before Start: returns at once

	var started, ended atomic.Int32
	written := errors.New("written")
	owner := func() {
		started.Add(1)
		defer ended.Add(1)
		for {
			select {
			case reply := <-r.FlushRequests():
				reply <- written
			case <-r.Stopping():
				return
			}
		}
	}
	other := func() {
		started.Add(1)
		defer ended.Add(1)
		<-r.Stopping()
	}
	r.Start(owner, other)
	r.Start(owner, other) // a second Start starts nothing more
	if err := r.Flush(context.Background()); !errors.Is(err, written) {
		t.Fatalf("flush: %v, want the owner's answer", err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	// Either branch may win the select on a cancelled context; both are
	// answers, never a hang.
	if err := r.Flush(ctx); err != nil && !errors.Is(err, context.Canceled) && !errors.Is(err, written) {
		t.Fatalf("flush with a cancelled context: %v", err)
	}
	r.Close()
	if started.Load() != 2 || ended.Load() != 2 {
		t.Fatalf("started %d loops and %d returned by Close, want 2 and 2", started.Load(), ended.Load())
	}
	r.Close() // a second Close is harmless
	if err := r.Flush(context.Background()); err != nil {
		t.Fatalf("a flush after Close: %v, want nothing done", err)
	}
}
