package replica

import (
	"fmt"
	"strconv"
	"strings"
	"time"
)

// LSN is a position in PostgreSQL's write-ahead log, comparable as a
// number (pg_lsn's text form is two hex halves, "16/B374D848").
type LSN uint64

// ParseLSN reads pg_lsn's text form.
func ParseLSN(s string) (LSN, error) {
	hi, lo, ok := strings.Cut(s, "/")
	if !ok {
		return 0, fmt.Errorf("%q is not a WAL position", s)
	}
	h, err := strconv.ParseUint(hi, 16, 32)
	if err != nil {
		return 0, fmt.Errorf("%q is not a WAL position", s)
	}
	l, err := strconv.ParseUint(lo, 16, 32)
	if err != nil {
		return 0, fmt.Errorf("%q is not a WAL position", s)
	}
	return LSN(h<<32 | l), nil
}

// String is pg_lsn's text form.
func (l LSN) String() string { return fmt.Sprintf("%X/%X", uint64(l)>>32, uint64(l)&0xFFFFFFFF) }

// key is a fixed-width form whose byte order is the numeric order, so
// Redis (a Lua string comparison) can keep the larger of two positions.
func (l LSN) key() string { return fmt.Sprintf("%016X", uint64(l)) }

// sample is the primary's WAL position as read at a moment.
type sample struct {
	at  time.Time // before the query was sent: the primary had at most lsn by then
	lsn LSN
}

// history holds the primary's recent positions, oldest first, so that a
// replica's replayed position can be turned into a time: how far behind
// the primary its data is. Comparing positions instead of the replica's
// pg_last_xact_replay_timestamp() keeps an idle primary from looking like
// a lagging replica and needs no clocks in step between servers.
type history struct {
	samples []sample
	keep    time.Duration
	// fresh is how old the newest sample may be and still count as now:
	// when the primary could not be sampled for longer, a replica that
	// holds the newest sample is only known to be as old as that sample.
	fresh time.Duration
}

func (h *history) add(s sample) {
	h.samples = append(h.samples, s)
	cut := 0
	for cut < len(h.samples)-1 && s.at.Sub(h.samples[cut].at) > h.keep {
		cut++
	}
	if cut > 0 {
		h.samples = append(h.samples[:0], h.samples[cut:]...)
	}
}

// lag is how stale a replica that has replayed up to replay may be at
// now: 0 when it holds everything the primary had at the newest sample
// (and that sample is fresh); else the time since the newest sample it
// does hold (an upper bound, within one poll of the truth); and when it
// holds none of them, at least the whole history. ok is false before
// any sample.
func (h *history) lag(replay LSN, now time.Time) (time.Duration, bool) {
	n := len(h.samples)
	if n == 0 {
		return 0, false
	}
	if newest := h.samples[n-1]; newest.lsn <= replay {
		if age := now.Sub(newest.at); age > h.fresh {
			return age, true
		}
		return 0, true
	}
	for i := n - 2; i >= 0; i-- {
		if h.samples[i].lsn <= replay {
			return now.Sub(h.samples[i].at), true
		}
	}
	return now.Sub(h.samples[0].at), true
}
