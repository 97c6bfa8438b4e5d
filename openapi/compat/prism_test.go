package compat_test

import (
	"context"
	"fmt"
	"net"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/tablesmith/tablesmith/internal/testcaddy"
	"github.com/tablesmith/tablesmith/openapi/check"
)

// TestPrismValidatingEveryCallFindsNoViolation puts Stoplight Prism's proxy,
// with --errors, between the openapi-fetch client and the server: every
// request and every answer of the client's calls is checked against the
// document. A violation either way is an error answer the client fails on,
// and any violation Prism logs fails the test, so the document describes
// what the server does (0 violations) and takes what clients send (0 false
// positives).
func TestPrismValidatingEveryCallFindsNoViolation(t *testing.T) {
	t.Parallel()
	f := newTSFixture(t, "fetch.ts")
	check.Run(t, f.dir, 2*time.Minute, nil, check.Bin("openapi-typescript"), "openapi.json", "-o", "schema.ts")

	port := testcaddy.FreePort(t)
	log := startPrism(t, f, port)
	// Prism matches paths without the server's base path (/v1/<project>)
	// and forwards each call to the API's root.
	proxied := *f
	proxied.base = fmt.Sprintf("http://127.0.0.1:%d", port)
	env := append(proxied.env(), "VALIDATING_PROXY=1")
	f.compileOnly(t, "fetch.ts")
	out := check.Run(t, f.dir, 2*time.Minute, env, "node", filepath.Join("out", "fetch.js"))
	if !strings.Contains(out, "OK openapi-fetch") {
		t.Fatalf("the client did not finish through Prism:\n%s\nPrism:\n%s", out, log.String())
	}
	calls := regexp.MustCompile(`(?m)Request received`).FindAllString(log.String(), -1)
	if len(calls) < 11 {
		t.Fatalf("Prism saw %d requests, want every call of the scenario (11):\n%s", len(calls), log.String())
	}
	if v := regexp.MustCompile(`(?mi)^.*violation.*$`).FindAllString(log.String(), -1); len(v) > 0 {
		t.Fatalf("Prism found %d violations:\n%s", len(v), strings.Join(v, "\n"))
	}
}

// startPrism runs prism proxy on port in front of the fixture's server and
// waits until it accepts connections. Its log is returned.
func startPrism(t *testing.T, f *fixture, port int) *testcaddy.SyncBuffer {
	t.Helper()
	ctx, cancel := context.WithCancel(context.Background())
	cmd := exec.CommandContext(ctx, check.Bin("prism"), "proxy", "openapi.json", f.base,
		"--errors", "--port", fmt.Sprint(port), "--host", "127.0.0.1")
	cmd.Dir = f.dir
	log := &testcaddy.SyncBuffer{}
	cmd.Stdout, cmd.Stderr = log, log
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { cancel(); _ = cmd.Wait() })
	deadline := time.Now().Add(2 * time.Minute)
	for {
		conn, err := net.DialTimeout("tcp", fmt.Sprintf("127.0.0.1:%d", port), time.Second)
		if err == nil {
			conn.Close()
			return log
		}
		if time.Now().After(deadline) {
			t.Fatalf("Prism did not listen on %d:\n%s", port, log.String())
		}
		time.Sleep(200 * time.Millisecond)
	}
}
