package main

import (
	"math"
	"net/url"
	"testing"
)

func TestMeanCI95(t *testing.T) {
	// Mean 2, sample standard deviation 1, n = 4: half-width t(3) × 1/√4.
	mean, half := meanCI95([]float64{1, 2, 2, 3})
	if mean != 2 {
		t.Fatalf("mean = %v, want 2", mean)
	}
	sd := math.Sqrt(2.0 / 3.0)
	if want := 3.182 * sd / 2; math.Abs(half-want) > 1e-9 {
		t.Fatalf("half-width = %v, want %v", half, want)
	}
	if _, half := meanCI95([]float64{5}); !math.IsInf(half, 1) {
		t.Fatalf("one value should have no interval, got half-width %v", half)
	}
	if studentT975(100) != 1.96 || studentT975(1) != 12.706 {
		t.Fatal("t quantiles: want 12.706 for 1 degree of freedom and 1.96 for many")
	}
}

func TestCostInterval(t *testing.T) {
	// Every round found the metered side 5% dearer: the interval is that point.
	l := math.Log(1 / 1.05)
	if got, want := costInterval([]float64{l, l, l}), "4.8–4.8%"; got != want {
		t.Fatalf("costInterval = %q, want %q", got, want)
	}
	if got := costInterval([]float64{l}); got != "-" {
		t.Fatalf("one round: %q, want -", got)
	}
}

func TestWithAppNameKeepsTheOtherParameters(t *testing.T) {
	got := withAppName("postgres://postgres@127.0.0.1:5432/ts_bench_x?sslmode=disable", "caddy-metered")
	u, err := url.Parse(got)
	if err != nil {
		t.Fatal(err)
	}
	q := u.Query()
	if q.Get("sslmode") != "disable" || q.Get("application_name") != "caddy-metered" || u.Path != "/ts_bench_x" {
		t.Fatalf("withAppName = %s", got)
	}
}
