package plans

import (
	"context"
	"errors"
	"fmt"
	"time"

	"github.com/tablesmith/tablesmith/internal/cache"
)

// Owner is the account that owns a project, with the name of its plan.
type Owner struct {
	AccountID int64
	Plan      string
	// SessionGen is the account's session generation (auth.Session):
	// owner sessions issued at an older one are over.
	SessionGen int64
}

// OwnerLookup reads a project's owner from the database.
type OwnerLookup func(ctx context.Context, projectID string) (Owner, error)

// ResolverConfig is what a Resolver is built from.
type ResolverConfig struct {
	// Owner reads a project's account and plan name (cached here).
	Owner OwnerLookup
	// Plans returns the current plans and the default plan; it is called
	// on every resolution, so a config reload applies at once.
	Plans func() (Set, string)
	// TTL bounds how long a cached owner is trusted without hearing of a
	// change (default 5 minutes).
	TTL time.Duration
}

// Resolver answers which plan a project is on: its owner, cached so that
// a request never queries the database for it, and the owner's plan in
// the current plans. The rate limiter, the realtime stream cap and the
// generated API's owner sessions all ask it. Safe for concurrent use.
type Resolver struct {
	owner   OwnerLookup
	plans   func() (Set, string)
	entries *cache.Cache[Owner]
}

// NewResolver builds a resolver; it touches nothing.
func NewResolver(cfg ResolverConfig) (*Resolver, error) {
	if cfg.Owner == nil || cfg.Plans == nil {
		return nil, errors.New("plans: a resolver needs Owner and Plans")
	}
	if cfg.TTL <= 0 {
		cfg.TTL = 5 * time.Minute
	}
	return &Resolver{owner: cfg.Owner, plans: cfg.Plans, entries: cache.New[Owner](cache.Options{TTL: cfg.TTL})}, nil
}

// Owner returns a project's owner and plan at now (the caller's clock
// reading, for the cache's expiry); concurrent misses share one lookup.
// The plan carries the name the account has, also when the plans no
// longer define it and it takes the default plan's limits.
func (r *Resolver) Owner(ctx context.Context, projectID string, now time.Time) (Owner, Plan, error) {
	o, ok := r.entries.Lookup(projectID, now)
	if !ok {
		var err error
		o, err = r.entries.Load(ctx, projectID, now, func(ctx context.Context) (Owner, error) { return r.owner(ctx, projectID) })
		if err != nil {
			return Owner{}, Plan{}, fmt.Errorf("owner of project %s: %w", projectID, err)
		}
	}
	set, def := r.plans()
	p := set.Get(o.Plan, def)
	p.Name = o.Plan
	return o, p, nil
}

// Plan returns a project's plan at now.
func (r *Resolver) Plan(ctx context.Context, projectID string, now time.Time) (Plan, error) {
	_, p, err := r.Owner(ctx, projectID, now)
	return p, err
}

// ForgetAccount drops what is cached about an account's projects, after
// its plan changed (events.PlanChanged).
func (r *Resolver) ForgetAccount(accountID int64) {
	r.entries.InvalidateIf(func(_ string, o Owner) bool { return o.AccountID == accountID })
}

// ForgetAll drops every cached owner (after missed events).
func (r *Resolver) ForgetAll() { r.entries.InvalidateAll() }
