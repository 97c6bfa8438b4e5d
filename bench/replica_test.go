//go:build bench

package bench

import (
	"database/sql"
	"fmt"
	"math/rand/v2"
	"net/http"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	_ "github.com/lib/pq"

	"github.com/tablesmith/tablesmith/internal/service"
	"github.com/tablesmith/tablesmith/internal/testcluster"
	"github.com/tablesmith/tablesmith/internal/testpg"
	"github.com/tablesmith/tablesmith/internal/testserver"
)

// TestReplicaReadsAndReadYourWrites measures, on a private primary and
// streaming replica (internal/testcluster), GETs by id and list pages
// through a node without replicas and a node with one: throughput and the
// primary's CPU per request (the load the replica takes off it); then
// read-your-writes under load: a create through one node read back at
// once through another, 100,000 times, counting stale answers. Run:
//
//	go test -tags bench -run TestReplicaReadsAndReadYourWrites -v -timeout 20m ./bench/
func TestReplicaReadsAndReadYourWrites(t *testing.T) {
	c, err := testcluster.Start()
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	redisURL := testpg.RedisURL(t)
	nodeWith := func(replicas bool) *testserver.Server {
		return testserver.New(t, testserver.WithConfig(func(cfg *service.Config) {
			cfg.DatabaseURL = c.PrimaryURL(testcluster.Database)
			cfg.RedisURL = redisURL
			if replicas {
				cfg.ReplicaURLs = []string{c.ReplicaURL(testcluster.Database)}
			}
		}))
	}
	plain, replicated := nodeWith(false), nodeWith(true)
	p := plain.NewProject(`{"tables": [{"name": "notes", "columns": [
		{"name": "title", "type": "text", "required": true}, {"name": "n", "type": "integer", "index": true}]}]}`)
	if err := c.Exec(c.PrimaryURL(testcluster.Database), `INSERT INTO "p_`+p.ID+`".notes (title, n) SELECT 'note ' || g, g % 100 FROM generate_series(1, 10000) g`); err != nil {
		t.Fatal(err)
	}
	waitReplicaUp(t, replicated)
	primaryDB, err := sql.Open("postgres", c.PrimaryURL("postgres"))
	if err != nil {
		t.Fatal(err)
	}
	defer primaryDB.Close()
	cpu := primaryCPU(t, primaryDB)

	client := &http.Client{Transport: &http.Transport{MaxIdleConnsPerHost: 16}}
	load := func(node *testserver.Server, path func() string) (perSecond float64, cpuPerRequest time.Duration) {
		const clients, d = 8, 6 * time.Second
		var done atomic.Int64
		before := cpu()
		stop := time.Now().Add(d)
		var wg sync.WaitGroup
		for range clients {
			wg.Add(1)
			go func() {
				defer wg.Done()
				for time.Now().Before(stop) {
					req, _ := http.NewRequest("GET", node.URL+"/v1/"+p.ID+path(), nil)
					req.Header.Set("Authorization", "Bearer "+p.Key)
					res, err := client.Do(req)
					if err != nil {
						t.Error(err)
						return
					}
					res.Body.Close()
					if res.StatusCode == 200 {
						done.Add(1)
					}
				}
			}()
		}
		wg.Wait()
		n := done.Load()
		return float64(n) / d.Seconds(), (cpu() - before) / time.Duration(max(n, 1))
	}
	byID := func() string { return "/notes/" + strconv.Itoa(1+rand.IntN(10000)) }
	list := func() string { return "/notes?limit=20&filter[n]=" + strconv.Itoa(rand.IntN(100)) + "&count=none" }
	for _, c := range []struct {
		name string
		path func() string
	}{{"GET by id", byID}, {"list (filtered page of 20)", list}} {
		r0, c0 := load(plain, c.path)
		r1, c1 := load(replicated, c.path)
		t.Logf("%s: 0 replicas %.0f/s, primary CPU %v per request; 1 replica %.0f/s, primary CPU %v per request",
			c.name, r0, c0.Round(time.Microsecond/10), r1, c1.Round(time.Microsecond/10))
	}

	// Read-your-writes: a second replicated node reads what the first wrote.
	other := nodeWith(true)
	waitReplicaUp(t, other)
	const tries, workers = 100000, 8
	var stale, failed, next atomic.Int64
	start := time.Now()
	var wg sync.WaitGroup
	for range workers {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for next.Add(1) <= tries {
				title := "ryw " + strconv.FormatInt(next.Load(), 10) + " " + strconv.Itoa(rand.Int())
				r := replicated.Do("POST", "/v1/"+p.ID+"/notes", p.Key, map[string]any{"title": title})
				if r.Status != 201 {
					failed.Add(1)
					continue
				}
				id := fmt.Sprint(r.Data()["id"])
				g := other.Do("GET", "/v1/"+p.ID+"/notes/"+id, p.Key, nil)
				if g.Status != 200 || g.Data()["title"] != title {
					stale.Add(1)
				}
			}
		}()
	}
	wg.Wait()
	t.Logf("read-your-writes: %d creates each read back at once through another node in %v: %d stale, %d failed writes; replica reads on that node %d",
		tries, time.Since(start).Round(time.Second), stale.Load(), failed.Load(), replicaReadsOf(other))
	if stale.Load() != 0 {
		t.Errorf("%d stale reads after the client's own write", stale.Load())
	}
}

func waitReplicaUp(t *testing.T, s *testserver.Server) {
	t.Helper()
	for deadline := time.Now().Add(15 * time.Second); time.Now().Before(deadline); time.Sleep(50 * time.Millisecond) {
		if st, _ := s.Svc.ReplicaStats(); len(st) == 1 && st[0].Up {
			return
		}
	}
	t.Fatal("the replica did not come up")
}

func replicaReadsOf(s *testserver.Server) uint64 {
	st, _ := s.Svc.ReplicaStats()
	if len(st) == 0 {
		return 0
	}
	return st[0].Reads
}

// primaryCPU returns a reader of the CPU time the primary's processes
// (its postmaster and every child) have used, from /proc.
func primaryCPU(t *testing.T, db *sql.DB) func() time.Duration {
	var dataDir string
	if err := db.QueryRow(`SELECT setting FROM pg_settings WHERE name = 'data_directory'`).Scan(&dataDir); err != nil {
		t.Fatal(err)
	}
	raw, err := os.ReadFile(filepath.Join(dataDir, "postmaster.pid"))
	if err != nil {
		t.Fatal(err)
	}
	postmaster := strings.TrimSpace(strings.SplitN(string(raw), "\n", 2)[0])
	return func() time.Duration {
		var ticks int64
		entries, _ := os.ReadDir("/proc")
		for _, e := range entries {
			stat, err := os.ReadFile(filepath.Join("/proc", e.Name(), "stat"))
			if err != nil {
				continue
			}
			// Fields after the command (which may hold spaces): state ppid ... utime(14) stime(15).
			f := strings.Fields(string(stat[strings.LastIndexByte(string(stat), ')')+2:]))
			if len(f) < 13 || (e.Name() != postmaster && f[1] != postmaster) {
				continue
			}
			u, _ := strconv.ParseInt(f[11], 10, 64)
			s, _ := strconv.ParseInt(f[12], 10, 64)
			ticks += u + s
		}
		return time.Duration(ticks) * (time.Second / 100) // USER_HZ
	}
}
