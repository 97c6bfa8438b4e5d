// Command load is the benchmark driver behind make bench. In one
// invocation it creates a throwaway database, starts Caddy with the
// Tablesmith module from Caddyfile.example, creates and generates the
// benchmark projects through the platform API, seeds them, and starts the
// bare reference servers (bench/bare: lib/pq and pgx, statements prepared)
// on the same database. First the headline of issue 18: the module against
// the bare servers and pgbench, loaded with wrk when it is on PATH. It then
// measures the same list on 10,000, 300,000 and 1,000,000 rows, loads the module
// and the bare server back to back with the same requests: GET by id, a
// sorted and filtered list page, lists with a to-one and a to-many include,
// search, create and patch; compares the include with the bare server
// doing it in Go; takes pprof profiles of Caddy under load, reads Caddy's
// peak memory, and measures what authentication and metering cost with the
// in-process handler (bench/inproc). Everything it started is stopped and
// the database dropped, also on Ctrl-C. bench/RESULTS.md explains the
// report.
package main

import (
	"context"
	"database/sql"
	"flag"
	"fmt"
	"io"
	"log"
	"net"
	"net/http"
	"net/url"
	"os"
	"os/exec"
	"os/signal"
	"path/filepath"
	"runtime"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"syscall"
	"time"

	"github.com/tablesmith/tablesmith/bench/fixture"
	"github.com/tablesmith/tablesmith/internal/store"
	"github.com/tablesmith/tablesmith/internal/testpg"
	"github.com/tablesmith/tablesmith/schema"
)

type config struct {
	caddy, bare, inproc string
	// prest is a prestd binary to load beside the others ("": none).
	prest           string
	caddyfile       string
	serverURL       string
	pool            int
	conns           int
	warmup, measure time.Duration
	rounds          int
	headlineRounds  int
	headlineMeasure time.Duration
	meteringRounds  int
	meteringPairs   int
	results         string
	quick           bool
	only            string
	headlineOnly    string
	keep            bool
	hold            bool
	url             string
}

func main() {
	var c config
	flag.StringVar(&c.caddy, "caddy", "", "Caddy binary with the module (go build ./cmd/caddy)")
	flag.StringVar(&c.bare, "bare", "", "bare server binary (go build ./bench/bare)")
	flag.StringVar(&c.inproc, "inproc", "", "in-process handler binary (go build ./bench/inproc)")
	flag.StringVar(&c.prest, "prest", "", "prestd binary (pREST, built from its source) loaded in the headline beside the others; empty: none")
	flag.StringVar(&c.caddyfile, "caddyfile", "Caddyfile.example", "Caddyfile that Caddy runs")
	flag.StringVar(&c.serverURL, "db", testpg.ServerURL(), "PostgreSQL server URL; a throwaway database is created on it")
	// 8, not the module's default 20: issue 18 measured with a data pool
	// of 8, on two cores 8 serve as many requests, and Caddy's two pools
	// plus the bare server's two then leave room for pgbench's 32 clients
	// under the max_connections (100) of a PostgreSQL that other test
	// suites share.
	flag.IntVar(&c.pool, "pool", 8, "database pool size of every server (Caddyfile max_connections; 0: the module's default, 20)")
	flag.IntVar(&c.conns, "c", 32, "concurrent connections")
	flag.DurationVar(&c.warmup, "warmup", 2*time.Second, "warm-up before each measurement")
	flag.DurationVar(&c.measure, "d", 5*time.Second, "measured time of each run")
	flag.IntVar(&c.rounds, "rounds", 2, "rounds per comparison (the targets rotate)")
	flag.IntVar(&c.headlineRounds, "headline-rounds", 3, "rounds of the headline phase (issue 18: 3 × 10 s)")
	flag.StringVar(&c.headlineOnly, "headline-only", "", "run only the headline rows whose name contains one of these texts, separated by | (e.g. 'GET one|include')")
	flag.DurationVar(&c.headlineMeasure, "headline-d", 10*time.Second, "measured time of each headline run")
	flag.IntVar(&c.meteringRounds, "metering-rounds", 6, "side-by-side rounds of each metering comparison per pair of servers, each at most 1s warm-up + 3s")
	flag.IntVar(&c.meteringPairs, "metering-pairs", 3, "pairs of freshly started servers the metering comparison runs on")
	flag.StringVar(&c.results, "results", "bench/results", "directory for the report (latest.txt) and the profiles")
	flag.BoolVar(&c.quick, "quick", false, "small tables and short runs, to try the harness")
	flag.StringVar(&c.only, "only", "", "comma-separated phases: headline,scale,compare,include,profile,metering,requestlog (default all, in that order)")
	flag.BoolVar(&c.keep, "keep", false, "keep the database (its URL is printed)")
	flag.BoolVar(&c.hold, "hold", false, "after setup, print the servers' addresses and wait for Ctrl-C (to explore by hand)")
	flag.StringVar(&c.url, "url", "", "only load GET <url> (http://host:port/path) and report, to calibrate the load generator")
	flag.Parse()
	if c.url != "" {
		calibrate(c)
		return
	}
	if c.caddy == "" || c.bare == "" || c.inproc == "" {
		log.Fatal("load: -caddy, -bare and -inproc are required (make bench builds them)")
	}
	if c.quick {
		c.warmup, c.measure, c.rounds, c.meteringRounds, c.meteringPairs = time.Second, 3*time.Second, 1, 1, 1
		c.headlineRounds, c.headlineMeasure = 1, 3*time.Second
	}
	if err := run(c); err != nil {
		log.Fatal(err)
	}
}

