// Package testcaddy runs the real Caddy binary with Tablesmith as separate
// processes, as an operator would, for the tests that need whole nodes:
// two nodes sharing a database and Redis, a node killed with SIGKILL.
// The binary is the one make test built once (TABLESMITH_TEST_CADDY), or
// one built from ./cmd/caddy into the test's temporary directory.
package testcaddy

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
	"runtime/debug"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"
)

// ModuleRoot is the repository root (where go.mod is).
func ModuleRoot(t testing.TB) string {
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

// Binary returns the Caddy binary make test built once for every test
// that runs one (TABLESMITH_TEST_CADDY), or builds ./cmd/caddy into the
// test's temporary directory, with -race when this test binary has it, so
// that the build reuses the packages go test compiled. -short skips the
// test.
func Binary(t testing.TB) string {
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
	cmd.Dir = ModuleRoot(t)
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

// FreePort is a TCP port on 127.0.0.1 that nothing listens on now.
func FreePort(t testing.TB) int {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer ln.Close()
	return ln.Addr().(*net.TCPAddr).Port
}

// Env is the test's environment without TABLESMITH_* variables, with
// Caddy's data and config directories in dir, plus extra.
func Env(dir string, extra ...string) []string {
	var env []string
	for _, kv := range os.Environ() {
		if !strings.HasPrefix(kv, "TABLESMITH_") && !strings.HasPrefix(kv, "XDG_") && !strings.HasPrefix(kv, "HOME=") {
			env = append(env, kv)
		}
	}
	return append(env, append([]string{"HOME=" + dir, "XDG_DATA_HOME=" + dir, "XDG_CONFIG_HOME=" + dir}, extra...)...)
}

// Process is a running `caddy run`.
type Process struct {
	Base   string // http://127.0.0.1:<port>
	Log    string // the file its output goes to
	cmd    *exec.Cmd
	exited chan error
}

// Start runs `caddy run --config config` and waits until base answers the
// platform API. The process is interrupted at the end of the test (killed
// if it has not ended 15 s later), and its log is shown when the test
// failed.
func Start(t testing.TB, bin, config, base string, env []string) *Process {
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
	p := &Process{Base: base, Log: logPath, cmd: cmd, exited: make(chan error, 1)}
	go func() { p.exited <- cmd.Wait() }()
	t.Cleanup(func() {
		_ = cmd.Process.Signal(os.Interrupt)
		var how error
		select {
		case how = <-p.exited:
		case <-time.After(15 * time.Second):
			_ = cmd.Process.Kill()
			how = <-p.exited
		}
		if how != nil {
			t.Logf("caddy at %s ended: %v", base, how)
		}
		logFile.Close()
		if t.Failed() {
			out, _ := os.ReadFile(logPath)
			t.Logf("log of caddy at %s:\n%s", base, tail(string(out), 4000))
		}
	})
	// A cold start under -race on a busy machine takes seconds: a minute
	// is the margin.
	deadline := time.Now().Add(60 * time.Second)
	for {
		select {
		case err := <-p.exited:
			p.exited <- err
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

// StartNode runs one Tablesmith node from a Caddyfile that reads its
// database from {env.TABLESMITH_DATABASE_URL} and its port from
// {$NODE_PORT}, with Caddy's directories in home and extra variables;
// port 0 takes a free one.
func StartNode(t testing.TB, bin, config, home, databaseURL string, port int, extra ...string) *Process {
	t.Helper()
	if port == 0 {
		port = FreePort(t)
	}
	env := Env(home, append([]string{"TABLESMITH_DATABASE_URL=" + databaseURL, "NODE_PORT=" + strconv.Itoa(port)}, extra...)...)
	return Start(t, bin, config, fmt.Sprintf("http://127.0.0.1:%d", port), env)
}

// Pid is the process id (for its memory and CPU in /proc).
func (p *Process) Pid() int { return p.cmd.Process.Pid }

// Kill ends the process with SIGKILL, as a crash would: no shutdown work
// runs, leases and connections are left as they were.
func (p *Process) Kill(t testing.TB) {
	t.Helper()
	if err := p.cmd.Process.Kill(); err != nil {
		t.Fatal(err)
	}
	err := <-p.exited
	p.exited <- err // for the cleanup
}

// Terminate sends SIGTERM, as a process manager stopping the node would:
// Caddy then stops gracefully (shutdown_delay, grace_period).
func (p *Process) Terminate(t testing.TB) {
	t.Helper()
	if err := p.cmd.Process.Signal(syscall.SIGTERM); err != nil {
		t.Fatal(err)
	}
}

// Exited waits up to limit for the process to end: ended is false if it
// has not, else err is how it ended (nil: exit status 0).
func (p *Process) Exited(limit time.Duration) (ended bool, err error) {
	select {
	case err = <-p.exited:
		p.exited <- err // for the cleanup
		return true, err
	case <-time.After(limit):
		return false, nil
	}
}

func tail(s string, n int) string {
	if len(s) > n {
		return "…" + s[len(s)-n:]
	}
	return s
}

// Reply is a decoded answer of a Caddy process.
type Reply struct {
	Status int
	Header http.Header
	Body   map[string]any
	Raw    []byte
}

// Data is the envelope's data object.
func (r Reply) Data() map[string]any { m, _ := r.Body["data"].(map[string]any); return m }

// Call sends one request (a string body as it is, anything else as
// JSON); errors are returned, not fatal, so goroutines may use it.
func Call(method, url, token string, body any) (Reply, error) {
	var rd io.Reader
	if s, ok := body.(string); ok {
		rd = strings.NewReader(s)
	} else if body != nil {
		b, err := json.Marshal(body)
		if err != nil {
			return Reply{}, err
		}
		rd = bytes.NewReader(b)
	}
	req, err := http.NewRequest(method, url, rd)
	if err != nil {
		return Reply{}, err
	}
	if body != nil {
		req.Header.Set("Content-Type", "application/json")
	}
	if token != "" {
		req.Header.Set("Authorization", "Bearer "+token)
	}
	res, err := http.DefaultClient.Do(req)
	if err != nil {
		return Reply{}, err
	}
	defer res.Body.Close()
	raw, err := io.ReadAll(res.Body)
	if err != nil {
		return Reply{}, err
	}
	r := Reply{Status: res.StatusCode, Header: res.Header, Raw: raw}
	_ = json.Unmarshal(raw, &r.Body) // not every answer is JSON (metrics)
	return r, nil
}

// MustCall is Call that fails the test on an error or another status.
func MustCall(t testing.TB, want int, method, url, token string, body any) Reply {
	t.Helper()
	r, err := Call(method, url, token, body)
	if err != nil {
		t.Fatal(err)
	}
	if r.Status != want {
		t.Fatalf("%s %s: status %d, want %d: %s", method, url, r.Status, want, r.Raw)
	}
	return r
}

// Published signs up on base, creates a project with schema (a schema
// document as JSON), generates it and makes a read-write key: it returns
// the account's e-mail and token, the project id and the key.
func Published(t testing.TB, base, schema string) (email, token, project, key string) {
	t.Helper()
	email = fmt.Sprintf("ops-%d@example.com", time.Now().UnixNano())
	token = MustCall(t, 201, "POST", base+"/api/auth/signup", "", map[string]any{"email": email, "password": "correct horse battery"}).Data()["token"].(string)
	project = MustCall(t, 201, "POST", base+"/api/projects", token, map[string]any{"name": "Shop"}).Data()["id"].(string)
	MustCall(t, 200, "PUT", base+"/api/projects/"+project+"/schema", token, schema)
	MustCall(t, 200, "POST", base+"/api/projects/"+project+"/generate", token, map[string]any{"confirm_destructive": true})
	key = MustCall(t, 201, "POST", base+"/api/projects/"+project+"/keys", token, map[string]any{"name": "k", "scope": "read_write"}).Data()["key"].(string)
	return email, token, project, key
}
