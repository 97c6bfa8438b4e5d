package auth

import (
	"context"
	"crypto/rand"
	"crypto/sha256"
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
//
// A prefix that no key has is remembered as unknown too (for UnknownTTL,
// at most MaxUnknown of them), so that a flood of made-up keys costs the
// database one lookup per prefix, not one per request; a key created with
// that prefix drops it (Forget, on every node through events.KeyCreated).
type Keys struct {
	Lookup KeyLookup

	once    sync.Once
	cache   *cache.Cache[*cachedKey] // prefix → key
	unknown *cache.Cache[struct{}]   // prefixes no key had when looked up
	// mu guards used.
	mu   sync.Mutex
	used map[string]time.Time
}

// UnknownTTL is how long a prefix found unknown is answered without
// asking the database again. Creating a key drops its prefix at once on
// every node; the TTL only bounds what a lost or never-sent notification
// (a node of an older version creating the key) could leave behind.
const UnknownTTL = time.Minute

// MaxUnknown bounds the unknown prefixes remembered (~100 bytes each):
// beyond it the expired ones go, then all of them.
const MaxUnknown = 10_000

type cachedKey struct {
	rec KeyRecord
	// unknown marks the stand-in for a prefix no key has.
	unknown bool
	// usedAt is the last use recorded in Keys.used (Unix nanoseconds), 0
	// when none is waiting there.
	usedAt atomic.Int64
}

// unknownKey stands in for a prefix no key has. Its hash is of 32 random
// bytes, which no key of ours is (keys are printable), so a presented key
// is compared with it exactly as a wrong secret is compared with its
// key's hash, and fails.
var unknownKey = func() *cachedKey {
	var b [32]byte
	_, _ = rand.Read(b[:])
	h := sha256.Sum256(b[:])
	return &cachedKey{rec: KeyRecord{Hash: h[:]}, unknown: true}
}()

func (k *Keys) keys() *cache.Cache[*cachedKey] {
	k.once.Do(func() {
		k.cache = cache.New[*cachedKey](cache.Options{})
		k.unknown = cache.New[struct{}](cache.Options{TTL: UnknownTTL, MaxEntries: MaxUnknown})
	})
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
	// Every refusal does the same work: a wrong secret, a revoked key and
	// an unknown prefix (compared with unknownKey's hash) all hash the
	// presented key and compare it in constant time, so the time of a 401
	// does not tell which prefixes exist.
	matches := KeyMatches(key, e.rec.Hash)
	if !matches || e.unknown || e.rec.Revoked {
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

// load reads a key from the control schema, or unknownKey for a prefix
// remembered as unknown. The cache keeps what was read unless a Forget
// came while it was read: a key revoked, or a key with an unknown prefix
// created meanwhile.
func (k *Keys) load(ctx context.Context, prefix string, now time.Time) (*cachedKey, error) {
	keys := k.keys()
	if _, ok := k.unknown.Lookup(prefix, now); ok {
		return unknownKey, nil
	}
	e, err := keys.Load(ctx, prefix, now, func(ctx context.Context) (*cachedKey, error) {
		gen := k.unknown.Generation()
		rec, err := k.Lookup(ctx, prefix)
		if errors.Is(err, ErrUnknownKey) {
			k.unknown.StoreAsOf(prefix, struct{}{}, gen, now)
		}
		if err != nil {
			return nil, err
		}
		return &cachedKey{rec: rec}, nil
	})
	if errors.Is(err, ErrUnknownKey) {
		return unknownKey, nil
	}
	return e, err
}

// Forget drops what is cached of a prefix: a revoked key, or the memory
// that no key had it (a key with it was just created).
func (k *Keys) Forget(prefix string) {
	k.keys().Invalidate(prefix)
	k.unknown.Invalidate(prefix)
}

// ForgetAll drops every cached key and unknown prefix (after a missed
// notification).
func (k *Keys) ForgetAll() {
	k.keys().InvalidateAll()
	k.unknown.InvalidateAll()
}

// Unknown is how many prefixes are remembered as unknown (metrics, tests).
func (k *Keys) Unknown() int {
	k.keys()
	return k.unknown.Len()
}

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
