package service_test

import (
	"slices"
	"sync"
	"testing"
	"time"

	"github.com/tablesmith/tablesmith/internal/edgecache"
	"github.com/tablesmith/tablesmith/internal/testserver"
)

// recordingCache stands in for the edge cache of a node's process: it
// keeps the keys each purge names.
type recordingCache struct {
	mu     sync.Mutex
	purges [][]string
	all    int
}

func (c *recordingCache) Purge(projectID string, tables []string) {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.purges = append(c.purges, edgecache.Keys(projectID, tables))
}

func (c *recordingCache) PurgeAll() {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.all++
}

// waitFor polls until some purge holds exactly the keys of want (the
// event crosses PostgreSQL, so it arrives a moment later), forgets it and
// the purges before it, which it returns; it fails after 5 s.
func (c *recordingCache) waitFor(t *testing.T, what string, want ...string) (before [][]string) {
	t.Helper()
	deadline := time.Now().Add(5 * time.Second)
	for time.Now().Before(deadline) {
		c.mu.Lock()
		for i, p := range c.purges {
			if len(p) == len(want) && !slices.ContainsFunc(want, func(k string) bool { return !slices.Contains(p, k) }) {
				before = c.purges[:i]
				c.purges = c.purges[i+1:]
				c.mu.Unlock()
				return before
			}
		}
		c.mu.Unlock()
		time.Sleep(10 * time.Millisecond)
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	t.Fatalf("%s: no purge of %q arrived; purges: %q", what, want, c.purges)
	return nil
}

func TestWritesOnOneNodePurgeTheEdgeCacheOfEveryNode(t *testing.T) {
	a, b := testserver.New(t), testserver.New(t) // two nodes, one database
	cacheA, cacheB := &recordingCache{}, &recordingCache{}
	a.Svc.EdgeCache.Set(cacheA)
	b.Svc.EdgeCache.Set(cacheB)
	p := a.NewProject(`{"tables": [
	  {"name": "authors", "permissions": {"read": "public"}, "columns": [{"name": "name", "type": "text"}]},
	  {"name": "books", "permissions": {"read": "public"}, "cache": {"max_age": 60}, "columns": [
	    {"name": "title", "type": "text"},
	    {"name": "author_id", "type": "integer", "references": {"table": "authors", "on_delete": "cascade"}}]}]}`)
	// The publish purges the whole project.
	cacheB.waitFor(t, "publish", "ts_"+p.ID)
	key := func(t string) string { return "ts_" + p.ID + "_" + t }

	// A write that deletes nothing changes its own table only.
	a.API(p, "POST", "/authors", map[string]any{"name": "Ann"}).Must(t, 201)
	cacheB.waitFor(t, "create an author", key("authors"))
	a.API(p, "POST", "/books", []map[string]any{{"title": "One", "author_id": 1}, {"title": "Two", "author_id": 1}}).Must(t, 201)
	cacheB.waitFor(t, "bulk create books", key("books"))
	a.API(p, "PATCH", "/books?filter[title]=One", map[string]any{"title": "Uno"}).Must(t, 200)
	cacheB.waitFor(t, "update books by filter", key("books"))
	// A delete of an author cascades to books: both are purged.
	a.API(p, "DELETE", "/authors/1", nil).Must(t, 200)
	cacheB.waitFor(t, "delete an author", key("authors"), key("books"))
	// The writing node purged its own cache before it answered.
	cacheA.mu.Lock()
	purgedAtOnce := len(cacheA.purges) > 0
	cacheA.mu.Unlock()
	if !purgedAtOnce {
		t.Errorf("the writing node did not purge its own cache")
	}

	// Failed writes and reads announce nothing.
	a.API(p, "POST", "/books", map[string]any{"title": "x", "author_id": 99}).Must(t, 400)
	a.API(p, "GET", "/books", nil).Must(t, 200)
	a.API(p, "POST", "/authors", map[string]any{"name": "Bo"}).Must(t, 201)
	if before := cacheB.waitFor(t, "the next good write", key("authors")); len(before) != 0 {
		t.Errorf("a failed write or a read purged %q", before)
	}
}

func TestAProjectWithoutCachedTablesAnnouncesNoWrites(t *testing.T) {
	a := testserver.New(t)
	cache := &recordingCache{}
	a.Svc.EdgeCache.Set(cache)
	p := a.NewProject(`{"tables": [{"name": "notes", "permissions": {"read": "public"}, "columns": [{"name": "body", "type": "text"}]}]}`)
	cache.waitFor(t, "publish", "ts_"+p.ID)
	a.API(p, "POST", "/notes", map[string]any{"body": "x"}).Must(t, 201)
	// A second publish's purge arrives after anything the write sent.
	a.Publish(p.Session, p.ID, `{"tables": [{"name": "notes", "permissions": {"read": "public"}, "columns": [{"name": "body", "type": "text"}, {"name": "n", "type": "integer"}]}]}`)
	if before := cache.waitFor(t, "second publish", "ts_"+p.ID); len(before) != 0 {
		t.Errorf("a write to a project without cached tables purged %q", before)
	}
}