// sizes of the three projects: the main one and the two list scales.
var (
	mainSizes  = fixture.Sizes{Users: 100_000, Posts: 300_000}
	smallSizes = fixture.Sizes{Users: 1_000, Posts: 10_000}
	largeSizes = fixture.Sizes{Users: 1_000, Posts: 1_000_000}
)

// bench is a running benchmark: the processes and what they serve.
type bench struct {
	c        config
	tmp      string
	dbURL    string
	db       *sql.DB
	caddy    *process
	bare     *process
	admin    string // Caddy's admin address
	site     string // Caddy's site address
	bareAddr string
	// bareCaddy is bench/bare's handler inside a second Caddy
	// (bench/caddybare), at bareCaddySite.
	bareCaddy     *process
	bareCaddySite string
	// barePprof serves the bare server's /debug/pprof.
	barePprof string
	// prest is pREST (-prest) at prestAddr; prestToken is its JWT.
	prest                 *process
	prestAddr, prestToken string
	projects              map[string]project // "main", "10k", "1m"
	// rssPeak is the highest VmRSS seen by the sampler, in KiB.
	rssPeak atomic.Int64
	// useWrk: the headline loads with wrk (it is on PATH).
	useWrk bool
	out    io.Writer
}

type project struct {
	id, key string
	sizes   fixture.Sizes
}

func (b *bench) phase(name string) bool {
	if b.c.only == "" {
		return true
	}
	for _, p := range strings.Split(b.c.only, ",") {
		if p == name {
			return true
		}
	}
	return false
}

func (b *bench) printf(format string, args ...any) { fmt.Fprintf(b.out, format, args...) }

