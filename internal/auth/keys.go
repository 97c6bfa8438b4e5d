package auth

import (
	"context"
	"errors"
	"sync"
	"time"
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
// the revoke, on others from LISTEN/NOTIFY).
type Keys struct {
	Lookup KeyLookup
	Now    func() time.Time
	mu     sync.RWMutex
	cache  map[string]KeyRecord
	used   map[string]time.Time
}

// Verify returns the record of a valid, unrevoked key.
func (k *Keys) Verify(ctx context.Context, key string) (KeyRecord, error) {
	if !LooksLikeAPIKey(key) {
		return KeyRecord{}, ErrInvalidToken
	}
	prefix := KeyPrefix(key)
	k.mu.RLock()
	rec, ok := k.cache[prefix]
	lastUse, seen := k.used[prefix]
	k.mu.RUnlock()
	if !ok {
		var err error
		rec, err = k.Lookup(ctx, prefix)
		if errors.Is(err, ErrUnknownKey) {
			return KeyRecord{}, ErrInvalidToken
		}
		if err != nil {
			return KeyRecord{}, err
		}
		k.mu.Lock()
		if k.cache == nil {
			k.cache = map[string]KeyRecord{}
		}
		k.cache[prefix] = rec
		k.mu.Unlock()
	}
	if rec.Revoked || !KeyMatches(key, rec.Hash) {
		return KeyRecord{}, ErrInvalidToken
	}
	// Last use is kept to the second: a busy key takes the exclusive lock
	// once a second, not on every request.
	if now := k.Now(); !seen || now.Sub(lastUse) >= time.Second {
		k.mu.Lock()
		if k.used == nil {
			k.used = map[string]time.Time{}
		}
		k.used[prefix] = now
		k.mu.Unlock()
	}
	return rec, nil
}

// Forget drops a cached key.
func (k *Keys) Forget(prefix string) {
	k.mu.Lock()
	delete(k.cache, prefix)
	k.mu.Unlock()
}

// ForgetAll drops every cached key (after a missed notification).
func (k *Keys) ForgetAll() {
	k.mu.Lock()
	k.cache = nil
	k.mu.Unlock()
}

// TakeUsed returns and clears the last-use times gathered since the last
// call, for a background writer.
func (k *Keys) TakeUsed() map[string]time.Time {
	k.mu.Lock()
	u := k.used
	k.used = nil
	k.mu.Unlock()
	return u
}
