//go:build tablesmith_cache

package tablesmith

// With the tablesmith_cache build tag (`./xcaddy.sh --with-cache`) the
// module also brings Caddy's cache-handler and purges it on writes and
// publishes (docs/edge-cache.md).
import _ "github.com/tablesmith/tablesmith/caddymodule/cachehandler"
