package apihttp_test

import (
	"testing"

	"github.com/tablesmith/tablesmith/internal/testserver"
)

// A list whose rows were found past the count cap reports the remembered
// estimate for a while without counting again, on any page, order or
// shape of the same rows; exact totals (at or under the cap) are never
// remembered, and other conditions count on their own.
func TestEstimatedTotalsAreRememberedBrieflyAndExactOnesNever(t *testing.T) {
	t.Parallel()
	s := testserver.New(t)
	p := s.NewProject(`{"tables": [{"name": "events", "columns": [{"name": "kind", "type": "integer", "index": true}]}]}`)
	execIn(t, s, p, `INSERT INTO $s.events (kind) SELECT g % 2 FROM generate_series(1, 24000) g`, `ANALYZE $s.events`)
	total := func(path string) (float64, bool) {
		t.Helper()
		m := meta(s.API(p, "GET", path, nil).Must(t, 200))
		est, _ := m["total_estimated"].(bool)
		n, _ := m["total"].(float64)
		return n, est
	}
	first, est := total("/events?" + query("filter[kind]", "1") + "&limit=5")
	if !est || first <= 10000 {
		t.Fatalf("12,000 matching rows: total %v, estimated %v", first, est)
	}
	few, est := total("/events?" + query("filter[id][lte]", "40") + "&limit=5")
	if est || few != 40 {
		t.Fatalf("40 matching rows: total %v, estimated %v, want exactly 40", few, est)
	}
	// Now most rows go, behind the API's back.
	execIn(t, s, p, `DELETE FROM $s.events WHERE id > 30`)
	// The same rows on another page, order and shape: the remembered estimate.
	again, est := total("/events?" + query("filter[kind]", "1") + "&limit=7&page=2&sort=-kind&fields=kind")
	if !est || again != first {
		t.Fatalf("same rows within the memo's time: total %v (estimated %v), want the remembered %v", again, est, first)
	}
	// count=exact always counts.
	if exact, est := total("/events?" + query("filter[kind]", "1") + "&count=exact"); est || exact != 15 {
		t.Fatalf("count=exact: %v (estimated %v), want 15", exact, est)
	}
	// An exact total was not remembered: it follows the rows at once.
	if few, est = total("/events?" + query("filter[id][lte]", "40") + "&limit=5"); est || few != 30 {
		t.Fatalf("40 → 30 matching rows: total %v, estimated %v", few, est)
	}
	// Other values are other rows: counted on their own.
	if zero, est := total("/events?" + query("filter[kind]", "0") + "&limit=5"); est || zero != 15 {
		t.Fatalf("filter[kind]=0 after the delete: total %v, estimated %v, want exactly 15", zero, est)
	}
}
