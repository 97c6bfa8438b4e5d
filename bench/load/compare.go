package main

import (
	"encoding/json"
	"fmt"
	"io"
	"math"
	"math/rand/v2"
	"net/http"
	"reflect"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/tablesmith/tablesmith/bench/fixture"
)

// listQuery is the sorted, filtered page: posts with views >= 995,000
// (0.5% of the rows at every size), most viewed first, second page of 20.
// views is indexed, so the page is an index scan whatever the table size.
const listQuery = "filter%5Bviews%5D%5Bgte%5D=995000&sort=-views&page=2&limit=20"

func fixed(path string) func(*rand.Rand, int) string {
	return func(*rand.Rand, int) string { return path }
}

// compareScenarios are the requests of the module/bare comparison.
func compareScenarios(n fixture.Sizes) []*scenario {
	return []*scenario{
		{name: "get by id", method: "GET", status: 200, path: func(r *rand.Rand, _ int) string {
			return "/users/" + strconv.Itoa(1+r.IntN(n.Users))
		}},
		{name: "list page", method: "GET", status: 200, path: fixed("/posts?" + listQuery)},
		{name: "include to-one", method: "GET", status: 200, path: fixed("/posts?include=author&limit=20&count=none")},
		{name: "include to-many", method: "GET", status: 200, path: fixed("/users?include=posts&limit=20&count=none")},
		{name: "search", method: "GET", status: 200, path: fixed("/users?search=" + fixture.SearchTerm + "&limit=20")},
		{name: "create", method: "POST", status: 201, path: fixed("/posts"), body: func(r *rand.Rand, seq int) string {
			return `{"title":"Bench post ` + strconv.Itoa(seq) + `","views":` + strconv.Itoa(seq%1000) +
				`,"author_id":` + strconv.Itoa(1+r.IntN(n.Users)) + `}`
		}},
		{name: "patch", method: "PATCH", status: 200, path: func(r *rand.Rand, _ int) string {
			return "/posts/" + strconv.Itoa(1+r.IntN(n.Posts))
		}, body: func(r *rand.Rand, seq int) string {
			return `{"title":"Edited post ` + strconv.Itoa(seq) + `","views":` + strconv.Itoa(r.IntN(1000)) + `}`
		}},
	}
}

// group is the merged result of several rounds of targets measured back
// to back with the same requests.
type group struct {
	res []result // per target, merged over the rounds
	// ratios[i] are the per-round rps of target i ÷ target 0.
	ratios [][]float64
}

// runGroup measures targets one after the other, rotating which goes
// first in each round so drift in the machine's load favours none, and
// merges the rounds.
func (bn *bench) runGroup(ts []target, s []*scenario, conns int) group {
	return bn.runRounds(bn.c.rounds, bn.c.warmup, bn.c.measure, ts, s, conns)
}

func (bn *bench) runRounds(rounds int, warmup, measure time.Duration, ts []target, s []*scenario, conns int) group {
	g := group{res: make([]result, len(ts)), ratios: make([][]float64, len(ts))}
	for round := range rounds {
		rs := make([]result, len(ts))
		for k := range ts {
			i := (k + round) % len(ts)
			r := load(ts[i], s, conns, warmup, measure)
			if r.errors > 0 {
				bn.printf("   ! %s %s: %d errors of %d, first: %s\n", s[0].name, ts[i].name, r.errors, r.requests, r.firstErr)
			}
			rs[i] = r
		}
		for i, r := range rs {
			g.ratios[i] = append(g.ratios[i], r.rps()/rs[0].rps())
			g.res[i] = merge(g.res[i], r)
		}
	}
	return g
}

// ratio is target 0's rps ÷ target i's, over all rounds, with the range
// of the per-round ratios.
func (g group) ratio(i int) (string, string) {
	inv := make([]float64, len(g.ratios[i]))
	for k, r := range g.ratios[i] {
		inv[k] = 1 / r
	}
	return fmt.Sprintf("%.2f", g.res[0].rps()/g.res[i].rps()), ratioRange(inv)
}

// p99ratio is target 0's p99 ÷ target i's.
func (g group) p99ratio(i int) string {
	return fmt.Sprintf("%.2f", float64(g.res[0].quantile(.99))/float64(g.res[i].quantile(.99)))
}

