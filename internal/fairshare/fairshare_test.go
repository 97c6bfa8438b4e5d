package fairshare

import (
	"context"
	"errors"
	"sync"
	"sync/atomic"
	"testing"
	"time"
)

func TestAProjectRunsAtMostLimitStatementsAndOthersStillPass(t *testing.T) {
	g := New(2, 0, 50*time.Millisecond)
	ctx := context.Background()
	a1, err1 := g.Acquire(ctx, "a", time.Now())
	a2, err2 := g.Acquire(ctx, "a", time.Now())
	if err1 != nil || err2 != nil {
		t.Fatal(err1, err2)
	}
	if _, err := g.Acquire(ctx, "a", time.Now()); !errors.Is(err, ErrBusy) {
		t.Fatalf("third statement of a: %v, want ErrBusy", err)
	}
	if n := g.Rejected(); n != 1 {
		t.Fatalf("Rejected() = %d after one ErrBusy", n)
	}
	b, err := g.Acquire(ctx, "b", time.Now())
	if err != nil {
		t.Fatalf("project b waited on a's slots: %v", err)
	}
	b.Release()
	a1.Release()
	a3, err := g.Acquire(ctx, "a", time.Now())
	if err != nil {
		t.Fatalf("a released a slot but the next statement did not get it: %v", err)
	}
	a2.Release()
	a3.Release()
	if n := g.Running("a"); n != 0 {
		t.Fatalf("running after every release: %d", n)
	}
}

func TestAWaiterGetsTheSlotReleasedDuringItsWait(t *testing.T) {
	g := New(1, 0, 5*time.Second)
	s, _ := g.Acquire(context.Background(), "a", time.Now())
	go func() {
		time.Sleep(20 * time.Millisecond)
		s.Release()
	}()
	got, err := g.Acquire(context.Background(), "a", time.Now())
	if err != nil {
		t.Fatalf("waiter: %v", err)
	}
	got.Release()
}

func TestAWaiterGivesUpAtItsDeadlineWhenThatComesBeforeTheWait(t *testing.T) {
	g := New(1, 0, time.Minute)
	s, _ := g.Acquire(context.Background(), "a", time.Now())
	defer s.Release()
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Millisecond)
	defer cancel()
	start := time.Now()
	if _, err := g.Acquire(ctx, "a", time.Now()); !errors.Is(err, ErrBusy) {
		t.Fatalf("got %v, want ErrBusy", err)
	}
	if d := time.Since(start); d > 10*time.Second {
		t.Fatalf("waited %v, past the request's deadline", d)
	}
	gone, cancelGone := context.WithCancel(context.Background())
	cancelGone()
	if _, err := g.Acquire(gone, "a", time.Now()); !errors.Is(err, context.Canceled) {
		t.Fatalf("a cancelled request got %v, want context.Canceled", err)
	}
}

// hammer runs goroutines × rounds statements of hold each on project "a"
// and returns how many ran at once at most. ctxFor gives statement j of
// goroutine i its context; without it every statement must get a slot.
func hammer(t *testing.T, g *Gate, goroutines, rounds int, hold time.Duration, ctxFor func(i, j int) (context.Context, context.CancelFunc)) int64 {
	var running, most atomic.Int64
	var wg sync.WaitGroup
	for i := range goroutines {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for j := range rounds {
				ctx, cancel := context.Background(), context.CancelFunc(func() {})
				if ctxFor != nil {
					ctx, cancel = ctxFor(i, j)
				}
				s, err := g.Acquire(ctx, "a", time.Now())
				cancel()
				if err != nil {
					if ctxFor == nil {
						t.Error(err)
						return
					}
					continue
				}
				n := running.Add(1)
				for m := most.Load(); n > m && !most.CompareAndSwap(m, n); m = most.Load() {
				}
				time.Sleep(hold)
				running.Add(-1)
				s.Release()
			}
		}()
	}
	wg.Wait()
	return most.Load()
}

