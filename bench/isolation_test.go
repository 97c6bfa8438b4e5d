//go:build bench

// One tenant cannot stall another through realtime or exports (issue
// 35.9): project B reads records by id with a few clients (as in
// fairshare_test.go) alone, then while project A opens 2,000 realtime
// streams at once, writes one record a second to their table, and runs
// 10 CSV exports of a 1,000,000-row table in a loop; on one node through
// the real handler (in process, over HTTP), with the fair share off (no
// gate) and on at its default. It reports B's latencies and A's outcomes
// and asserts nothing about time (bench/RESULTS.md, "One tenant's streams
// and exports beside another's reads"). The clients run in the same
// process, so A's streams and exports compete with B for the CPU twice.
//
//	go test -tags bench -run TestIsolation -count=1 -v -timeout 20m ./bench/
package bench

import (
	"bufio"
	"context"
	"fmt"
	"io"
	"math/rand/v2"
	"net/http"
	"net/http/httptest"
	"slices"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/tablesmith/tablesmith/internal/service"
	"github.com/tablesmith/tablesmith/internal/testpg"
	"github.com/tablesmith/tablesmith/internal/testserver"
	"github.com/tablesmith/tablesmith/schema"
)

const (
	isoStreams   = 2000
	isoExports   = 10
	isoExportRow = 1_000_000
	isoWritesPS  = 1 // the streams catch up, without a fan-out load of their own (bench/realtime_test.go has that)
)

const isoSchemaA = `{"tables": [
	{"name": "posts", "realtime": true, "permissions": {"read": "public", "create": "public"},
	 "columns": [{"name": "title", "type": "text", "required": true}]},
	{"name": "rows", "permissions": {"read": "public"}, "columns": [{"name": "body", "type": "text"}]}]}`

