package auth

import (
	"context"
	"errors"
	"sync"
	"sync/atomic"
	"time"

	"github.com/tablesmith/tablesmith/internal/cache"
)

// Key scopes.
const (
	ScopeRead      = "read"
	ScopeReadWrite = "read_write"
)

// KeyRecord is what verifying an API key needs to know of it.
type KeyRecord struct {
	ID, ProjectID, Scope, Prefix string
	Hash                         []byte
	Revoked                      bool
}

// ErrUnknownKey is returned by a KeyLookup for a prefix it does not know.
var ErrUnknownKey = errors.New("unknown key")

// KeyLookup finds a key by prefix in the control schema.
type KeyLookup func(ctx context.Context, prefix string) (KeyRecord, error)

// Keys verifies API keys, caching what it looked up so a request costs no
// database round trip; Forget drops a revoked key (called on this node by
// the revoke, on others from LISTEN/NOTIFY). A verification takes no lock:
// the cache's hits are lock-free, and a key's last use is recorded at most
// once a second.
type Keys struct {
	Lookup KeyLookup

	once  sync.Once
	cache *cache.Cache[*cachedKey] // prefix → key
	// mu guards used.
	mu   sync.Mutex
	used map[string]time.Time
}

type cachedKey struct {
	rec KeyRecord
	// usedAt is the last use recorded in Keys.used (Unix nanoseconds), 0
	// when none is waiting there.
	usedAt atomic.Int64
}

func (k *Keys) keys() *cache.Cache[*cachedKey] {
	k.once.Do(func() { k.cache = cache.New[*cachedKey](cache.Options{}) })
	return k.cache
}

// Verify returns the record of a valid, unrevoked key, for a request that
// arrived at now (the key's last use): the caller's clock reading, since
// on a request this cheap every reading of the clock shows.
func (k *Keys) Verify(ctx context.Context, key string, now time.Time) (KeyRecord, error) {
	if !LooksLikeAPIKey(key) {
		return KeyRecord{}, ErrInvalidToken
	}
	prefix := KeyPrefix(key)
	e, ok := k.keys().Lookup(prefix, now)
	if !ok {
		var err error
		if e, err = k.load(ctx, prefix, now); err != nil {
			return KeyRecord{}, err
		}
	}
	if e.rec.Revoked || !KeyMatches(key, e.rec.Hash) {
		return KeyRecord{}, ErrInvalidToken
	}
	// Last use is kept to the second: a busy key takes the lock once a
	// second, not on every request.
	if now.UnixNano()-e.usedAt.Load() >= int64(time.Second) {
		k.mu.Lock()
		if k.used == nil {
			k.used = map[string]time.Time{}
		}
		k.used[prefix] = now
		e.usedAt.Store(now.UnixNano())
		k.mu.Unlock()
	}
	return e.rec, nil
}

// load reads a key from the control schema; the cache keeps it unless a
// Forget came while it was read.
func (k *Keys) load(ctx context.Context, prefix string, now time.Time) (*cachedKey, error) {
	e, err := k.keys().Load(ctx, prefix, now, func(ctx context.Context) (*cachedKey, error) {
		rec, err := k.Lookup(ctx, prefix)
		if err != nil {
			return nil, err
		}
		return &cachedKey{rec: rec}, nil
	})
	if errors.Is(err, ErrUnknownKey) {
		return nil, ErrInvalidToken
	}
	return e, err
}

// Forget drops a cached key.
func (k *Keys) Forget(prefix string) { k.keys().Invalidate(prefix) }

// ForgetAll drops every cached key (after a missed notification).
func (k *Keys) ForgetAll() { k.keys().InvalidateAll() }

// TakeUsed returns and clears the last-use times gathered since the last
// call, for a background writer; each key's next use is recorded at once.
func (k *Keys) TakeUsed() map[string]time.Time {
	k.mu.Lock()
	u := k.used
	k.used = nil
	k.keys().Range(func(_ string, e *cachedKey) bool {
		e.usedAt.Store(0)
		return true
	})
	k.mu.Unlock()
	return u
}
