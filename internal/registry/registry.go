// Package registry maps project ids to their published, compiled schemas:
// loaded once, shared read-only by requests, dropped when a new version is
// published (on this node directly, on others through LISTEN/NOTIFY).
package registry

import (
	"context"
	"errors"
	"time"

	"github.com/tablesmith/tablesmith/internal/cache"
	"github.com/tablesmith/tablesmith/internal/cors"

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
	// CORS is the project's origin policy (nil: any origin), loaded with
	// the version so that a request reads no setting of its own; a change
	// of the setting reloads the entry (events.ProjectChanged).
	CORS *cors.Policy
	// ProjectName titles the OpenAPI document; a rename reloads the entry.
	ProjectName string
	// WritesPaused is set while the project moves to another data server
	// (move-project): reads go on, writes answer 503 with Retry-After.
	WritesPaused bool
}

// Loader loads the newest published version of a project.
type Loader func(ctx context.Context, projectID string) (*Entry, error)

// Registry caches entries; safe for concurrent use.
type Registry struct {
	load    Loader
	entries *cache.Cache[*Entry]
}

// New returns an empty registry.
func New(load Loader) *Registry {
	return &Registry{load: load, entries: cache.New[*Entry](cache.Options{})}
}

// Get returns a project's entry, loading it once if needed; concurrent
// misses share one load.
func (r *Registry) Get(ctx context.Context, projectID string) (*Entry, error) {
	if e, ok := r.entries.Lookup(projectID, time.Time{}); ok {
		return e, nil
	}
	return r.entries.Load(ctx, projectID, time.Time{}, func(ctx context.Context) (*Entry, error) {
		return r.load(ctx, projectID)
	})
}

// Invalidate drops a project's entry so the next request loads anew.
func (r *Registry) Invalidate(projectID string) { r.entries.Invalidate(projectID) }

// InvalidateAll drops every entry (after a missed notification).
func (r *Registry) InvalidateAll() { r.entries.InvalidateAll() }
