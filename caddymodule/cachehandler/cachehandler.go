// Package cachehandler connects Caddy's cache-handler module
// (github.com/caddyserver/cache-handler, built on Souin) to Tablesmith:
// importing it builds cache-handler into Caddy and lets the tablesmith app
// purge that cache in the same process, so an edge node needs no purge
// URL (docs/edge-cache.md). xcaddy.sh --with-cache builds it in; the
// default build leaves it out.
package cachehandler

import (
	"errors"
	"strings"
	"sync"
	"time"

	httpcache "github.com/caddyserver/cache-handler"
	"github.com/caddyserver/caddy/v2"
	"github.com/darkweak/souin/pkg/storage/types"

	"github.com/tablesmith/tablesmith/caddymodule"
	"github.com/tablesmith/tablesmith/internal/edgecache"
)

func init() {
	caddymodule.RegisterEdgeCache(find)
}

// find returns the purger of the cache app of the config being started,
// or nil when the config uses no cache handler.
func find(ctx caddy.Context) (edgecache.Purger, error) {
	app, err := ctx.AppIfConfigured("cache")
	if errors.Is(err, caddy.ErrNotConfigured) {
		return nil, nil
	}
	if err != nil {
		return nil, err
	}
	souin, ok := app.(*httpcache.SouinApp)
	if !ok || len(souin.Storers) == 0 {
		// The app exists but no cache handler was provisioned with it.
		return nil, nil
	}
	p := &souinPurger{storers: souin.Storers, pending: map[string]bool{}, wake: make(chan struct{}, 1)}
	go p.run(ctx.Done())
	return p, nil
}

// againAfter is when a project's answers are dropped a second time: an
// answer read from the database just before the write committed may be
// stored just after the first purge. Reads finish well within it, and it
// keeps every answer fresh 1 s after a write (bench/RESULTS.md).
const againAfter = 400 * time.Millisecond

// souinPurger drops answers in the background, so a write's request and
// the node's event listener never wait for a sweep of the cache.
//
// It sweeps the storages for the project's answers by their cache key,
// which holds the request path (/v1/<project id>/...), instead of using
// Souin's surrogate-key index (cache-handler v0.16.0, Souin v1.7.7): the
// index records an answer's keys in a goroutine after storing it (a purge
// may come first), keeps every key ever recorded, and a purge through it
// handles each of them one by one; purging through it, 7,735 of 9,879
// reads under load were still stale 1 s after their write
// (bench/RESULTS.md, "Edge cache"), none with the sweep. A write thus
// purges every answer of its project, whatever tables it changed; the
// Surrogate-Key headers stay for caches in front (a CDN) that purge by
// key. Caddyfile.cachehandler.example turns the index off.
type souinPurger struct {
	storers []types.Storer

	mu      sync.Mutex
	pending map[string]bool // project ids to sweep
	all     bool
	wake    chan struct{}
}

func (p *souinPurger) Purge(projectID string, _ []string) {
	p.schedule(projectID, false)
	time.AfterFunc(againAfter, func() { p.schedule(projectID, false) })
}

func (p *souinPurger) PurgeAll() { p.schedule("", true) }

func (p *souinPurger) schedule(projectID string, all bool) {
	p.mu.Lock()
	if all {
		p.all = true
	} else {
		p.pending[projectID] = true
	}
	p.mu.Unlock()
	select {
	case p.wake <- struct{}{}:
	default: // a sweep is already due
	}
}

// run sweeps whatever is pending, one sweep of the storages for all the
// projects that piled up meanwhile, until the config stops.
func (p *souinPurger) run(done <-chan struct{}) {
	for {
		select {
		case <-done:
			return
		case <-p.wake:
		}
		p.mu.Lock()
		projects, all := p.pending, p.all
		p.pending, p.all = map[string]bool{}, false
		p.mu.Unlock()
		p.sweep(projects, all)
	}
}

// sweep deletes the stored answers of projects (every answer when all).
// Deleting the answer a key maps to is enough: the mapping then leads
// nowhere, which Souin treats as a miss.
func (p *souinPurger) sweep(projects map[string]bool, all bool) {
	for _, s := range p.storers {
		for _, key := range s.ListKeys() {
			if all || projects[projectOf(key)] {
				s.Delete(key)
			}
		}
	}
}

// projectOf finds the project id in a cache key, which holds the request
// path: "GET-http-example.com-/v1/<project id>/books?limit=20..." by
// default. "" when it holds none (another site's answer, or hashed keys).
func projectOf(key string) string {
	_, rest, ok := strings.Cut(key, "-/v1/")
	if !ok {
		return ""
	}
	id, _, _ := strings.Cut(rest, "/")
	return id
}
