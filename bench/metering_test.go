//go:build bench

// What key verification, the rate limiter and the analytics sample cost
// per request, measured in process: the generated-API handler is called
// directly, without HTTP or a load generator, and the paired runs
// alternate between a metered and an unmetered service so that whatever
// else shares the cores weighs on both alike (bench/RESULTS.md, "Metering").
//
//	go test -tags bench -run '^$' -bench Metering -benchtime 2s -count 3 ./bench/
package bench

import (
	"context"
	"fmt"
	"math/rand/v2"
	"net/http"
	"net/http/httptest"
	"sync/atomic"
	"syscall"
	"testing"
	"time"

	"github.com/tablesmith/tablesmith/bench/fixture"
	"github.com/tablesmith/tablesmith/internal/plans"
	"github.com/tablesmith/tablesmith/internal/service"
	"github.com/tablesmith/tablesmith/internal/testserver"
)

// meteringUsers is how many users the benchmarked project has.
const meteringUsers = 10_000

// meteringPlans add a limited plan that a benchmark never exhausts: the
// limiter counts and sets its headers as for a paying plan. The unlimited
// plan would not do, since it skips the headers.
func meteringPlans() plans.Set {
	set := plans.Defaults()
	set["bench"] = plans.Plan{Name: "bench", RatePerHour: 1_000_000_000_000, Projects: plans.Unlimited}
	return set
}

// BenchmarkMetering serves the same requests twice: by a service with its
// limiter and recorder, with the project's API key ("metered"), and by a
// service on the same database built WithoutMetering, without a credential
// ("unmetered"; the fixture's rules are public). get_by_id runs the real
// statement; admission stops at a query error right after admission, so
// its difference is the metering alone, without PostgreSQL's noise.
// cpu-ns/op is this process's CPU time per request (all goroutines,
// garbage collection included); PostgreSQL's is not in it.
func BenchmarkMetering(b *testing.B) {
	metered := testserver.New(b, testserver.WithPlans(meteringPlans(), "bench"))
	p := metered.NewProject(fixture.Schema)
	if err := fixture.Seed(context.Background(), metered.Svc.DB, p.ID, fixture.Sizes{Users: meteringUsers}); err != nil {
		b.Fatal(err)
	}
	unmetered := testserver.New(b, testserver.WithConfig(func(c *service.Config) { c.WithoutMetering = true }))

	paths := map[string]func(rnd *rand.Rand) string{
		"get_by_id": func(rnd *rand.Rand) string { return fmt.Sprintf("/v1/%s/users/%d", p.ID, 1+rnd.IntN(meteringUsers)) },
		"admission": func(*rand.Rand) string { return "/v1/" + p.ID + "/users?limit=not-a-number" },
	}
	wantStatus := map[string]int{"get_by_id": http.StatusOK, "admission": http.StatusBadRequest}
	for _, scenario := range []string{"get_by_id", "admission"} {
		b.Run(scenario+"/paired", func(b *testing.B) {
			defer checkNoDrops(b, metered.Svc)()
			runPaired(b, [2]http.Handler{metered.Svc.API(), unmetered.Svc.API()},
				[2][]*http.Request{requests(paths[scenario], p.Key), requests(paths[scenario], "")}, wantStatus[scenario])
		})
		b.Run(scenario+"/paired_parallel", func(b *testing.B) {
			defer checkNoDrops(b, metered.Svc)()
			runPairedParallel(b, [2]http.Handler{metered.Svc.API(), unmetered.Svc.API()},
				[2][]*http.Request{requests(paths[scenario], p.Key), requests(paths[scenario], "")}, wantStatus[scenario])
		})
		for _, mode := range []string{"metered", "unmetered"} {
			b.Run(scenario+"/"+mode, func(b *testing.B) {
				h, key := metered.Svc.API(), p.Key
				if mode == "unmetered" {
					h, key = unmetered.Svc.API(), ""
				}
				reqs := requests(paths[scenario], key)
				w := &discardWriter{header: http.Header{}}
				// One request first, outside the timing: it loads the
				// project, the key and the owner into the caches.
				h.ServeHTTP(w, reqs[0])
				checkAnswer(b, w, wantStatus[scenario], mode == "metered")
				b.ReportAllocs()
				defer checkNoDrops(b, metered.Svc)()
				cpu := cpuTime()
				n := 0
				for b.Loop() {
					w.reset()
					h.ServeHTTP(w, reqs[n%len(reqs)])
					if w.status != wantStatus[scenario] {
						b.Fatalf("status %d, want %d", w.status, wantStatus[scenario])
					}
					n++
				}
				b.ReportMetric(float64(cpuTime()-cpu)/float64(n), "cpu-ns/op")
			})
		}
	}
}

// pairBlock is how many requests in a row the paired run sends to one
// service before switching to the other.
const pairBlock = 32

// runPaired alternates blocks of requests between the metered service
// (index 0) and the unmetered one (1) and times each block on its own, so
// that other load on the machine, which comes and goes, weighs on both
// alike. It reports each side's wall and CPU time per request and the
// metering cost: the metered side's extra CPU time, in ns and in %.
func runPaired(b *testing.B, h [2]http.Handler, reqs [2][]*http.Request, status int) {
	w := &discardWriter{header: http.Header{}}
	for side := range h { // warm the caches outside the timing
		h[side].ServeHTTP(w, reqs[side][0])
		checkAnswer(b, w, status, side == 0)
		w.reset()
	}
	var wall, cpu [2]time.Duration
	var sent, timed [2]int // timed: requests of finished blocks
	side, inBlock := 0, 0
	startWall, startCPU := time.Now(), cpuTime()
	for b.Loop() {
		w.reset()
		h[side].ServeHTTP(w, reqs[side][sent[side]%len(reqs[side])])
		if w.status != status {
			b.Fatalf("status %d, want %d", w.status, status)
		}
		sent[side]++
		if inBlock++; inBlock == pairBlock {
			nowWall, nowCPU := time.Now(), cpuTime()
			wall[side] += nowWall.Sub(startWall)
			cpu[side] += nowCPU - startCPU
			timed[side] += pairBlock
			startWall, startCPU = nowWall, nowCPU
			side, inBlock = 1-side, 0
		}
	}
	if timed[0] == 0 || timed[1] == 0 {
		return // a calibration run too short to split
	}
	b.ReportMetric(float64(wall[0])/float64(timed[0]), "on-ns/op")
	b.ReportMetric(float64(wall[1])/float64(timed[1]), "off-ns/op")
	reportCost(b, cpu, [2]int64{int64(timed[0]), int64(timed[1])})
}

