// Package check runs the Node.js side of the OpenAPI checks from Go tests:
// Redocly lint, a client generated with openapi-typescript, and Swagger UI
// in Chromium through playwright-core, all pinned in this directory's
// package.json.
package check

import (
	"context"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strings"
	"testing"
	"time"
)

// Dir is this directory: package.json, node_modules and the scripts.
func Dir() string {
	_, file, _, _ := runtime.Caller(0)
	return filepath.Dir(file)
}

// RepoRoot is the module's root directory.
func RepoRoot() string { return filepath.Dir(filepath.Dir(Dir())) }

// requireAll mirrors testpg: under TABLESMITH_TEST_REQUIRE_ALL=1 (CI) a
// missing tool fails the test instead of skipping it.
func requireAll() bool { return os.Getenv("TABLESMITH_TEST_REQUIRE_ALL") == "1" }

// Node skips the test (fails it under TABLESMITH_TEST_REQUIRE_ALL=1) when
// node or npm is missing, and installs this directory's packages once
// (npm ci, under a file lock shared by parallel test binaries).
func Node(t testing.TB) {
	t.Helper()
	for _, tool := range []string{"node", "npm"} {
		if _, err := exec.LookPath(tool); err != nil {
			if requireAll() {
				t.Fatalf("%s is required (TABLESMITH_TEST_REQUIRE_ALL=1) but not on PATH: install Node.js 20 or later", tool)
			}
			t.Skipf("%s not on PATH: install Node.js 20 or later to run this check", tool)
		}
	}
	if err := install(); err != nil {
		t.Fatalf("npm ci in %s: %v", Dir(), err)
	}
}

// install runs npm ci unless node_modules matches package-lock.json.
func install() error {
	unlock, err := lockFile(filepath.Join(os.TempDir(), "tablesmith-openapi-check.lock"))
	if err != nil {
		return err
	}
	defer unlock()
	if installed() {
		return nil
	}
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Minute)
	defer cancel()
	cmd := exec.CommandContext(ctx, "npm", "ci", "--no-audit", "--no-fund", "--ignore-scripts", "--loglevel=error")
	cmd.Dir = Dir()
	if out, err := cmd.CombinedOutput(); err != nil {
		return &runError{err: err, out: string(out)}
	}
	return nil
}

// installed reports whether npm ci ran after the last change of the lock
// file (npm writes node_modules/.package-lock.json on every install).
func installed() bool {
	want, err := os.Stat(filepath.Join(Dir(), "package-lock.json"))
	if err != nil {
		return false
	}
	got, err := os.Stat(filepath.Join(Dir(), "node_modules", ".package-lock.json"))
	return err == nil && !got.ModTime().Before(want.ModTime())
}

type runError struct {
	err error
	out string
}

func (e *runError) Error() string { return e.err.Error() + "\n" + e.out }

// Run runs a command (a node_modules/.bin tool, node, a script) with env
// added to the environment, and fails the test with its output when it
// does not succeed. It returns the combined output.
func Run(t testing.TB, dir string, timeout time.Duration, env []string, name string, args ...string) string {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), timeout)
	defer cancel()
	cmd := exec.CommandContext(ctx, name, args...)
	cmd.Dir = dir
	cmd.Env = append(append(os.Environ(), "NO_UPDATE_NOTIFIER=1", "REDOCLY_TELEMETRY=off",
		"REDOCLY_SUPPRESS_UPDATE_NOTICE=true"), env...)
	out, err := cmd.CombinedOutput()
	if err != nil {
		t.Fatalf("%s %s: %v\n%s", name, strings.Join(args, " "), err, out)
	}
	return string(out)
}

// Bin is the path of a tool installed in node_modules/.bin.
func Bin(name string) string { return filepath.Join(Dir(), "node_modules", ".bin", name) }

// Chromium is Debian's Chromium (apt-get install chromium); the tests never
// download a browser. TABLESMITH_CHROMIUM overrides the path.
func Chromium(t testing.TB) string {
	t.Helper()
	path := os.Getenv("TABLESMITH_CHROMIUM")
	if path == "" {
		path = "/usr/bin/chromium"
	}
	if _, err := os.Stat(path); err != nil {
		if requireAll() {
			t.Fatalf("Chromium is required (TABLESMITH_TEST_REQUIRE_ALL=1) but missing at %s: apt-get install chromium", path)
		}
		t.Skipf("Chromium missing at %s: apt-get install chromium (or set TABLESMITH_CHROMIUM)", path)
	}
	return path
}