func merge(x, y result) result {
	if x.elapsed == 0 {
		return y
	}
	out := result{requests: x.requests + y.requests, errors: x.errors + y.errors, elapsed: x.elapsed + y.elapsed, cpu: x.cpu.add(y.cpu)}
	out.lat = append(append(out.lat, x.lat...), y.lat...)
	slices.Sort(out.lat)
	return out
}

func ratioRange(r []float64) string {
	if len(r) < 2 {
		return ""
	}
	return fmt.Sprintf("%.2f–%.2f", slices.Min(r), slices.Max(r))
}

// check probes a scenario on both targets and reports when their data
// differ, so the comparison is known to compare the same answers.
func (bn *bench) check(s *scenario, a, b target) {
	if s.method != "GET" {
		return
	}
	sa, ba, errA := probe(a, s)
	sb, bb, errB := probe(b, s)
	if errA != nil || errB != nil || sa != s.status || sb != s.status {
		bn.printf("   ! probe %s: %s %d %v %.200s | %s %d %v %.200s\n", s.name, a.name, sa, errA, ba, b.name, sb, errB, bb)
		return
	}
	var da, db struct {
		Data any `json:"data"`
	}
	_ = json.Unmarshal([]byte(ba), &da)
	_ = json.Unmarshal([]byte(bb), &db)
	if !reflect.DeepEqual(da.Data, db.Data) {
		bn.printf("   ! %s: %s and %s answer different data:\n     %.300s\n     %.300s\n", s.name, a.name, b.name, ba, bb)
	}
}

func (bn *bench) compare() {
	bn.printf("\n== module through Caddy vs bare net/http + lib/pq and pgx, same SQL, prepared (%d connections) ==\n", bn.c.conns)
	t := &table{}
	t.add("scenario", "module req/s", "p50 ms", "p99 ms", "bare req/s", "p50 ms", "p99 ms", "module÷bare", "rounds", "p99 ratio",
		"bare-pgx req/s", "p50 ms", "p99 ms", "module÷bare-pgx", "rounds", "p99 ratio")
	cpu := &table{}
	cpu.add("scenario", "caddy", "bare", "bare-pgx", "pg (module)", "pg (bare)", "pg (bare-pgx)", "driver", "cpu ratio m÷b", "m÷b-pgx", "other load")
	for _, s := range compareScenarios(bn.projects["main"].sizes) {
		m, b, bb := bn.module("main"), bn.bareTarget("main", ""), bn.bareTarget("main", "pgx")
		bn.check(s, m, b)
		bn.check(s, m, bb)
		g := bn.runGroup([]target{m, b, bb}, []*scenario{s}, bn.c.conns)
		r1, rr1 := g.ratio(1)
		r2, rr2 := g.ratio(2)
		rm, rb, rbb := g.res[0], g.res[1], g.res[2]
		t.add(s.name, rps(rm), ms(rm.quantile(.5)), ms(rm.quantile(.99)), rps(rb), ms(rb.quantile(.5)), ms(rb.quantile(.99)),
			r1, rr1, g.p99ratio(1), rps(rbb), ms(rbb.quantile(.5)), ms(rbb.quantile(.99)), r2, rr2, g.p99ratio(2))
		cpu.add(s.name, perRequest(rm.cpu.server, rm.requests), perRequest(rb.cpu.server, rb.requests), perRequest(rbb.cpu.server, rbb.requests),
			perRequest(rm.cpu.postgres, rm.requests), perRequest(rb.cpu.postgres, rb.requests), perRequest(rbb.cpu.postgres, rbb.requests),
			perRequest(rm.cpu.driver, rm.requests), fmt.Sprintf("%.2f", cpuRatio(rm, rb)), fmt.Sprintf("%.2f", cpuRatio(rm, rbb)),
			otherLoad(g.res...))
		bn.printf("   %s done\n", s.name)
	}
	bn.printf("\nbare: lib/pq, each statement prepared once; bare-pgx: pgx v5 with its statement cache\n%s", t)
	bn.printf("\nCPU time per request in µs (server process, PostgreSQL backends, load driver):\n%s", cpu)
	bn.printf("cpu ratio: the module÷bare rps ratio the CPU times predict when the two cores are the bottleneck;\n" +
		"other load: cores other processes kept busy during the runs (noise)\n")
}

func rps(r result) string { return fmt.Sprintf("%.0f", r.rps()) }

