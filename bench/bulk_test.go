//go:build bench

package bench

import (
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/tablesmith/tablesmith/internal/testserver"
)

const bulkSchema = `{"tables": [{"name": "readings", "columns": [
	{"name": "sensor", "type": "text", "required": true},
	{"name": "value", "type": "number", "required": true},
	{"name": "unit", "type": "enum", "values": ["c", "f"], "default": "c"},
	{"name": "taken_at", "type": "timestamp"}]}]}`

// TestBulkCreateWritesTenTimesTheRowsPerSecondOfSinglePosts compares
// rows/s of single POSTs (8 clients at once, keep-alive) with POSTs of
// 1,000-record arrays (one client, one request at a time), through the
// whole HTTP pipeline on the local PostgreSQL. Run:
//
//	go test -tags bench -run TestBulkCreate -v ./bench/
func TestBulkCreateWritesTenTimesTheRowsPerSecondOfSinglePosts(t *testing.T) {
	s := testserver.New(t)
	p := s.NewProject(bulkSchema)
	url := s.URL + "/v1/" + p.ID + "/readings"
	client := &http.Client{Transport: &http.Transport{MaxIdleConnsPerHost: 16}}
	post := func(body []byte, want int) {
		req, err := http.NewRequest("POST", url, bytes.NewReader(body))
		if err != nil {
			t.Error(err)
			return
		}
		req.Header.Set("Authorization", "Bearer "+p.Key)
		req.Header.Set("Content-Type", "application/json")
		res, err := client.Do(req)
		if err != nil {
			t.Error(err)
			return
		}
		out, _ := io.ReadAll(res.Body)
		res.Body.Close()
		if res.StatusCode != want {
			t.Errorf("status %d: %.200s", res.StatusCode, out)
		}
	}
	reading := func(i int) map[string]any {
		return map[string]any{"sensor": fmt.Sprintf("s-%d", i%50), "value": float64(i) * 0.25, "taken_at": "2026-03-01T12:00:00Z"}
	}

	// Single POSTs: 8 clients share the rows.
	const singles, clients = 4000, 8
	bodies := make([][]byte, singles)
	for i := range bodies {
		bodies[i], _ = json.Marshal(reading(i))
	}
	var next atomic.Int64
	var wg sync.WaitGroup
	start := time.Now()
	for c := 0; c < clients; c++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := next.Add(1) - 1; i < singles; i = next.Add(1) - 1 {
				post(bodies[i], 201)
			}
		}()
	}
	wg.Wait()
	singleRate := float64(singles) / time.Since(start).Seconds()

	// Bulk POSTs of 1,000 records, one at a time.
	const batches, perBatch = 20, 1000
	batchBodies := make([][]byte, batches)
	for b := range batchBodies {
		items := make([]map[string]any, perBatch)
		for i := range items {
			items[i] = reading(b*perBatch + i)
		}
		batchBodies[b], _ = json.Marshal(items)
	}
	start = time.Now()
	for _, body := range batchBodies {
		post(body, 201)
	}
	bulkRate := float64(batches*perBatch) / time.Since(start).Seconds()

	var rows int
	if err := s.Svc.DB.QueryRow(`SELECT count(*) FROM p_` + p.ID + `.readings`).Scan(&rows); err != nil {
		t.Fatal(err)
	}
	if rows != singles+batches*perBatch {
		t.Fatalf("rows = %d, want %d", rows, singles+batches*perBatch)
	}
	ratio := bulkRate / singleRate
	t.Logf("single POSTs (%d clients): %.0f rows/s; bulk POSTs of %d: %.0f rows/s (%.1f requests/s); %.1fx",
		clients, singleRate, perBatch, bulkRate, bulkRate/perBatch, ratio)
	if ratio < 10 {
		t.Fatalf("bulk create is %.1fx the rows/s of single POSTs, want at least 10x", ratio)
	}
}
