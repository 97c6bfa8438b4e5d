//go:build bench

package bench

import (
	"context"
	"fmt"
	"io"
	"math/rand/v2"
	"net/http"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"

	"github.com/tablesmith/tablesmith/internal/testcaddy"
	"github.com/tablesmith/tablesmith/internal/testpg"
)

// Issue 38.4: many tenants on one node. One Caddy with the module and
// one PostgreSQL hold n projects of three tables each (10,000, or
// TABLESMITH_BENCH_TENANTS), created through the platform API as the
// dashboard creates them. Then the node is restarted and measured:
// how long until it is ready, every project's first request (cold: its
// schema, statements and key not yet on the node), every project's
// next one (warm), and Caddy's memory once every project was touched.
//
//	go test -tags bench -run TestManyTenants -count=1 -v -timeout 120m ./bench/

const tenantsCaddyfile = `{
	admin 127.0.0.1:{$ADMIN_PORT}
	persist_config off
	auto_https off
	tablesmith {
		database_url {env.TABLESMITH_DATABASE_URL}
		secret tenants-bench-secret
		default_plan unlimited
	}
}

http://127.0.0.1:{$NODE_PORT} {
	handle /v1/* {
		tablesmith_api
	}
	handle /api/* {
		tablesmith_platform
	}
}
`

// tenantSchema is every project's schema: three tables, two foreign keys.
const tenantSchema = `{"tables": [
	{"name": "customers", "columns": [
		{"name": "name", "type": "text", "required": true},
		{"name": "email", "type": "email", "unique": true}]},
	{"name": "orders", "columns": [
		{"name": "customer_id", "type": "integer", "required": true, "references": {"table": "customers"}},
		{"name": "total", "type": "number"},
		{"name": "status", "type": "enum", "values": ["open", "paid", "shipped"], "index": true}]},
	{"name": "notes", "columns": [
		{"name": "order_id", "type": "integer", "references": {"table": "orders"}},
		{"name": "body", "type": "text"}]}]}`

// tenantRequest is the request timed cold and warm: a project's orders
// with their customers (a join, the heaviest plan of the three tables).
const tenantRequest = "/orders?include=customer&limit=20"

func tenantCount(t *testing.T) int {
	if v := os.Getenv("TABLESMITH_BENCH_TENANTS"); v != "" {
		n, err := strconv.Atoi(v)
		if err != nil || n < 10 {
			t.Fatalf("TABLESMITH_BENCH_TENANTS=%q: want a number of at least 10", v)
		}
		return n
	}
	return 10_000
}

type tenant struct{ id, key string }

func TestManyTenantsOnOneNode(t *testing.T) {
	n := tenantCount(t)
	bin := testcaddy.Binary(t)
	dbURL := testpg.URL(t)
	dir := t.TempDir()
	config := filepath.Join(dir, "Caddyfile")
	if err := os.WriteFile(config, []byte(tenantsCaddyfile), 0o644); err != nil {
		t.Fatal(err)
	}
	port := testcaddy.FreePort(t)
	admin := "127.0.0.1:" + strconv.Itoa(testcaddy.FreePort(t))
	node := testcaddy.StartNode(t, bin, config, dir, dbURL, port, "ADMIN_PORT="+strings.TrimPrefix(admin, "127.0.0.1:"))
	tenants := createTenants(t, node.Base, n)

	catalog(t, dbURL)
	node.Terminate(t)
	if ended, err := node.Exited(time.Minute); !ended || err != nil {
		t.Fatalf("the node did not stop within a minute (ended %v, %v)", ended, err)
	}

	// Ready: from the process's start to /api/ready answering 200.
	began := time.Now()
	node = testcaddy.StartNode(t, bin, config, dir, dbURL, port, "ADMIN_PORT="+strings.TrimPrefix(admin, "127.0.0.1:"))
	waitReady(t, node.Base)
	t.Logf("node ready %v after its start (target ≤ 5 s); RSS %s", time.Since(began).Round(time.Millisecond), mib(statusBytes(strconv.Itoa(node.Pid()), "VmRSS:")))

	hc := &http.Client{Transport: &http.Transport{MaxIdleConnsPerHost: 1}}
	order := rand.Perm(len(tenants))
	get := func(p tenant) time.Duration {
		_, took := timedGet(t, hc, node.Base+"/v1/"+p.id+tenantRequest, p.key)
		return took
	}
	// One connection, opened before the clock starts.
	if r, err := hc.Get(node.Base + "/api/engines"); err == nil {
		_, _ = io.Copy(io.Discard, r.Body)
		r.Body.Close()
	}
	pid := strconv.Itoa(node.Pid())
	round := func(name string) {
		lat := make([]time.Duration, 0, len(order))
		start := time.Now()
		for _, i := range order {
			lat = append(lat, get(tenants[i]))
		}
		slices.Sort(lat)
		q := func(f float64) time.Duration { return lat[min(len(lat)-1, int(f*float64(len(lat))))] }
		t.Logf("%s: %d projects' %s in %v: p50 %v, p90 %v, p99 %v, max %v; Caddy RSS %s (peak %s)", name, len(lat), tenantRequest,
			time.Since(start).Round(time.Millisecond), q(.5), q(.9), q(.99), lat[len(lat)-1],
			mib(statusBytes(pid, "VmRSS:")), mib(statusBytes(pid, "VmHWM:")))
	}
	round("cold (first request of each project since the start; target p99 ≤ 50 ms, RSS ≤ 400 MB)")
	heap(t, admin, "cold")
	pgMemory(t, dbURL)
	order = rand.Perm(len(tenants))
	round("warm (second request of each; target p50 ≤ 2 ms)")
	pgMemory(t, dbURL)
	heap(t, admin, "warm")
}

