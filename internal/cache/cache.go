// Package cache is the one load-once, invalidate-on-event cache of the
// service: hits take no lock, concurrent misses of a key share one load,
// and a load that raced with an invalidation is answered but not kept.
package cache

import (
	"context"
	"sync"
	"sync/atomic"
	"time"

	"golang.org/x/sync/singleflight"
)

// Options bound a cache. The zero value keeps entries until invalidated,
// however many there are.
type Options struct {
	// TTL is how long an entry is served after its load; 0: until invalidated.
	TTL time.Duration
	// MaxEntries bounds the cache: a store beyond it first drops expired
	// entries and, if that is not enough, every entry. 0: no bound.
	MaxEntries int
}

// Cache maps string keys to values of type V; safe for concurrent use.
type Cache[V any] struct {
	opts    Options
	entries sync.Map // key → *entry[V]
	group   singleflight.Group

	// mu orders stores with invalidations: gen counts invalidations, and a
	// load that started in an older generation is not stored.
	mu    sync.Mutex
	gen   uint64
	count int // stored entries, for MaxEntries
	// lastGen mirrors gen for loads to read without the lock.
	lastGen atomic.Uint64
}

type entry[V any] struct {
	val V
	// expires is in Unix nanoseconds; 0: never.
	expires int64
}

// New returns an empty cache.
func New[V any](opts Options) *Cache[V] { return &Cache[V]{opts: opts} }

// Lookup returns the value cached for key if it is still fresh at now
// (now matters only with a TTL). It takes no lock.
func (c *Cache[V]) Lookup(key string, now time.Time) (V, bool) {
	if v, ok := c.entries.Load(key); ok {
		e := v.(*entry[V])
		if e.expires == 0 || now.UnixNano() < e.expires {
			return e.val, true
		}
	}
	var zero V
	return zero, false
}

// Load returns key's value: the cached one if a load stored it meanwhile
// (a caller that missed just before another's load finished), else the
// result of load, shared with every concurrent Load of the same key and
// cached when it succeeds, unless the key was invalidated while it ran.
// The load does not stop when ctx ends (others may wait on it); this
// caller stops waiting.
func (c *Cache[V]) Load(ctx context.Context, key string, now time.Time, load func(context.Context) (V, error)) (V, error) {
	ch := c.group.DoChan(key, func() (any, error) {
		gen := c.lastGen.Load()
		if v, ok := c.Lookup(key, now); ok {
			return v, nil
		}
		v, err := load(context.WithoutCancel(ctx))
		if err == nil {
			c.store(key, v, gen, now)
		}
		return v, err
	})
	var zero V
	select {
	case r := <-ch:
		if r.Err != nil {
			return zero, r.Err
		}
		return r.Val.(V), nil
	case <-ctx.Done():
		return zero, ctx.Err()
	}
}

// Store caches v for key as of now, for values a caller computed on its
// own way (no load to share).
func (c *Cache[V]) Store(key string, v V, now time.Time) {
	c.store(key, v, c.lastGen.Load(), now)
}

// Generation counts the invalidations so far. A caller that computes a
// value on its own way reads it before it starts and stores the value
// with StoreAsOf.
func (c *Cache[V]) Generation() uint64 { return c.lastGen.Load() }

// StoreAsOf caches v for key as of now unless an invalidation came after
// gen was read (Generation): what was computed before an invalidation is
// not kept, as with Load.
func (c *Cache[V]) StoreAsOf(key string, v V, gen uint64, now time.Time) {
	c.store(key, v, gen, now)
}

func (c *Cache[V]) store(key string, v V, gen uint64, now time.Time) {
	e := &entry[V]{val: v}
	if c.opts.TTL > 0 {
		e.expires = now.Add(c.opts.TTL).UnixNano()
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.gen != gen {
		return
	}
	if c.opts.MaxEntries > 0 && c.count >= c.opts.MaxEntries {
		c.sweepLocked(now)
		if c.count >= c.opts.MaxEntries {
			c.clearLocked()
		}
	}
	if _, had := c.entries.Swap(key, e); !had {
		c.count++
	}
}

// Invalidate drops key; a load of it already running is not cached, and
// the next Load starts a new one.
func (c *Cache[V]) Invalidate(key string) {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.bumpLocked()
	if _, had := c.entries.LoadAndDelete(key); had {
		c.count--
	}
	c.group.Forget(key)
}

// InvalidateIf drops every entry for which drop is true.
func (c *Cache[V]) InvalidateIf(drop func(key string, v V) bool) {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.bumpLocked()
	c.entries.Range(func(k, v any) bool {
		if drop(k.(string), v.(*entry[V]).val) {
			c.entries.Delete(k)
			c.count--
			c.group.Forget(k.(string))
		}
		return true
	})
}

// InvalidateAll drops every entry (after a missed notification).
func (c *Cache[V]) InvalidateAll() {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.bumpLocked()
	c.clearLocked()
}

// Sweep drops the entries expired at now.
func (c *Cache[V]) Sweep(now time.Time) {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.sweepLocked(now)
}

// Range calls f for every cached value until f returns false.
func (c *Cache[V]) Range(f func(key string, v V) bool) {
	c.entries.Range(func(k, v any) bool { return f(k.(string), v.(*entry[V]).val) })
}

// Len is the number of entries stored.
func (c *Cache[V]) Len() int {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.count
}

func (c *Cache[V]) bumpLocked() {
	c.gen++
	c.lastGen.Store(c.gen)
}

func (c *Cache[V]) clearLocked() {
	c.entries.Clear()
	c.count = 0
}

func (c *Cache[V]) sweepLocked(now time.Time) {
	n := now.UnixNano()
	c.entries.Range(func(k, v any) bool {
		if e := v.(*entry[V]); e.expires != 0 && n >= e.expires {
			c.entries.Delete(k)
			c.count--
		}
		return true
	})
}
