// Package layering_test checks the dependency rules of docs/architecture.md
// ("Dependency direction") against the real import graph, as `go list -deps`
// reports it for the module's non-test code.
package layering_test

import (
	"bufio"
	"bytes"
	"os/exec"
	"sort"
	"strings"
	"sync"
	"testing"
)

const layerModule = "github.com/tablesmith/tablesmith"

// layerGraph maps an import path to the packages it imports directly.
type layerGraph map[string][]string

// layerRule forbids the packages that Applies to from reaching (directly
// or through others) any package Forbidden matches.
type layerRule struct {
	name      string
	reason    string
	applies   func(pkg string) bool
	forbidden func(dep string) bool
}

// Test helpers, and the packages that exist only to run tests or benchmarks.
var layerTestOnly = []string{"internal/testpg", "internal/testserver", "internal/testproxy", "internal/testcaddy", "internal/tests3", "internal/faultsuite", "internal/schemafuzz"}

var layerRules = []layerRule{
	{
		name:      "only the Caddy adapter depends on Caddy",
		reason:    "the runtime must be usable (and testable) without Caddy; caddymodule adapts it",
		applies:   layerOurs(layerExcept("", "caddymodule/...", "cmd/caddy", "bench/...")),
		forbidden: layerUnder("github.com/caddyserver/caddy/v2"),
	},
	{
		name:      "schema stays pure",
		reason:    "schema is the core every package depends on: no driver, no SQL package, no HTTP, no other Tablesmith package",
		applies:   layerOurs(layerOnly("schema")),
		forbidden: layerAny(layerStd("database/sql", "net/http"), layerUnder("github.com/lib/pq"), layerOurs(layerExcept("schema"))),
	},
	{
		name:      "translate renders SQL without a driver or HTTP",
		reason:    "translate turns requests into SQL text and parameters; it takes decisions (access.Grant) as data",
		applies:   layerOurs(layerOnly("translate")),
		forbidden: layerAny(layerStd("net/http"), layerUnder("github.com/lib/pq"), layerOurs(layerExcept("translate", "schema", "access"))),
	},
	{
		name:      "access knows only the schema",
		reason:    "the permission rules are a pure function of the schema and the principal",
		applies:   layerOurs(layerOnly("access")),
		forbidden: layerOurs(layerExcept("access", "schema")),
	},
	{
		// Folders are floors (docs/architecture.md, "Floors"): the ground
		// floor is every top-level folder but internal/, caddymodule/, cmd/
		// and bench/; internal/ stands on it; caddymodule/ and cmd/ on top.
		// An import goes down a floor or stays in its room.
		name:      "the ground floor never imports internal/ or the Caddy adapter",
		reason:    "schema, access, apierr, translate and openapi are the floor internal/ stands on; a package there that imported internal/ or caddymodule would make the floors a loop",
		applies:   layerOurs(layerExcept("", "internal/...", "caddymodule/...", "cmd/...", "bench/...", "tools/...")),
		forbidden: layerOurs(layerOnly("internal/...", "caddymodule/...", "cmd/...")),
	},
	{
		name:      "internal/ never imports the Caddy adapter",
		reason:    "caddymodule and cmd/caddy adapt internal/ to Caddy; internal/ is usable without them",
		applies:   layerOurs(layerOnly("internal/...")),
		forbidden: layerOurs(layerOnly("caddymodule/...", "cmd/...")),
	},
	{
		name:      "handlers never reach the wiring",
		reason:    "caddymodule and internal/service assemble the handlers; a handler importing them would be a cycle in design",
		applies:   layerOurs(layerOnly("internal/apihttp", "internal/platformhttp")),
		forbidden: layerOurs(layerOnly("caddymodule", "internal/service")),
	},
	{
		name:      "test helpers stay out of the product",
		reason:    "throwaway databases, test servers and fault proxies must not ship in the binary",
		applies:   layerOurs(layerExcept(append([]string{"bench/..."}, layerTestOnly...)...)),
		forbidden: layerOurs(layerOnly(layerTestOnly...)),
	},
}

func TestPackagesFollowTheDependencyRules(t *testing.T) {
	g := layerLoad(t)
	if _, ok := g[layerModule+"/schema"]; !ok {
		t.Fatalf("go list found no %s/schema: the graph is not the module's", layerModule)
	}
	for _, r := range layerRules {
		t.Run(r.name, func(t *testing.T) {
			for _, v := range layerViolations(g, r) {
				t.Errorf("%s must not depend on %s\n  import chain: %s\n  why: %s", v[0], v[len(v)-1], strings.Join(v, " -> "), r.reason)
			}
		})
	}
}

