package main

import (
	"encoding/json"
	"fmt"
	"maps"
	"math/rand/v2"
	"os/exec"
	"reflect"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/tablesmith/tablesmith/bench/fixture"
	"github.com/tablesmith/tablesmith/schema"
)

// The headline phase (issue 18): the module through Caddy against the
// strongest simple alternative, a bare net/http server whose statements
// are prepared once (lib/pq, and pgx v5 with its statement cache), with
// pgbench running the bare server's statements as the ceiling. For the
// GET, the list and create it also loads bare's handler inside a second Caddy
// (bench/caddybare): what Caddy itself leaves of bare's pace, the most any
// handler under Caddy can reach. Every server has a pool of 8 (-pool).
// Load comes from wrk when it is on PATH (as the issue measured), else
// from the Go generator.

// issue18List is the list of the issue: active users, oldest first.
const issue18List = "filter%5Bis_active%5D=true&sort=-age&limit=20"

// prestList is the same list in pREST's words: its where, order and
// page parameters (the same tie-break as the hand-written statement).
const prestList = "is_active=true&_order=-age,-id&_page_size=20&_page=1"

// includeLimit is the page of the include scenario, as the issue asks;
// the benchmark's Caddy sets max_page_size 1000 for it (the default
// largest page is 100).
const includeLimit = 1000

// headlineCase is one row of the headline table.
type headlineCase struct {
	name  string
	conns int
	// module is the module's request; bare the bare servers' (lib/pq and
	// pgx), nil when they have no equivalent; prest pREST's, nil when it
	// has none (it counts no rows and nests no related records).
	module, bare, prest *scenario
	// pgbench is the script of bench/pgbench/ for the ceiling, or "".
	pgbench string
	// sameIDs compares the answers' ids rather than their whole data: the
	// module and the hand-written list may order ties differently.
	sameIDs bool
	// latency reports p50 and p99 instead of requests per second.
	latency bool
	// ceiling also loads the bare handler inside Caddy (bench/caddybare):
	// what Caddy leaves of the bare server's pace.
	ceiling bool
}

// The headline's targets, in the order of its columns.
const (
	targetModule = iota
	targetBare
	targetPgx
	targetBareCaddy
	targetPrest
)

// targets lists the targets a row loads, of the n started: the module,
// the bare servers where the row has their request, bare in Caddy for
// the ceiling rows, pREST where it has an equivalent and runs.
func (hc headlineCase) targets(n int) []int {
	run := []int{targetModule}
	if hc.bare != nil {
		run = append(run, targetBare, targetPgx)
		if hc.ceiling {
			run = append(run, targetBareCaddy)
		}
	}
	if hc.prest != nil && n > targetPrest {
		run = append(run, targetPrest)
	}
	return run
}

// scenario is the request of the row for target i.
func (hc headlineCase) scenario(i int) *scenario {
	switch i {
	case targetModule:
		return hc.module
	case targetPrest:
		return hc.prest
	}
	return hc.bare
}

func headlineCases(users int) []headlineCase {
	get := &scenario{name: "GET one by id", method: "GET", status: 200, wrk: "get.lua", path: func(r *rand.Rand, _ int) string {
		return "/users/" + strconv.Itoa(1+r.IntN(users))
	}}
	create := &scenario{name: "create", method: "POST", status: 201, wrk: "create.lua", path: fixed("/posts"), body: func(r *rand.Rand, seq int) string {
		return `{"title":"Bench post ` + strconv.Itoa(seq) + `","views":` + strconv.Itoa(seq%1000) +
			`,"author_id":` + strconv.Itoa(1+r.IntN(users)) + `}`
	}}
	unloaded := &scenario{}
	*unloaded = *get
	unloaded.name = "unloaded GET"
	prestGet := &scenario{name: "GET one by id", method: "GET", status: 200, wrk: "get.lua", wrkArgs: []string{"/users?id="}, path: func(r *rand.Rand, _ int) string {
		return "/users?id=" + strconv.Itoa(1+r.IntN(users))
	}}
	prestUnloaded := &scenario{}
	*prestUnloaded = *prestGet
	prestUnloaded.name = "unloaded GET"
	get1 := func(name, path string) *scenario {
		return &scenario{name: name, method: "GET", status: 200, path: fixed(path)}
	}
	include := get1("include", fmt.Sprintf("/posts?include=author&limit=%d&count=none", includeLimit))
	return []headlineCase{
		{name: "GET one by id", conns: 32, module: get, bare: get, prest: prestGet, pgbench: "get.sql", ceiling: true},
		{name: "list: `filter[is_active]=true&sort=-age&limit=20&count=none` vs `WHERE is_active ORDER BY age DESC, id DESC LIMIT 20`", conns: 32,
			module: get1("list count=none", "/users?"+issue18List+"&count=none"), bare: get1("list", "/users/"+fixture.HandWrittenPath),
			prest: get1("list", "/users?"+prestList), pgbench: "list.sql", sameIDs: true, ceiling: true},
		{name: "same list with the default count", conns: 32, module: get1("list default count", "/users?"+issue18List)},
		{name: "same list with `count=exact` vs a second `count(*)`", conns: 32,
			module: get1("list count=exact", "/users?"+issue18List+"&count=exact"), bare: get1("list count", "/users/"+fixture.HandWrittenPath+"?count=exact"),
			pgbench: "list-count.sql", sameIDs: true},
		{name: "create (POST /posts vs a prepared INSERT … RETURNING)", conns: 32, module: create, bare: create, prest: create, pgbench: "create.sql", ceiling: true},
		{name: fmt.Sprintf("list of %d posts with `include=author` vs the same statement", includeLimit), conns: 32, module: include, bare: include},
		{name: "unloaded GET latency (1 connection), p50 (p99)", conns: 1, module: unloaded, bare: unloaded, prest: prestUnloaded, latency: true, ceiling: true},
	}
}

