//go:build tablesmith_cache

package main

// Built with -tags tablesmith_cache, the binary has Caddy's cache-handler
// and Tablesmith's purges of it, as `./xcaddy.sh --with-cache` builds it
// (the edge benchmarks use this).
import _ "github.com/tablesmith/tablesmith/caddymodule/cachehandler"