// The checker itself, on a graph with one bad edge two steps down.
func TestALayerViolationNamesTheImportChain(t *testing.T) {
	g := layerGraph{
		layerModule + "/translate":         {layerModule + "/access", "strings"},
		layerModule + "/access":            {layerModule + "/schema", layerModule + "/internal/envelope"},
		layerModule + "/internal/envelope": {"net/http"},
		layerModule + "/schema":            nil,
		"net/http":                         nil,
		"strings":                          nil,
	}
	var translate layerRule
	for _, r := range layerRules {
		if r.name == "translate renders SQL without a driver or HTTP" {
			translate = r
		}
	}
	got := layerViolations(g, translate)
	want := []string{layerModule + "/translate", layerModule + "/access", layerModule + "/internal/envelope"}
	if len(got) != 1 || strings.Join(got[0], " ") != strings.Join(want, " ") {
		t.Fatalf("violations = %q, want the one chain %q", got, want)
	}
}

// layerViolations returns, for each package the rule applies to and each
// forbidden package it reaches, the shortest import chain from one to the
// other (the first forbidden package met on each path is reported).
func layerViolations(g layerGraph, r layerRule) [][]string {
	var out [][]string
	for _, pkg := range layerSorted(g) {
		if !r.applies(pkg) {
			continue
		}
		parent := map[string]string{pkg: ""}
		queue := []string{pkg}
		for len(queue) > 0 {
			cur := queue[0]
			queue = queue[1:]
			for _, dep := range g[cur] {
				if _, seen := parent[dep]; seen {
					continue
				}
				parent[dep] = cur
				if r.forbidden(dep) {
					chain := []string{dep}
					for p := cur; p != ""; p = parent[p] {
						chain = append([]string{p}, chain...)
					}
					out = append(out, chain)
					continue
				}
				queue = append(queue, dep)
			}
		}
	}
	return out
}

var (
	layerOnce   sync.Once
	layerCached layerGraph
	layerErr    error
)

// layerLoad runs `go list -deps` once over the module's packages.
func layerLoad(t *testing.T) layerGraph {
	t.Helper()
	layerOnce.Do(func() {
		cmd := exec.Command("go", "list", "-deps", "-f", "{{.ImportPath}}:{{join .Imports \" \"}}", layerModule+"/...")
		var stderr bytes.Buffer
		cmd.Stderr = &stderr
		outb, err := cmd.Output()
		if err != nil {
			layerErr = err
			if stderr.Len() > 0 {
				layerErr = &layerListError{err, stderr.String()}
			}
			return
		}
		layerCached = layerGraph{}
		sc := bufio.NewScanner(bytes.NewReader(outb))
		sc.Buffer(make([]byte, 1<<20), 1<<20)
		for sc.Scan() {
			path, imports, _ := strings.Cut(sc.Text(), ":")
			layerCached[path] = strings.Fields(imports)
		}
		layerErr = sc.Err()
	})
	if layerErr != nil {
		t.Fatalf("go list -deps: %v", layerErr)
	}
	return layerCached
}

type layerListError struct {
	err    error
	stderr string
}

func (e *layerListError) Error() string { return e.err.Error() + ": " + e.stderr }

func layerSorted(g layerGraph) []string {
	keys := make([]string, 0, len(g))
	for k := range g {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	return keys
}

// layerOurs matches the module's own packages whose path inside the module
// (e.g. "access", "" for the root) rel accepts.
func layerOurs(rel func(string) bool) func(string) bool {
	return func(pkg string) bool {
		if pkg == layerModule {
			return rel("")
		}
		if r, ok := strings.CutPrefix(pkg, layerModule+"/"); ok {
			return rel(r)
		}
		return false
	}
}

// layerOnly accepts the listed paths; "dir/..." accepts dir and below.
func layerOnly(paths ...string) func(string) bool {
	return func(rel string) bool {
		for _, p := range paths {
			if dir, ok := strings.CutSuffix(p, "/..."); ok {
				if rel == dir || strings.HasPrefix(rel, dir+"/") {
					return true
				}
			} else if rel == p {
				return true
			}
		}
		return false
	}
}

func layerExcept(paths ...string) func(string) bool {
	only := layerOnly(paths...)
	return func(rel string) bool { return !only(rel) }
}

func layerStd(paths ...string) func(string) bool {
	return func(pkg string) bool {
		for _, p := range paths {
			if pkg == p {
				return true
			}
		}
		return false
	}
}

// layerUnder matches a module path and its subpackages.
func layerUnder(prefix string) func(string) bool {
	return func(pkg string) bool { return pkg == prefix || strings.HasPrefix(pkg, prefix+"/") }
}

func layerAny(fs ...func(string) bool) func(string) bool {
	return func(pkg string) bool {
		for _, f := range fs {
			if f(pkg) {
				return true
			}
		}
		return false
	}
}