func TestManyWaitersNeverExceedTheLimitAndAllGetTheirTurn(t *testing.T) {
	g := New(3, 0, time.Minute)
	if m := hammer(t, g, 64, 50, 10*time.Microsecond, nil); m > 3 {
		t.Fatalf("%d statements ran at once, limit 3", m)
	}
	if n := g.Running("a"); n != 0 {
		t.Fatalf("running after every release: %d", n)
	}
}

func TestANilGateLetsEveryStatementPass(t *testing.T) {
	g := New(0, 0, 0)
	if g != nil {
		t.Fatal("a limit of 0 should turn the gate off")
	}
	s, err := g.Acquire(context.Background(), "a", time.Now())
	if err != nil {
		t.Fatal(err)
	}
	s.Release()
}

func TestDefaultLimitIsAQuarterOfThePoolAndAtLeastOne(t *testing.T) {
	for pool, want := range map[int]int{1: 1, 3: 1, 4: 1, 8: 2, 20: 5} {
		if got := DefaultLimit(pool); got != want {
			t.Errorf("DefaultLimit(%d) = %d, want %d", pool, got, want)
		}
	}
}

// BenchmarkAcquireRelease is the gate's cost on every statement when the
// project has a free slot.
func BenchmarkAcquireRelease(b *testing.B) {
	g := New(5, 0, 0)
	ctx := context.Background()
	now := time.Now()
	b.ReportAllocs()
	for b.Loop() {
		s, err := g.Acquire(ctx, "p1234567", now)
		if err != nil {
			b.Fatal(err)
		}
		s.Release()
	}
}

// BenchmarkAcquireReleaseParallel is the same with every core taking and
// releasing slots of 64 projects.
func BenchmarkAcquireReleaseParallel(b *testing.B) {
	g := New(1<<20, 0, 0)
	ctx := context.Background()
	now := time.Now()
	projects := make([]string, 64)
	for i := range projects {
		projects[i] = "project" + string(rune('A'+i))
	}
	b.ReportAllocs()
	b.RunParallel(func(pb *testing.PB) {
		i := 0
		for pb.Next() {
			s, err := g.Acquire(ctx, projects[i%len(projects)], now)
			if err != nil {
				b.Fatal(err)
			}
			s.Release()
			i++
		}
	})
}

// A project alone with quick statements runs beyond its share on idle
// connections, up to the pool minus one share; one whose statements in
// flight are old (slow) stays within its share; and another project
// always finds its own share.
func TestQuickProjectsBorrowIdleConnectionsAndSlowOnesDoNot(t *testing.T) {
	g := New(2, 8, 20*time.Millisecond)
	ctx := context.Background()
	now := time.Now()
	var quick []Slot
	for i := range 6 {
		s, err := g.Acquire(ctx, "a", now)
		if err != nil {
			t.Fatalf("quick statement %d of a: %v, want it to borrow", i+1, err)
		}
		quick = append(quick, s)
	}
	if _, err := g.Acquire(ctx, "a", now); !errors.Is(err, ErrBusy) {
		t.Fatalf("a's 7th statement: %v, want ErrBusy (one share stays free)", err)
	}
	for i := range 2 {
		s, err := g.Acquire(ctx, "b", now)
		if err != nil {
			t.Fatalf("b's statement %d within its share: %v", i+1, err)
		}
		defer s.Release()
	}
	for _, s := range quick {
		s.Release()
	}
	if g.total.Load() != 2 || g.Running("a") != 0 {
		t.Fatalf("after a's releases: total %d, a running %d", g.total.Load(), g.Running("a"))
	}

	// a's two statements have been running for a second: slow.
	s1, _ := g.Acquire(ctx, "a", now)
	s2, _ := g.Acquire(ctx, "a", now)
	now = now.Add(time.Second)
	if _, err := g.Acquire(ctx, "a", now); !errors.Is(err, ErrBusy) {
		t.Fatalf("a with slow statements in flight: %v, want ErrBusy (no borrowing)", err)
	}
	s1.Release()
	s2.Release()
	// Quick again once they are done.
	s3, err := g.Acquire(ctx, "a", now)
	if err != nil {
		t.Fatal(err)
	}
	s4, _ := g.Acquire(ctx, "a", now)
	if s5, err := g.Acquire(ctx, "a", now); err != nil {
		t.Fatalf("a's quick 3rd statement after the slow ones ended: %v", err)
	} else {
		s5.Release()
	}
	s3.Release()
	s4.Release()
}

