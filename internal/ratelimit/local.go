package ratelimit

import (
	"sync"
	"sync/atomic"
	"time"
)

// localCounts are the fixed windows counted on this node: per key, a
// window that starts with its first request and lasts one period, as in
// ulule's memory store. A request costs one sync.Map load and one atomic
// add: ulule's store takes a mutex per key and reads the clock twice,
// which on GET by id was most of the limiter's time (bench/RESULTS.md).
type localCounts struct {
	counters sync.Map // key → *localCounter
}

// localCounter holds the current window of one key. A new window
// replaces the pointer, so a count and its expiry always change together.
type localCounter struct {
	window atomic.Pointer[localWindow]
}

type localWindow struct {
	expires int64 // Unix nanoseconds; the window counts until then
	count   atomic.Int64
}

// swept marks a counter that the sweeper has removed from the map; a
// request that still holds it goes back to the map for a fresh one.
var swept = &localWindow{}

// increment counts n requests of key at now and returns the window's
// count and end.
func (lc *localCounts) increment(key string, period time.Duration, n int64, now time.Time) (int64, time.Time) {
	at := now.UnixNano()
	for {
		c := lc.counter(key)
		w := c.window.Load()
		if w == swept {
			continue
		}
		if w != nil && at <= w.expires {
			return w.count.Add(n), time.Unix(0, w.expires)
		}
		fresh := &localWindow{expires: at + int64(period)}
		fresh.count.Store(n)
		if c.window.CompareAndSwap(w, fresh) {
			return n, time.Unix(0, fresh.expires)
		}
		// Another request started the window first: count in it.
	}
}

// get returns key's count and window end at now without counting; a key
// without a current window has counted nothing and would end a window
// started now.
func (lc *localCounts) get(key string, period time.Duration, now time.Time) (int64, time.Time) {
	if v, ok := lc.counters.Load(key); ok {
		if w := v.(*localCounter).window.Load(); w != nil && w != swept && now.UnixNano() <= w.expires {
			return w.count.Load(), time.Unix(0, w.expires)
		}
	}
	return 0, now.Add(period)
}

func (lc *localCounts) counter(key string) *localCounter {
	if v, ok := lc.counters.Load(key); ok {
		c := v.(*localCounter)
		if c.window.Load() != swept {
			return c
		}
		lc.counters.CompareAndDelete(key, v)
	}
	v, _ := lc.counters.LoadOrStore(key, &localCounter{})
	return v.(*localCounter)
}

// sweep removes the counters whose window ended before now, so that
// deleted projects do not stay in memory. A counter is marked before it
// is removed: a request that raced the sweep cannot count in a counter
// that is no longer in the map.
func (lc *localCounts) sweep(now time.Time) {
	at := now.UnixNano()
	lc.counters.Range(func(k, v any) bool {
		c := v.(*localCounter)
		if w := c.window.Load(); w != nil && w != swept && at > w.expires && c.window.CompareAndSwap(w, swept) {
			lc.counters.CompareAndDelete(k, v)
		}
		return true
	})
}
