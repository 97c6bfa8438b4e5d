package ratelimit

import (
	"sync"
	"testing"
	"time"
)

func TestLocalWindowCountsUntilItEndsThenStartsAgain(t *testing.T) {
	var lc localCounts
	start := time.Unix(1_800_000_000, 0)
	for i := int64(1); i <= 3; i++ {
		n, end := lc.increment("p1", time.Minute, 1, start.Add(time.Duration(i)*time.Second))
		if n != i || !end.Equal(start.Add(time.Second+time.Minute)) {
			t.Fatalf("request %d: count %d, end %v; want %d, %v", i, n, end, i, start.Add(time.Second+time.Minute))
		}
	}
	if n, _ := lc.get("p2", time.Minute, start); n != 0 {
		t.Fatalf("another key counted %d", n)
	}
	last := start.Add(time.Second + time.Minute) // the window still counts at its end, as ulule's does
	if n, _ := lc.increment("p1", time.Minute, 1, last); n != 4 {
		t.Fatalf("at the window's end: count %d, want 4", n)
	}
	n, end := lc.increment("p1", time.Minute, 1, last.Add(time.Nanosecond))
	if n != 1 || !end.Equal(last.Add(time.Nanosecond+time.Minute)) {
		t.Fatalf("after the window: count %d, end %v; want a new window", n, end)
	}
	if n, end := lc.get("p1", time.Minute, last.Add(time.Second)); n != 1 || !end.Equal(last.Add(time.Nanosecond+time.Minute)) {
		t.Fatalf("get = %d, %v", n, end)
	}
}

func TestLocalCountsAreExactUnderConcurrency(t *testing.T) {
	var lc localCounts
	now := time.Now()
	const workers, each = 8, 5000
	var wg sync.WaitGroup
	countConcurrently(&lc, &wg, workers, each, now)
	wg.Wait()
	if n, _ := lc.get("p1", time.Hour, now); n != workers*each {
		t.Fatalf("count %d, want %d", n, workers*each)
	}
}

func TestSweepDropsOnlyEndedWindows(t *testing.T) {
	var lc localCounts
	now := time.Unix(1_800_000_000, 0)
	lc.increment("old", time.Minute, 1, now)
	lc.increment("live", time.Hour, 1, now)
	lc.sweep(now.Add(2 * time.Minute))
	if _, ok := lc.counters.Load("old"); ok {
		t.Fatal("the ended window is still in memory")
	}
	if n, _ := lc.get("live", time.Hour, now.Add(2*time.Minute)); n != 1 {
		t.Fatalf("live window count %d after the sweep, want 1", n)
	}
	if n, _ := lc.increment("old", time.Minute, 1, now.Add(3*time.Minute)); n != 1 {
		t.Fatalf("a swept key counts %d, want a new window from 1", n)
	}
}

// A sweep that runs while requests start a new window must not lose any
// of them: each either counts in the counter the sweep left in place or
// in the fresh one that replaced it.
func TestSweepRacingRequestsLosesNoCount(t *testing.T) {
	for round := range 200 {
		var lc localCounts
		t0 := time.Unix(1_800_000_000, 0)
		lc.increment("p1", time.Second, 1, t0) // a window that has ended by now
		now := t0.Add(time.Minute)
		var wg sync.WaitGroup
		const workers, each = 4, 50
		countConcurrently(&lc, &wg, workers, each, now)
		wg.Add(1)
		go func() {
			defer wg.Done()
			lc.sweep(now)
		}()
		wg.Wait()
		if n, _ := lc.get("p1", time.Hour, now); n != workers*each {
			t.Fatalf("round %d: count %d, want %d", round, n, workers*each)
		}
	}
}

// countConcurrently starts workers goroutines that each count each
// requests of "p1" in an hour's window at now; wg waits for them.
func countConcurrently(lc *localCounts, wg *sync.WaitGroup, workers, each int, now time.Time) {
	for range workers {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for range each {
				lc.increment("p1", time.Hour, 1, now)
			}
		}()
	}
}

func TestLocalWindowCountsABulkRequestAsItsItems(t *testing.T) {
	var lc localCounts
	now := time.Unix(1_800_000_000, 0)
	if n, _ := lc.increment("p1", time.Minute, 250, now); n != 250 {
		t.Fatalf("first bulk of 250: count %d", n)
	}
	if n, _ := lc.increment("p1", time.Minute, 1, now.Add(time.Second)); n != 251 {
		t.Fatalf("one more request: count %d, want 251", n)
	}
}
