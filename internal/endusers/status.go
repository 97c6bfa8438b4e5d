package endusers

import (
	"context"
	"time"

	"github.com/tablesmith/tablesmith/internal/cache"

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
type statusCache = cache.Cache[statusEntry]

type statusEntry struct {
	// user is the user id the verdict was read for: a session belongs to
	// one user, and a token naming another is refused.
	user    string
	verdict error // nil: usable
}

// maxStatusEntries bounds the cache; beyond it, expired entries are swept
// and, if that is not enough, everything is dropped (and read again).
const maxStatusEntries = 100_000

func newStatusCache(ttl time.Duration) *statusCache {
	return cache.New[statusEntry](cache.Options{TTL: ttl, MaxEntries: maxStatusEntries})
}

// checkStatus answers whether a verified token's session and user allow
// the request, from the cache or from the database.
func (a *Auth) checkStatus(ctx context.Context, entry *registry.Entry, sid, userText string, uid any) error {
	now := a.cfg.Now()
	e, ok := a.status.Lookup(sid, now)
	if !ok {
		var err error
		e, err = a.status.Load(ctx, sid, now, func(ctx context.Context) (statusEntry, error) {
			return a.readStatus(ctx, entry, sid, userText, uid)
		})
		if err != nil {
			return err
		}
	}
	if e.user != userText {
		return errBadAccess
	}
	return e.verdict
}

// readStatus reads from the database whether a session is live and its
// user exists and is active.
func (a *Auth) readStatus(ctx context.Context, entry *registry.Entry, sid, userText string, uid any) (statusEntry, error) {
	live, err := a.cfg.Store.EndUserSessionLive(ctx, entry.ProjectID, sid, userText)
	if err != nil {
		return statusEntry{}, err
	}
	e := statusEntry{user: userText}
	if !live {
		e.verdict = errSignedOut
		return e, nil
	}
	exists, active, err := a.userStatus(ctx, a.queriesFor(entry), uid)
	switch {
	case err != nil:
		return statusEntry{}, err
	case !exists:
		e.verdict = errUserGone
	case !active:
		e.verdict = errUserDisabled
	}
	return e, nil
}