func run(c config) error {
	if c.quick {
		mainSizes = fixture.Sizes{Users: 10_000, Posts: 30_000}
		largeSizes = fixture.Sizes{Users: 1_000, Posts: 100_000}
	}
	if err := os.MkdirAll(c.results, 0o755); err != nil {
		return err
	}
	tmp, err := os.MkdirTemp("", "tablesmith-bench-")
	if err != nil {
		return err
	}
	defer os.RemoveAll(tmp)
	b := &bench{c: c, tmp: tmp, projects: map[string]project{}, out: os.Stdout}
	if !c.hold {
		report, err := os.Create(filepath.Join(c.results, "latest.txt"))
		if err != nil {
			return err
		}
		defer report.Close()
		b.out = io.MultiWriter(os.Stdout, report)
	}

	// Stop everything on Ctrl-C or SIGTERM, then exit. The mutex keeps an
	// interrupt during the normal cleanup from running it twice.
	var cleanups []func()
	var cleanupMu sync.Mutex
	cleanup := func() {
		cleanupMu.Lock()
		defer cleanupMu.Unlock()
		for i := len(cleanups) - 1; i >= 0; i-- {
			cleanups[i]()
		}
		cleanups = nil
	}
	onCleanup := func(f func()) {
		cleanupMu.Lock()
		cleanups = append(cleanups, f)
		cleanupMu.Unlock()
	}
	sig := make(chan os.Signal, 1)
	signal.Notify(sig, syscall.SIGINT, syscall.SIGTERM)
	go func() {
		<-sig
		fmt.Fprintln(os.Stderr, "load: interrupted; stopping servers and dropping the database")
		cleanup()
		os.RemoveAll(tmp)
		os.Exit(130)
	}()
	defer cleanup()

	b.machine()

	// The throwaway database.
	admin, err := sql.Open("postgres", c.serverURL)
	if err != nil {
		return err
	}
	name := "ts_bench_" + store.RandomID(6)
	if _, err := admin.Exec("CREATE DATABASE " + name); err != nil {
		return fmt.Errorf("create database: %w", err)
	}
	b.dbURL = withDatabase(c.serverURL, name)
	onCleanup(func() {
		defer admin.Close()
		if b.db != nil {
			b.db.Close()
		}
		if c.keep {
			fmt.Fprintln(os.Stderr, "load: kept database", name)
			return
		}
		if _, err := admin.Exec("DROP DATABASE IF EXISTS " + name + " WITH (FORCE)"); err != nil {
			fmt.Fprintln(os.Stderr, "load: drop database:", err)
		}
	})
	if b.db, err = sql.Open("postgres", b.dbURL); err != nil {
		return err
	}
	meterDB = b.db

	// Registered before starting, so a start that fails halfway is stopped too.
	onCleanup(func() { b.caddy.stop() })
	if err := b.startCaddy(); err != nil {
		return err
	}
	stopSampler := b.sampleRSS()
	onCleanup(stopSampler)

	if err := b.setup(); err != nil {
		return err
	}
	onCleanup(func() { b.bare.stop() })
	if err := b.startBare(); err != nil {
		return err
	}
	onCleanup(func() { b.bareCaddy.stop() })
	if err := b.startBareCaddy(); err != nil {
		return err
	}
	onCleanup(func() { b.prest.stop() })
	if err := b.startPrest(); err != nil {
		return err
	}
	if c.hold {
		b.printf("database %s\ncaddy pid %d: site http://%s, admin http://%s\nbare pid %d: http://%s, pprof http://%s\nbare in Caddy pid %d: http://%s\n",
			b.dbURL, b.caddy.pid(), b.site, b.admin, b.bare.pid(), b.bareAddr, b.barePprof, b.bareCaddy.pid(), b.bareCaddySite)
		if b.prest != nil {
			b.printf("prest pid %d: http://%s%s, Authorization: Bearer %s\n", b.prest.pid(), b.prestAddr, b.prestPrefix(), b.prestToken)
		}
		for name, p := range b.projects {
			b.printf("project %s: /v1/%s key %s\n", name, p.id, p.key)
		}
		b.printf("holding; Ctrl-C (or kill %d) stops everything\n", os.Getpid())
		select {}
	}

	// The headline runs first, on tables as seeded, and ends with creates:
	// a vacuum after it. The scale runs next; the comparison ends with
	// creates and patches, so later phases start from a vacuumed table
	// rather than one whose visibility map the writes have cleared.
	if b.phase("headline") {
		b.headline()
		b.vacuum()
	}
	if b.phase("scale") {
		b.scale()
	}
	if b.phase("compare") {
		b.compare()
		b.vacuum()
	}
	if b.phase("include") {
		b.includes()
	}
	if b.phase("profile") {
		b.profile()
		b.vacuum()
	}
	b.memoryReport()
	stopSampler()
	b.caddy.stop()
	b.bare.stop()
	b.bareCaddy.stop()
	b.prest.stop()
	if b.phase("metering") {
		if err := b.metering(); err != nil {
			return err
		}
	}
	if b.phase("requestlog") {
		if err := b.requestLogCost(); err != nil {
			return err
		}
	}
	return nil
}

