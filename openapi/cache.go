package openapi

import (
	"container/list"
	"strconv"
	"sync"
	"sync/atomic"

	"golang.org/x/sync/singleflight"
)

// DefaultCacheBytes bounds the rendered documents one node keeps, across
// all projects. The largest document the schema limits allow is a few
// megabytes (bench/RESULTS.md), so this holds the busy projects' while a
// node with thousands of projects cannot grow with them.
const DefaultCacheBytes = 64 << 20

// Cache keeps rendered documents, least recently used first out, within
// a byte budget. Concurrent requests for a document that is not there
// share one render. Safe for concurrent use.
type Cache struct {
	max     int64
	renders atomic.Int64
	group   singleflight.Group

	mu    sync.Mutex
	size  int64
	order *list.List // of *cacheEntry, most recently used first
	items map[string]*list.Element
}

type cacheEntry struct {
	key string
	doc *Rendered
}

// NewCache makes a cache that keeps at most maxBytes of documents.
func NewCache(maxBytes int64) *Cache {
	return &Cache{max: maxBytes, order: list.New(), items: map[string]*list.Element{}}
}

// Renders counts the documents rendered through the cache.
func (c *Cache) Renders() int64 { return c.renders.Load() }

// Size is the bytes of documents the cache holds now.
func (c *Cache) Size() int64 {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.size
}

// cacheKey names a rendering: the project's version, and its title, so a
// rename renders afresh (the old title's rendering ages out).
func cacheKey(project string, version int, title string, f Format) string {
	format := "json"
	if f.YAML {
		format = "yaml"
	}
	if f.V30 {
		format += "-3.0"
	}
	return project + "/" + strconv.Itoa(version) + "/" + format + "/" + title
}

// get returns the document under key, rendering it with render when the
// cache does not hold it. A document larger than the whole budget is
// returned to its callers but not kept.
func (c *Cache) get(key string, render func() (*Rendered, error)) (*Rendered, error) {
	if r := c.lookup(key); r != nil {
		return r, nil
	}
	v, err, _ := c.group.Do(key, func() (any, error) {
		// A render that finished just before this call joined is kept.
		if r := c.lookup(key); r != nil {
			return r, nil
		}
		c.renders.Add(1)
		r, err := render()
		if err != nil {
			return nil, err
		}
		c.add(key, r)
		return r, nil
	})
	if err != nil {
		return nil, err
	}
	return v.(*Rendered), nil
}

func (c *Cache) lookup(key string) *Rendered {
	c.mu.Lock()
	defer c.mu.Unlock()
	if el, ok := c.items[key]; ok {
		c.order.MoveToFront(el)
		return el.Value.(*cacheEntry).doc
	}
	return nil
}

func (c *Cache) add(key string, r *Rendered) {
	n := r.bytes()
	if n > c.max {
		return
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	if _, ok := c.items[key]; ok {
		return
	}
	c.items[key] = c.order.PushFront(&cacheEntry{key: key, doc: r})
	c.size += n
	for c.size > c.max {
		last := c.order.Back()
		e := last.Value.(*cacheEntry)
		c.order.Remove(last)
		delete(c.items, e.key)
		c.size -= e.doc.bytes()
	}
}
