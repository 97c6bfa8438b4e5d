package analytics

import (
	"sync"
	"testing"
)

func TestSampleQueueKeepsOrderAndRefusesBeyondItsBound(t *testing.T) {
	q := newSampleQueue(3)
	for i := range 4 {
		if ok := q.push(Sample{Status: 200 + i}); ok != (i < 3) {
			t.Fatalf("push %d: %v, want %v", i, ok, i < 3)
		}
	}
	got := q.take(false)
	if len(got) != 3 || got[0].Status != 200 || got[2].Status != 202 {
		t.Fatalf("took %+v", got)
	}
	q.done(got)
	if !q.push(Sample{Status: 300}) || q.accepted() != 4 {
		t.Fatal("the queue does not take samples again after a take")
	}
}

func TestSampleQueueWakesAWaitingAggregatorOnce(t *testing.T) {
	q := newSampleQueue(10)
	q.push(Sample{})
	if len(q.wake) != 0 {
		t.Fatal("a push woke an aggregator that was not waiting")
	}
	q.done(q.take(true)) // one sample queued: the aggregator polls on, no wake-up wanted
	q.done(q.take(true)) // none: it waits
	q.push(Sample{})
	q.push(Sample{})
	if len(q.wake) != 1 {
		t.Fatalf("%d wake-ups queued, want 1", len(q.wake))
	}
}

// Every sample pushed is taken exactly once while pushes and takes race.
func TestSampleQueueLosesNothingUnderConcurrency(t *testing.T) {
	q := newSampleQueue(1 << 20)
	const workers, each = 4, 20_000
	var wg sync.WaitGroup
	for w := range workers {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for range each {
				q.push(Sample{Status: w})
			}
		}()
	}
	done := make(chan struct{})
	var counted [workers]int
	go func() {
		defer close(done)
		total := 0
		for total < workers*each {
			s := q.take(false)
			for _, x := range s {
				counted[x.Status]++
			}
			total += len(s)
			q.done(s)
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

// Observers see every recorded sample when the aggregator folds it, and
// not before: the request does not call them.
func TestObserverSeesFoldedSamples(t *testing.T) {
	r := New(Config{Buffer: 2})
	var seen []int
	r.Observe(func(s Sample) { seen = append(seen, s.Status) })
	for _, status := range []int{200, 404, 500} { // the third does not fit
		r.Record(Sample{ProjectID: "p1", Status: status})
	}
	if len(seen) != 0 {
		t.Fatalf("observed %v before the fold", seen)
	}
	r.foldQueued(map[bucketKey]*bucketAgg{}, false)
	if len(seen) != 2 || seen[0] != 200 || seen[1] != 404 {
		t.Fatalf("observed %v, want [200 404]", seen)
	}
	if st := r.Stats(); st.Recorded != 2 || st.Dropped != 1 {
		t.Fatalf("stats %+v, want 2 recorded and 1 dropped", st)
	}
}