// cpuRatio predicts a's throughput relative to b's from the CPU time per
// request of everything on the machine that serves the requests.
func cpuRatio(a, b result) float64 {
	per := func(r result) float64 {
		return float64(r.cpu.server+r.cpu.postgres+r.cpu.driver) / float64(r.requests)
	}
	return per(b) / per(a)
}

// otherLoad is how many cores other processes kept busy, on average over
// the runs.
func otherLoad(rs ...result) string {
	var busy, elapsed time.Duration
	for _, r := range rs {
		busy += r.cpu.others
		elapsed += r.elapsed
	}
	return fmt.Sprintf("%.2f", float64(busy)/float64(elapsed))
}

// includes compares the module's one statement with the bare server
// doing the include as one query per relation and as one query per row
// (its run of the same statement is in the comparison above).
func (bn *bench) includes() {
	bn.printf("\n== include: one statement vs one query per relation vs one per row (%d connections) ==\n", bn.c.conns)
	t := &table{}
	t.add("scenario", "target", "req/s", "p50 ms", "p99 ms", "module ÷ target", "rounds", "server µs/req", "pg µs/req")
	all := compareScenarios(bn.projects["main"].sizes)
	for _, s := range all[2:4] {
		ts := []target{bn.module("main"), bn.bareTarget("main", "per-relation"), bn.bareTarget("main", "n-plus-1")}
		for _, b := range ts[1:] {
			bn.check(s, ts[0], b)
		}
		g := bn.runGroup(ts, []*scenario{s}, bn.c.conns)
		for i, r := range g.res {
			ratio, rounds := "", ""
			name := s.name
			if i > 0 {
				ratio, rounds = g.ratio(i)
				name = ""
			}
			t.add(name, ts[i].name, rps(r), ms(r.quantile(.5)), ms(r.quantile(.99)), ratio, rounds,
				perRequest(r.cpu.server, r.requests), perRequest(r.cpu.postgres, r.requests))
		}
	}
	bn.printf("\n%s", t)
}

// scale runs the same list on 10,000, 300,000 and 1,000,000 posts: one
// connection (the latency of one request alone) and full load.
func (bn *bench) scale() {
	bn.printf("\n== the same list on 10k, 300k and 1M posts (module through Caddy) ==\n")
	t := &table{}
	t.add("list", "posts", "1 conn p50 ms", "p99 ms", fmt.Sprintf("%d conns req/s", bn.c.conns), "p50 ms", "p99 ms", "1-conn p50 ÷ 10k")
	// The first list matches 0.5% of the rows at every size, so its count
	// grows with the table up to the exact-count cap. The next two match
	// the same number of rows at every size (the 50, or the 5,000, most
	// viewed): the same answer, and the same count, from a bigger table.
	// 5,000 is what the first matches at 1M, so the 1M figures of the
	// first and third rows run the same query.
	mostViewed := func(rows int) func(posts int) string {
		return func(posts int) string {
			return fmt.Sprintf("filter%%5Bviews%%5D%%5Bgte%%5D=%d&sort=-views&page=2&limit=20", fixture.ViewsRange-rows*fixture.ViewsRange/posts)
		}
	}
	for _, q := range []struct {
		name  string
		query func(posts int) string
	}{
		{"filtered to 0.5%, sorted (count estimated)", func(int) string { return listQuery }},
		{"filtered to 0.5%, sorted, count=none", func(int) string { return listQuery + "&count=none" }},
		{"filtered to the top 5,000, sorted (count estimated)", mostViewed(5000)},
		{"filtered to the top 50, sorted (count estimated)", mostViewed(50)},
		{"unfiltered, sort=-views (count over cap)", func(int) string { return "sort=-views&limit=20" }},
	} {
		var base time.Duration
		label := q.name // on the first row only
		for _, name := range []string{"10k", "main", "1m"} {
			s := &scenario{name: q.name, method: "GET", status: 200, path: fixed("/posts?" + q.query(bn.projects[name].sizes.Posts))}
			m := bn.module(name)
			one := load(m, []*scenario{s}, 1, bn.c.warmup/2, bn.c.measure/2)
			full := load(m, []*scenario{s}, bn.c.conns, bn.c.warmup, bn.c.measure)
			for _, r := range []result{one, full} {
				if r.errors > 0 {
					bn.printf("   ! %s on %s: %d errors, first: %s\n", q.name, name, r.errors, r.firstErr)
				}
			}
			if name == "10k" {
				base = one.quantile(.5)
			}
			t.add(label, strconv.Itoa(bn.projects[name].sizes.Posts), ms(one.quantile(.5)), ms(one.quantile(.99)),
				rps(full), ms(full.quantile(.5)), ms(full.quantile(.99)),
				fmt.Sprintf("%.2f", float64(one.quantile(.5))/float64(base)))
			label = ""
		}
	}
	bn.printf("\n%s", t)
}