// headlineRun is one measured run of one target.
type headlineRun struct {
	requests, errors int
	firstErr         string
	elapsed          time.Duration
	p50, p99         time.Duration
	cpu              cpuUse
}

func (r headlineRun) rps() float64 {
	if r.elapsed <= 0 {
		return 0
	}
	return float64(r.requests) / r.elapsed.Seconds()
}

// measureOne loads t with s over conns connections: a warm-up, then the
// measured run, with the CPU time of the server, the database's backends,
// the load generator and everything else over the measured run.
func (bn *bench) measureOne(t target, s *scenario, conns int) headlineRun {
	if !bn.useWrk {
		r := load(t, []*scenario{s}, conns, bn.c.warmup, bn.c.headlineMeasure)
		return headlineRun{requests: r.requests, errors: r.errors, firstErr: r.firstErr, elapsed: r.elapsed,
			p50: r.quantile(.5), p99: r.quantile(.99), cpu: r.cpu}
	}
	users := bn.projects["main"].sizes.Users
	if bn.c.warmup >= time.Second {
		_, _, _ = runWrk(wrkArgs(t, s, users, conns, bn.c.warmup))
	}
	m := startCPU(meterDB, t.pid, t.app)
	w, wrkCPU, err := runWrk(wrkArgs(t, s, users, conns, bn.c.headlineMeasure))
	cpu := m.stop()
	cpu.driver += wrkCPU
	cpu.others -= wrkCPU
	if err != nil {
		return headlineRun{errors: 1, firstErr: err.Error(), cpu: cpu}
	}
	r := headlineRun{requests: w.requests, errors: w.errors, elapsed: w.elapsed, p50: w.p50, p99: w.p99, cpu: cpu}
	if w.errors > 0 {
		r.firstErr = "non-2xx answers or socket errors (wrk does not say which)"
	}
	return r
}

// headlineTotal merges a target's rounds: requests and CPU add up, the
// latency quantiles are the median of the rounds' (wrk reports
// quantiles, not the latencies themselves).
type headlineTotal struct {
	rounds []headlineRun
}

func (h headlineTotal) sum() headlineRun {
	var out headlineRun
	var p50s, p99s []time.Duration
	for _, r := range h.rounds {
		out.requests += r.requests
		out.errors += r.errors
		out.elapsed += r.elapsed
		out.cpu = out.cpu.add(r.cpu)
		p50s, p99s = append(p50s, r.p50), append(p99s, r.p99)
	}
	out.p50, out.p99 = median(p50s), median(p99s)
	return out
}

func median(ds []time.Duration) time.Duration {
	if len(ds) == 0 {
		return 0
	}
	s := slices.Clone(ds)
	slices.Sort(s)
	if len(s)%2 == 1 {
		return s[len(s)/2]
	}
	return (s[len(s)/2-1] + s[len(s)/2]) / 2
}

