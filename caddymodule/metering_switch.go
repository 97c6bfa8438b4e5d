//go:build !bench

package caddymodule

// withoutMetering is false in every build but the benchmark's (see
// metering_switch_bench.go).
func withoutMetering() bool { return false }
