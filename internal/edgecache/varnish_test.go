package edgecache_test

import (
	"bytes"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/url"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/tablesmith/tablesmith/internal/plans"
	"github.com/tablesmith/tablesmith/internal/service"
	"github.com/tablesmith/tablesmith/internal/testpg"
	"github.com/tablesmith/tablesmith/internal/testserver"
)

func TestMain(m *testing.M) { testpg.Main(m, "edgecache") }

// freeAddr is a loopback address nothing listens on.
func freeAddr(t *testing.T) string {
	t.Helper()
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer l.Close()
	return l.Addr().String()
}

// startVarnish runs Debian's varnishd with docs/varnish/tablesmith.vcl,
// its backend set to origin, on addr, until the test ends.
func startVarnish(t *testing.T, addr, origin string) {
	t.Helper()
	bin, err := exec.LookPath("varnishd")
	if err != nil {
		if testpg.RequireAll() {
			t.Fatal("varnishd is required (TABLESMITH_TEST_REQUIRE_ALL=1): apt-get install varnish varnish-modules")
		}
		t.Skip("varnishd is not installed (apt-get install varnish varnish-modules)")
	}
	raw, err := os.ReadFile("../../docs/varnish/tablesmith.vcl")
	if err != nil {
		t.Fatal(err)
	}
	host, port, _ := net.SplitHostPort(origin)
	vcl := strings.Replace(string(raw), "\t.host = \"127.0.0.1\";\n\t.port = \"8080\";",
		fmt.Sprintf("\t.host = %q;\n\t.port = %q;", host, port), 1)
	if !strings.Contains(vcl, port) {
		t.Fatal("the VCL's backend block is not where the test expects it")
	}
	dir := t.TempDir()
	file := filepath.Join(dir, "tablesmith.vcl")
	if err := os.WriteFile(file, []byte(vcl), 0o644); err != nil {
		t.Fatal(err)
	}
	var out bytes.Buffer
	// -j none: run as this user, without the jail's user switch; -F:
	// in the foreground, so the test owns the process.
	cmd := exec.Command(bin, "-F", "-j", "none", "-n", filepath.Join(dir, "work"), "-a", addr, "-f", file, "-s", "malloc,32m")
	cmd.Stdout, cmd.Stderr = &out, &out
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		_ = cmd.Process.Kill()
		_ = cmd.Wait()
	})
	deadline := time.Now().Add(20 * time.Second)
	for {
		if c, err := net.Dial("tcp", addr); err == nil {
			c.Close()
			return
		}
		if time.Now().After(deadline) {
			t.Fatalf("varnishd did not listen on %s within 20 s: %s", addr, out.String())
		}
		time.Sleep(50 * time.Millisecond)
	}
}

// read is one anonymous GET through Varnish: the body and whether
// Varnish answered from its store.
func read(t *testing.T, u string) (body string, hit bool) {
	t.Helper()
	res, err := http.Get(u)
	if err != nil {
		t.Fatal(err)
	}
	defer res.Body.Close()
	raw, _ := io.ReadAll(res.Body)
	if res.StatusCode != 200 {
		t.Fatalf("GET %s: %d %s", u, res.StatusCode, raw)
	}
	return string(raw), res.Header.Get("X-Cache") == "HIT"
}

// untilHit reads until Varnish answers from its store (it stores after
// the first answer; a loaded machine may take a moment).
func untilHit(t *testing.T, u string) string {
	t.Helper()
	deadline := time.Now().Add(10 * time.Second)
	for {
		body, hit := read(t, u)
		if hit {
			return body
		}
		if time.Now().After(deadline) {
			t.Fatalf("GET %s never became a hit", u)
		}
		time.Sleep(20 * time.Millisecond)
	}
}

// Varnish with xkey in front, as a CDN would be: it keeps what the module
// marks public, and the node that writes purges exactly the answers that
// read the written tables, through purge_url.
func TestVarnishInFrontIsPurgedByTheWritingNodeBySurrogateKey(t *testing.T) {
	varnish := freeAddr(t)
	s := testserver.New(t, testserver.WithPlans(plans.Defaults(), "pro"), testserver.WithConfig(func(c *service.Config) {
		c.PurgeURLs = []string{"http://" + varnish + "/"}
	}))
	origin, _ := url.Parse(s.URL)
	startVarnish(t, varnish, origin.Host)

	p := s.NewProject(`{"tables": [
	  {"name": "authors", "permissions": {"read": "public"}, "cache": {"max_age": 3600}, "columns": [{"name": "name", "type": "text"}]},
	  {"name": "books", "permissions": {"read": "public"}, "cache": {"max_age": 3600}, "columns": [
	    {"name": "title", "type": "text"},
	    {"name": "author_id", "type": "integer", "references": {"table": "authors", "on_delete": "set_null"}}]},
	  {"name": "drafts", "permissions": {"read": "public"}, "columns": [{"name": "title", "type": "text"}]}]}`)
	s.API(p, "POST", "/authors", map[string]any{"name": "Ann"}).Must(t, 201)
	s.API(p, "POST", "/books", map[string]any{"title": "First", "author_id": 1}).Must(t, 201)
	base := "http://" + varnish + "/v1/" + p.ID
	books, embedded, drafts := base+"/books", base+"/books?include=author", base+"/drafts"
	for _, u := range []string{books, embedded} {
		read(t, u)
		untilHit(t, u)
	}
	// A table without cache is never kept.
	read(t, drafts)
	if _, hit := read(t, drafts); hit {
		t.Fatal("Varnish kept an answer of a table without cache")
	}

	// A write to authors purges the list that embeds them, not books
	// alone.
	s.API(p, "PATCH", "/authors/1", map[string]any{"name": "Bea"}).Must(t, 200)
	eventually(t, embedded, `"Bea"`)
	if _, hit := read(t, books); !hit {
		t.Error("books alone was purged by a write to authors")
	}
	// A write to books purges both.
	s.API(p, "PATCH", "/books/1", map[string]any{"title": "Second"}).Must(t, 200)
	eventually(t, books, `"Second"`)
	eventually(t, embedded, `"Second"`)
	// A publish purges the project.
	untilHit(t, books)
	s.Publish(p.Session, p.ID, `{"tables": [
	  {"name": "authors", "permissions": {"read": "public"}, "cache": {"max_age": 3600}, "columns": [{"name": "name", "type": "text"}]},
	  {"name": "books", "permissions": {"read": "public"}, "cache": {"max_age": 3600}, "columns": [
	    {"name": "title", "type": "text"}, {"name": "pages", "type": "integer"},
	    {"name": "author_id", "type": "integer", "references": {"table": "authors", "on_delete": "set_null"}}]},
	  {"name": "drafts", "permissions": {"read": "public"}, "columns": [{"name": "title", "type": "text"}]}]}`)
	eventually(t, books, `"pages":null`)
}

// eventually reads until the answer holds want: with an hour's max-age,
// only a purge can make it fresh.
func eventually(t *testing.T, u, want string) {
	t.Helper()
	deadline := time.Now().Add(5 * time.Second)
	for {
		body, _ := read(t, u)
		if strings.Contains(body, want) {
			return
		}
		if time.Now().After(deadline) {
			t.Fatalf("GET %s still answers %s, want %s", u, body, want)
		}
		time.Sleep(20 * time.Millisecond)
	}
}