// machine prints what the numbers were measured on.
func (b *bench) machine() {
	model := "unknown"
	if raw, err := os.ReadFile("/proc/cpuinfo"); err == nil {
		for _, l := range strings.Split(string(raw), "\n") {
			if k, v, ok := strings.Cut(l, ":"); ok && strings.TrimSpace(k) == "model name" {
				model = strings.TrimSpace(v)
				break
			}
		}
	}
	pg := "unknown"
	if db, err := sql.Open("postgres", b.c.serverURL); err == nil {
		_ = db.QueryRow("SELECT version()").Scan(&pg)
		db.Close()
		if i := strings.Index(pg, " on "); i > 0 {
			pg = pg[:i]
		}
	}
	b.printf("machine: %d cores (%s), %s, %s; load: %d connections, %s warm-up + %s per run, %d round(s), metering %d×%d (pairs × rounds, ≤1s + ≤3s each); database pools of %d\n",
		runtime.NumCPU(), model, pg, runtime.Version(), b.c.conns, b.c.warmup, b.c.measure, b.c.rounds, b.c.meteringPairs, b.c.meteringRounds, b.c.poolSize())
}

// startCaddy runs Caddy on Caddyfile.example with the admin endpoint on
// a private port (for /debug/pprof), the unlimited plan for new accounts
// and a throwaway config directory.
func (b *bench) startCaddy() error {
	var err error
	b.caddy, b.site, b.admin, err = b.launchCaddy("caddy", "", nil)
	return err
}

// launchCaddy starts a Caddy named name on Caddyfile.example, with plans
// (Caddyfile plan blocks) added to the tablesmith options and env added to
// its environment, and waits until it serves.
func (b *bench) launchCaddy(name, plans string, env []string) (p *process, site, admin string, err error) {
	return b.launchCaddyEdited(name, plans, env, nil)
}

// launchCaddyEdited is launchCaddy with edit, when set, applied to the
// Caddyfile's text first.
func (b *bench) launchCaddyEdited(name, plans string, env []string, edit func(string) (string, error)) (p *process, site, admin string, err error) {
	raw, err := os.ReadFile(b.c.caddyfile)
	if err != nil {
		return nil, "", "", err
	}
	text := string(raw)
	if edit != nil {
		if text, err = edit(text); err != nil {
			return nil, "", "", fmt.Errorf("%s: %w", b.c.caddyfile, err)
		}
	}
	const anchor = "max_body 1MiB"
	if !strings.Contains(text, anchor) {
		return nil, "", "", fmt.Errorf("%s has no %q line to put options after", b.c.caddyfile, anchor)
	}
	extra := plans + "\n\t\tmax_page_size 1000" // the include scenario's page
	if b.c.pool > 0 {
		extra += fmt.Sprintf("\n\t\tmax_connections %d", b.c.pool)
	}
	text = strings.Replace(text, anchor, anchor+extra, 1)
	dir := filepath.Join(b.tmp, name)
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return nil, "", "", err
	}
	cf := filepath.Join(dir, "Caddyfile")
	if err := os.WriteFile(cf, []byte(text), 0o644); err != nil {
		return nil, "", "", err
	}
	admin, site = freeAddr(), freeAddr()
	_, port, err := net.SplitHostPort(site)
	if err != nil {
		return nil, "", "", err
	}
	env = append([]string{
		// Caddyfile.example's default form: a port, no host to match.
		"TABLESMITH_ADDR=http://:" + port,
		"TABLESMITH_DATABASE_URL=" + withAppName(b.dbURL, name),
		"TABLESMITH_CADDY_ADMIN=" + admin,
		"TABLESMITH_DEFAULT_PLAN=unlimited",
		"TABLESMITH_SECRET=benchmark-secret",
		"TABLESMITH_REDIS_URL=",
		"TABLESMITH_DASHBOARD_DIR=" + dir,
		"HOME=" + dir, "XDG_CONFIG_HOME=" + dir, "XDG_DATA_HOME=" + dir,
	}, env...)
	p, _, err = start(name, dir, env, 0, b.c.caddy, "run", "--config", cf, "--adapter", "caddyfile")
	if err != nil {
		return p, site, admin, err
	}
	return p, site, admin, waitHTTP("http://"+site+"/api/engines", 200, p, time.Minute)
}

// withAppName sets application_name on a PostgreSQL URL, so that the
// CPU time of a server's backends can be told apart (backendTicks).
func withAppName(dbURL, name string) string {
	u, err := url.Parse(dbURL)
	if err != nil {
		return dbURL
	}
	q := u.Query()
	q.Set("application_name", name)
	u.RawQuery = q.Encode()
	return u.String()
}

