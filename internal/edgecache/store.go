package edgecache

import (
	"net/http"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/maypok86/otter/v2"
)

// Store keeps the generated API's shareable answers in this process's
// memory: the edge cache that Caddyfile.edge.example puts in front of
// tablesmith_api (docs/edge-cache.md). It is a Purger.
//
// A purge costs no sweep: every purge takes the next number of a
// sequence and records it against the surrogate keys it names (the
// project's, or one per table). Each answer remembers the number the
// sequence stood at when its read began, and is served only while none
// of its keys was purged since. So an answer read from the database just
// before a write committed, but stored just after that write's purge, is
// never served: its read began before the purge.
type Store struct {
	answers   *otter.Cache[string, *Answer]
	maxAnswer int

	seq       atomic.Uint64
	purgedAll atomic.Uint64
	purged    sync.Map // surrogate key → *atomic.Uint64, the sequence at its last purge
}

// Defaults of a Store's bounds (the tablesmith_cache directive's
// max_size and max_answer).
const (
	DefaultMaxSize   = 64 << 20
	DefaultMaxAnswer = 1 << 20
)

// Answer is one stored answer: what the origin wrote, when, and the
// surrogate keys and sequence number that decide whether it is fresh.
type Answer struct {
	Status  int
	Header  http.Header
	Body    []byte
	Stored  time.Time
	Expires time.Time

	keys   []string
	readAt uint64
}

// NewStore makes a store holding answers up to maxSize bytes in all,
// none larger than maxAnswer (0: the defaults).
func NewStore(maxSize, maxAnswer int) *Store {
	if maxSize <= 0 {
		maxSize = DefaultMaxSize
	}
	if maxAnswer <= 0 {
		maxAnswer = DefaultMaxAnswer
	}
	return &Store{
		maxAnswer: maxAnswer,
		answers: otter.Must(&otter.Options[string, *Answer]{
			MaximumWeight: uint64(maxSize),
			Weigher:       func(key string, a *Answer) uint32 { return uint32(len(key) + a.size()) },
			ExpiryCalculator: otter.ExpiryCreatingFunc(func(e otter.Entry[string, *Answer]) time.Duration {
				return time.Until(e.Value.Expires)
			}),
		}),
	}
}

// size is roughly the memory an answer holds.
func (a *Answer) size() int {
	n := len(a.Body) + 64
	for k, vs := range a.Header {
		n += len(k)
		for _, v := range vs {
			n += len(v) + 16
		}
	}
	return n
}

// MaxAnswer is the size of the largest answer the store keeps.
func (s *Store) MaxAnswer() int { return s.maxAnswer }

// Begin is the sequence number to give Put for a read that starts now.
func (s *Store) Begin() uint64 { return s.seq.Load() }

// Get returns the fresh answer stored under key. A stale one (expired, or
// one of its keys purged since its read began) is dropped.
func (s *Store) Get(key string, now time.Time) (*Answer, bool) {
	a, ok := s.answers.GetIfPresent(key)
	if !ok {
		return nil, false
	}
	if now.Before(a.Expires) && s.fresh(a) {
		return a, true
	}
	s.answers.Invalidate(key)
	return nil, false
}

func (s *Store) fresh(a *Answer) bool {
	if s.purgedAll.Load() > a.readAt {
		return false
	}
	for _, k := range a.keys {
		if at, ok := s.purged.Load(k); ok && at.(*atomic.Uint64).Load() > a.readAt {
			return false
		}
	}
	return true
}

// Shareable says how long an answer with these headers may be kept
// (Cache-Control public with a max-age, no Set-Cookie, varying on no
// header but those the key holds), or 0.
func Shareable(status int, h http.Header) time.Duration {
	if status != http.StatusOK || len(h["Set-Cookie"]) > 0 || len(h["Surrogate-Key"]) == 0 {
		return 0
	}
	for _, v := range h["Vary"] {
		for name := range strings.SplitSeq(v, ",") {
			switch http.CanonicalHeaderKey(strings.TrimSpace(name)) {
			case "Authorization", "Accept-Encoding", "Origin":
			default:
				return 0
			}
		}
	}
	public, maxAge := false, 0
	for _, v := range h["Cache-Control"] {
		for d := range strings.SplitSeq(v, ",") {
			d = strings.TrimSpace(d)
			switch {
			case d == "public":
				public = true
			case strings.HasPrefix(d, "max-age="):
				maxAge, _ = strconv.Atoi(d[len("max-age="):])
			case d == "private", d == "no-store", d == "no-cache":
				return 0
			}
		}
	}
	if !public || maxAge <= 0 {
		return 0
	}
	return time.Duration(maxAge) * time.Second
}

// Put stores an answer under key whose read began at readAt (Begin),
// for ttl. Answers larger than the store's max_answer are not kept.
func (s *Store) Put(key string, readAt uint64, status int, h http.Header, body []byte, now time.Time, ttl time.Duration) bool {
	if len(body) > s.maxAnswer {
		return false
	}
	a := &Answer{Status: status, Header: h, Body: body, Stored: now, Expires: now.Add(ttl), readAt: readAt}
	for _, v := range h["Surrogate-Key"] {
		for k := range strings.SplitSeq(v, ",") {
			if k = strings.TrimSpace(k); k != "" {
				a.keys = append(a.keys, k)
			}
		}
	}
	if !s.fresh(a) {
		return false // purged while it was read
	}
	s.answers.Set(key, a)
	return true
}

// Purge makes the answers that read one of tables of the project (every
// answer of the project when tables is empty) stale at once.
func (s *Store) Purge(projectID string, tables []string) {
	n := s.seq.Add(1)
	for _, k := range Keys(projectID, tables) {
		at, ok := s.purged.Load(k)
		if !ok {
			at, _ = s.purged.LoadOrStore(k, new(atomic.Uint64))
		}
		// Only ever forward: a slower purge must not undo a later one.
		for v := at.(*atomic.Uint64); ; {
			cur := v.Load()
			if cur >= n || v.CompareAndSwap(cur, n) {
				break
			}
		}
	}
}

// PurgeAll makes every stored answer stale and lets go of them.
func (s *Store) PurgeAll() {
	s.purgedAll.Store(s.seq.Add(1))
	s.answers.InvalidateAll()
}

// Fanout is the Purger of several stores (one per tablesmith_cache
// handler of a config).
type Fanout []Purger

// Purge purges every store.
func (f *Fanout) Purge(projectID string, tables []string) {
	for _, p := range *f {
		p.Purge(projectID, tables)
	}
}

// PurgeAll empties every store.
func (f *Fanout) PurgeAll() {
	for _, p := range *f {
		p.PurgeAll()
	}
}