// heap logs the Go heap of the node after a collection (what the
// projects hold, apart from garbage not yet returned), and writes the
// profile to TABLESMITH_BENCH_PROFILE/tenants-<name>.heap when it is set.
func heap(t *testing.T, admin, name string) {
	t.Helper()
	res, err := http.Get("http://" + admin + "/debug/pprof/heap?gc=1&debug=1")
	if err != nil {
		t.Fatal(err)
	}
	text, _ := io.ReadAll(res.Body)
	res.Body.Close()
	var lines []string
	for _, l := range strings.Split(string(text), "\n") {
		for _, f := range []string{"# HeapAlloc = ", "# HeapInuse = ", "# HeapIdle = ", "# HeapReleased = ", "# Sys = "} {
			if v, ok := strings.CutPrefix(l, f); ok {
				n, _ := strconv.ParseInt(strings.TrimSpace(v), 10, 64)
				lines = append(lines, strings.TrimSuffix(strings.TrimPrefix(f, "# "), " = ")+" "+mib(n))
			}
		}
	}
	t.Logf("%s: Go memory after a collection: %s", name, strings.Join(lines, ", "))
	if dir := os.Getenv("TABLESMITH_BENCH_PROFILE"); dir != "" {
		res, err := http.Get("http://" + admin + "/debug/pprof/heap?gc=1")
		if err != nil {
			t.Fatal(err)
		}
		defer res.Body.Close()
		f, err := os.Create(filepath.Join(dir, "tenants-"+name+".heap"))
		if err != nil {
			t.Fatal(err)
		}
		defer f.Close()
		if _, err := io.Copy(f, res.Body); err != nil {
			t.Fatal(err)
		}
	}
}

// createTenants signs up once and makes n projects through the platform
// API, four at a time: create, save the schema, generate, make a key,
// then one customer and one order.
func createTenants(t *testing.T, base string, n int) []tenant {
	t.Helper()
	token := testcaddy.MustCall(t, 201, "POST", base+"/api/auth/signup", "",
		map[string]any{"email": "tenants@example.com", "password": "correct horse battery"}).Data()["token"].(string)
	out := make([]tenant, n)
	start := time.Now()
	var next sync.Mutex
	i := 0
	var wg sync.WaitGroup
	errs := make(chan error, 4)
	for range 4 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for {
				next.Lock()
				k := i
				i++
				next.Unlock()
				if k >= n {
					return
				}
				p, err := createTenant(base, token, k)
				if err != nil {
					errs <- err
					return
				}
				out[k] = p
				if (k+1)%1000 == 0 {
					t.Logf("%d projects created in %v", k+1, time.Since(start).Round(time.Second))
				}
			}
		}()
	}
	wg.Wait()
	close(errs)
	if err := <-errs; err != nil {
		t.Fatal(err)
	}
	t.Logf("%d projects of 3 tables created in %v", n, time.Since(start).Round(time.Second))
	return out
}

