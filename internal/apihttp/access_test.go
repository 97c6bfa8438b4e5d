package apihttp

import (
	"math"
	"net/http"
	"reflect"
	"strconv"
	"testing"
	"time"
)

// setRateHeaders must give the headers Header.Set with FormatInt gave.
func TestRateHeadersAreWhatHeaderSetWrites(t *testing.T) {
	for _, q := range []Quota{
		{Limit: 100, Remaining: 99, Reset: time.Unix(1_790_000_000, 0)},
		{Limit: 3, Remaining: 0, Reset: time.Unix(5, 0)},
		{Limit: math.MaxInt64, Remaining: math.MaxInt64 - 1, Reset: time.Unix(math.MaxInt64, 0)},
		{Limit: 0, Remaining: 0, Reset: time.Unix(-1, 0)},
	} {
		want := http.Header{"X-Request-Id": {"abc"}}
		want.Set("X-RateLimit-Limit", strconv.FormatInt(q.Limit, 10))
		want.Set("X-RateLimit-Remaining", strconv.FormatInt(q.Remaining, 10))
		want.Set("X-RateLimit-Reset", strconv.FormatInt(q.Reset.Unix(), 10))
		got := http.Header{"X-Request-Id": {"abc"}, "X-Ratelimit-Limit": {"stale"}}
		setRateHeaders(got, q)
		if !reflect.DeepEqual(got, want) {
			t.Errorf("%+v: headers %v, want %v", q, got, want)
		}
		// The values share one array: adding to one must leave the next alone.
		got.Add("X-RateLimit-Limit", "extra")
		if got.Get("X-RateLimit-Remaining") != want.Get("X-RateLimit-Remaining") {
			t.Errorf("%+v: Add to the limit changed the remaining count to %q", q, got.Get("X-RateLimit-Remaining"))
		}
	}
}

func BenchmarkSetRateHeaders(b *testing.B) {
	q := Quota{Allowed: true, Limit: 100_000, Remaining: 99_000, Reset: time.Unix(1_790_000_000, 0)}
	hd := http.Header{}
	b.ReportAllocs()
	for b.Loop() {
		setRateHeaders(hd, q)
	}
}
