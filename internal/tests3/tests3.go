// Package tests3 runs a real S3-compatible store for tests: versitygw
// (an S3 gateway over a directory, built by make from
// tools/versitygw/go.mod), one per test, on a free port, with one bucket.
package tests3

import (
	"net"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"testing"
	"time"
)

// Store is how to reach a running gateway: path-style, over HTTP.
type Store struct {
	Endpoint, Bucket, Region, AccessKey, SecretKey string
}

// EnvBinary names the gateway's binary; make test-go sets it.
const EnvBinary = "TABLESMITH_TEST_S3GW"

// Start runs a gateway with a bucket "tablesmith" and answers how to reach
// it. Without the binary the test is skipped, or fails where every test
// must run (TABLESMITH_TEST_REQUIRE_ALL=1, as .ci/run sets).
func Start(t testing.TB) Store {
	t.Helper()
	bin := os.Getenv(EnvBinary)
	if bin == "" {
		if os.Getenv("TABLESMITH_TEST_REQUIRE_ALL") == "1" {
			t.Fatalf("%s is not set: make test-go builds versitygw and sets it", EnvBinary)
		}
		t.Skipf("no S3-compatible store: set %s to a versitygw binary (make test-go does)", EnvBinary)
	}
	root, meta := t.TempDir(), t.TempDir()
	if err := os.Mkdir(filepath.Join(root, "tablesmith"), 0o750); err != nil {
		t.Fatal(err)
	}
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	addr := l.Addr().String()
	l.Close()
	cfg := Store{Endpoint: "http://" + addr, Bucket: "tablesmith", Region: "us-east-1",
		AccessKey: "tablesmith-test", SecretKey: "tablesmith-test-secret"}
	// Object metadata goes to a sidecar directory: the test's file
	// system need not keep extended attributes.
	cmd := exec.Command(bin, "--access", cfg.AccessKey, "--secret", cfg.SecretKey, "--port", addr, "posix", "--sidecar", meta, root)
	log, err := os.Create(filepath.Join(t.TempDir(), "versitygw.log"))
	if err != nil {
		t.Fatal(err)
	}
	cmd.Stdout, cmd.Stderr = log, log
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		_ = cmd.Process.Kill()
		_ = cmd.Wait()
		log.Close()
		if t.Failed() {
			out, _ := os.ReadFile(log.Name())
			t.Logf("versitygw log:\n%s", out)
		}
	})
	// It serves within a second; 30 s is the margin of a loaded machine.
	// Any answer (an unsigned request is refused) means it is up.
	deadline := time.Now().Add(30 * time.Second)
	for {
		res, err := http.Get(cfg.Endpoint + "/" + cfg.Bucket)
		if err == nil {
			res.Body.Close()
			return cfg
		}
		if time.Now().After(deadline) {
			t.Fatalf("versitygw at %s did not answer within 30 s: %v", addr, err)
		}
		time.Sleep(100 * time.Millisecond)
	}
}
