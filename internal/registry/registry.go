// Package registry maps project ids to their published, compiled schemas:
// loaded once, shared read-only by requests, dropped when a new version is
// published (on this node directly, on others through LISTEN/NOTIFY).
package registry

import (
	"context"
	"errors"
	"sync"

	"github.com/tablesmith/tablesmith/internal/pgexec"
	"github.com/tablesmith/tablesmith/openapi"
	"github.com/tablesmith/tablesmith/translate"
)

// ErrNotPublished is returned for projects that do not exist or have no
// published version yet.
var ErrNotPublished = errors.New("project not found or not generated")

// Entry is one project's published API.
type Entry struct {
	ProjectID string
	Version   int
	Published *translate.Published
	// OpenAPI is the project's OpenAPI document, set at load and rendered
	// on first use (JSON and YAML with a per-request server URL).
	OpenAPI *openapi.Document
	// Tables is the pool that holds the project's tables (the service's
	// data pool for managed projects, the fronted database's for external
	// ones) with its prepared statements; Tables.DB() is the pool itself.
	Tables *pgexec.Statements
}

// Loader loads the newest published version of a project.
type Loader func(ctx context.Context, projectID string) (*Entry, error)

// Registry caches entries; safe for concurrent use.
type Registry struct {
	load    Loader
	mu      sync.RWMutex
	entries map[string]*Entry
	loading map[string]*call
	gen     map[string]uint64 // bumped by Invalidate; a load from an older generation is not cached
}

type call struct {
	done  chan struct{}
	entry *Entry
	err   error
}

// New returns an empty registry.
func New(load Loader) *Registry {
	return &Registry{load: load, entries: map[string]*Entry{}, loading: map[string]*call{}, gen: map[string]uint64{}}
}

// Get returns a project's entry, loading it once if needed; concurrent
// misses share one load.
func (r *Registry) Get(ctx context.Context, projectID string) (*Entry, error) {
	r.mu.RLock()
	e, ok := r.entries[projectID]
	r.mu.RUnlock()
	if ok {
		return e, nil
	}
	r.mu.Lock()
	if e, ok := r.entries[projectID]; ok {
		r.mu.Unlock()
		return e, nil
	}
	if c, ok := r.loading[projectID]; ok {
		r.mu.Unlock()
		select {
		case <-c.done:
			return c.entry, c.err
		case <-ctx.Done():
			return nil, ctx.Err()
		}
	}
	c := &call{done: make(chan struct{})}
	r.loading[projectID] = c
	gen := r.gen[projectID]
	r.mu.Unlock()

	// The load must not be cancelled by the first caller's context: other
	// callers wait on it.
	c.entry, c.err = r.load(context.WithoutCancel(ctx), projectID)
	r.mu.Lock()
	delete(r.loading, projectID)
	if c.err == nil && r.gen[projectID] == gen {
		r.entries[projectID] = c.entry
	}
	r.mu.Unlock()
	close(c.done)
	return c.entry, c.err
}

// Invalidate drops a project's entry so the next request loads anew.
func (r *Registry) Invalidate(projectID string) {
	r.mu.Lock()
	delete(r.entries, projectID)
	r.gen[projectID]++
	r.mu.Unlock()
}

// InvalidateAll drops every entry (after a missed notification).
func (r *Registry) InvalidateAll() {
	r.mu.Lock()
	for id := range r.entries {
		r.gen[id]++
	}
	r.entries = map[string]*Entry{}
	r.mu.Unlock()
}
