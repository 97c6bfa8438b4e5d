package main

import (
	"math"
	"net/url"
	"strings"
	"testing"
	"time"
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

func TestParseWrkReadsRequestsQuantilesAndErrors(t *testing.T) {
	out := `Running 10s test @ http://127.0.0.1:8080/v1/p/users/1
  2 threads and 32 connections
  Thread Stats   Avg      Stdev     Max   +/- Stdev
    Latency     2.10ms    1.20ms  30.00ms   80.00%
    Req/Sec     7.80k   500.00     9.00k    70.00%
  Latency Distribution
     50%  812.00us
     75%    2.50ms
     90%    3.20ms
     99%    1.02s
  156000 requests in 10.01s, 50.00MB read
  Socket errors: connect 0, read 2, write 0, timeout 1
  Non-2xx or 3xx responses: 12
Requests/sec:  15584.42
Transfer/sec:      5.00MB
`
	r, err := parseWrk(out)
	if err != nil {
		t.Fatal(err)
	}
	if r.requests != 156000 || r.elapsed != 10010*time.Millisecond {
		t.Errorf("requests %d in %s, want 156000 in 10.01s", r.requests, r.elapsed)
	}
	if r.p50 != 812*time.Microsecond || r.p99 != 1020*time.Millisecond {
		t.Errorf("p50 %s, p99 %s, want 812µs and 1.02s", r.p50, r.p99)
	}
	if r.errors != 15 {
		t.Errorf("errors = %d, want 12 non-2xx + 3 socket errors", r.errors)
	}
	if _, err := parseWrk("unable to connect to 127.0.0.1:1 Connection refused\n"); err == nil {
		t.Error("a report without a requests line parsed without error")
	}
}

func TestParsePgbenchReadsTPSAndRefusesFailures(t *testing.T) {
	ok := "number of failed transactions: 0 (0.000%)\nlatency average = 0.786 ms\ntps = 40703.123456 (without initial connection time)\n"
	if tps, err := parsePgbench(ok); err != nil || tps != 40703.123456 {
		t.Errorf("parsePgbench = %v, %v; want 40703.123456", tps, err)
	}
	if _, err := parsePgbench("number of failed transactions: 3 (0.010%)\ntps = 5.0 (without initial connection time)\n"); err == nil {
		t.Error("a run with failed transactions parsed without error")
	}
}

func TestCompareIDsTellsOrderFromMembership(t *testing.T) {
	rows := func(ids ...float64) any {
		var out []any
		for _, id := range ids {
			out = append(out, map[string]any{"id": id, "age": 80.0})
		}
		return out
	}
	if got := compareIDs(rows(1, 2), rows(1, 2)); got != "" {
		t.Errorf("same rows: %q", got)
	}
	if got := compareIDs(rows(1, 2), rows(2, 1)); got != "the same 2 ids in another order" {
		t.Errorf("reordered: %q", got)
	}
	if got := compareIDs(rows(1, 2), rows(1, 3)); !strings.Contains(got, "1 of 2 ids differ") {
		t.Errorf("different: %q", got)
	}
}