func createTenant(base, token string, k int) (tenant, error) {
	call := func(want int, method, path, tok string, body any) (map[string]any, error) {
		r, err := testcaddy.Call(method, base+path, tok, body)
		if err != nil {
			return nil, err
		}
		if r.Status != want {
			return nil, fmt.Errorf("%s %s: %d, want %d: %.300s", method, path, r.Status, want, r.Raw)
		}
		return r.Data(), nil
	}
	proj, err := call(201, "POST", "/api/projects", token, map[string]any{"name": fmt.Sprintf("Tenant %d", k)})
	if err != nil {
		return tenant{}, err
	}
	p := tenant{id: proj["id"].(string)}
	if _, err := call(200, "PUT", "/api/projects/"+p.id+"/schema", token, tenantSchema); err != nil {
		return p, err
	}
	if _, err := call(200, "POST", "/api/projects/"+p.id+"/generate", token, map[string]any{"confirm_destructive": true}); err != nil {
		return p, err
	}
	key, err := call(201, "POST", "/api/projects/"+p.id+"/keys", token, map[string]any{"name": "k", "scope": "read_write"})
	if err != nil {
		return p, err
	}
	p.key = key["key"].(string)
	c, err := call(201, "POST", "/v1/"+p.id+"/customers", p.key, map[string]any{"name": "Ada", "email": fmt.Sprintf("ada%d@example.com", k)})
	if err != nil {
		return p, err
	}
	if _, err := call(201, "POST", "/v1/"+p.id+"/orders", p.key, map[string]any{"customer_id": c["id"], "total": 12.5, "status": "open"}); err != nil {
		return p, err
	}
	return p, nil
}

// waitReady polls /api/ready every 10 ms until it answers 200.
func waitReady(t *testing.T, base string) {
	t.Helper()
	deadline := time.Now().Add(time.Minute)
	for time.Now().Before(deadline) {
		if res, err := http.Get(base + "/api/ready"); err == nil {
			res.Body.Close()
			if res.StatusCode == 200 {
				return
			}
		}
		time.Sleep(10 * time.Millisecond)
	}
	t.Fatal("/api/ready did not answer 200 within a minute")
}

// catalog logs the size of PostgreSQL's catalog: relations, columns and
// the database's size.
func catalog(t *testing.T, dbURL string) {
	t.Helper()
	ctx := context.Background()
	conn := pgxConn(t, dbURL)
	var rels, attrs int64
	var size, catSize string
	if err := conn.QueryRow(ctx, `SELECT (SELECT count(*) FROM pg_class), (SELECT count(*) FROM pg_attribute),
		pg_size_pretty(pg_database_size(current_database())),
		pg_size_pretty((SELECT sum(pg_total_relation_size(c.oid)) FROM pg_class c JOIN pg_namespace n ON n.oid = c.relnamespace WHERE n.nspname = 'pg_catalog'))`).
		Scan(&rels, &attrs, &size, &catSize); err != nil {
		t.Fatal(err)
	}
	t.Logf("catalog: %d relations, %d columns, catalog %s of a %s database", rels, attrs, catSize, size)
}

// pgMemory logs the private memory of the database's backends (their
// catalog and plan caches grow with the relations they have touched).
func pgMemory(t *testing.T, dbURL string) {
	t.Helper()
	ctx := context.Background()
	conn := pgxConn(t, dbURL)
	rows, err := conn.Query(ctx, `SELECT pid FROM pg_stat_activity WHERE datname = current_database() AND pid <> pg_backend_pid()`)
	if err != nil {
		t.Fatal(err)
	}
	pids, err := pgx.CollectRows(rows, pgx.RowTo[int32])
	if err != nil {
		t.Fatal(err)
	}
	var total, largest int64
	for _, pid := range pids {
		v := statusBytes(strconv.Itoa(int(pid)), "RssAnon:")
		total += v
		largest = max(largest, v)
	}
	t.Logf("PostgreSQL: %d backends of the database, private memory %s in all, the largest %s", len(pids), mib(total), mib(largest))
}

func mib(b int64) string { return fmt.Sprintf("%.1f MiB", float64(b)/(1<<20)) }