// meteredPlan is a limited plan that a benchmark never exhausts, so that
// the limiter counts and sets its headers as for a paying customer (the
// unlimited plan sets none).
const meteredPlan = "\n\t\tplan metered {\n\t\t\trate 1000000000000/hour\n\t\t\tprojects unlimited\n\t\t}"

// metering measures what key verification, the rate limiter and analytics
// cost, with them on and off: through Caddy, as the module is deployed,
// and in the handler without Caddy, where the same cost is a larger share.
func (bn *bench) metering() error {
	if _, err := bn.db.Exec(`UPDATE tablesmith.accounts SET plan = 'metered'`); err != nil {
		return err
	}
	bn.printf("\n== metering through Caddy: key auth + rate limit + analytics on vs off (%d connections) ==\n", bn.c.conns)
	if err := bn.meteringPairs(bn.meteringCaddy); err != nil {
		return err
	}
	// The creates above clear the visibility map that the list's count
	// reads (an index-only scan); both phases start from a vacuumed table.
	bn.vacuum()
	bn.printf("\n== in-process handler (no Caddy): key auth + rate limit + analytics on vs off (%d connections) ==\n", bn.c.conns)
	return bn.meteringPairs(bn.meteringInproc)
}

// meteringPairs measures metering on -metering-pairs pairs of freshly
// started servers, -metering-rounds rounds each, and reports them
// together. Each round loads the metered and the unmetered server at the
// same time, half the connections each: on this machine two runs of the
// same server a few seconds apart differ by up to 15%, several times the
// effect, while two servers loaded together see the same machine. Fresh
// processes, not only more rounds, because part of the spread belongs to
// the process (its heap layout, its garbage collector's pacing): two
// runs of one code once gave 1.8% and 7.1% on GET by id.
func (bn *bench) meteringPairs(launch func() (full, none target, stop func(), err error)) error {
	scenarios := meteringScenarios(bn.projects["main"].sizes)
	rounds := make([][]meteringRound, len(scenarios))
	for range bn.c.meteringPairs {
		full, none, stop, err := launch()
		if err != nil {
			stop()
			return err
		}
		if err := checkLimited(full); err != nil {
			stop()
			return err
		}
		for i, s := range scenarios {
			for range bn.c.meteringRounds {
				rs := loadSideBySide([]target{full, none}, []*scenario{s}, max(1, bn.c.conns/2),
					min(bn.c.warmup, time.Second), min(bn.c.measure, 3*time.Second))
				for k, r := range rs {
					if r.errors > 0 {
						bn.printf("   ! %s %s: %d errors of %d, first: %s\n", s.name, []string{full.name, none.name}[k], r.errors, r.requests, r.firstErr)
					}
				}
				rounds[i] = append(rounds[i], meteringRound{on: rs[0], off: rs[1]})
			}
		}
		stop()
	}
	bn.printf("\n%s", meteringTable(scenarios, rounds, bn.c.meteringRounds))
	return nil
}

// meteringRound is one side-by-side run of the metered (on) and the
// unmetered (off) server.
type meteringRound struct{ on, off result }

// serviceCPU is the CPU time per request of the server and its
// PostgreSQL backends: the work a request costs, whatever else shares the
// cores.
func serviceCPU(r result) float64 {
	if r.requests == 0 {
		return math.NaN()
	}
	return float64(r.cpu.server+r.cpu.postgres) / float64(r.requests)
}