func TestAGateWithoutAPoolNeverBorrows(t *testing.T) {
	g := New(1, 0, 10*time.Millisecond)
	s, _ := g.Acquire(context.Background(), "a", time.Now())
	defer s.Release()
	if _, err := g.Acquire(context.Background(), "a", time.Now()); !errors.Is(err, ErrBusy) {
		t.Fatalf("second statement: %v, want ErrBusy", err)
	}
}

func waitForWaiters(t *testing.T, g *Gate, project string, n int64) {
	t.Helper()
	s := g.sem(project)
	for deadline := time.Now().Add(5 * time.Second); s.waiting.Load() < n; {
		if time.Now().After(deadline) {
			t.Fatalf("%d waiters, want %d", s.waiting.Load(), n)
		}
		time.Sleep(time.Millisecond)
	}
}

func TestANewcomerDoesNotTakeTheSlotFreedForAWaiter(t *testing.T) {
	for range 20 {
		g := New(1, 0, time.Minute)
		held, err := g.Acquire(context.Background(), "a", time.Now())
		if err != nil {
			t.Fatal(err)
		}
		waiter := make(chan Slot)
		acquireInBackground(t, g, "a", waiter)
		waitForWaiters(t, g, "a", 1)
		held.Release()
		// Straight after the release, before the waiter has run: the
		// newcomer must queue behind it.
		ctx, cancel := context.WithTimeout(context.Background(), 20*time.Millisecond)
		s, err := g.Acquire(ctx, "a", time.Now())
		cancel()
		if err == nil {
			s.Release()
			t.Fatal("a newcomer took the slot a waiter was woken for")
		}
		(<-waiter).Release()
	}
}

func TestTwoReleasesInARowWakeTwoWaitersForBorrowedSlots(t *testing.T) {
	g := New(1, 4, time.Minute) // a share of 1; up to 3 at once while quick
	var held []Slot
	for range 3 {
		s, err := g.Acquire(context.Background(), "a", time.Now())
		if err != nil {
			t.Fatal(err)
		}
		held = append(held, s)
	}
	got := make(chan Slot, 2)
	for range 2 {
		acquireInBackground(t, g, "a", got)
	}
	waitForWaiters(t, g, "a", 2)
	held[1].Release()
	held[2].Release()
	for range 2 {
		select {
		case s := <-got:
			defer s.Release()
		case <-time.After(5 * time.Second):
			t.Fatal("a waiter stayed waiting while a borrowed slot was free")
		}
	}
	held[0].Release()
}

func TestWaitersThatGiveUpNeverLoseOrLeakASlot(t *testing.T) {
	g := New(2, 6, 2*time.Millisecond) // short waits: many give up as slots are handed over
	most := hammer(t, g, 32, 200, 50*time.Microsecond, func(i, j int) (context.Context, context.CancelFunc) {
		ctx, cancel := context.WithCancel(context.Background())
		if (i+j)%7 == 0 {
			go cancel() // a client that leaves while it waits
		}
		return ctx, cancel
	})
	if most > 6 {
		t.Fatalf("%d statements ran at once, at most 6 (share and borrowing)", most)
	}
	s := g.sem("a")
	if n := g.Running("a"); n != 0 || s.waiting.Load() != 0 || len(s.queue) != 0 {
		t.Fatalf("after every release: %d running, %d waiting, queue %d", n, s.waiting.Load(), len(s.queue))
	}
	if g.total.Load() != 0 {
		t.Fatalf("the pool's count is %d after every release", g.total.Load())
	}
	// The gate still works: every slot can be taken again.
	for range 2 {
		if _, err := g.Acquire(context.Background(), "a", time.Now()); err != nil {
			t.Fatal(err)
		}
	}
}

// acquireInBackground acquires a slot of project in a goroutine of its
// own and sends it to out once it has one.
func acquireInBackground(t *testing.T, g *Gate, project string, out chan<- Slot) {
	go func() {
		s, err := g.Acquire(context.Background(), project, time.Now())
		if err != nil {
			t.Error(err)
		}
		out <- s
	}()
}

