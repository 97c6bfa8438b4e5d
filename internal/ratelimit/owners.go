package ratelimit

import (
	"context"
	"strconv"
	"sync"
	"time"
)

// Owner is the account that owns a project, with the name of its plan.
type Owner struct {
	AccountID int64
	Plan      string
}

// OwnerLookup reads a project's owner from the database.
type OwnerLookup func(ctx context.Context, projectID string) (Owner, error)

// owners caches project → owner so that a request never queries the
// database for its plan. An entry is dropped when its account's plan
// changes (the "plan:<account id>" event), and refreshed after ttl in case
// an event was missed.
type owners struct {
	lookup OwnerLookup
	ttl    time.Duration

	// entries (project id → *ownerEntry) is read without a lock on every
	// request; mu orders its writes with gen and loading.
	entries sync.Map
	mu      sync.Mutex
	loading map[string]*ownerCall
	gen     uint64 // bumped by every invalidation; an older load is not cached
}

type ownerEntry struct {
	owner   Owner
	expires time.Time
}

type ownerCall struct {
	done  chan struct{}
	owner Owner
	err   error
}

func newOwners(lookup OwnerLookup, ttl time.Duration) *owners {
	return &owners{lookup: lookup, ttl: ttl, loading: map[string]*ownerCall{}}
}

// get returns the project's owner at now; concurrent misses share one
// lookup.
func (o *owners) get(ctx context.Context, projectID string, now time.Time) (Owner, error) {
	if v, ok := o.entries.Load(projectID); ok {
		if e := v.(*ownerEntry); now.Before(e.expires) {
			return e.owner, nil
		}
	}
	o.mu.Lock()
	if c, ok := o.loading[projectID]; ok {
		o.mu.Unlock()
		select {
		case <-c.done:
			return c.owner, c.err
		case <-ctx.Done():
			return Owner{}, ctx.Err()
		}
	}
	c := &ownerCall{done: make(chan struct{})}
	o.loading[projectID] = c
	gen := o.gen
	o.mu.Unlock()

	// Other callers wait on this lookup: the first caller's cancellation
	// must not fail theirs.
	c.owner, c.err = o.lookup(context.WithoutCancel(ctx), projectID)
	o.mu.Lock()
	delete(o.loading, projectID)
	if c.err == nil && o.gen == gen {
		o.entries.Store(projectID, &ownerEntry{owner: c.owner, expires: now.Add(o.ttl)})
	}
	o.mu.Unlock()
	close(c.done)
	return c.owner, c.err
}

// forgetAccount drops the entries of one account's projects.
func (o *owners) forgetAccount(accountID int64) {
	o.mu.Lock()
	defer o.mu.Unlock()
	o.gen++
	o.entries.Range(func(id, v any) bool {
		if v.(*ownerEntry).owner.AccountID == accountID {
			o.entries.Delete(id)
		}
		return true
	})
}

// forgetAll drops every entry.
func (o *owners) forgetAll() {
	o.mu.Lock()
	defer o.mu.Unlock()
	o.gen++
	o.entries.Clear()
}

// PlanEvent is the payload, on the tablesmith_events channel, that tells
// every node an account's plan changed.
func PlanEvent(accountID int64) string { return "plan:" + strconv.FormatInt(accountID, 10) }