func TestIsolationKeepsBFastWhileAStreamsAndExports(t *testing.T) {
	setup := testserver.New(t)
	a := setup.NewProject(isoSchemaA)
	b := setup.NewProject(fairSchema)
	start := time.Now()
	for _, stmt := range []string{
		fmt.Sprintf(`INSERT INTO %s.rows (body) SELECT md5(g::text) || ' ' || md5((g * 7)::text) FROM generate_series(1, %d) g`,
			schema.QuoteIdent(schema.ProjectSchema(a.ID)), isoExportRow),
		fmt.Sprintf(`INSERT INTO %s.notes (body) SELECT md5(g::text) FROM generate_series(1, %d) g`,
			schema.QuoteIdent(schema.ProjectSchema(b.ID)), fairRowsB),
		`VACUUM ANALYZE ` + schema.QuoteIdent(schema.ProjectSchema(a.ID)) + `.rows`,
		`VACUUM ANALYZE ` + schema.QuoteIdent(schema.ProjectSchema(b.ID)) + `.notes`,
	} {
		if _, err := setup.Svc.DB.Exec(stmt); err != nil {
			t.Fatal(err)
		}
	}
	t.Logf("seeded %d + %d rows in %v", isoExportRow, fairRowsB, time.Since(start).Round(time.Second))

	client := &http.Client{Transport: &http.Transport{MaxIdleConnsPerHost: 64}}
	streamClient := &http.Client{Transport: &http.Transport{MaxIdleConnsPerHost: isoStreams}}
	for _, mode := range []struct {
		name  string
		limit int
	}{{"fair share off", -1}, {"fair share on, default (5 of 20)", 0}} {
		svc, err := service.New(service.Config{DatabaseURL: testpg.URL(t), DefaultPlan: "unlimited", Secret: "test-secret",
			MaxOpenConns: fairPool, ProjectConcurrency: mode.limit})
		if err != nil {
			t.Fatal(err)
		}
		if err := svc.Start(context.Background()); err != nil {
			t.Fatal(err)
		}
		srv := httptest.NewServer(svc.API())
		urlB := srv.URL + "/v1/" + b.ID + "/notes/"
		fairGet(client, urlB+"1", b.Key)

		alone := measureB(client, urlB, b.Key)

		ctx, cancel := context.WithCancel(context.Background())
		var wg sync.WaitGroup
		// A's exports, each in a loop; a 503 waits half a second.
		var exported, busy, otherA atomic.Int64
		for range isoExports {
			wg.Add(1)
			go func() {
				defer wg.Done()
				for ctx.Err() == nil {
					req, _ := http.NewRequestWithContext(ctx, "GET", srv.URL+"/v1/"+a.ID+"/rows?format=csv", nil)
					req.Header.Set("Authorization", "Bearer "+a.Key)
					res, err := client.Do(req)
					if err != nil {
						continue
					}
					_, err = io.Copy(io.Discard, res.Body)
					res.Body.Close()
					switch {
					case res.StatusCode == 200 && err == nil:
						exported.Add(1)
					case res.StatusCode == 503:
						busy.Add(1)
						time.Sleep(500 * time.Millisecond)
					case ctx.Err() == nil:
						otherA.Add(1)
					}
				}
			}()
		}
		// A's streams, opened at once, read until the end.
		var connected, refused, events atomic.Int64
		openStart := time.Now()
		var openedIn atomic.Int64
		for range isoStreams {
			wg.Add(1)
			go func() {
				defer wg.Done()
				req, _ := http.NewRequestWithContext(ctx, "GET", srv.URL+"/v1/"+a.ID+"/realtime?tables=posts", nil)
				req.Header.Set("Authorization", "Bearer "+a.Key)
				res, err := streamClient.Do(req)
				if err != nil {
					return
				}
				defer res.Body.Close()
				if res.StatusCode != 200 {
					refused.Add(1)
					return
				}
				sc := bufio.NewScanner(res.Body)
				for sc.Scan() {
					line := sc.Text()
					if strings.HasPrefix(line, ": connected") {
						if connected.Add(1) == isoStreams {
							openedIn.Store(int64(time.Since(openStart)))
						}
					} else if strings.HasPrefix(line, "event: create") {
						events.Add(1)
					}
				}
			}()
		}
		// A's writes, which every stream reads.
		wg.Add(1)
		go func() {
			defer wg.Done()
			tick := time.NewTicker(time.Second / isoWritesPS)
			defer tick.Stop()
			for i := 0; ; i++ {
				select {
				case <-ctx.Done():
					return
				case <-tick.C:
				}
				req, _ := http.NewRequestWithContext(ctx, "POST", srv.URL+"/v1/"+a.ID+"/posts", strings.NewReader(fmt.Sprintf(`{"title":"p%d"}`, i)))
				req.Header.Set("Authorization", "Bearer "+a.Key)
				req.Header.Set("Content-Type", "application/json")
				if res, err := client.Do(req); err == nil {
					_, _ = io.Copy(io.Discard, res.Body)
					res.Body.Close()
				}
			}
		}()
		loaded, steady := measureBSince(client, urlB, b.Key, func() bool { return connected.Load() == isoStreams })
		cancel()
		wg.Wait()
		srv.Close()
		svc.Close()
		t.Logf("%s:\n  B alone:                      %s\n  B, A streaming and exporting: %s  (p99 %.2fx alone, p50 %.2fx)\n"+
			"  B once A's streams are open:  %s  (p99 %.2fx alone, p50 %.2fx)\n"+
			"  A: %d of %d streams connected (all within %v), %d refused, %d events read; exports: %d whole, %d answered 503, %d other",
			mode.name, alone, loaded, float64(loaded.p99)/float64(alone.p99), float64(loaded.p50)/float64(alone.p50),
			steady, float64(steady.p99)/float64(alone.p99), float64(steady.p50)/float64(alone.p50),
			connected.Load(), isoStreams, time.Duration(openedIn.Load()).Round(time.Millisecond), refused.Load(), events.Load(),
			exported.Load(), busy.Load(), otherA.Load())
	}
}

// measureBSince is measureB that also reports the requests sent once
// opened() held (A's streams all open: the steady part of the load).
func measureBSince(client *http.Client, url, key string, opened func() bool) (all, after latencies) {
	var mu sync.Mutex
	var every, late []time.Duration
	failed, failedLate := 0, 0
	deadline := time.Now().Add(fairMeasure)
	var wg sync.WaitGroup
	for c := range fairClientsB {
		wg.Add(1)
		go func() {
			defer wg.Done()
			rng := rand.New(rand.NewPCG(uint64(c), 16))
			for time.Now().Before(deadline) {
				steady := opened()
				t0 := time.Now()
				ok := fairGet(client, fmt.Sprint(url, rng.IntN(fairRowsB)+1), key) == 200
				d := time.Since(t0)
				mu.Lock()
				every = append(every, d)
				if !ok {
					failed++
				}
				if steady {
					late = append(late, d)
					if !ok {
						failedLate++
					}
				}
				mu.Unlock()
				time.Sleep(fairPause)
			}
		}()
	}
	wg.Wait()
	return summarize(every, failed), summarize(late, failedLate)
}

func summarize(ds []time.Duration, failed int) latencies {
	if len(ds) == 0 {
		return latencies{}
	}
	slices.Sort(ds)
	at := func(q float64) time.Duration { return ds[min(len(ds)-1, int(q*float64(len(ds))))] }
	return latencies{n: len(ds), failed: failed, p50: at(0.50), p99: at(0.99), max: ds[len(ds)-1]}
}
