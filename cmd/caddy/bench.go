//go:build bench

package main

// The benchmark's build also has bench/bare's handler as a Caddy module.
import _ "github.com/tablesmith/tablesmith/bench/caddybare"
