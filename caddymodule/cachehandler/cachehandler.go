// Package cachehandler connects Caddy's cache-handler module
// (github.com/caddyserver/cache-handler, built on Souin) to Tablesmith:
// importing it builds cache-handler into Caddy and lets the tablesmith app
// purge that cache by surrogate key in the same process, so an edge node
// needs no purge URL (docs/edge-cache.md). xcaddy.sh --with-cache builds
// it in; the default build leaves it out.
package cachehandler

import (
	"errors"
	"fmt"
	"net/http"
	"net/http/httptest"
	"strings"

	httpcache "github.com/caddyserver/cache-handler"
	"github.com/caddyserver/caddy/v2"
	"github.com/darkweak/souin/configurationtypes"
	"github.com/darkweak/souin/pkg/api"

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
	if !ok || souin.SurrogateStorage == nil || len(souin.Storers) == 0 {
		// The app exists but no cache handler was provisioned with it.
		return nil, nil
	}
	// Souin's own API does the purge, so it drops exactly what a PURGE
	// to its HTTP endpoint would: the answers tagged with the keys and
	// their mappings, in every storage of the handler.
	cfg := &httpcache.Configuration{API: configurationtypes.API{Souin: configurationtypes.APIEndpoint{Enable: true}}}
	handlers := api.GenerateHandlerMap(cfg, souin.Storers, souin.SurrogateStorage)
	if handlers == nil {
		return nil, fmt.Errorf("cache-handler: Souin's API did not start")
	}
	h, ok := (*handlers.Handlers)[purgePath]
	if !ok {
		return nil, fmt.Errorf("cache-handler: Souin's API has no %s", purgePath)
	}
	return &souinPurger{h}, nil
}

// purgePath is where Souin's API answers PURGE, by default.
const purgePath = "/souin-api/souin"

// souinPurger calls Souin's purge handler in process, without a socket.
type souinPurger struct{ purge http.HandlerFunc }

func (p *souinPurger) PurgeKeys(keys []string) error {
	r := httptest.NewRequest("PURGE", purgePath, nil)
	r.Header.Set("Surrogate-Key", strings.Join(keys, edgecache.Separator))
	return p.call(r)
}

func (p *souinPurger) PurgeAll() error {
	return p.call(httptest.NewRequest("PURGE", purgePath+"/flush", nil))
}

func (p *souinPurger) call(r *http.Request) error {
	w := httptest.NewRecorder()
	p.purge(w, r)
	if w.Code >= 300 {
		return fmt.Errorf("cache-handler purge %s: status %d", r.URL.Path, w.Code)
	}
	return nil
}
