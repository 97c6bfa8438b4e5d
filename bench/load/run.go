package main

import (
	"database/sql"
	"fmt"
	"math/rand/v2"
	"slices"
	"strconv"
	"strings"
	"sync"
	"time"
)

// scenario is one kind of request. path and body get the worker's random
// source and the request's sequence number, so every target receives the
// same sequence of requests.
type scenario struct {
	name   string
	method string
	status int // the expected answer
	path   func(r *rand.Rand, seq int) string
	body   func(r *rand.Rand, seq int) string
	// wrk is the Lua script under bench/wrk/ that makes these requests
	// for wrk; "" when path is fixed (the script takes the prefix and
	// the number of users).
	wrk string
	// wrkArgs follow the script's prefix and number of users (get.lua
	// takes the path before the id, "/users/" when none is given).
	wrkArgs []string
}

// target is a server and the prefix its generated-API paths take.
type target struct {
	name   string
	addr   string
	prefix string // e.g. /v1/<project>; the scenario path follows
	// key is sent as Authorization: Bearer; "" sends no credential.
	key string
	// pid is the server process, for CPU accounting.
	pid int
	// app is the application_name of the server's database connections,
	// when it has its own: its PostgreSQL CPU is then told apart from
	// another server's loaded at the same time.
	app string
}

// request renders the bytes of one request.
func (t target) request(buf []byte, s *scenario, r *rand.Rand, seq int) []byte {
	buf = append(buf[:0], s.method...)
	buf = append(buf, ' ')
	buf = append(buf, t.prefix...)
	buf = append(buf, s.path(r, seq)...)
	buf = append(buf, " HTTP/1.1\r\nHost: "...)
	buf = append(buf, t.addr...)
	buf = append(buf, "\r\nUser-Agent: tablesmith-bench\r\n"...)
	if t.key != "" {
		buf = append(buf, "Authorization: Bearer "...)
		buf = append(buf, t.key...)
		buf = append(buf, "\r\n"...)
	}
	if s.body != nil {
		b := s.body(r, seq)
		buf = append(buf, "Content-Type: application/json\r\nContent-Length: "...)
		buf = strconv.AppendInt(buf, int64(len(b)), 10)
		buf = append(buf, "\r\n\r\n"...)
		return append(buf, b...)
	}
	return append(buf, "\r\n"...)
}

// result is one measured run.
type result struct {
	requests int
	errors   int
	firstErr string
	elapsed  time.Duration
	lat      []time.Duration // sorted
	cpu      cpuUse
}

func (r result) rps() float64 { return float64(r.requests) / r.elapsed.Seconds() }

// quantile is the nearest-rank quantile of the latencies.
func (r result) quantile(q float64) time.Duration {
	if len(r.lat) == 0 {
		return 0
	}
	i := int(q*float64(len(r.lat))+0.5) - 1
	return r.lat[max(0, min(i, len(r.lat)-1))]
}

// meterDB is the connection used to find the benchmark database's
// backends for CPU accounting.
var meterDB *sql.DB

// load sends scenarios (round robin per connection when several) to a
// target over conns keep-alive connections for warmup+measure, and
// measures the requests started after the warm-up.
func load(t target, scenarios []*scenario, conns int, warmup, measure time.Duration) result {
	start := time.Now()
	from, until := start.Add(warmup), start.Add(warmup+measure)
	results := make([]result, conns)
	meter := make(chan *cpuMeter, 1)
	go func() {
		time.Sleep(time.Until(from))
		meter <- startCPU(meterDB, t.pid, t.app)
	}()
	var wg sync.WaitGroup
	for w := range conns {
		wg.Add(1)
		go func() {
			defer wg.Done()
			c := &conn{addr: t.addr}
			defer c.close()
			rnd := rand.New(rand.NewPCG(uint64(w), 42))
			res := &results[w]
			res.lat = make([]time.Duration, 0, 1<<14)
			var buf []byte
			for seq := w; ; seq += conns {
				s := scenarios[(seq/conns)%len(scenarios)]
				buf = t.request(buf, s, rnd, seq)
				t0 := time.Now()
				if !t0.Before(until) {
					return
				}
				status, err := c.do(buf, nil)
				d := time.Since(t0)
				if t0.Before(from) {
					continue
				}
				res.requests++
				res.lat = append(res.lat, d)
				if err != nil || status != s.status {
					res.errors++
					if res.firstErr == "" {
						res.firstErr = fmt.Sprintf("%s %s: status %d (want %d), %v", s.method, s.name, status, s.status, err)
					}
					if err != nil {
						time.Sleep(10 * time.Millisecond) // do not spin on a dead server
					}
				}
			}
		}()
	}
	wg.Wait()
	total := result{elapsed: measure, cpu: (<-meter).stop()}
	for _, r := range results {
		total.requests += r.requests
		total.errors += r.errors
		if total.firstErr == "" {
			total.firstErr = r.firstErr
		}
		total.lat = append(total.lat, r.lat...)
	}
	slices.Sort(total.lat)
	return total
}

// loadSideBySide loads the targets at the same time, conns connections
// each, so that whatever else the machine does in those seconds weighs on
// all of them alike. Each result's server and PostgreSQL CPU is its own
// (targets with distinct pid and app); the driver's is the whole
// driver's.
func loadSideBySide(ts []target, scenarios []*scenario, conns int, warmup, measure time.Duration) []result {
	out := make([]result, len(ts))
	var wg sync.WaitGroup
	for i, t := range ts {
		wg.Add(1)
		go func() {
			defer wg.Done()
			out[i] = load(t, scenarios, conns, warmup, measure)
		}()
	}
	wg.Wait()
	return out
}

// probe sends one request of s to t and returns the status and body, to
// check that both servers answer the same thing before measuring.
func probe(t target, s *scenario) (int, string, error) {
	c := &conn{addr: t.addr}
	defer c.close()
	var body []byte
	status, err := c.do(t.request(nil, s, rand.New(rand.NewPCG(7, 7)), 0), &body)
	return status, string(body), err
}

// ms formats a duration in milliseconds.
func ms(d time.Duration) string { return strconv.FormatFloat(float64(d)/1e6, 'f', 2, 64) }

// table prints aligned columns.
type table struct{ rows [][]string }

func (t *table) add(cells ...string) { t.rows = append(t.rows, cells) }

func (t *table) String() string {
	var widths []int
	for _, r := range t.rows {
		for i, c := range r {
			if i >= len(widths) {
				widths = append(widths, 0)
			}
			widths[i] = max(widths[i], len([]rune(c)))
		}
	}
	var b strings.Builder
	for _, r := range t.rows {
		for i, c := range r {
			if i > 0 {
				b.WriteString("  ")
			}
			pad := widths[i] - len([]rune(c))
			if i == 0 {
				b.WriteString(c + strings.Repeat(" ", pad))
			} else {
				b.WriteString(strings.Repeat(" ", pad) + c)
			}
		}
		b.WriteString("\n")
	}
	return b.String()
}
