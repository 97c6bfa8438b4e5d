package endusers

import (
	"context"
	"sync"
	"time"

	"github.com/tablesmith/tablesmith/internal/registry"
)

// statusCache remembers, per session, whether the access tokens naming it
// may be used: the session is not revoked and its user exists and is
// active.
//
// Cost per request: a signed token alone cannot learn of a logout, a
// reused refresh token or a disabled account before it expires, so some
// state must be read. Reading it costs two primary-key lookups, about
// 0.22 ms on the development machine (BenchmarkSessionStatusRead), more
// than the whole cached check of a token, about 10 us of JWT checks and a
// map lookup (BenchmarkAccessTokenCheckWhenCached); on every request it
// would roughly double the database work of a simple get. Cached, a
// session pays the lookups once per StatusTTL (5 s) per node.
// Revocations through /auth (logout, refresh-token reuse) take effect at
// once on every node: the revoking node forgets the session directly and
// the others on its "user:<session id>" NOTIFY. A change of is_active
// made by a table write (PATCH /users/1) or directly in the database
// sends no event and takes effect within StatusTTL. A per-user token
// version would need every such write to bump it, which the generic table
// path and outside SQL cannot be relied on to do.
type statusCache struct {
	mu sync.Mutex
	m  map[string]statusEntry
	// gen counts forgets, so that a read that raced with a revocation does
	// not store the state from before it.
	gen uint64
}

type statusEntry struct {
	// user is the user id the verdict was read for: a session belongs to
	// one user, and a token naming another is not served from the cache.
	user    string
	verdict error // nil: usable
	until   time.Time
}

// maxStatusEntries bounds the cache; beyond it, expired entries are swept
// and, if that is not enough, everything is dropped (and read again).
const maxStatusEntries = 100_000

func (c *statusCache) get(sid, user string, now time.Time) (statusEntry, bool) {
	c.mu.Lock()
	defer c.mu.Unlock()
	e, ok := c.m[sid]
	if !ok || e.user != user || !now.Before(e.until) {
		return statusEntry{}, false
	}
	return e, true
}

func (c *statusCache) generation() uint64 {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.gen
}

func (c *statusCache) put(sid, user string, verdict error, now time.Time, ttl time.Duration, gen uint64) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.gen != gen {
		return
	}
	if c.m == nil {
		c.m = map[string]statusEntry{}
	}
	if len(c.m) >= maxStatusEntries {
		c.sweepLocked(now)
		if len(c.m) >= maxStatusEntries {
			c.m = map[string]statusEntry{}
		}
	}
	c.m[sid] = statusEntry{user: user, verdict: verdict, until: now.Add(ttl)}
}

func (c *statusCache) forget(sid string) {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.gen++
	delete(c.m, sid)
}

func (c *statusCache) forgetAll() {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.gen++
	c.m = nil
}

func (c *statusCache) sweep(now time.Time) {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.sweepLocked(now)
}

func (c *statusCache) sweepLocked(now time.Time) {
	for k, e := range c.m {
		if !now.Before(e.until) {
			delete(c.m, k)
		}
	}
}

// checkStatus answers whether a verified token's session and user allow
// the request, from the cache or from the database.
func (a *Auth) checkStatus(ctx context.Context, entry *registry.Entry, sid, userText string, uid any) error {
	now := a.cfg.Now()
	if e, ok := a.status.get(sid, userText, now); ok {
		return e.verdict
	}
	gen := a.status.generation()
	live, err := a.cfg.Store.EndUserSessionLive(ctx, entry.ProjectID, sid, userText)
	if err != nil {
		return err
	}
	var verdict error
	if !live {
		verdict = errSignedOut
	} else {
		exists, active, err := a.userStatus(ctx, a.queriesFor(entry), uid)
		switch {
		case err != nil:
			return err
		case !exists:
			verdict = errUserGone
		case !active:
			verdict = errUserDisabled
		}
	}
	a.status.put(sid, userText, verdict, now, a.cfg.StatusTTL, gen)
	return verdict
}
