package ratelimit_test

// Tests that run the real Caddy binary (built from ./cmd/caddy) as
// separate processes, as an operator would. They take a while (the first
// build of Caddy compiles every standard module); -short skips them.

import (
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"net"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"runtime/debug"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/tablesmith/tablesmith/internal/store"
	"github.com/tablesmith/tablesmith/internal/testpg"
)

// moduleRoot is the repository root (where go.mod is).
func moduleRoot(t *testing.T) string {
	t.Helper()
	dir, err := os.Getwd()
	if err != nil {
		t.Fatal(err)
	}
	for {
		if _, err := os.Stat(filepath.Join(dir, "go.mod")); err == nil {
			return dir
		}
		parent := filepath.Dir(dir)
		if parent == dir {
			t.Fatal("go.mod not found")
		}
		dir = parent
	}
}

// buildCaddy returns the Caddy binary make test built once for every test
// that runs one (TABLESMITH_TEST_CADDY), or builds ./cmd/caddy into the
// test's temporary directory, with -race when this test binary has it, so
// that the build reuses the packages go test compiled.
func buildCaddy(t *testing.T) string {
	t.Helper()
	if testing.Short() {
		t.Skip("builds and runs Caddy; skipped with -short")
	}
	if bin := os.Getenv("TABLESMITH_TEST_CADDY"); bin != "" {
		return bin
	}
	bin := filepath.Join(t.TempDir(), "caddy")
	args := []string{"build", "-o", bin}
	if raceEnabled() {
		args = append(args, "-race")
	}
	cmd := exec.Command("go", append(args, "./cmd/caddy")...)
	cmd.Dir = moduleRoot(t)
	if out, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("go build ./cmd/caddy: %v\n%s", err, out)
	}
	return bin
}

// raceEnabled reports whether this test binary was built with -race.
func raceEnabled() bool {
	info, ok := debug.ReadBuildInfo()
	if !ok {
		return false
	}
	for _, s := range info.Settings {
		if s.Key == "-race" {
			return s.Value == "true"
		}
	}
	return false
}

func freePort(t *testing.T) int {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer ln.Close()
	return ln.Addr().(*net.TCPAddr).Port
}

// processEnv is the test's environment without TABLESMITH_* variables,
// with Caddy's data and config directories in dir, plus extra.
func processEnv(dir string, extra ...string) []string {
	var env []string
	for _, kv := range os.Environ() {
		if !strings.HasPrefix(kv, "TABLESMITH_") && !strings.HasPrefix(kv, "XDG_") && !strings.HasPrefix(kv, "HOME=") {
			env = append(env, kv)
		}
	}
	return append(env, append([]string{"HOME=" + dir, "XDG_DATA_HOME=" + dir, "XDG_CONFIG_HOME=" + dir}, extra...)...)
}

// caddyProcess is a running `caddy run`.
type caddyProcess struct {
	cmd  *exec.Cmd
	base string // http://127.0.0.1:<port>
	log  string // path of its combined output
}

// startCaddy runs `caddy run --config config` and waits until base
// answers the platform API.
func startCaddy(t *testing.T, bin, config, base string, env []string) *caddyProcess {
	t.Helper()
	logPath := filepath.Join(t.TempDir(), "caddy.log")
	logFile, err := os.Create(logPath)
	if err != nil {
		t.Fatal(err)
	}
	cmd := exec.Command(bin, "run", "--config", config, "--adapter", "caddyfile")
	cmd.Env = env
	cmd.Stdout, cmd.Stderr = logFile, logFile
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	p := &caddyProcess{cmd: cmd, base: base, log: logPath}
	exited := make(chan error, 1)
	go func() { exited <- cmd.Wait() }()
	t.Cleanup(func() {
		_ = cmd.Process.Signal(os.Interrupt)
		var how error
		select {
		case how = <-exited:
		case <-time.After(15 * time.Second):
			_ = cmd.Process.Kill()
			how = <-exited
		}
		if how != nil {
			t.Logf("caddy ended: %v", how)
		}
		logFile.Close()
		if t.Failed() {
			out, _ := os.ReadFile(logPath)
			t.Logf("log of caddy at %s:\n%s", base, tail(string(out), 4000))
		}
	})
	deadline := time.Now().Add(60 * time.Second)
	for {
		select {
		case err := <-exited:
			out, _ := os.ReadFile(logPath)
			t.Fatalf("caddy exited before serving (%v):\n%s", err, tail(string(out), 4000))
		default:
		}
		if res, err := http.Get(base + "/api/engines"); err == nil {
			res.Body.Close()
			if res.StatusCode == 200 {
				return p
			}
		}
		if time.Now().After(deadline) {
			t.Fatalf("caddy at %s did not answer within 60s", base)
		}
		time.Sleep(100 * time.Millisecond)
	}
}

func tail(s string, n int) string {
	if len(s) > n {
		return "…" + s[len(s)-n:]
	}
	return s
}

// reply is a decoded answer of a Caddy process.
type reply struct {
	status int
	header http.Header
	body   map[string]any
	raw    []byte
}

func (r reply) data() map[string]any { m, _ := r.body["data"].(map[string]any); return m }

