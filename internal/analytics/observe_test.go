package analytics

import "testing"

// Observers see every recorded sample when the aggregator folds it, and
// not before: the request does not call them.
func TestObserverSeesFoldedSamples(t *testing.T) {
	r := New(Config{Buffer: 2})
	var seen []int
	r.Observe(func(s Sample) { seen = append(seen, s.Status) })
	for _, status := range []int{200, 404, 500} { // the third does not fit
		r.Record(Sample{ProjectID: "p1", Status: status})
	}
	if len(seen) != 0 {
		t.Fatalf("observed %v before the fold", seen)
	}
	r.foldQueued(map[bucketKey]*bucketAgg{}, false)
	if len(seen) != 2 || seen[0] != 200 || seen[1] != 404 {
		t.Fatalf("observed %v, want [200 404]", seen)
	}
	if st := r.Stats(); st.Recorded != 2 || st.Dropped != 1 {
		t.Fatalf("stats %+v, want 2 recorded and 1 dropped", st)
	}
}
