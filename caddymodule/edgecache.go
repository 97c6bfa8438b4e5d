package caddymodule

import (
	"sync"

	"github.com/caddyserver/caddy/v2"

	"github.com/tablesmith/tablesmith/internal/edgecache"
)

// EdgeCacheFinder returns the purger of an edge cache configured in ctx's
// config, or nil when that config runs none.
type EdgeCacheFinder func(ctx caddy.Context) (edgecache.Purger, error)

var (
	edgeCacheMu      sync.Mutex
	edgeCacheFinders []EdgeCacheFinder
)

// RegisterEdgeCache is called from the init of a package that adapts an
// HTTP cache module (caddymodule/cachehandler), so that a build that
// includes it purges that cache when writes and publishes are announced.
func RegisterEdgeCache(f EdgeCacheFinder) {
	edgeCacheMu.Lock()
	defer edgeCacheMu.Unlock()
	edgeCacheFinders = append(edgeCacheFinders, f)
}

// findEdgeCache asks every registered adapter for the purger of ctx's
// config; the first found is used.
func findEdgeCache(ctx caddy.Context) (edgecache.Purger, error) {
	edgeCacheMu.Lock()
	defer edgeCacheMu.Unlock()
	for _, find := range edgeCacheFinders {
		p, err := find(ctx)
		if err != nil || p != nil {
			return p, err
		}
	}
	return nil, nil
}
