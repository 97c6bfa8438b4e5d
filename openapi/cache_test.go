package openapi

import (
	"sync"
	"testing"
)

func renderedOf(n int) *Rendered { return &Rendered{t: template{head: make([]byte, n)}} }

func TestCacheEvictsLeastRecentlyUsedByBytes(t *testing.T) {
	c := NewCache(100)
	for _, k := range []string{"a", "b", "c"} {
		if _, err := c.get(k, func() (*Rendered, error) { return renderedOf(40), nil }); err != nil {
			t.Fatal(err)
		}
	}
	// a went out for c (120 > 100 bytes); b, c stay.
	if c.Size() != 80 || c.lookup("a") != nil || c.lookup("b") == nil || c.lookup("c") == nil {
		t.Fatalf("size %d, a %v b %v c %v", c.Size(), c.lookup("a"), c.lookup("b"), c.lookup("c"))
	}
	// b was used after c: adding d evicts c.
	c.lookup("b")
	_, _ = c.get("d", func() (*Rendered, error) { return renderedOf(40), nil })
	if c.lookup("c") != nil || c.lookup("b") == nil || c.Size() != 80 {
		t.Fatalf("after d: size %d, b %v c %v", c.Size(), c.lookup("b"), c.lookup("c"))
	}
}

func TestCacheServesButDoesNotKeepADocumentLargerThanItself(t *testing.T) {
	c := NewCache(100)
	_, _ = c.get("small", func() (*Rendered, error) { return renderedOf(50), nil })
	r, err := c.get("big", func() (*Rendered, error) { return renderedOf(101), nil })
	if err != nil || r == nil || r.bytes() != 101 {
		t.Fatalf("big: %v %v", r, err)
	}
	if c.lookup("big") != nil || c.lookup("small") == nil || c.Size() != 50 {
		t.Fatalf("the big document was kept or pushed the small one out: size %d", c.Size())
	}
}

func TestCacheRendersOnceForConcurrentFirstRequests(t *testing.T) {
	c := NewCache(DefaultCacheBytes)
	doc := NewIn(c, compileFile(t, "alltypes.json"), Options{ProjectID: "abc123def456", Version: 1})
	var wg sync.WaitGroup
	got := make([]*Rendered, 16)
	for i := range got {
		wg.Add(1)
		go func(i int) {
			defer wg.Done()
			got[i], _ = doc.Rendered(false)
		}(i)
	}
	wg.Wait()
	for _, r := range got {
		if r == nil || r != got[0] {
			t.Fatal("concurrent readers got different or missing renderings")
		}
	}
	if n := c.Renders(); n != 1 {
		t.Fatalf("%d renders for 16 concurrent first requests, want 1", n)
	}
	// Another version of the same project is another entry.
	other := NewIn(c, compileFile(t, "alltypes.json"), Options{ProjectID: "abc123def456", Version: 2})
	if _, err := other.Rendered(false); err != nil || c.Renders() != 2 {
		t.Fatalf("version 2: %v, %d renders", err, c.Renders())
	}
	if _, err := doc.Rendered(false); err != nil || c.Renders() != 2 {
		t.Fatalf("version 1 again: %v, %d renders (want it from the cache)", err, c.Renders())
	}
}
