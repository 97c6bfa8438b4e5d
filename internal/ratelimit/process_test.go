package ratelimit_test

// Tests that run the real Caddy binary (built from ./cmd/caddy) as
// separate processes, as an operator would. They take a while (the first
// build of Caddy compiles every standard module); -short skips them.

import (
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/tablesmith/tablesmith/internal/testcaddy"
	"github.com/tablesmith/tablesmith/internal/testpg"
)

const twoNodeCaddyfile = `{
	admin off
	persist_config off
	auto_https off
	tablesmith {
		database_url {env.TABLESMITH_DATABASE_URL}
		redis_url {env.TABLESMITH_REDIS_URL}
		secret process-test-secret
		default_plan free
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

// TestCaddyProcesses builds Caddy once for the process tests.
func TestCaddyProcesses(t *testing.T) {
	bin := testcaddy.Binary(t)
	t.Run("TwoNodesSharingRedisLetExactly100Of120RequestsThrough", func(t *testing.T) {
		t.Parallel()
		twoNodesShareOneCount(t, bin)
	})
	t.Run("CaddyfileExampleExposesTablesmithMetricsAtTheAdminEndpoint", func(t *testing.T) {
		t.Parallel()
		caddyfileExampleServesMetrics(t, bin)
	})
}

// twoNodesShareOneCount runs two Caddy processes (admin off, two ports)
// on one database and one Redis: 60 requests to each let exactly 100
// through; then set-plan raises the limit on both.
func twoNodesShareOneCount(t *testing.T, bin string) {
	redis := redisURL(t)
	db := testpg.NewDatabase(t)
	dir := t.TempDir()
	config := filepath.Join(dir, "Caddyfile")
	if err := os.WriteFile(config, []byte(twoNodeCaddyfile), 0o600); err != nil {
		t.Fatal(err)
	}
	var nodes []*testcaddy.Process
	for range 2 {
		port := testcaddy.FreePort(t)
		env := testcaddy.Env(dir, "TABLESMITH_DATABASE_URL="+db, "TABLESMITH_REDIS_URL="+redis, "NODE_PORT="+strconv.Itoa(port))
		nodes = append(nodes, testcaddy.Start(t, bin, config, fmt.Sprintf("http://127.0.0.1:%d", port), env))
	}
	email, _, project, key := testcaddy.Published(t, nodes[0].Base, itemsSchema)
	t.Cleanup(func() { deleteKeys(redis, "tablesmith:rl:p:"+project) })

	// 60 requests to each node at the same time.
	var mu sync.Mutex
	statuses := map[int]int{}
	var errs []error
	var wg sync.WaitGroup
	for _, n := range nodes {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for range 60 {
				r, err := testcaddy.Call("GET", n.Base+"/v1/"+project+"/items", key, nil)
				mu.Lock()
				if err != nil {
					errs = append(errs, err)
				} else {
					statuses[r.Status]++
					if r.Header.Get("X-RateLimit-Limit") != "100" {
						errs = append(errs, fmt.Errorf("X-RateLimit-Limit %q from %s", r.Header.Get("X-RateLimit-Limit"), n.Base))
					}
					if r.Status == 429 && r.Header.Get("Retry-After") == "" {
						errs = append(errs, fmt.Errorf("429 without Retry-After from %s", n.Base))
					}
				}
				mu.Unlock()
			}
		}()
	}
	wg.Wait()
	if len(errs) > 0 {
		t.Fatalf("requests failed: %v", errs)
	}
	if statuses[200] != 100 || statuses[429] != 20 || len(statuses) != 2 {
		t.Fatalf("statuses = %v, want exactly 100 × 200 and 20 × 429 across both nodes", statuses)
	}

	// The operator moves the account to pro; both nodes pick it up.
	cmd := exec.Command(bin, "tablesmith", "set-plan", email, "pro")
	cmd.Env = testcaddy.Env(dir, "TABLESMITH_DATABASE_URL="+db)
	out, err := cmd.CombinedOutput()
	if err != nil || !strings.Contains(string(out), "plan free → pro") {
		t.Fatalf("caddy tablesmith set-plan: %v\n%s", err, out)
	}
	for _, n := range nodes {
		deadline := time.Now().Add(10 * time.Second)
		for {
			r, err := testcaddy.Call("GET", n.Base+"/v1/"+project+"/items", key, nil)
			if err != nil {
				t.Fatal(err)
			}
			if r.Status == 200 && r.Header.Get("X-RateLimit-Limit") == "100000" {
				break
			}
			if time.Now().After(deadline) {
				t.Fatalf("%s still answers %d with limit %s 10s after set-plan", n.Base, r.Status, r.Header.Get("X-RateLimit-Limit"))
			}
			time.Sleep(50 * time.Millisecond)
		}
	}

	bad := exec.Command(bin, "tablesmith", "set-plan", email, "platinum")
	bad.Env = testcaddy.Env(dir, "TABLESMITH_DATABASE_URL="+db)
	if out, err := bad.CombinedOutput(); err == nil || !strings.Contains(string(out), "unknown plan") || !strings.Contains(string(out), "platinum") {
		t.Fatalf("set-plan with an unknown plan: %v\n%s", err, out)
	}
}

// caddyfileExampleServesMetrics runs Caddyfile.example itself and reads
// Tablesmith's metrics (and Caddy's, from its metrics option) from the
// admin endpoint's /metrics.
func caddyfileExampleServesMetrics(t *testing.T, bin string) {
	db := testpg.NewDatabase(t)
	dir := t.TempDir()
	port, admin := testcaddy.FreePort(t), testcaddy.FreePort(t)
	env := testcaddy.Env(dir,
		"TABLESMITH_ADDR=http://127.0.0.1:"+strconv.Itoa(port),
		"TABLESMITH_CADDY_ADMIN=127.0.0.1:"+strconv.Itoa(admin),
		"TABLESMITH_DATABASE_URL="+db,
		"TABLESMITH_DASHBOARD_DIR="+dir,
	)
	node := testcaddy.Start(t, bin, filepath.Join(testcaddy.ModuleRoot(t), "Caddyfile.example"), fmt.Sprintf("http://127.0.0.1:%d", port), env)
	_, _, project, key := testcaddy.Published(t, node.Base, itemsSchema)
	for i := range 101 {
		want := 200
		if i == 100 {
			want = 429
		}
		testcaddy.MustCall(t, want, "GET", node.Base+"/v1/"+project+"/items", key, nil)
	}
	testcaddy.MustCall(t, 404, "GET", node.Base+"/v1/"+project+"/nope", key, nil)

	metricsURL := fmt.Sprintf("http://127.0.0.1:%d/metrics", admin)
	wants := []string{
		`tablesmith_requests_total{project="` + project + `",route="GET /items",status="200"} 100`,
		`tablesmith_requests_total{project="` + project + `",route="GET /items",status="429"} 1`,
		`tablesmith_requests_total{project="` + project + `",route="GET (unknown table)",status="404"} 1`,
		`tablesmith_request_duration_seconds_count{project="` + project + `",route="GET /items",status_class="2xx"} 100`,
		`tablesmith_ratelimit_rejections_total 1`,
		`tablesmith_ratelimit_allowed_total 100`,
		`tablesmith_ratelimit_redis_configured 0`,
		`tablesmith_analytics_samples_dropped_total 0`,
		`go_sql_max_open_connections{db_name="tablesmith"} 20`,
	}
	present := []*regexp.Regexp{
		regexp.MustCompile(`(?m)^go_sql_in_use_connections\{db_name="tablesmith"\} \d+`),
		regexp.MustCompile(`(?m)^tablesmith_analytics_samples_recorded_total \d+`),
	}
	deadline := time.Now().Add(10 * time.Second)
	for {
		r := testcaddy.MustCall(t, 200, "GET", metricsURL, "", nil)
		text := string(r.Raw)
		var missing []string
		for _, w := range wants {
			if !strings.Contains(text, w) {
				missing = append(missing, w)
			}
		}
		for _, re := range present {
			if !re.MatchString(text) {
				missing = append(missing, re.String())
			}
		}
		if len(missing) == 0 {
			// Caddy's own per-route HTTP metrics stay off: the example
			// leaves the metrics global option commented out.
			if strings.Contains(text, "caddy_http_requests_total") {
				t.Fatal("/metrics has caddy_http_requests_total; Caddyfile.example should leave Caddy's route metrics off")
			}
			break
		}
		if time.Now().After(deadline) {
			var ours []string
			for _, line := range strings.Split(text, "\n") {
				if strings.HasPrefix(line, "tablesmith_") || strings.HasPrefix(line, "go_sql_") || strings.HasPrefix(line, "caddy_http_requests_total") {
					ours = append(ours, line)
				}
			}
			t.Fatalf("/metrics lacks:\n%s\n\nit has:\n%s", strings.Join(missing, "\n"), strings.Join(ours, "\n"))
		}
		time.Sleep(100 * time.Millisecond)
	}
}
