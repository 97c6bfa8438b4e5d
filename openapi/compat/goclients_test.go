package compat_test

import (
	"context"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// TestOapiCodegenGeneratesAClientThatCompilesAndDrivesTheLiveAPI:
// oapi-codegen (client and models, its defaults) generates from the
// project's document, the client compiles, and gomod/oapicodegen drives the
// live API through it: every answer read as a generated type.
func TestOapiCodegenGeneratesAClientThatCompilesAndDrivesTheLiveAPI(t *testing.T) {
	t.Parallel()
	f := newFixture(t)
	dir := goModule(t, "oapicodegen")
	goCommand(t, dir, nil, "tool", "oapi-codegen", "-config", "oapicodegen/config.yaml", filepath.Join(f.dir, "openapi.json"))
	out := goCommand(t, dir, f.env(), "run", "./oapicodegen")
	if !strings.Contains(out, "OK oapi-codegen") {
		t.Fatalf("the oapi-codegen client did not finish:\n%s", out)
	}
}

// TestOgenGeneratesAClientThatCompilesAndDrivesTheLiveAPI: ogen generates
// from the project's document with its defaults, the client compiles, and
// gomod/ogen drives the live API through it, each answer a typed value per
// status.
func TestOgenGeneratesAClientThatCompilesAndDrivesTheLiveAPI(t *testing.T) {
	t.Parallel()
	f := newFixture(t)
	dir := goModule(t, "ogen")
	goCommand(t, dir, nil, "tool", "ogen", "--target", "ogen/api", "--package", "api", "--clean", filepath.Join(f.dir, "openapi.json"))
	out := goCommand(t, dir, f.env(), "run", "./ogen")
	if !strings.Contains(out, "OK ogen") {
		t.Fatalf("the ogen client did not finish:\n%s", out)
	}
}

// goModule copies gomod's go.mod, go.sum and one driver into a directory
// of its own, where the generator writes <driver>/api.
func goModule(t *testing.T, driver string) string {
	t.Helper()
	if _, err := exec.LookPath("go"); err != nil {
		t.Fatal("go is not on PATH")
	}
	dir := t.TempDir()
	for _, name := range []string{"go.mod", "go.sum"} {
		copyFile(t, filepath.Join("gomod", name), filepath.Join(dir, name))
	}
	entries, err := os.ReadDir(filepath.Join("gomod", driver))
	if err != nil {
		t.Fatal(err)
	}
	for _, e := range entries {
		if !e.IsDir() {
			copyFile(t, filepath.Join("gomod", driver, e.Name()), filepath.Join(dir, driver, e.Name()))
		}
	}
	return dir
}

func copyFile(t *testing.T, from, to string) {
	t.Helper()
	data, err := os.ReadFile(from)
	if err != nil {
		t.Fatal(err)
	}
	if err := os.MkdirAll(filepath.Dir(to), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(to, data, 0o644); err != nil {
		t.Fatal(err)
	}
}

// goCommand runs the go command in dir with the module's own go.sum (no
// workspace, none of the suite's GOFLAGS such as -race) and returns its
// output, failing the test when it fails. The first build of a
// generator's dependencies takes minutes on two busy cores; later ones
// come from the build cache (a CI run on a machine shared with another
// job took over 8 minutes for ogen's client, hence 12).
func goCommand(t *testing.T, dir string, env []string, args ...string) string {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 12*time.Minute)
	defer cancel()
	cmd := exec.CommandContext(ctx, "go", args...)
	cmd.Dir = dir
	cmd.Env = append(append(os.Environ(), "GOFLAGS=", "GOWORK=off"), env...)
	out, err := cmd.CombinedOutput()
	if err != nil {
		t.Fatalf("go %s: %v\n%s", strings.Join(args, " "), err, out)
	}
	return string(out)
}