// headline runs the headline phase and prints its tables.
func (bn *bench) headline() {
	_, err := exec.LookPath("wrk")
	bn.useWrk = err == nil
	gen := "the Go load generator (wrk is not on PATH)"
	if bn.useWrk {
		gen = "wrk (" + wrkVersion() + ")"
	}
	mp := bn.projects["main"]
	bn.printf("\n== headline (issue 18): module through Caddy vs bare servers with prepared statements, pgbench as the ceiling ==\n")
	bn.printf("load: %s; %d round(s) of %s per target after %s of warm-up, targets rotating; pools of %d; %d users\n",
		gen, bn.c.headlineRounds, bn.c.headlineMeasure, bn.c.warmup, bn.c.poolSize(), mp.sizes.Users)
	targets := []target{bn.module("main"), bn.bareTarget("main", ""), bn.bareTarget("main", "pgx"), bn.bareCaddyTarget("main")}
	if bn.prest != nil {
		targets = append(targets, bn.prestTarget())
	}
	var notes []string
	head := &table{}
	head.add("| operation", "| Tablesmith", "| bare lib/pq, prepared", "| ratio", "| bare pgx", "| pgbench", "| bare lib/pq in Caddy (÷ bare)", "| Tablesmith ÷ it", "| pREST", "| Tablesmith ÷ pREST |")
	head.add("|---", "|---:", "|---:", "|---:", "|---:", "|---:", "|---:", "|---:", "|---:", "|---: |")
	lat := &table{}
	lat.add("operation", "module p50 / p99 ms", "bare p50 / p99 ms", "bare-pgx p50 / p99 ms", "bare in Caddy p50 / p99 ms", "pREST p50 / p99 ms", "p99 ÷ bare", "ratio per round", "errors m/b/x/c/p")
	cpu := &table{}
	cpu.add("operation", "caddy", "bare", "bare-pgx", "bare in Caddy", "pREST", "pg (module)", "pg (bare)", "pg (pgx)", "pg (bare in Caddy)", "pg (pREST)", "driver", "other load")
	for _, hc := range headlineCases(mp.sizes.Users) {
		if !bn.headlineRowWanted(hc.name) {
			continue
		}
		run := hc.targets(len(targets))
		for _, i := range run[1:] {
			if i == targetPrest {
				notes = append(notes, bn.checkPrest(hc, targets[0], targets[i])...)
			} else {
				notes = append(notes, bn.checkHeadline(hc, targets[0], targets[i])...)
			}
		}
		totals := make([]headlineTotal, len(targets))
		for round := range bn.c.headlineRounds {
			for k := range run {
				i := run[(k+round)%len(run)]
				s := hc.scenario(i)
				r := bn.measureOne(targets[i], s, hc.conns)
				if r.errors > 0 {
					bn.printf("   ! %s %s: %d errors of %d, first: %s\n", hc.module.name, targets[i].name, r.errors, r.requests, r.firstErr)
				}
				totals[i].rounds = append(totals[i].rounds, r)
			}
		}
		sums := make([]headlineRun, len(targets))
		ran := make([]bool, len(targets))
		for _, i := range run {
			sums[i], ran[i] = totals[i].sum(), true
		}
		pg := ""
		if hc.pgbench != "" {
			tps, err := pgbenchTPS(bn.dbURL, schema.ProjectSchema(mp.id), hc.pgbench, mp.sizes.Users, hc.conns, bn.c.headlineMeasure)
			if err != nil {
				bn.printf("   ! pgbench %s: %v\n", hc.pgbench, err)
			} else {
				pg = thousands(tps)
			}
		}
		cell := func(i int) string {
			if !ran[i] {
				return ""
			}
			if hc.latency {
				return fmt.Sprintf("%s ms (%s)", ms3(sums[i].p50), ms3(sums[i].p99))
			}
			return thousands(sums[i].rps()) + "/s"
		}
		// over is the module beside target i: the p50 difference for
		// latency, else the ratio of throughputs.
		over := func(i int) string {
			if !ran[i] {
				return ""
			}
			if hc.latency {
				return fmt.Sprintf("%+.0f µs", float64(sums[0].p50-sums[i].p50)/1e3)
			}
			return fmt.Sprintf("%.2f", sums[0].rps()/sums[i].rps())
		}
		ratio, rounds, p99 := "", "", ""
		if ran[targetBare] {
			ratio = over(targetBare)
			if !hc.latency {
				ratio = "**" + ratio + "**"
			}
			var per []float64
			for k := range totals[0].rounds {
				per = append(per, totals[0].rounds[k].rps()/totals[targetBare].rounds[k].rps())
			}
			rounds = ratioRange(per)
			p99 = fmt.Sprintf("%.2f", float64(sums[0].p99)/float64(sums[targetBare].p99))
		}
		inCaddy := ""
		switch {
		case ran[targetBareCaddy] && hc.latency: // Caddy's p50 over bare's
			inCaddy = fmt.Sprintf("%s (%+.0f µs)", cell(targetBareCaddy), float64(sums[targetBareCaddy].p50-sums[targetBare].p50)/1e3)
		case ran[targetBareCaddy]:
			inCaddy = fmt.Sprintf("%s (%.2f)", cell(targetBareCaddy), sums[targetBareCaddy].rps()/sums[targetBare].rps())
		}
		head.add("| "+hc.name, "| "+cell(0), "| "+cell(targetBare), "| "+ratio, "| "+cell(targetPgx), "| "+pg,
			"| "+inCaddy, "| "+over(targetBareCaddy), "| "+cell(targetPrest), "| "+over(targetPrest)+" |")
		short := hc.module.name
		cols := targetPrest + 1
		lats, errs := make([]string, cols), make([]string, cols)
		cpus, pgs := make([]string, cols), make([]string, cols)
		for i := range cols {
			lats[i], errs[i], cpus[i], pgs[i] = "", "-", "", ""
			if ran[i] {
				r := sums[i]
				lats[i] = ms(r.p50) + " / " + ms(r.p99)
				errs[i] = strconv.Itoa(r.errors)
				cpus[i], pgs[i] = perRequest(r.cpu.server, r.requests), perRequest(r.cpu.postgres, r.requests)
			}
		}
		lat.add(short, lats[0], lats[1], lats[2], lats[3], lats[4], p99, rounds, strings.Join(errs, "/"))
		var driver time.Duration
		var requests int
		for _, i := range run {
			driver += sums[i].cpu.driver
			requests += sums[i].requests
		}
		cpu.add(short, cpus[0], cpus[1], cpus[2], cpus[3], cpus[4], pgs[0], pgs[1], pgs[2], pgs[3], pgs[4], perRequest(driver, requests), headlineOtherLoad(sums, ran))
		bn.printf("   %s done\n", short)
	}
	hwm, _ := memory(bn.caddy.pid())
	bn.printf("\nratio: Tablesmith ÷ bare lib/pq (requests/s; for the unloaded latency, the p50 difference). pgbench: transactions/s, -M prepared, %d clients.\n"+
		"bare lib/pq in Caddy: bare's handler as a Caddy module (bench/caddybare) in Caddyfile.example's place of tablesmith_api: what Caddy leaves of bare's pace, the most any handler under Caddy reaches.\n"+
		"pREST: %s\n\n%s", 32, bn.prestNote(), head)
	bn.printf("\nlatency under load (median of the rounds' p50 and p99), p99 ratio module ÷ bare lib/pq, module ÷ bare per round:\n%s", lat)
	bn.printf("\nCPU time per request in µs (server process, PostgreSQL backends, load generator; other load: cores other processes kept busy):\n%s", cpu)
	bn.printf("\nCaddy peak resident memory so far (VmHWM): %.1f MB (target ≤ 150 MB)\n", float64(hwm)/1024)
	if len(notes) > 0 {
		bn.printf("\nanswers:\n%s", strings.Join(notes, ""))
	}
}

