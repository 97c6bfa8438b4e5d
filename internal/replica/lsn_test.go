package replica

import (
	"errors"
	"fmt"
	"net"
	"testing"
	"time"

	"github.com/lib/pq"

	"github.com/tablesmith/tablesmith/apierr"
)

func TestLSNReadsPostgresTextAndKeepsItsOrder(t *testing.T) {
	a, err := ParseLSN("16/B374D848")
	if err != nil || a != LSN(0x16<<32|0xB374D848) || a.String() != "16/B374D848" {
		t.Fatalf("ParseLSN = %v %v", a, err)
	}
	b, _ := ParseLSN("17/0")
	if !(b > a) || !(b.key() > a.key()) {
		t.Fatalf("order lost: %s %s", a.key(), b.key())
	}
	for _, bad := range []string{"", "16", "x/1", "1/123456789"} {
		if _, err := ParseLSN(bad); err == nil {
			t.Errorf("ParseLSN(%q) took it", bad)
		}
	}
}

func TestLagIsTheAgeOfTheNewestPrimaryPositionTheReplicaHolds(t *testing.T) {
	t0 := time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)
	h := history{keep: 10 * time.Second, fresh: 500 * time.Millisecond}
	if _, ok := h.lag(5, t0); ok {
		t.Fatal("a lag before any sample")
	}
	for i, lsn := range []LSN{100, 100, 200, 300, 300} { // one sample every 250 ms
		h.add(sample{at: t0.Add(time.Duration(i) * 250 * time.Millisecond), lsn: lsn})
	}
	now := t0.Add(1100 * time.Millisecond)
	for _, c := range []struct {
		replay LSN
		want   time.Duration
	}{
		{300, 0},                      // holds all the primary had at the newest sample
		{250, 600 * time.Millisecond}, // holds what it had at 500 ms
		{100, 850 * time.Millisecond}, // holds what it had at 250 ms
		{50, 1100 * time.Millisecond}, // holds none: at least the whole history
	} {
		if got, _ := h.lag(c.replay, now); got != c.want {
			t.Errorf("lag(%d) = %s, want %s", c.replay, got, c.want)
		}
	}
	// When the primary could not be sampled for a while, holding its
	// newest sample only proves the replica is as old as that sample.
	if got, _ := h.lag(300, t0.Add(3*time.Second)); got != 2*time.Second {
		t.Errorf("lag against a stale newest sample = %s, want 2s", got)
	}
	h.add(sample{at: t0.Add(20 * time.Second), lsn: 400})
	if len(h.samples) != 1 {
		t.Errorf("history keeps %d samples older than its span", len(h.samples)-1)
	}
}

func TestFaultTellsAReplicasFailureFromTheReadsOwnError(t *testing.T) {
	cases := []struct {
		err  error
		want faultKind
	}{
		{&net.OpError{Op: "dial", Err: errors.New("connection refused")}, faultReplica},
		{&pq.Error{Code: "57P01"}, faultReplica},
		{&pq.Error{Code: "08006"}, faultReplica},
		{fmt.Errorf("wrapped: %w", &pq.Error{Code: "42P01"}), faultBehind},
		{&pq.Error{Code: "40001"}, faultBehind},
		{&pq.Error{Code: "57014"}, faultNone},
		{&pq.Error{Code: "22P02"}, faultNone},
		{apierr.New(apierr.CodeNotFound, "Record not found"), faultNone},
	}
	for _, c := range cases {
		if got := fault(c.err); got != c.want {
			t.Errorf("fault(%v) = %d, want %d", c.err, got, c.want)
		}
	}
}
