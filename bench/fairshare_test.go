//go:build bench

// Fair share of the data pool (issue 16): project A is hammered by 32
// clients with an unindexed search on a 1,000,000-row table while project B
// reads records by id with a few clients, on one node through the real
// handler (in process, over HTTP). It measures B's latency alone and while
// A is hammered, with the per-project gate off (as before issue 16) and
// on at its default (a quarter of the data pool), and reports them; it
// asserts nothing about time (bench/RESULTS.md, "Fair share").
//
//	go test -tags bench -run TestFairShare -count=1 -v -timeout 10m ./bench/
package bench

import (
	"context"
	"fmt"
	"io"
	"math/rand/v2"
	"net/http"
	"net/http/httptest"
	"slices"
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
	fairRowsA    = 1_000_000
	fairRowsB    = 10_000
	fairClientsA = 32
	fairClientsB = 4
	// fairPause is each B client's pause between requests: B is a normal
	// project, not a load test of its own.
	fairPause   = 5 * time.Millisecond
	fairMeasure = 15 * time.Second
	fairPool    = 20 // the data pool's default size
)

const fairSchema = `{"tables": [{"name": "notes",
	"permissions": {"read": "public", "create": "public", "update": "public", "delete": "public"},
	"columns": [{"name": "body", "type": "text"}]}]}`

func TestFairShareKeepsBFastWhileAIsHammered(t *testing.T) {
	setup := testserver.New(t)
	a := setup.NewProject(fairSchema)
	b := setup.NewProject(fairSchema)
	start := time.Now()
	for _, p := range []struct {
		id   string
		rows int
	}{{a.ID, fairRowsA}, {b.ID, fairRowsB}} {
		sch := schema.QuoteIdent(schema.ProjectSchema(p.id))
		for _, stmt := range []string{
			fmt.Sprintf(`INSERT INTO %s.notes (body) SELECT md5(g::text) || ' ' || md5((g * 7)::text) FROM generate_series(1, %d) g`, sch, p.rows),
			`VACUUM ANALYZE ` + sch + `.notes`,
		} {
			if _, err := setup.Svc.DB.Exec(stmt); err != nil {
				t.Fatal(err)
			}
		}
	}
	t.Logf("seeded %d + %d rows in %v", fairRowsA, fairRowsB, time.Since(start).Round(time.Second))

	client := &http.Client{Transport: &http.Transport{MaxIdleConnsPerHost: 64, MaxConnsPerHost: 0}}
	for _, mode := range []struct {
		name  string
		limit int
	}{{"gate off (before)", -1}, {"gate on, default cap 5 of 20", 0}} {
		svc, err := service.New(service.Config{DatabaseURL: testpg.URL(t), DefaultPlan: "unlimited", Secret: "test-secret",
			MaxOpenConns: fairPool, ProjectConcurrency: mode.limit})
		if err != nil {
			t.Fatal(err)
		}
		if err := svc.Start(context.Background()); err != nil {
			t.Fatal(err)
		}
		srv := httptest.NewServer(svc.API())
		urlA := srv.URL + "/v1/" + a.ID + "/notes?filter[body][like]=zebra"
		urlB := srv.URL + "/v1/" + b.ID + "/notes/"
		// Warm: load both projects, keys and statements.
		fairGet(client, urlA, a.Key)
		fairGet(client, urlB+"1", b.Key)

		alone := measureB(client, urlB, b.Key)
		stop := make(chan struct{})
		var wg sync.WaitGroup
		var okA, busyA, otherA atomic.Int64
		for range fairClientsA {
			wg.Add(1)
			go func() {
				defer wg.Done()
				for {
					select {
					case <-stop:
						return
					default:
					}
					switch fairGet(client, urlA, a.Key) {
					case 200:
						okA.Add(1)
					case 503:
						busyA.Add(1)
					default:
						otherA.Add(1)
					}
				}
			}()
		}
		time.Sleep(3 * time.Second) // let A fill what it can
		okA.Store(0)
		busyA.Store(0)
		otherA.Store(0)
		hammered := measureB(client, urlB, b.Key)
		close(stop)
		wg.Wait()
		srv.Close()
		svc.Close()
		t.Logf("%s:\n  B alone:         %s\n  B, A hammered:   %s  (p99 %.1fx alone)\n  A while measured: %d answered 200, %d answered 503, %d other (%.1f/s answered)",
			mode.name, alone, hammered, float64(hammered.p99)/float64(alone.p99),
			okA.Load(), busyA.Load(), otherA.Load(), float64(okA.Load())/fairMeasure.Seconds())
	}
}

type latencies struct {
	n             int
	failed        int
	p50, p99, max time.Duration
}

func (l latencies) String() string {
	return fmt.Sprintf("%6d requests (%d failed), p50 %7s, p99 %7s, max %7s", l.n, l.failed,
		l.p50.Round(10*time.Microsecond), l.p99.Round(10*time.Microsecond), l.max.Round(time.Millisecond))
}

// measureB runs B's clients for fairMeasure and returns their latencies.
func measureB(client *http.Client, url, key string) latencies {
	var mu sync.Mutex
	var all []time.Duration
	failed := 0
	deadline := time.Now().Add(fairMeasure)
	var wg sync.WaitGroup
	for c := range fairClientsB {
		wg.Add(1)
		go func() {
			defer wg.Done()
			rng := rand.New(rand.NewPCG(uint64(c), 16))
			var mine []time.Duration
			bad := 0
			for time.Now().Before(deadline) {
				t0 := time.Now()
				if fairGet(client, fmt.Sprint(url, rng.IntN(fairRowsB)+1), key) != 200 {
					bad++
				}
				mine = append(mine, time.Since(t0))
				time.Sleep(fairPause)
			}
			mu.Lock()
			all = append(all, mine...)
			failed += bad
			mu.Unlock()
		}()
	}
	wg.Wait()
	slices.Sort(all)
	at := func(q float64) time.Duration { return all[min(len(all)-1, int(q*float64(len(all))))] }
	return latencies{n: len(all), failed: failed, p50: at(0.50), p99: at(0.99), max: all[len(all)-1]}
}

// fairGet sends a GET with key and returns the status (0 on a transport error).
func fairGet(client *http.Client, url, key string) int {
	req, _ := http.NewRequest("GET", url, nil)
	req.Header.Set("Authorization", "Bearer "+key)
	res, err := client.Do(req)
	if err != nil {
		return 0
	}
	_, _ = io.Copy(io.Discard, res.Body)
	res.Body.Close()
	return res.StatusCode
}