// headlineOtherLoad is how many cores other processes kept busy over
// the runs of one operation.
func headlineOtherLoad(rs []headlineRun, ran []bool) string {
	var busy, elapsed time.Duration
	for i, r := range rs {
		if !ran[i] {
			continue
		}
		busy += r.cpu.others
		elapsed += r.elapsed
	}
	if elapsed == 0 {
		return "-"
	}
	return fmt.Sprintf("%.2f", float64(busy)/float64(elapsed))
}

// checkHeadline probes the module and a bare server before measuring and
// says how their answers compare: the same data, or, for the list, the
// same ids (and the same total for count=exact). A difference is
// reported, never fatal: the module's tie-break may differ from the
// hand-written one, which is what issue 18 is about.
func (bn *bench) checkHeadline(hc headlineCase, m, b target) []string {
	if hc.module.method != "GET" {
		return nil
	}
	sm, bodyM, errM := probe(m, hc.module)
	sb, bodyB, errB := probe(b, hc.bare)
	if errM != nil || errB != nil || sm != 200 || sb != 200 {
		return []string{fmt.Sprintf("   ! %s: %s answered %d %v %.200s; %s answered %d %v %.200s\n",
			hc.module.name, m.name, sm, errM, bodyM, b.name, sb, errB, bodyB)}
	}
	var am, ab struct {
		Data any `json:"data"`
		Meta struct {
			Total *int64 `json:"total"`
		} `json:"meta"`
	}
	if err := json.Unmarshal([]byte(bodyM), &am); err != nil {
		return []string{fmt.Sprintf("   ! %s: %s: %v\n", hc.module.name, m.name, err)}
	}
	if err := json.Unmarshal([]byte(bodyB), &ab); err != nil {
		return []string{fmt.Sprintf("   ! %s: %s: %v\n", hc.module.name, b.name, err)}
	}
	var out []string
	if hc.sameIDs {
		if line := compareIDs(am.Data, ab.Data); line != "" {
			out = append(out, fmt.Sprintf("   %s, %s vs %s: %s\n", hc.module.name, m.name, b.name, line))
		}
		if (am.Meta.Total == nil) != (ab.Meta.Total == nil) || (am.Meta.Total != nil && *am.Meta.Total != *ab.Meta.Total) {
			out = append(out, fmt.Sprintf("   ! %s: totals differ: %s %v, %s %v\n", hc.module.name, m.name, deref(am.Meta.Total), b.name, deref(ab.Meta.Total)))
		}
		return out
	}
	if !reflect.DeepEqual(am.Data, ab.Data) {
		out = append(out, fmt.Sprintf("   ! %s: %s and %s answer different data:\n     %.300s\n     %.300s\n", hc.module.name, m.name, b.name, bodyM, bodyB))
	}
	return out
}