// call sends one request; errors are returned, not fatal, so goroutines
// may use it.
func call(method, url, token string, body any) (reply, error) {
	var rd io.Reader
	if s, ok := body.(string); ok {
		rd = strings.NewReader(s)
	} else if body != nil {
		b, _ := json.Marshal(body)
		rd = bytes.NewReader(b)
	}
	req, err := http.NewRequest(method, url, rd)
	if err != nil {
		return reply{}, err
	}
	if body != nil {
		req.Header.Set("Content-Type", "application/json")
	}
	if token != "" {
		req.Header.Set("Authorization", "Bearer "+token)
	}
	res, err := http.DefaultClient.Do(req)
	if err != nil {
		return reply{}, err
	}
	defer res.Body.Close()
	raw, _ := io.ReadAll(res.Body)
	r := reply{status: res.StatusCode, header: res.Header, raw: raw}
	_ = json.Unmarshal(raw, &r.body)
	return r, nil
}

func mustCall(t *testing.T, want int, method, url, token string, body any) reply {
	t.Helper()
	r, err := call(method, url, token, body)
	if err != nil {
		t.Fatal(err)
	}
	if r.status != want {
		t.Fatalf("%s %s: status %d, want %d: %s", method, url, r.status, want, r.raw)
	}
	return r
}

// publishedProject signs up on base, creates a project with the items
// table, generates it and makes a key: it returns the e-mail, the project
// id and the key.
func publishedProject(t *testing.T, base string) (email, project, key string) {
	t.Helper()
	email = "ops-" + store.RandomID(8) + "@example.com"
	tok := mustCall(t, 201, "POST", base+"/api/auth/signup", "", map[string]any{"email": email, "password": "correct horse battery"}).data()["token"].(string)
	project = mustCall(t, 201, "POST", base+"/api/projects", tok, map[string]any{"name": "Shop"}).data()["id"].(string)
	mustCall(t, 200, "PUT", base+"/api/projects/"+project+"/schema", tok, itemsSchema)
	mustCall(t, 200, "POST", base+"/api/projects/"+project+"/generate", tok, map[string]any{"confirm_destructive": true})
	key = mustCall(t, 201, "POST", base+"/api/projects/"+project+"/keys", tok, map[string]any{"name": "k", "scope": "read_write"}).data()["key"].(string)
	return email, project, key
}

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
	bin := buildCaddy(t)
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
	var nodes []*caddyProcess
	for range 2 {
		port := freePort(t)
		env := processEnv(dir, "TABLESMITH_DATABASE_URL="+db, "TABLESMITH_REDIS_URL="+redis, "NODE_PORT="+strconv.Itoa(port))
		nodes = append(nodes, startCaddy(t, bin, config, fmt.Sprintf("http://127.0.0.1:%d", port), env))
	}
	email, project, key := publishedProject(t, nodes[0].base)
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
				r, err := call("GET", n.base+"/v1/"+project+"/items", key, nil)
				mu.Lock()
				if err != nil {
					errs = append(errs, err)
				} else {
					statuses[r.status]++
					if r.header.Get("X-RateLimit-Limit") != "100" {
						errs = append(errs, fmt.Errorf("X-RateLimit-Limit %q from %s", r.header.Get("X-RateLimit-Limit"), n.base))
					}
					if r.status == 429 && r.header.Get("Retry-After") == "" {
						errs = append(errs, fmt.Errorf("429 without Retry-After from %s", n.base))
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
	cmd.Env = processEnv(dir, "TABLESMITH_DATABASE_URL="+db)
	out, err := cmd.CombinedOutput()
	if err != nil || !strings.Contains(string(out), "plan free → pro") {
		t.Fatalf("caddy tablesmith set-plan: %v\n%s", err, out)
	}
	for _, n := range nodes {
		deadline := time.Now().Add(10 * time.Second)
		for {
			r, err := call("GET", n.base+"/v1/"+project+"/items", key, nil)
			if err != nil {
				t.Fatal(err)
			}
			if r.status == 200 && r.header.Get("X-RateLimit-Limit") == "100000" {
				break
			}
			if time.Now().After(deadline) {
				t.Fatalf("%s still answers %d with limit %s 10s after set-plan", n.base, r.status, r.header.Get("X-RateLimit-Limit"))
			}
			time.Sleep(50 * time.Millisecond)
		}
	}

	bad := exec.Command(bin, "tablesmith", "set-plan", email, "platinum")
	bad.Env = processEnv(dir, "TABLESMITH_DATABASE_URL="+db)
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
	port, admin := freePort(t), freePort(t)
	env := processEnv(dir,
		"TABLESMITH_ADDR=http://127.0.0.1:"+strconv.Itoa(port),
		"TABLESMITH_CADDY_ADMIN=127.0.0.1:"+strconv.Itoa(admin),
		"TABLESMITH_DATABASE_URL="+db,
		"TABLESMITH_DASHBOARD_DIR="+dir,
	)
	node := startCaddy(t, bin, filepath.Join(moduleRoot(t), "Caddyfile.example"), fmt.Sprintf("http://127.0.0.1:%d", port), env)
	_, project, key := publishedProject(t, node.base)
	for i := range 101 {
		want := 200
		if i == 100 {
			want = 429
		}
		mustCall(t, want, "GET", node.base+"/v1/"+project+"/items", key, nil)
	}
	mustCall(t, 404, "GET", node.base+"/v1/"+project+"/nope", key, nil)

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
		r := mustCall(t, 200, "GET", metricsURL, "", nil)
		text := string(r.raw)
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
