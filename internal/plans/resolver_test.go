package plans

import (
	"context"
	"errors"
	"sync"
	"sync/atomic"
	"testing"
	"time"
)

// accounts stands in for the database's projects and accounts, counting
// lookups.
type accounts struct {
	mu      sync.Mutex
	owners  map[string]Owner
	lookups atomic.Int64
}

func (a *accounts) set(project string, o Owner) {
	a.mu.Lock()
	defer a.mu.Unlock()
	a.owners[project] = o
}

func (a *accounts) lookup(_ context.Context, project string) (Owner, error) {
	a.lookups.Add(1)
	a.mu.Lock()
	defer a.mu.Unlock()
	o, ok := a.owners[project]
	if !ok {
		return o, errors.New("no such project")
	}
	return o, nil
}

func TestTheResolverLooksAProjectsOwnerUpOnceAndItsPlanUpInTheCurrentPlans(t *testing.T) {
	acc := &accounts{owners: map[string]Owner{"p1": {AccountID: 7, Plan: "pro"}, "p2": {AccountID: 8, Plan: "gone"}}}
	set := Defaults()
	var current atomic.Pointer[Set]
	current.Store(&set)
	r, err := NewResolver(ResolverConfig{Owner: acc.lookup, Plans: func() (Set, string) { return *current.Load(), "free" }})
	if err != nil {
		t.Fatal(err)
	}
	ctx, now := context.Background(), time.Now()
	var wg sync.WaitGroup
	for range 8 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			if p, err := r.Plan(ctx, "p1", now); err != nil || p.Name != "pro" || p.RatePerHour != 100_000 {
				t.Errorf("plan of p1 = %+v, %v", p, err)
			}
		}()
	}
	wg.Wait()
	if n := acc.lookups.Load(); n != 1 {
		t.Fatalf("%d lookups for 8 resolutions of one project, want 1", n)
	}
	// A reload that redefines pro applies at the next resolution.
	changed := Defaults()
	changed["pro"] = Plan{Name: "pro", RatePerHour: 5, Projects: 1, RealtimeStreams: 2}
	current.Store(&changed)
	if p, _ := r.Plan(ctx, "p1", now); p.RatePerHour != 5 || p.RealtimeStreams != 2 {
		t.Fatalf("after the reload: %+v, want the redefined pro plan", p)
	}
	// An account on a plan that no longer exists gets the default's
	// limits under its own plan's name.
	if o, p, err := r.Owner(ctx, "p2", now); err != nil || o.AccountID != 8 || p.Name != "gone" || p.RatePerHour != 100 {
		t.Fatalf("p2: %+v %+v %v, want account 8 with the free plan's limits named gone", o, p, err)
	}
	if _, err := r.Plan(ctx, "p3", now); err == nil || err.Error() != "owner of project p3: no such project" {
		t.Fatalf("a project without an owner: %v", err)
	}
}

func TestTheResolverForgetsOneAccountsProjectsOrAll(t *testing.T) {
	acc := &accounts{owners: map[string]Owner{"p1": {AccountID: 7, Plan: "free"}, "p2": {AccountID: 8, Plan: "free"}}}
	r, err := NewResolver(ResolverConfig{Owner: acc.lookup, Plans: func() (Set, string) { return Defaults(), "free" }})
	if err != nil {
		t.Fatal(err)
	}
	ctx, now := context.Background(), time.Now()
	plan := func(project string) string {
		t.Helper()
		p, err := r.Plan(ctx, project, now)
		if err != nil {
			t.Fatal(err)
		}
		return p.Name
	}
	plan("p1")
	plan("p2")
	acc.set("p1", Owner{AccountID: 7, Plan: "pro"})
	acc.set("p2", Owner{AccountID: 8, Plan: "pro"})
	r.ForgetAccount(7)
	if got1, got2 := plan("p1"), plan("p2"); got1 != "pro" || got2 != "free" {
		t.Fatalf("after forgetting account 7: p1 %s, p2 %s; want pro and the cached free", got1, got2)
	}
	r.ForgetAll()
	if got := plan("p2"); got != "pro" {
		t.Fatalf("after forgetting all: p2 %s, want pro", got)
	}
	if n := acc.lookups.Load(); n != 4 {
		t.Fatalf("%d lookups, want 4 (two first, one per forgotten entry)", n)
	}
}

func TestAResolverNeedsItsOwnerLookupAndPlans(t *testing.T) {
	if _, err := NewResolver(ResolverConfig{Plans: func() (Set, string) { return Defaults(), "free" }}); err == nil {
		t.Fatal("a resolver without an owner lookup was built")
	}
}
