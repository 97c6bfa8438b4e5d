package compat_test

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/tablesmith/tablesmith/openapi/check"
)

// TestOpenAPITypeScriptAndFetchTypeTheWholeAPIAndDriveIt: openapi-typescript's
// types and openapi-fetch's default client, compiled strictly, create, read,
// list with filters, sort and include, patch, bulk create, fail typed and
// delete against the live project.
func TestOpenAPITypeScriptAndFetchTypeTheWholeAPIAndDriveIt(t *testing.T) {
	t.Parallel()
	f := newTSFixture(t, "fetch.ts")
	check.Run(t, f.dir, 2*time.Minute, nil, check.Bin("openapi-typescript"), "openapi.json", "-o", "schema.ts")
	f.compileAndRun(t, "fetch.ts", "openapi-fetch")
}

// newTSFixture is a fixture ready for a TypeScript driver: the shared
// scenario, the driver, a strict tsconfig and openapi/check's packages.
func newTSFixture(t *testing.T, driver string) *fixture {
	t.Helper()
	check.Node(t)
	f := newFixture(t)
	f.copyIn(t, "ts/scenario.ts", "ts/"+driver)
	f.write(t, "package.json", []byte(`{"type": "commonjs"}`))
	if err := os.Symlink(filepath.Join(check.Dir(), "node_modules"), filepath.Join(f.dir, "node_modules")); err != nil {
		t.Fatal(err)
	}
	return f
}

// compileAndRun compiles the driver (compileOnly), runs it against the live project and wants
// its last line to say the client did everything.
func (f *fixture) compileAndRun(t *testing.T, driver, client string) {
	t.Helper()
	f.compileOnly(t, driver)
	out := check.Run(t, f.dir, 2*time.Minute, f.env(), "node", filepath.Join("out", strings.TrimSuffix(driver, ".ts")+".js"))
	if !strings.Contains(out, "OK "+client) {
		t.Fatalf("the %s driver did not finish:\n%s", client, out)
	}
}

// compileOnly type-checks and compiles the driver (tsc --strict).
func (f *fixture) compileOnly(t *testing.T, driver string) {
	t.Helper()
	base, err := os.ReadFile("ts/tsconfig.json")
	if err != nil {
		t.Fatal(err)
	}
	var config map[string]any
	if err := json.Unmarshal(base, &config); err != nil {
		t.Fatal(err)
	}
	config["files"] = []string{driver}
	data, _ := json.Marshal(config)
	f.write(t, "tsconfig.json", data)
	check.Run(t, f.dir, 4*time.Minute, nil, check.Bin("tsc"), "-p", "tsconfig.json")
}

// TestOrvalsFetchClientTypesTheWholeAPIAndDrivesIt: orval's fetch client,
// its answers typed by status, does the same against the live project.
func TestOrvalsFetchClientTypesTheWholeAPIAndDrivesIt(t *testing.T) {
	t.Parallel()
	f := newTSFixture(t, "orval.ts")
	f.copyIn(t, "ts/orval.config.mjs")
	check.Run(t, f.dir, 2*time.Minute, nil, check.Bin("orval"), "--config", "orval.config.mjs")
	f.compileAndRun(t, "orval.ts", "orval")
}

// TestHeyAPIsSDKTypesTheWholeAPIAndDrivesIt: @hey-api/openapi-ts's SDK and
// bundled fetch client does the same against the live project.
func TestHeyAPIsSDKTypesTheWholeAPIAndDrivesIt(t *testing.T) {
	t.Parallel()
	f := newTSFixture(t, "heyapi.ts")
	check.Run(t, f.dir, 2*time.Minute, nil, check.Bin("openapi-ts"), "-i", "openapi.json", "-o", "hey")
	f.compileAndRun(t, "heyapi.ts", "@hey-api/openapi-ts")
}