// pairPhase is how long the parallel paired run serves one side before
// switching to the other.
const pairPhase = 50 * time.Millisecond

// runPairedParallel is runPaired under load: 8 goroutines per core send
// requests, all to the side of the current phase, and the phases alternate
// every pairPhase; each phase's CPU time is charged to its side. Requests
// under way when a phase ends count in the phase they started in, which
// blurs the cost by a few percent of it.
func runPairedParallel(b *testing.B, h [2]http.Handler, reqs [2][]*http.Request, status int) {
	var phase atomic.Int32
	var served [2]atomic.Int64
	stop := make(chan struct{})
	charged := make(chan [2]time.Duration)
	go func() {
		var cpu [2]time.Duration
		tick := time.NewTicker(pairPhase)
		defer tick.Stop()
		last := cpuTime()
		for {
			select {
			case <-tick.C:
				now := cpuTime()
				side := phase.Load()
				cpu[side] += now - last
				last = now
				phase.Store(1 - side)
			case <-stop:
				charged <- cpu // the unfinished phase is left out
				return
			}
		}
	}()
	var next atomic.Int64
	b.SetParallelism(8)
	b.RunParallel(func(pb *testing.PB) {
		w := &discardWriter{header: http.Header{}}
		for pb.Next() {
			side := phase.Load()
			w.reset()
			h[side].ServeHTTP(w, reqs[side][next.Add(1)%int64(len(reqs[side]))])
			if w.status != status {
				b.Errorf("status %d, want %d", w.status, status)
				return
			}
			served[side].Add(1)
		}
	})
	close(stop)
	cpu := <-charged
	if cpu[0] == 0 || cpu[1] == 0 {
		return // a calibration run shorter than two phases
	}
	reportCost(b, cpu, [2]int64{served[0].Load(), served[1].Load()})
}

// reportCost reports each side's CPU time per request and the metering
// cost: the metered side's (0) extra CPU time, in ns and in %.
func reportCost(b *testing.B, cpu [2]time.Duration, requests [2]int64) {
	onCPU, offCPU := float64(cpu[0])/float64(requests[0]), float64(cpu[1])/float64(requests[1])
	b.ReportMetric(onCPU, "on-cpu-ns/op")
	b.ReportMetric(offCPU, "off-cpu-ns/op")
	b.ReportMetric(onCPU-offCPU, "cost-cpu-ns/op")
	b.ReportMetric(100*(onCPU-offCPU)/offCPU, "cost-cpu-%")
}

// requests builds the requests of a run up front, so building them is not
// measured; the handler does not change a GET request.
func requests(path func(*rand.Rand) string, key string) []*http.Request {
	rnd := rand.New(rand.NewPCG(1, 2)) // the same ids for both modes
	reqs := make([]*http.Request, 1024)
	for i := range reqs {
		reqs[i] = httptest.NewRequest(http.MethodGet, path(rnd), nil)
		if key != "" {
			reqs[i].Header.Set("Authorization", "Bearer "+key)
		}
	}
	return reqs
}

// checkAnswer makes sure a run measures what it says: the status, and
// for the metered service a limited plan's headers.
func checkAnswer(b *testing.B, w *discardWriter, status int, metered bool) {
	b.Helper()
	if w.status != status {
		b.Fatalf("status %d, want %d", w.status, status)
	}
	if limit := w.header.Get("X-RateLimit-Limit"); metered != (limit != "") {
		b.Fatalf("X-RateLimit-Limit %q on the metered=%v service", limit, metered)
	}
}

// checkNoDrops fails a run in which the analytics recorder dropped
// samples, since dropping is cheaper than recording; call the function it
// returns at the end of the run.
func checkNoDrops(b *testing.B, svc *service.Service) func() {
	before := svc.AnalyticsStats()
	return func() {
		after := svc.AnalyticsStats()
		if n := after.Dropped - before.Dropped; n > 0 {
			b.Errorf("the analytics recorder dropped %d of %d samples", n, n+after.Recorded-before.Recorded)
		}
	}
}

// discardWriter is the cheapest http.ResponseWriter that still keeps the
// status and headers; it is reused across requests.
type discardWriter struct {
	header http.Header
	status int
}

func (d *discardWriter) Header() http.Header { return d.header }

func (d *discardWriter) WriteHeader(code int) {
	if d.status == 0 {
		d.status = code
	}
}

func (d *discardWriter) Write(p []byte) (int, error) {
	if d.status == 0 {
		d.status = http.StatusOK
	}
	return len(p), nil
}

func (d *discardWriter) reset() {
	clear(d.header)
	d.status = 0
}

// cpuTime is the CPU time this process has used, user and system.
func cpuTime() time.Duration {
	var ru syscall.Rusage
	if err := syscall.Getrusage(syscall.RUSAGE_SELF, &ru); err != nil {
		return 0
	}
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}
