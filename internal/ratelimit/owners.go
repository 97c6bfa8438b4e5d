package ratelimit

import (
	"context"
	"time"

	"github.com/tablesmith/tablesmith/internal/cache"
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
// changes (events.PlanChanged), and refreshed after its TTL in
// case an event was missed.
type owners struct {
	lookup  OwnerLookup
	entries *cache.Cache[Owner]
}

func newOwners(lookup OwnerLookup, ttl time.Duration) *owners {
	return &owners{lookup: lookup, entries: cache.New[Owner](cache.Options{TTL: ttl})}
}

// get returns the project's owner at now; concurrent misses share one
// lookup.
func (o *owners) get(ctx context.Context, projectID string, now time.Time) (Owner, error) {
	if ow, ok := o.entries.Lookup(projectID, now); ok {
		return ow, nil
	}
	return o.entries.Load(ctx, projectID, now, func(ctx context.Context) (Owner, error) {
		return o.lookup(ctx, projectID)
	})
}

// forgetAccount drops the entries of one account's projects.
func (o *owners) forgetAccount(accountID int64) {
	o.entries.InvalidateIf(func(_ string, ow Owner) bool { return ow.AccountID == accountID })
}

// forgetAll drops every entry.
func (o *owners) forgetAll() { o.entries.InvalidateAll() }