// setup creates the three projects through the platform API and seeds them.
func (b *bench) setup() error {
	p := &platform{base: "http://" + b.site}
	if err := p.signup("bench-" + store.RandomID(6) + "@example.com"); err != nil {
		return err
	}
	for _, pr := range []struct {
		name  string
		sizes fixture.Sizes
	}{{"main", mainSizes}, {"10k", smallSizes}, {"1m", largeSizes}} {
		if pr.name != "main" && !b.phase("scale") {
			continue // only the scale phase reads the other two
		}
		id, key, err := p.project("bench "+pr.name, fixture.Schema)
		if err != nil {
			return err
		}
		t0 := time.Now()
		if err := fixture.Seed(context.Background(), b.db, id, pr.sizes); err != nil {
			return err
		}
		b.printf("project %-4s %s: %d users, %d posts, seeded in %s\n", pr.name, id, pr.sizes.Users, pr.sizes.Posts, time.Since(t0).Round(time.Second))
		b.projects[pr.name] = project{id: id, key: key, sizes: pr.sizes}
	}
	return nil
}

// poolSize is the pool size every server gets.
func (c config) poolSize() int {
	if c.pool <= 0 {
		return 20
	}
	return c.pool
}

// vacuum refreshes the main project's statistics and visibility map
// after write scenarios.
func (b *bench) vacuum() {
	sch := schema.QuoteIdent(schema.ProjectSchema(b.projects["main"].id))
	for _, t := range []string{"users", "posts"} {
		if _, err := b.db.Exec("VACUUM (ANALYZE) " + sch + "." + t); err != nil {
			b.printf("vacuum %s: %v\n", t, err)
		}
	}
}

// startBare starts the bare server on the same database with the same
// pool size as the module.
func (b *bench) startBare() error {
	var ids []string
	for _, p := range b.projects {
		ids = append(ids, p.id)
	}
	b.barePprof = freeAddr()
	p, lines, err := start("bare", b.tmp, nil, 1, b.c.bare, "-db", b.dbURL, "-projects", strings.Join(ids, ","),
		"-conns", fmt.Sprint(b.c.poolSize()), "-pprof", b.barePprof)
	if err != nil {
		return err
	}
	b.bare = p
	addr, ok := strings.CutPrefix(lines[0], "listening ")
	if !ok {
		return fmt.Errorf("bare: unexpected first line %q", lines[0])
	}
	b.bareAddr = addr
	return nil
}

// module and bareTarget are the two servers for a project.
func (b *bench) module(name string) target {
	p := b.projects[name]
	return target{name: "module", addr: b.site, prefix: "/v1/" + p.id, key: p.key, pid: b.caddy.pid()}
}

// startBareCaddy starts bench/bare's handler inside Caddy: Caddyfile.example
// with bench_bare in place of tablesmith_api (bench/caddybare), serving
// the main project. The difference between it and bare is what Caddy
// itself costs a request.
func (b *bench) startBareCaddy() error {
	const api = "tablesmith_api /v1/*"
	swap := func(text string) (string, error) {
		if !strings.Contains(text, api) {
			return "", fmt.Errorf("no %q line to put bench_bare in the place of", api)
		}
		return strings.Replace(text, api, "bench_bare /v1/*", 1), nil
	}
	env := []string{"TABLESMITH_BENCH_BARE_URL=" + withAppName(b.dbURL, "bare-caddy"), "TABLESMITH_BENCH_BARE_PROJECT=" + b.projects["main"].id,
		"TABLESMITH_BENCH_BARE_POOL=" + strconv.Itoa(b.c.poolSize())}
	var err error
	b.bareCaddy, b.bareCaddySite, _, err = b.launchCaddyEdited("caddy-bare", "", env, swap)
	return err
}

// bareCaddyTarget is the bare handler inside Caddy (startBareCaddy).
func (b *bench) bareCaddyTarget(name string) target {
	p := b.projects[name]
	return target{name: "bare-caddy", addr: b.bareCaddySite, prefix: "/v1/" + p.id, pid: b.bareCaddy.pid()}
}

func (b *bench) bareTarget(name, mode string) target {
	p := b.projects[name]
	t := target{name: "bare", addr: b.bareAddr, prefix: "/v1/" + p.id, key: p.key, pid: b.bare.pid()}
	if mode != "" {
		t.name, t.prefix = "bare-"+mode, "/"+mode+t.prefix
	}
	return t
}

