package cache

import (
	"context"
	"errors"
	"sync"
	"sync/atomic"
	"testing"
	"time"
)

var t0 = time.Date(2026, 11, 23, 12, 0, 0, 0, time.UTC)

func TestConcurrentMissesOfAKeyShareOneLoad(t *testing.T) {
	c := New[string](Options{})
	var loads atomic.Int32
	release := make(chan struct{})
	load := func(context.Context) (string, error) {
		loads.Add(1)
		<-release
		return "v", nil
	}
	var wg sync.WaitGroup
	for range 20 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			if v, err := c.Load(context.Background(), "k", t0, load); v != "v" || err != nil {
				t.Errorf("Load = %q, %v", v, err)
			}
		}()
	}
	time.Sleep(20 * time.Millisecond) // let the callers pile up on the one load
	close(release)
	wg.Wait()
	if n := loads.Load(); n != 1 {
		t.Errorf("%d loads for 20 concurrent misses, want 1", n)
	}
	if v, ok := c.Lookup("k", t0); !ok || v != "v" {
		t.Errorf("Lookup after the load = %q, %v", v, ok)
	}
}

func TestACallerThatMissedJustBeforeALoadFinishedDoesNotLoadAgain(t *testing.T) {
	c := New[string](Options{})
	loads := 0
	load := func(context.Context) (string, error) { loads++; return "v", nil }
	// Both callers missed in Lookup; the first load finished before the
	// second caller reached Load.
	for range 2 {
		if v, err := c.Load(context.Background(), "k", t0, load); v != "v" || err != nil {
			t.Fatalf("Load = %q, %v", v, err)
		}
	}
	if loads != 1 {
		t.Errorf("%d loads, want 1: the second Load should find the stored value", loads)
	}
	c.Invalidate("k")
	if _, err := c.Load(context.Background(), "k", t0, load); err != nil || loads != 2 {
		t.Errorf("after Invalidate: %d loads (%v), want a new load", loads, err)
	}
}

func TestALoadThatRacedWithAnInvalidationIsAnsweredButNotKept(t *testing.T) {
	c := New[int](Options{})
	started, finish := make(chan struct{}), make(chan struct{})
	done := make(chan int)
	go func() {
		v, _ := c.Load(context.Background(), "k", t0, func(context.Context) (int, error) {
			close(started)
			<-finish
			return 1, nil // read before the invalidation: stale
		})
		done <- v
	}()
	<-started
	c.Invalidate("k")
	// A caller after the invalidation does not join the stale load.
	fresh, err := c.Load(context.Background(), "k", t0, func(context.Context) (int, error) { return 2, nil })
	if fresh != 2 || err != nil {
		t.Errorf("Load after Invalidate = %d, %v; want a new load's 2", fresh, err)
	}
	close(finish)
	if v := <-done; v != 1 {
		t.Errorf("the racing caller got %d, want its own load's 1", v)
	}
	if v, ok := c.Lookup("k", t0); !ok || v != 2 {
		t.Errorf("cached %d, %v; want the fresh 2", v, ok)
	}
}

func TestFailedLoadsAreNotCached(t *testing.T) {
	c := New[int](Options{})
	boom := errors.New("boom")
	if _, err := c.Load(context.Background(), "k", t0, func(context.Context) (int, error) { return 0, boom }); !errors.Is(err, boom) {
		t.Fatalf("err = %v", err)
	}
	if _, ok := c.Lookup("k", t0); ok {
		t.Error("a failed load was cached")
	}
}

func TestEntriesExpireAfterTheTTL(t *testing.T) {
	c := New[int](Options{TTL: time.Second})
	mustLoad(t, c, "k", t0, 1)
	if _, ok := c.Lookup("k", t0.Add(999*time.Millisecond)); !ok {
		t.Error("entry gone before its TTL")
	}
	if _, ok := c.Lookup("k", t0.Add(time.Second)); ok {
		t.Error("entry served at its TTL")
	}
	c.Sweep(t0.Add(time.Second))
	if n := c.Len(); n != 0 {
		t.Errorf("%d entries after the sweep, want 0", n)
	}
}

func TestInvalidateIfDropsOnlyMatchingEntries(t *testing.T) {
	c := New[int](Options{})
	for i, k := range []string{"a", "b", "c"} {
		mustLoad(t, c, k, t0, i)
	}
	c.InvalidateIf(func(_ string, v int) bool { return v == 1 })
	_, a := c.Lookup("a", t0)
	_, b := c.Lookup("b", t0)
	if !a || b || c.Len() != 2 {
		t.Errorf("after dropping value 1: a kept %v, b kept %v, len %d", a, b, c.Len())
	}
	c.InvalidateAll()
	if c.Len() != 0 {
		t.Errorf("len %d after InvalidateAll", c.Len())
	}
}

func TestACacheAtItsBoundDropsExpiredEntriesFirst(t *testing.T) {
	c := New[int](Options{TTL: time.Minute, MaxEntries: 2})
	put := func(k string, at time.Time) { mustLoad(t, c, k, at, 0) }
	put("old", t0)
	put("new", t0.Add(50*time.Second))
	put("third", t0.Add(70*time.Second)) // "old" has expired: only it goes
	if _, ok := c.Lookup("new", t0.Add(70*time.Second)); !ok || c.Len() != 2 {
		t.Errorf("len %d, new kept %v; want the expired entry swept and the live one kept", c.Len(), ok)
	}
	put("fourth", t0.Add(71*time.Second)) // nothing expired: everything goes
	if c.Len() != 1 {
		t.Errorf("len %d after a store past the bound with nothing expired, want 1", c.Len())
	}
}

func TestAWaiterStopsWaitingWhenItsContextEnds(t *testing.T) {
	c := New[int](Options{})
	release := make(chan struct{})
	defer close(release)
	go func() {
		_, _ = c.Load(context.Background(), "k", t0, func(context.Context) (int, error) { <-release; return 1, nil })
	}()
	time.Sleep(10 * time.Millisecond)
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	if _, err := c.Load(ctx, "k", t0, func(context.Context) (int, error) { return 2, nil }); !errors.Is(err, context.Canceled) {
		t.Errorf("err = %v, want context.Canceled", err)
	}
}

// mustLoad caches v for key through a load that succeeds.
func mustLoad(t *testing.T, c *Cache[int], key string, now time.Time, v int) {
	t.Helper()
	if _, err := c.Load(context.Background(), key, now, func(context.Context) (int, error) { return v, nil }); err != nil {
		t.Fatal(err)
	}
}

func TestAValueComputedBeforeAnInvalidationIsNotStoredAsOfItsGeneration(t *testing.T) {
	c := New[string](Options{})
	gen := c.Generation()
	c.Invalidate("other") // any invalidation: the generation is the cache's
	c.StoreAsOf("k", "stale", gen, t0)
	if v, ok := c.Lookup("k", t0); ok {
		t.Fatalf("a value computed before an invalidation was kept: %q", v)
	}
	c.StoreAsOf("k", "fresh", c.Generation(), t0)
	if v, ok := c.Lookup("k", t0); !ok || v != "fresh" {
		t.Fatalf("Lookup = %q, %v; want the value stored as of the current generation", v, ok)
	}
}
