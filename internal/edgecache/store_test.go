package edgecache

import (
	"net/http"
	"testing"
	"time"
)

// shared is the header set of an answer Tablesmith marked shareable.
func shared(project string, tables ...string) http.Header {
	return http.Header{
		"Cache-Control": {"public, max-age=60"},
		"Surrogate-Key": {Header(project, tables)},
		"Vary":          {"Authorization", "Accept-Encoding"},
	}
}

func TestAPurgeMakesStaleOnlyTheAnswersThatReadItsTables(t *testing.T) {
	s := NewStore(0, 0)
	now := time.Now()
	s.Put("books", s.Begin(), 200, shared("p1", "books"), []byte("b"), now, time.Minute)
	s.Put("embedded", s.Begin(), 200, shared("p1", "books", "authors"), []byte("e"), now, time.Minute)
	s.Put("other", s.Begin(), 200, shared("p2", "authors"), []byte("o"), now, time.Minute)

	s.Purge("p1", []string{"authors"})
	if _, ok := s.Get("embedded", now); ok {
		t.Error("a list embedding authors is served after authors changed")
	}
	if a, ok := s.Get("books", now); !ok || string(a.Body) != "b" {
		t.Error("books alone is no longer served after a write to authors")
	}
	if _, ok := s.Get("other", now); !ok {
		t.Error("another project's authors were purged")
	}

	s.Purge("p1", nil) // a publish
	if _, ok := s.Get("books", now); ok {
		t.Error("a publish left an answer of its project")
	}
	if _, ok := s.Get("other", now); !ok {
		t.Error("a publish purged another project")
	}
	s.PurgeAll()
	if _, ok := s.Get("other", now); ok {
		t.Error("PurgeAll left an answer")
	}
}

// An answer read from the database just before a write committed can
// reach the store just after the write's purge: it must never be served.
func TestAnAnswerWhoseReadBeganBeforeAPurgeIsNeverServed(t *testing.T) {
	s := NewStore(0, 0)
	now := time.Now()
	readAt := s.Begin() // the read starts
	s.Purge("p1", []string{"books"})
	if s.Put("books", readAt, 200, shared("p1", "books"), []byte("old"), now, time.Minute) {
		t.Error("Put kept an answer whose read began before a purge of its table")
	}
	if _, ok := s.Get("books", now); ok {
		t.Fatal("an answer read before a purge is served")
	}
	// A read that begins after the purge is stored and served.
	s.Put("books", s.Begin(), 200, shared("p1", "books"), []byte("new"), now, time.Minute)
	if a, ok := s.Get("books", now); !ok || string(a.Body) != "new" {
		t.Fatal("an answer read after the purge is not served")
	}
	// Stored first, purged later: stale from then on.
	readAt = s.Begin()
	s.Put("list", readAt, 200, shared("p1", "books"), []byte("l"), now, time.Minute)
	s.Purge("p1", []string{"books"})
	if _, ok := s.Get("list", now); ok {
		t.Error("an answer stored before a purge of its table is still served")
	}
}

func TestAnAnswerLivesItsMaxAgeAndNoLonger(t *testing.T) {
	s := NewStore(0, 0)
	now := time.Now()
	s.Put("k", s.Begin(), 200, shared("p1", "books"), []byte("x"), now, 30*time.Second)
	if _, ok := s.Get("k", now.Add(29*time.Second)); !ok {
		t.Error("not served within its max-age")
	}
	if _, ok := s.Get("k", now.Add(30*time.Second)); ok {
		t.Error("served at its max-age")
	}
}

func TestAnAnswerLargerThanMaxAnswerIsNotKept(t *testing.T) {
	s := NewStore(1<<20, 10)
	if s.Put("k", s.Begin(), 200, shared("p1", "t"), make([]byte, 11), time.Now(), time.Minute) {
		t.Error("an 11-byte answer was kept with max_answer 10")
	}
}

func TestOnlyPublicAnswersWithAMaxAgeAndKnownVaryAreShareable(t *testing.T) {
	cases := []struct {
		name   string
		status int
		edit   func(http.Header)
		want   time.Duration
	}{
		{"marked by Tablesmith", 200, func(http.Header) {}, time.Minute},
		{"Vary: Origin too", 200, func(h http.Header) { h["Vary"] = append(h["Vary"], "Origin") }, time.Minute},
		{"not 200", 304, func(http.Header) {}, 0},
		{"private", 200, func(h http.Header) { h.Set("Cache-Control", "private, no-cache") }, 0},
		{"no max-age", 200, func(h http.Header) { h.Set("Cache-Control", "public") }, 0},
		{"public with no-store", 200, func(h http.Header) { h.Set("Cache-Control", "public, max-age=60, no-store") }, 0},
		{"a cookie", 200, func(h http.Header) { h.Set("Set-Cookie", "a=b") }, 0},
		{"varies on another header", 200, func(h http.Header) { h.Add("Vary", "Accept-Language") }, 0},
		{"no surrogate key (nothing could purge it)", 200, func(h http.Header) { h.Del("Surrogate-Key") }, 0},
	}
	for _, c := range cases {
		h := shared("p1", "books")
		c.edit(h)
		if got := Shareable(c.status, h); got != c.want {
			t.Errorf("%s: %v, want %v", c.name, got, c.want)
		}
	}
}

func TestTheStoreStaysWithinItsMaxSize(t *testing.T) {
	s := NewStore(1<<20, 64<<10)
	now := time.Now()
	body := make([]byte, 60<<10)
	for i := range 100 {
		s.Put(string(rune('a'+i%26))+string(rune('a'+i/26)), s.Begin(), 200, shared("p1", "t"), body, now, time.Minute)
	}
	s.answers.CleanUp()
	if w := s.answers.WeightedSize(); w > 1<<20 {
		t.Errorf("the store holds %d bytes with max_size 1 MiB", w)
	}
}
