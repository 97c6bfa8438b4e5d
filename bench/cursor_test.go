//go:build bench

package bench

import (
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"sort"
	"testing"
	"time"

	"github.com/tablesmith/tablesmith/internal/testserver"
	"github.com/tablesmith/tablesmith/schema"
)

// CursorRows is the size of the table the keyset benchmark pages through.
const CursorRows = 1_000_000

// TestCursorPageTenThousandCostsWhatPageOneCosts seeds 1M rows and
// times, through the whole HTTP pipeline, page 1 and page 10,000 (limit
// 100: the last rows of the table) read by cursor, sorted by id, by a
// nullable indexed column (whose NULLs make an ascending cursor a UNION
// ALL of two index ranges) and by that column descending; page 10,000 by
// offset is shown for comparison. The cursor page must stay within 1.5x
// of page 1 (issue 19). Run: go test -tags bench -run CursorPage -v ./bench/
func TestCursorPageTenThousandCostsWhatPageOneCosts(t *testing.T) {
	s := testserver.New(t)
	p := s.NewProject(`{"tables": [{"name": "events", "columns": [
		{"name": "title", "type": "text"},
		{"name": "score", "type": "integer", "index": true}]}]}`)
	sch := schema.QuoteIdent(schema.ProjectSchema(p.ID))
	ctx := context.Background()
	for from := 1; from <= CursorRows; from += 200_000 {
		if _, err := s.Svc.DB.ExecContext(ctx, `INSERT INTO `+sch+`.events (title, score)
			SELECT 'event ' || g, CASE WHEN g % 10 = 0 THEN NULL ELSE ((g::bigint * 7919) % 100000)::int END
			FROM generate_series($1::int, $1::int + 199999) g`, from); err != nil {
			t.Fatal(err)
		}
	}
	if _, err := s.Svc.DB.ExecContext(ctx, `VACUUM ANALYZE `+sch+`.events`); err != nil {
		t.Fatal(err)
	}
	get := func(query string) ([]byte, time.Duration) {
		return timedGet(t, http.DefaultClient, s.URL+"/v1/"+p.ID+"/events?"+query, p.Key)
	}
	median := func(query string, n int) time.Duration {
		for i := 0; i < min(n/10+1, 20); i++ { // warm: prepared statements, generic plans, cache
			get(query)
		}
		var ds []time.Duration
		for i := 0; i < n; i++ {
			_, d := get(query)
			ds = append(ds, d)
		}
		sort.Slice(ds, func(i, j int) bool { return ds[i] < ds[j] })
		return ds[len(ds)/2]
	}
	for _, sortQ := range []string{"sort=id", "sort=score", "sort=-score"} {
		base := sortQ + "&limit=100"
		body, _ := get(base + "&offset=999800") // page 9,999
		var env struct {
			Meta struct {
				Next *string `json:"next_cursor"`
			} `json:"meta"`
		}
		if err := json.Unmarshal(body, &env); err != nil || env.Meta.Next == nil {
			t.Fatalf("%s: no next_cursor on page 9,999: %.300s", sortQ, body)
		}
		first := median(base, 200)
		deep := median(base+"&after="+*env.Meta.Next, 200)
		byOffset := median(base+"&page=10000", 5) // slow: a few
		ratio := float64(deep) / float64(first)
		fmt.Printf("%-12s page 1 %8v   page 10,000 by cursor %8v (%.2fx)   by page number %8v\n", sortQ, first, deep, ratio, byOffset)
		if ratio > 1.5 {
			t.Errorf("%s: page 10,000 by cursor took %v, %.2fx page 1's %v; want at most 1.5x", sortQ, deep, ratio, first)
		}
	}
}
