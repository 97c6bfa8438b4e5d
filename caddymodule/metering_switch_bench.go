//go:build bench

package caddymodule

import "os"

// withoutMetering lets the benchmark (bench/run.sh builds Caddy with
// -tags bench) run a second Caddy whose generated API has no rate limiter
// and no analytics, to measure what they cost through Caddy
// (bench/RESULTS.md, "Metering"). No other build has this switch.
func withoutMetering() bool { return os.Getenv("TABLESMITH_BENCH_WITHOUT_METERING") == "1" }