func deref(p *int64) any {
	if p == nil {
		return "none"
	}
	return *p
}

// compareIDs compares two lists of records by id: "" when they hold the
// same ids in the same order, else what differs, with the ages of the
// rows only one side returned (ties in age are where orders differ).
func compareIDs(a, b any) string {
	ids := func(v any) ([]int64, map[int64]any) {
		rows, _ := v.([]any)
		var out []int64
		ages := map[int64]any{}
		for _, r := range rows {
			rec, _ := r.(map[string]any)
			id, _ := rec["id"].(float64)
			out = append(out, int64(id))
			ages[int64(id)] = rec["age"]
		}
		return out, ages
	}
	ia, agesA := ids(a)
	ib, agesB := ids(b)
	if slices.Equal(ia, ib) {
		return ""
	}
	var onlyA, onlyB []int64
	ages := map[string]bool{}
	for _, id := range ia {
		if !slices.Contains(ib, id) {
			onlyA = append(onlyA, id)
			ages[fmt.Sprint(agesA[id])] = true
		}
	}
	for _, id := range ib {
		if !slices.Contains(ia, id) {
			onlyB = append(onlyB, id)
			ages[fmt.Sprint(agesB[id])] = true
		}
	}
	if len(onlyA) == 0 && len(onlyB) == 0 {
		return fmt.Sprintf("the same %d ids in another order", len(ia))
	}
	return fmt.Sprintf("different rows: %d of %d ids differ, at age(s) %s; only the first: ids %s; only the second: ids %s",
		len(onlyA), len(ia), strings.Join(slices.Sorted(maps.Keys(ages)), ", "), idRange(onlyA), idRange(onlyB))
}

// idRange summarises ids as their count, lowest and highest.
func idRange(ids []int64) string {
	if len(ids) == 0 {
		return "none"
	}
	return fmt.Sprintf("%d from %d to %d", len(ids), slices.Min(ids), slices.Max(ids))
}

// thousands formats a rate as 12,345.
func thousands(v float64) string {
	s := strconv.FormatInt(int64(v+0.5), 10)
	for i := len(s) - 3; i > 0; i -= 3 {
		s = s[:i] + "," + s[i:]
	}
	return s
}

// ms3 formats a duration in milliseconds with microseconds.
func ms3(d time.Duration) string { return strconv.FormatFloat(float64(d)/1e6, 'f', 3, 64) }

// wrkVersion is wrk's first line of -v, e.g. "wrk 4.1.0 [epoll]".
func wrkVersion() string {
	out, _ := exec.Command("wrk", "-v").CombinedOutput()
	line, _, _ := strings.Cut(string(out), "\n")
	if f := strings.Fields(line); len(f) >= 2 {
		return f[0] + " " + f[1]
	}
	return "wrk"
}

// headlineRowWanted reports whether -headline-only (texts separated by
// "|") selects a row of the headline table by its name.
func (bn *bench) headlineRowWanted(name string) bool {
	if bn.c.headlineOnly == "" {
		return true
	}
	for _, part := range strings.Split(bn.c.headlineOnly, "|") {
		if part != "" && strings.Contains(name, part) {
			return true
		}
	}
	return false
}
