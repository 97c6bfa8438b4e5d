package batchqueue

import (
	"sync"
	"testing"
)

// sample stands for what a queue carries.
type sample struct{ Status int }

func TestQueueKeepsOrderAndRefusesBeyondItsBound(t *testing.T) {
	q := New[sample](3)
	for i := range 4 {
		if ok := q.Push(sample{Status: 200 + i}); ok != (i < 3) {
			t.Fatalf("push %d: %v, want %v", i, ok, i < 3)
		}
	}
	got := q.Take(false)
	if len(got) != 3 || got[0].Status != 200 || got[2].Status != 202 {
		t.Fatalf("took %+v", got)
	}
	q.Done(got)
	if !q.Push(sample{Status: 300}) || q.Accepted() != 4 {
		t.Fatal("the queue does not take samples again after a take")
	}
}

func TestQueueWakesAWaitingAggregatorOnce(t *testing.T) {
	q := New[sample](10)
	q.Push(sample{})
	if len(q.Wake) != 0 {
		t.Fatal("a push woke an aggregator that was not waiting")
	}
	q.Done(q.Take(true)) // one sample queued: the aggregator polls on, no wake-up wanted
	q.Done(q.Take(true)) // none: it waits
	q.Push(sample{})
	q.Push(sample{})
	if len(q.Wake) != 1 {
		t.Fatalf("%d wake-ups queued, want 1", len(q.Wake))
	}
}

// Every sample pushed is taken exactly once while pushes and takes race.
func TestQueueLosesNothingUnderConcurrency(t *testing.T) {
	q := New[sample](1 << 20)
	const workers, each = 4, 20_000
	var wg sync.WaitGroup
	for w := range workers {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for range each {
				q.Push(sample{Status: w})
			}
		}()
	}
	done := make(chan struct{})
	var counted [workers]int
	go func() {
		defer close(done)
		total := 0
		for total < workers*each {
			s := q.Take(false)
			for _, x := range s {
				counted[x.Status]++
			}
			total += len(s)
			q.Done(s)
		}
	}()
	wg.Wait()
	<-done
	for w, n := range counted {
		if n != each {
			t.Fatalf("worker %d: %d samples taken, want %d", w, n, each)
		}
	}
}