// sampleRSS watches Caddy's resident memory every 250 ms.
func (b *bench) sampleRSS() func() {
	done := make(chan struct{})
	stopped := make(chan struct{})
	go func() {
		defer close(stopped)
		t := time.NewTicker(250 * time.Millisecond)
		defer t.Stop()
		for {
			select {
			case <-done:
				return
			case <-t.C:
				if _, rss := memory(b.caddy.pid()); rss > b.rssPeak.Load() {
					b.rssPeak.Store(rss)
				}
			}
		}
	}()
	var once atomic.Bool
	return func() {
		if once.CompareAndSwap(false, true) {
			close(done)
			<-stopped
		}
	}
}

func (b *bench) memoryReport() {
	hwm, rss := memory(b.caddy.pid())
	b.printf("\nCaddy memory: peak resident (VmHWM) %.1f MB, now %.1f MB, highest sampled %.1f MB (target < 150 MB)\n",
		float64(hwm)/1024, float64(rss)/1024, float64(b.rssPeak.Load())/1024)
}

// profile takes CPU and allocation profiles of Caddy under load from its
// admin endpoint and writes them, with text summaries, to the results.
func (b *bench) profile() {
	b.printf("\n== profiles of Caddy under load (%s) ==\n", b.c.results)
	secs := int(b.c.measure.Seconds())
	mixed := compareScenarios(b.projects["main"].sizes)
	for _, p := range []struct {
		name, kind string
		load       []*scenario
	}{
		{"cpu-get", "profile", compareScenarios(b.projects["main"].sizes)[:1]},
		{"cpu-mixed", "profile", mixed},
		{"allocs-mixed", "allocs", mixed},
	} {
		got := make(chan error, 1)
		path := filepath.Join(b.c.results, p.name+".prof")
		go func() {
			time.Sleep(b.c.warmup)
			got <- fetch(fmt.Sprintf("http://%s/debug/pprof/%s?seconds=%d", b.admin, p.kind, secs), path)
		}()
		r := load(b.module("main"), p.load, b.c.conns, b.c.warmup, b.c.measure+2*time.Second)
		if err := <-got; err != nil {
			b.printf("%s: %v\n", p.name, err)
			continue
		}
		b.printf("%s: %.0f req/s during the profile; %s\n", p.name, r.rps(), path)
		// Text summaries beside the profiles: the heaviest functions by
		// cumulative and by own time (go tool pprof reads the .prof for more).
		var summary []byte
		for _, order := range []string{"-cum", "-flat"} {
			args := []string{"tool", "pprof", "-top", order, "-nodecount=45"}
			if p.kind == "allocs" {
				args = append(args, "-sample_index=alloc_space")
			}
			if top, err := exec.Command("go", append(args, path)...).CombinedOutput(); err == nil {
				summary = append(append(summary, top...), '\n')
			}
		}
		_ = os.WriteFile(filepath.Join(b.c.results, p.name+".txt"), summary, 0o644)
	}
}

func fetch(url, path string) error {
	res, err := (&http.Client{Timeout: 2 * time.Minute}).Get(url)
	if err != nil {
		return err
	}
	defer res.Body.Close()
	if res.StatusCode != 200 {
		msg, _ := io.ReadAll(res.Body)
		return fmt.Errorf("%s: %d %s", url, res.StatusCode, msg)
	}
	f, err := os.Create(path)
	if err != nil {
		return err
	}
	defer f.Close()
	_, err = io.Copy(f, res.Body)
	return err
}

// withDatabase points a server URL at database name.
func withDatabase(server, name string) string {
	u, err := url.Parse(server)
	if err != nil {
		log.Fatal(err)
	}
	u.Path = "/" + name
	return u.String()
}

// calibrate loads one URL and reports the generator's own CPU per request.
func calibrate(c config) {
	u, err := url.Parse(c.url)
	if err != nil {
		log.Fatal(err)
	}
	path := u.RequestURI()
	s := &scenario{name: "url", method: "GET", status: 200, path: fixed("")}
	r := load(target{name: "url", addr: u.Host, prefix: path}, []*scenario{s}, c.conns, c.warmup, c.measure)
	fmt.Printf("%.0f req/s, p50 %s ms, p99 %s ms, errors %d, driver CPU %s µs/req\n",
		r.rps(), ms(r.quantile(.5)), ms(r.quantile(.99)), r.errors, perRequest(r.cpu.driver, r.requests))
}