func TestAcquireUntilWaitsPastTheGatesWaitAndEndsWithItsContext(t *testing.T) {
	g := New(1, 0, 20*time.Millisecond)
	s, _ := g.Acquire(context.Background(), "a", time.Now())
	go func() {
		time.Sleep(200 * time.Millisecond) // ten times the gate's wait
		s.Release()
	}()
	got, err := g.AcquireUntil(context.Background(), "a", time.Now())
	if err != nil {
		t.Fatalf("AcquireUntil gave up before its context did: %v", err)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 50*time.Millisecond)
	defer cancel()
	if _, err := g.AcquireUntil(ctx, "a", time.Now()); !errors.Is(err, context.DeadlineExceeded) {
		t.Fatalf("AcquireUntil past its context's deadline: %v, want the context's error", err)
	}
	if n := g.Rejected(); n != 0 {
		t.Errorf("Rejected() = %d: waiting until a context ends is not a rejection", n)
	}
	got.Release()
}

func TestHoldsAreBoundedPerProjectAndPerNodeAndCountAgainstBorrowing(t *testing.T) {
	// A share of 4 of a pool of 16: a project holds at most 2, the node 4.
	g := New(4, 16, 20*time.Millisecond)
	if p, n := g.HoldLimits(); p != 2 || n != 4 {
		t.Fatalf("HoldLimits() = %d, %d; want 2, 4", p, n)
	}
	ctx := context.Background()
	var held []Hold
	for _, project := range []string{"a", "a", "b", "b"} {
		h, err := g.Hold(ctx, project, time.Now())
		if err != nil {
			t.Fatalf("hold of %s: %v", project, err)
		}
		held = append(held, h)
	}
	if _, err := g.Hold(ctx, "a", time.Now()); !errors.Is(err, ErrBusy) {
		t.Errorf("a third hold of a: %v, want ErrBusy", err)
	}
	if _, err := g.Hold(ctx, "c", time.Now()); !errors.Is(err, ErrNodeBusy) {
		t.Errorf("a fifth hold on the node: %v, want ErrNodeBusy", err)
	}
	// A quick project alone may run up to the pool minus one share (12);
	// the four held connections count among them.
	var slots []Slot
	for {
		s, err := g.Acquire(ctx, "d", time.Now())
		if err != nil {
			break
		}
		slots = append(slots, s)
	}
	if len(slots) != 8 {
		t.Errorf("a quick project beside 4 holds ran %d statements, want 12 - 4 = 8", len(slots))
	}
	for _, s := range slots {
		s.Release()
	}
	for _, h := range held {
		h.Release()
	}
	if h, err := g.Hold(ctx, "c", time.Now()); err != nil {
		t.Errorf("a hold after every release: %v", err)
	} else {
		h.Release()
	}
	var none *Gate
	none.Hold(ctx, "a", time.Now()) //nolint:errcheck // a nil gate holds nothing
}

func TestOthersStartedCountsOtherProjectsStatementsOnly(t *testing.T) {
	g := New(2, 0, time.Second)
	ctx := context.Background()
	run := func(project string) {
		s, err := g.Acquire(ctx, project, time.Now())
		if err != nil {
			t.Fatal(err)
		}
		s.Release()
	}
	before := g.OthersStarted("a")
	run("a")
	run("a")
	if n := g.OthersStarted("a"); n != before {
		t.Fatalf("a's own statements moved its count of others from %d to %d", before, n)
	}
	run("b")
	s, err := g.AcquireUntil(ctx, "c", time.Now()) // long work's statements count too
	if err != nil {
		t.Fatal(err)
	}
	s.Release()
	if n := g.OthersStarted("a") - before; n != 2 {
		t.Fatalf("others started %d statements beside a, want b's and c's 2", n)
	}
	if n := g.OthersStarted("b"); n != 3 {
		t.Fatalf("beside b: %d, want a's two and c's one", n)
	}
	var off *Gate
	if off.OthersStarted("a") != 0 {
		t.Fatal("a nil gate counts statements")
	}
}
