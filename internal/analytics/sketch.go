package analytics

import (
	"encoding/json"
	"fmt"
	"math"
	"sort"
	"strconv"
	"time"
)

// RelativeAccuracy bounds the error of every quantile a Sketch reports: the
// value returned for a rank is within 1% of the latency actually observed
// at that rank.
const RelativeAccuracy = 0.01

// gamma is the ratio between the bounds of two neighbouring bins. A value
// x in (gamma^(i-1), gamma^i] lands in bin i, and bin i reports
// 2*gamma^i/(gamma+1), which is at most RelativeAccuracy away from any x in
// the bin.
var (
	gamma   = (1 + RelativeAccuracy) / (1 - RelativeAccuracy)
	lnGamma = math.Log(gamma)
)

// binValue is the latency, in microseconds, that bin i reports.
func binValue(i int32) float64 { return 2 * math.Pow(gamma, float64(i)) / (gamma + 1) }

// Sketch is a latency histogram with logarithmic bins over microseconds
// (a DDSketch without collapsing): bins are indexed by
// ceil(log_gamma(µs)), so two sketches merge exactly by adding their
// counts, in any order and on any node. Latencies below 1µs count as 1µs.
// 1µs to one hour needs at most about 1,100 bins; a bucket of real traffic
// touches a few dozen.
type Sketch struct {
	bins  map[int32]uint64
	count uint64
}

// NewSketch returns an empty sketch.
func NewSketch() *Sketch { return &Sketch{bins: map[int32]uint64{}} }

func binOf(d time.Duration) int32 {
	us := float64(d) / float64(time.Microsecond)
	if us <= 1 {
		return 0
	}
	return int32(math.Ceil(math.Log(us) / lnGamma))
}

// Add counts one latency.
func (s *Sketch) Add(d time.Duration) {
	s.bins[binOf(d)]++
	s.count++
}

// Merge adds other's counts to s.
func (s *Sketch) Merge(other *Sketch) {
	for i, n := range other.bins {
		s.bins[i] += n
	}
	s.count += other.count
}

// Count is the number of latencies in the sketch.
func (s *Sketch) Count() uint64 { return s.count }

// Quantile returns the latency at rank ceil(q*n) (the nearest-rank
// definition), within RelativeAccuracy; 0 for an empty sketch.
func (s *Sketch) Quantile(q float64) time.Duration {
	if s.count == 0 {
		return 0
	}
	rank := uint64(math.Ceil(q * float64(s.count)))
	if rank < 1 {
		rank = 1
	}
	if rank > s.count {
		rank = s.count
	}
	idx := make([]int32, 0, len(s.bins))
	for i := range s.bins {
		idx = append(idx, i)
	}
	sort.Slice(idx, func(a, b int) bool { return idx[a] < idx[b] })
	var seen uint64
	for _, i := range idx {
		seen += s.bins[i]
		if seen >= rank {
			if i == 0 {
				return time.Microsecond
			}
			return time.Duration(binValue(i) * float64(time.Microsecond))
		}
	}
	return 0 // unreachable: the counts add up to s.count
}

// MarshalJSON writes the bins as {"<bin>": count}, the form kept in
// PostgreSQL, where tablesmith.sketch_add merges two of them.
func (s *Sketch) MarshalJSON() ([]byte, error) {
	m := make(map[string]uint64, len(s.bins))
	for i, n := range s.bins {
		m[strconv.Itoa(int(i))] = n
	}
	return json.Marshal(m)
}

// UnmarshalJSON reads the form MarshalJSON writes.
func (s *Sketch) UnmarshalJSON(b []byte) error {
	var m map[string]uint64
	if err := json.Unmarshal(b, &m); err != nil {
		return err
	}
	s.bins = make(map[int32]uint64, len(m))
	s.count = 0
	for k, n := range m {
		i, err := strconv.ParseInt(k, 10, 32)
		if err != nil {
			return fmt.Errorf("sketch bin %q: %w", k, err)
		}
		s.bins[int32(i)] += n
		s.count += n
	}
	return nil
}