// meteringCaddy starts two Caddy processes on the benchmark database: one
// as deployed, its account on the metered plan, and one built with the
// benchmark's switch that leaves the limiter and the recorder out.
func (bn *bench) meteringCaddy() (full, none target, stop func(), err error) {
	on, onSite, _, err := bn.launchCaddy("caddy-metered", meteredPlan, nil)
	stop = on.stop
	if err != nil {
		return full, none, stop, err
	}
	off, offSite, _, err := bn.launchCaddy("caddy-unmetered", meteredPlan, []string{"TABLESMITH_BENCH_WITHOUT_METERING=1"})
	stop = func() { on.stop(); off.stop() }
	if err != nil {
		return full, none, stop, err
	}
	pr := bn.projects["main"]
	full = target{name: "auth+limit+analytics", addr: onSite, prefix: "/v1/" + pr.id, key: pr.key, pid: on.pid(), app: "caddy-metered"}
	none = target{name: "none", addr: offSite, prefix: "/v1/" + pr.id, pid: off.pid(), app: "caddy-unmetered"}
	return full, none, stop, nil
}

// requestLogCost measures what the request log costs a request (issue 37:
// at most 2% of GET throughput): two Caddy processes, both metered, one
// with request_log off, loaded side by side as the metering phase does.
func (bn *bench) requestLogCost() error {
	if _, err := bn.db.Exec(`UPDATE tablesmith.accounts SET plan = 'metered'`); err != nil {
		return err
	}
	bn.vacuum()
	bn.printf("\n== request log through Caddy: on vs request_log off, both metered (%d connections) ==\n", bn.c.conns)
	return bn.meteringPairs(func() (full, none target, stop func(), err error) {
		on, onSite, _, err := bn.launchCaddy("caddy-logged", meteredPlan, nil)
		stop = on.stop
		if err != nil {
			return full, none, stop, err
		}
		off, offSite, _, err := bn.launchCaddy("caddy-unlogged", meteredPlan+"\n\t\trequest_log off", nil)
		stop = func() { on.stop(); off.stop() }
		if err != nil {
			return full, none, stop, err
		}
		pr := bn.projects["main"]
		full = target{name: "request log on", addr: onSite, prefix: "/v1/" + pr.id, key: pr.key, pid: on.pid(), app: "caddy-logged"}
		none = target{name: "request log off", addr: offSite, prefix: "/v1/" + pr.id, key: pr.key, pid: off.pid(), app: "caddy-unlogged"}
		return full, none, stop, nil
	})
}

// meteringInproc starts the handler without Caddy (bench/inproc), each
// service in a process of its own: in one process the two shared a
// garbage collector, and the metered one's analytics writes were charged
// to whichever run was under way.
func (bn *bench) meteringInproc() (full, none target, stop func(), err error) {
	addrs, pids := map[string]string{}, map[string]int{}
	var procs []*process
	stop = func() {
		for _, p := range procs {
			p.stop()
		}
	}
	for _, side := range []string{"metered", "unmetered"} {
		p, lines, err := start("inproc-"+side, bn.tmp, nil, 1, bn.c.inproc, "-db", withAppName(bn.dbURL, "inproc-"+side),
			"-conns", strconv.Itoa(bn.c.poolSize()), "-only", side)
		if err != nil {
			return full, none, stop, err
		}
		procs = append(procs, p)
		for _, l := range lines {
			if k, v, ok := strings.Cut(l, " "); ok {
				addrs[k] = v
			}
		}
		pids[side] = p.pid()
	}
	pr := bn.projects["main"]
	full = target{name: "auth+limit+analytics", addr: addrs["metered"], prefix: "/v1/" + pr.id, key: pr.key, pid: pids["metered"], app: "inproc-metered"}
	none = target{name: "none", addr: addrs["unmetered"], prefix: "/v1/" + pr.id, pid: pids["unmetered"], app: "inproc-unmetered"}
	return full, none, stop, nil
}

// meteringScenarios are GET by id, the list page and create.
func meteringScenarios(n fixture.Sizes) []*scenario {
	var out []*scenario
	for _, s := range compareScenarios(n) {
		if s.name == "get by id" || s.name == "list page" || s.name == "create" {
			out = append(out, s)
		}
	}
	return out
}

