package translate

import (
	"testing"

	"github.com/tablesmith/tablesmith/schema"
)

// A table keeps the INSERT of each column set it was asked for, the same
// text a fresh render gives, and no more than maxKeptInserts of them.
func TestInsertKeepsItsTextPerColumnSet(t *testing.T) {
	pub := testPublished(t)
	ts := pub.Tables["users"]
	cols := ts.Table.Columns
	some := []*schema.CColumn{cols[1], cols[3]}
	first := ts.Insert(some)
	if first != ts.renderInsert(some) {
		t.Fatalf("kept text differs from a fresh render:\n%s\n%s", first, ts.renderInsert(some))
	}
	if again := ts.Insert(some); again != first {
		t.Fatalf("second insert of the same columns: %s", again)
	}
	if other := ts.Insert([]*schema.CColumn{cols[1]}); other == first {
		t.Fatal("another column set got the same INSERT")
	}
	if ts.insertsLen.Load() != 2 {
		t.Fatalf("%d texts kept, want 2", ts.insertsLen.Load())
	}
	// Out of table order, or a column of another table: rendered, not kept.
	if got := ts.Insert([]*schema.CColumn{cols[3], cols[1]}); got != ts.renderInsert([]*schema.CColumn{cols[3], cols[1]}) {
		t.Fatalf("unordered columns: %s", got)
	}
	foreign := pub.Tables["posts"].Table.Columns[1]
	if got := ts.Insert([]*schema.CColumn{foreign}); got != ts.renderInsert([]*schema.CColumn{foreign}) {
		t.Fatalf("foreign column: %s", got)
	}
	if ts.insertsLen.Load() != 2 {
		t.Fatalf("%d texts kept after unkeyable sets, want 2", ts.insertsLen.Load())
	}
	// Every subset a client could send: the bound holds.
	for mask := 1; mask < 1<<min(len(cols), 9); mask++ {
		var set []*schema.CColumn
		for i := range min(len(cols), 9) {
			if mask&(1<<i) != 0 {
				set = append(set, cols[i])
			}
		}
		if got := ts.Insert(set); got != ts.renderInsert(set) {
			t.Fatalf("set %b: %s", mask, got)
		}
	}
	if n := ts.insertsLen.Load(); n != maxKeptInserts {
		t.Fatalf("%d texts kept, want the bound %d", n, maxKeptInserts)
	}
}
