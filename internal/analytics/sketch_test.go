package analytics

import (
	"encoding/json"
	"math"
	"math/rand/v2"
	"slices"
	"testing"
	"time"
)

// nearestRank is the exact quantile Sketch.Quantile approximates.
func nearestRank(sorted []time.Duration, q float64) time.Duration {
	rank := int(math.Ceil(q * float64(len(sorted))))
	rank = max(1, min(rank, len(sorted)))
	return sorted[rank-1]
}

// withinBound reports whether got is within RelativeAccuracy of want (plus
// a nanosecond of rounding).
func withinBound(got, want time.Duration) bool {
	return math.Abs(float64(got-want)) <= RelativeAccuracy*float64(want)+1
}

func TestSketchQuantilesStayWithinTheRelativeErrorBound(t *testing.T) {
	rng := rand.New(rand.NewPCG(1, 2))
	for _, dist := range []struct {
		name string
		draw func() time.Duration
	}{
		{"lognormal around 5ms", func() time.Duration {
			return time.Duration(math.Exp(rng.NormFloat64()*1.2+math.Log(5e6))) + time.Microsecond
		}},
		{"uniform 1µs..2s", func() time.Duration { return time.Duration(rng.Int64N(int64(2*time.Second))) + time.Microsecond }},
		{"bimodal 300µs and 800ms", func() time.Duration {
			if rng.IntN(10) == 0 {
				return 800*time.Millisecond + time.Duration(rng.Int64N(int64(50*time.Millisecond)))
			}
			return 300*time.Microsecond + time.Duration(rng.Int64N(int64(40*time.Microsecond)))
		}},
	} {
		t.Run(dist.name, func(t *testing.T) {
			s := NewSketch()
			var all []time.Duration
			for range 20000 {
				d := dist.draw()
				s.Add(d)
				all = append(all, d)
			}
			slices.Sort(all)
			for _, q := range []float64{0, 0.01, 0.25, 0.5, 0.75, 0.9, 0.95, 0.99, 0.999, 1} {
				got, want := s.Quantile(q), nearestRank(all, q)
				if !withinBound(got, want) {
					t.Errorf("q%.3f = %v, exact %v: off by %.3f%%, bound %.1f%%", q, got, want,
						100*math.Abs(float64(got-want))/float64(want), 100*RelativeAccuracy)
				}
			}
		})
	}
}

func TestSketchMergeEqualsOneSketchOfAllLatencies(t *testing.T) {
	rng := rand.New(rand.NewPCG(3, 4))
	a, b, all := NewSketch(), NewSketch(), NewSketch()
	for i := range 5000 {
		d := time.Duration(rng.Int64N(int64(time.Second)))
		all.Add(d)
		if i%3 == 0 {
			a.Add(d)
		} else {
			b.Add(d)
		}
	}
	a.Merge(b)
	if a.Count() != all.Count() {
		t.Fatalf("merged count %d, want %d", a.Count(), all.Count())
	}
	for _, q := range []float64{0.5, 0.9, 0.99} {
		if a.Quantile(q) != all.Quantile(q) {
			t.Errorf("q%v: merged %v, one sketch %v", q, a.Quantile(q), all.Quantile(q))
		}
	}
}

func TestSketchSurvivesItsJSONForm(t *testing.T) {
	s := NewSketch()
	for _, d := range []time.Duration{0, 500 * time.Nanosecond, time.Millisecond, 3 * time.Millisecond, time.Minute} {
		s.Add(d)
	}
	raw, err := json.Marshal(s)
	if err != nil {
		t.Fatal(err)
	}
	var back Sketch
	if err := json.Unmarshal(raw, &back); err != nil {
		t.Fatal(err)
	}
	if back.Count() != 5 || back.Quantile(0.5) != s.Quantile(0.5) || back.Quantile(1) != s.Quantile(1) {
		t.Fatalf("round trip of %s: count %d, p50 %v (want %v)", raw, back.Count(), back.Quantile(0.5), s.Quantile(0.5))
	}
	if got := back.Quantile(0.2); got != time.Microsecond {
		t.Fatalf("latencies under 1µs should report 1µs, got %v", got)
	}
	if NewSketch().Quantile(0.5) != 0 {
		t.Fatal("an empty sketch should report 0")
	}
}

func BenchmarkSketchAdd(b *testing.B) {
	s := NewSketch()
	d := 3 * time.Millisecond
	for i := 0; b.Loop(); i++ {
		s.Add(d + time.Duration(i%1000)*time.Microsecond)
	}
}

// BenchmarkFold is the aggregator's work per sample: find the minute
// bucket and add the latency to its sketch.
func BenchmarkFold(b *testing.B) {
	r := New(Config{})
	open := map[bucketKey]*bucketAgg{}
	s := Sample{ProjectID: "abcdefghijkl", Table: "items", Operation: "list", Method: "GET", Credential: "key",
		Status: 200, At: time.Now()}
	b.ReportAllocs()
	for i := 0; b.Loop(); i++ {
		s.Latency = 3*time.Millisecond + time.Duration(i%5000)*time.Microsecond
		r.fold(open, s)
	}
}