// meteringTable reports, per scenario, what metering costs over every
// round of every pair: in CPU time per request of the server and its
// PostgreSQL backends (the steadier measure), with its 95% confidence
// interval and each pair's own figure, and in requests per second served
// side by side.
func meteringTable(scenarios []*scenario, rounds [][]meteringRound, perPair int) *table {
	t := &table{}
	t.add("scenario", "on req/s", "p50 ms", "p99 ms", "off req/s", "p50 ms", "p99 ms", "server µs/req on | off", "PostgreSQL µs/req on | off",
		"cpu cost", "95% CI", "per pair", "req/s cost", "95% CI")
	for i, s := range scenarios {
		var on, off result
		var cpuLogs, rpsLogs []float64
		var pairs []string
		var pairOn, pairOff result
		for k, r := range rounds[i] {
			on, off = merge(on, r.on), merge(off, r.off)
			pairOn, pairOff = merge(pairOn, r.on), merge(pairOff, r.off)
			cpuLogs = append(cpuLogs, math.Log(serviceCPU(r.off)/serviceCPU(r.on)))
			rpsLogs = append(rpsLogs, math.Log(r.on.rps()/r.off.rps()))
			if (k+1)%perPair == 0 {
				pairs = append(pairs, fmt.Sprintf("%.1f%%", 100*(1-serviceCPU(pairOff)/serviceCPU(pairOn))))
				pairOn, pairOff = result{}, result{}
			}
		}
		t.add(s.name, rps(on), ms(on.quantile(.5)), ms(on.quantile(.99)), rps(off), ms(off.quantile(.5)), ms(off.quantile(.99)),
			perRequest(on.cpu.server, on.requests)+" | "+perRequest(off.cpu.server, off.requests),
			perRequest(on.cpu.postgres, on.requests)+" | "+perRequest(off.cpu.postgres, off.requests),
			fmt.Sprintf("%.1f%%", 100*(1-serviceCPU(off)/serviceCPU(on))), costInterval(cpuLogs), strings.Join(pairs, " "),
			fmt.Sprintf("%.1f%%", 100*(1-on.rps()/off.rps())), costInterval(rpsLogs))
	}
	return t
}

// costInterval is the 95% confidence interval of a cost from the rounds'
// log ratios ln(off cost ÷ on cost), i.e. the cost is 1 − exp(mean).
func costInterval(logs []float64) string {
	mean, half := meanCI95(logs)
	if math.IsInf(half, 1) || math.IsNaN(half) {
		return "-" // one round has no interval
	}
	return fmt.Sprintf("%.1f–%.1f%%", 100*(1-math.Exp(mean+half)), 100*(1-math.Exp(mean-half)))
}

// meanCI95 returns the mean of xs and the half-width of its 95%
// confidence interval (Student's t, since there are few rounds).
func meanCI95(xs []float64) (mean, half float64) {
	n := len(xs)
	if n == 0 {
		return 0, 0
	}
	for _, x := range xs {
		mean += x
	}
	mean /= float64(n)
	if n < 2 {
		return mean, math.Inf(1)
	}
	var ss float64
	for _, x := range xs {
		ss += (x - mean) * (x - mean)
	}
	sd := math.Sqrt(ss / float64(n-1))
	return mean, studentT975(n-1) * sd / math.Sqrt(float64(n))
}

// studentT975 is the 97.5th percentile of Student's t distribution with
// df degrees of freedom (from the standard tables; 1.96 beyond 30).
func studentT975(df int) float64 {
	table := []float64{12.706, 4.303, 3.182, 2.776, 2.571, 2.447, 2.365, 2.306, 2.262, 2.228,
		2.201, 2.179, 2.160, 2.145, 2.131, 2.120, 2.110, 2.101, 2.093, 2.086,
		2.080, 2.074, 2.069, 2.064, 2.060, 2.056, 2.052, 2.048, 2.045, 2.042}
	if df >= 1 && df <= len(table) {
		return table[df-1]
	}
	return 1.96
}

// checkLimited fails unless the metered server answers with the headers
// of a limited plan: with the unlimited plan the limiter sets none, and
// the measured cost would leave them out.
func checkLimited(t target) error {
	req, err := http.NewRequest("GET", "http://"+t.addr+t.prefix+"/users/1", nil)
	if err != nil {
		return err
	}
	req.Header.Set("Authorization", "Bearer "+t.key)
	res, err := http.DefaultClient.Do(req)
	if err != nil {
		return err
	}
	defer res.Body.Close()
	_, _ = io.Copy(io.Discard, res.Body)
	if res.StatusCode != http.StatusOK || res.Header.Get("X-RateLimit-Limit") == "" {
		return fmt.Errorf("metering: the metered server answered %d without X-RateLimit-Limit; it must apply a limited plan", res.StatusCode)
	}
	return nil
}
