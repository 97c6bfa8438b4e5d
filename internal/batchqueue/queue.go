// Package batchqueue is the bounded buffer between request goroutines and
// one consumer goroutine that takes what waits in batches (the analytics
// aggregator, the request log's writer).
package batchqueue

import "sync"

// Queue is the bounded buffer between request goroutines and a consumer:
// two slices that swap. A push appends under a mutex; the
// aggregator takes everything queued with one swap. It replaces a
// buffered channel of samples for two measured reasons (bench/RESULTS.md,
// "Metering"): the channel's 16,384 slots were allocated up front, about
// 2 MB of string pointers that the garbage collector scanned in every
// cycle, while these slices hold only what one fold interval brings; and
// draining the channel took its lock once per sample, against the
// requests pushing meanwhile, where a swap takes it once per fold.
type Queue[T any] struct {
	max int

	mu      sync.Mutex
	queued  []T
	spare   []T           // the slice the aggregator folded last, to fill next
	waiting bool          // the aggregator waits on wake for the next push
	Wake    chan struct{} // capacity 1
	pushed  uint64        // samples accepted since the start (counted under mu, no extra atomic)
}

// New returns a queue that holds at most max items.
func New[T any](max int) *Queue[T] {
	return &Queue[T]{max: max, Wake: make(chan struct{}, 1)}
}

// Push queues s and reports whether there was room. It never blocks, and
// wakes the aggregator only when it waits for a first sample.
func (q *Queue[T]) Push(s T) bool {
	q.mu.Lock()
	if len(q.queued) >= q.max {
		q.mu.Unlock()
		return false
	}
	q.queued = append(q.queued, s)
	q.pushed++
	wake := q.waiting
	q.waiting = false
	q.mu.Unlock()
	if wake {
		select {
		case q.Wake <- struct{}{}:
		default:
		}
	}
	return true
}

// Take returns what is queued; the caller gives the slice back with
// Done once it has folded it. With nothing queued and wait set, the next
// Push signals q.Wake.
func (q *Queue[T]) Take(wait bool) []T {
	q.mu.Lock()
	taken := q.queued
	q.queued, q.spare = q.spare[:0], nil
	if len(taken) == 0 && wait {
		q.waiting = true
	}
	q.mu.Unlock()
	return taken
}

// Done gives back a slice that Take returned, to be filled again. Its
// samples are cleared so that it holds no strings alive while it waits.
func (q *Queue[T]) Done(s []T) {
	// A slice that a burst made big is let go, so that a quiet server
	// does not keep it for the collector to scan.
	keep := cap(s) <= 4096 || len(s) > cap(s)/4
	clear(s)
	q.mu.Lock()
	if keep && q.spare == nil {
		q.spare = s[:0]
	}
	q.mu.Unlock()
}

// Accepted is how many items Push has taken since the start.
func (q *Queue[T]) Accepted() uint64 {
	q.mu.Lock()
	defer q.mu.Unlock()
	return q.pushed
}
