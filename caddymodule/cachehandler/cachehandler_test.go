package cachehandler_test

import (
	"encoding/json"
	"fmt"
	"io"
	"net"
	"net/http"
	"os"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/caddyserver/caddy/v2"
	"github.com/caddyserver/caddy/v2/caddyconfig"
	_ "github.com/caddyserver/caddy/v2/caddyconfig/caddyfile"
	_ "github.com/caddyserver/caddy/v2/modules/standard"

	_ "github.com/tablesmith/tablesmith/caddymodule/cachehandler"
	"github.com/tablesmith/tablesmith/internal/plans"
	"github.com/tablesmith/tablesmith/internal/testpg"
	"github.com/tablesmith/tablesmith/internal/testserver"
)

func TestMain(m *testing.M) { testpg.Main(m, "cachehandler") }

// edgeConfigs are the two edge nodes the repository ships: the module's
// own cache (tablesmith_cache) and Caddy's cache-handler. Every test of
// what an edge cache must do runs on both.
var edgeConfigs = []string{"Caddyfile.edge.example", "Caddyfile.cachehandler.example"}

// onEveryEdge runs test once per edge config, one after the other (each
// loads its Caddy config into this process).
func onEveryEdge(t *testing.T, test func(t *testing.T, edge string)) {
	for _, file := range edgeConfigs {
		t.Run(strings.TrimSuffix(strings.TrimPrefix(file, "Caddyfile."), ".example"), func(t *testing.T) {
			test(t, startEdge(t, file))
		})
	}
}

// startEdge runs an edge Caddyfile in this process (node B, with a cache
// in front of the generated API) on the package's test database, and
// returns its base URL.
func startEdge(t *testing.T, file string) string {
	t.Helper()
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	addr := l.Addr().String()
	l.Close()
	t.Setenv("TABLESMITH_ADDR", "http://"+addr)
	t.Setenv("TABLESMITH_CADDY_ADMIN", "off")
	t.Setenv("TABLESMITH_DASHBOARD_DIR", t.TempDir())
	t.Setenv("TABLESMITH_DATABASE_URL", testpg.URL(t))
	t.Setenv("TABLESMITH_DEFAULT_PLAN", "pro")
	t.Setenv("TABLESMITH_SECRET", "edge-secret")
	t.Setenv("XDG_CONFIG_HOME", t.TempDir())
	t.Setenv("XDG_DATA_HOME", t.TempDir())
	raw, err := os.ReadFile("../../" + file)
	if err != nil {
		t.Fatal(err)
	}
	cfg, _, err := caddyconfig.GetAdapter("caddyfile").Adapt(raw, map[string]any{"filename": file})
	if err != nil {
		t.Fatal(err)
	}
	if err := caddy.Load(cfg, true); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		if err := caddy.Stop(); err != nil {
			t.Errorf("stop caddy: %v", err)
		}
	})
	return "http://" + addr
}

// answer is one response of the edge node.
type answer struct {
	status int
	header http.Header
	body   struct {
		Data json.RawMessage `json:"data"`
	}
}

// hit reports whether cache-handler answered from its store.
func (a answer) hit() bool { return strings.Contains(a.header.Get("Cache-Status"), "; hit") }

// remaining is the rate limit left, as the module counted on this node.
func (a answer) remaining(t *testing.T) int {
	t.Helper()
	n, err := strconv.Atoi(a.header.Get("X-RateLimit-Remaining"))
	if err != nil {
		t.Fatalf("X-RateLimit-Remaining %q", a.header.Get("X-RateLimit-Remaining"))
	}
	return n
}

func get(t *testing.T, url, token string) answer {
	t.Helper()
	req, _ := http.NewRequest("GET", url, nil)
	if token != "" {
		req.Header.Set("Authorization", "Bearer "+token)
	}
	res, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer res.Body.Close()
	raw, _ := io.ReadAll(res.Body)
	a := answer{status: res.StatusCode, header: res.Header}
	if err := json.Unmarshal(raw, &a.body); err != nil {
		t.Fatalf("GET %s: %d %s", url, res.StatusCode, raw)
	}
	return a
}

// askUntil repeats an anonymous read of url until done holds, failing
// after 10 s, and returns the last answer and how many reads came before
// it (each of those reached the module unless it was a hit).
func askUntil(t *testing.T, what, url string, done func(answer) bool) (answer, int) {
	t.Helper()
	deadline := time.Now().Add(10 * time.Second)
	for tries := 0; ; tries++ {
		a := get(t, url, "")
		if done(a) {
			return a, tries
		}
		if time.Now().After(deadline) {
			t.Fatalf("%s: GET %s still answers %s (Cache-Status %q)", what, url, a.body.Data, a.header.Get("Cache-Status"))
		}
		time.Sleep(20 * time.Millisecond)
	}
}

// eventually asks until the answer shows want: the purge crosses
// PostgreSQL from the writing node, and the lifetimes below are an hour,
// so only a purge can make it fresh.
func eventually(t *testing.T, what, url, want string) answer {
	t.Helper()
	a, _ := askUntil(t, what+" (want "+want+")", url, func(a answer) bool { return strings.Contains(string(a.body.Data), want) })
	return a
}

// untilHit asks until the cache answers: it stores an answer after
// sending it, so on a loaded machine the next read can still miss. It
// returns the hit and how many reads missed on the way.
func untilHit(t *testing.T, what, url string) (answer, int) {
	t.Helper()
	return askUntil(t, what+" (want a hit)", url, answer.hit)
}

const edgeDoc = `{"tables": [
  {"name": "authors", "permissions": {"read": "public"}, "columns": [{"name": "name", "type": "text"}]},
  {"name": "books", "permissions": {"read": "public"}, "cache": {"max_age": 3600}, "columns": [
    {"name": "title", "type": "text"},
    {"name": "author_id", "type": "integer", "references": {"table": "authors", "on_delete": "set_null"}}]},
  {"name": "drafts", "permissions": {"read": "public"}, "columns": [{"name": "title", "type": "text"}]}]}`

func TestTheEdgeCacheServesPublicReadsAndEveryNodesWritesPurgeIt(t *testing.T) {
	onEveryEdge(t, theEdgeCacheServesPublicReadsAndEveryNodesWritesPurgeIt)
}

func theEdgeCacheServesPublicReadsAndEveryNodesWritesPurgeIt(t *testing.T, edge string) {
	// Node A: another Tablesmith on the same database, without a cache.
	a := testserver.New(t, testserver.WithPlans(plans.Defaults(), "pro"))
	p := a.NewProject(edgeDoc)
	a.API(p, "POST", "/authors", map[string]any{"name": "Ann"}).Must(t, 201)
	a.API(p, "POST", "/books", map[string]any{"title": "First", "author_id": 1}).Must(t, 201)
	a.API(p, "POST", "/drafts", map[string]any{"title": "Sketch"}).Must(t, 201)
	books := edge + "/v1/" + p.ID + "/books"

	// An anonymous read is stored, and the next one is a hit that never
	// reaches the module: the rate limit it counts has not moved.
	first := get(t, books, "")
	if first.status != 200 || first.hit() || first.header.Get("Cache-Control") != "public, max-age=3600" {
		t.Fatalf("first read: %d, Cache-Status %q, Cache-Control %q", first.status, first.header.Get("Cache-Status"), first.header.Get("Cache-Control"))
	}
	second, misses := untilHit(t, "the second read", books)
	if string(second.body.Data) != string(first.body.Data) {
		t.Fatalf("the second read's hit answers %s, the first read %s", second.body.Data, first.body.Data)
	}
	counted := get(t, books, p.Key)
	if counted.hit() {
		t.Fatalf("a read with an API key was answered from the cache: %q", counted.header.Get("Cache-Status"))
	}
	if got, want := counted.remaining(t), first.remaining(t)-1-misses; got != want {
		t.Errorf("rate limit left after a miss, %d more misses, a hit and a keyed read: %d, want %d (the hit must not count)", misses, got, want)
	}
	// Credentialed reads are never stored: each one reaches the module.
	again := get(t, books, p.Key)
	if again.hit() || again.remaining(t) != counted.remaining(t)-1 {
		t.Errorf("a second keyed read: Cache-Status %q, rate limit left %d after %d", again.header.Get("Cache-Status"), again.remaining(t), counted.remaining(t))
	}

	// A table without cache is never stored.
	drafts := edge + "/v1/" + p.ID + "/drafts"
	for range 2 {
		d := get(t, drafts, "")
		if d.hit() || strings.Contains(d.header.Get("Cache-Control"), "public") {
			t.Fatalf("a table without cache: Cache-Status %q, Cache-Control %q", d.header.Get("Cache-Status"), d.header.Get("Cache-Control"))
		}
	}

	// A write on node A purges node B's cache.
	a.API(p, "PATCH", "/books/1", map[string]any{"title": "Second"}).Must(t, 200)
	eventually(t, "after an update on another node", books, `"Second"`)
	untilHit(t, "the fresh answer, stored again", books)

	// A write to an embedded table purges the lists that embed it.
	embedded := books + "?include=author"
	if e := get(t, embedded, ""); !strings.Contains(string(e.body.Data), `"Ann"`) {
		t.Fatalf("embedded list: %s", e.body.Data)
	}
	untilHit(t, "the embedding list", embedded)
	a.API(p, "PATCH", "/authors/1", map[string]any{"name": "Bea"}).Must(t, 200)
	eventually(t, "after an update of an embedded table", embedded, `"Bea"`)

	// A delete that sets null in books purges books.
	get(t, books, "")
	a.API(p, "DELETE", "/authors/1", nil).Must(t, 200)
	eventually(t, "after a delete that sets null in books", books, `"author_id":null`)

	// A publish purges every answer of the project.
	untilHit(t, "books before the publish", books)
	a.Publish(p.Session, p.ID, strings.Replace(edgeDoc, `{"name": "title", "type": "text"},`, `{"name": "title", "type": "text"}, {"name": "pages", "type": "integer"},`, 1))
	eventually(t, "after a publish", books, `"pages":null`)
}

// The module compresses answers of 1 KiB or more as each client accepts
// (Vary: Accept-Encoding): the cache must keep the variants apart.
func TestTheEdgeCacheKeepsCompressedAndPlainAnswersApart(t *testing.T) {
	onEveryEdge(t, theEdgeCacheKeepsCompressedAndPlainAnswersApart)
}

func theEdgeCacheKeepsCompressedAndPlainAnswersApart(t *testing.T, edge string) {
	a := testserver.New(t, testserver.WithPlans(plans.Defaults(), "pro"))
	p := a.NewProject(edgeDoc)
	var rows []map[string]any
	for i := range 40 {
		rows = append(rows, map[string]any{"title": "A title long enough to make forty of them well over a kilobyte " + strconv.Itoa(i)})
	}
	a.API(p, "POST", "/books", rows).Must(t, 201)
	url := edge + "/v1/" + p.ID + "/books?limit=40"
	fetch := func(acceptEncoding string) (encoding, cacheStatus string) {
		req, _ := http.NewRequest("GET", url, nil)
		req.Header.Set("Accept-Encoding", acceptEncoding) // set, so Go's transport does not add gzip
		res, err := http.DefaultTransport.RoundTrip(req)
		if err != nil {
			t.Fatal(err)
		}
		defer res.Body.Close()
		raw, _ := io.ReadAll(res.Body)
		if res.StatusCode != 200 {
			t.Fatalf("GET %s: %d", url, res.StatusCode)
		}
		if res.Header.Get("Content-Encoding") == "" && !json.Valid(raw) {
			t.Fatalf("Accept-Encoding %q: a plain answer that is not JSON (Cache-Status %q)", acceptEncoding, res.Header.Get("Cache-Status"))
		}
		return res.Header.Get("Content-Encoding"), res.Header.Get("Cache-Status")
	}
	encodings := []struct{ accept, want string }{{"zstd", "zstd"}, {"identity", ""}, {"gzip", "gzip"}}
	for _, c := range encodings {
		if enc, cs := fetch(c.accept); enc != c.want {
			t.Fatalf("Accept-Encoding %s: Content-Encoding %q, want %q (Cache-Status %q)", c.accept, enc, c.want, cs)
		}
	}
	// Each variant is then served from the cache, in its own encoding.
	// The cache stores an answer after sending it, so on a loaded machine
	// a variant may not be stored yet when asked again: each is asked
	// until it hits (for 10 s, where storing takes milliseconds), and
	// every answer on the way must still be in the encoding asked for.
	for _, c := range encodings {
		deadline := time.Now().Add(10 * time.Second)
		for {
			enc, cs := fetch(c.accept)
			if enc != c.want {
				t.Fatalf("Accept-Encoding %s again: Content-Encoding %q, want %q (Cache-Status %q)", c.accept, enc, c.want, cs)
			}
			if strings.Contains(cs, "; hit") {
				break
			}
			if time.Now().After(deadline) {
				t.Fatalf("Accept-Encoding %s again: Cache-Status %q, want a hit of its own variant", c.accept, cs)
			}
			time.Sleep(50 * time.Millisecond)
		}
	}
}

// The module's own cache purges by table: a write leaves the answers
// that did not read the written table, which cache-handler drops too
// (it purges a whole project).
func TestTheModulesCacheKeepsAnswersThatDidNotReadTheWrittenTable(t *testing.T) {
	edge := startEdge(t, "Caddyfile.edge.example")
	a := testserver.New(t, testserver.WithPlans(plans.Defaults(), "pro"))
	p := a.NewProject(edgeDoc)
	a.API(p, "POST", "/authors", map[string]any{"name": "Ann"}).Must(t, 201)
	a.API(p, "POST", "/books", map[string]any{"title": "First", "author_id": 1}).Must(t, 201)
	books := edge + "/v1/" + p.ID + "/books"
	embedded := books + "?include=author"
	get(t, books, "")
	get(t, embedded, "")
	untilHit(t, "books", books)
	untilHit(t, "books with their authors", embedded)

	// drafts is read by neither; authors only by the embedding list. The
	// books' create announced a purge through NOTIFY, which a loaded
	// machine can deliver after books was cached (a late purge: allowed).
	// It comes once, so a round whose books answer went is run again on a
	// fresh one (at most three rounds); a cache that purges books for
	// writes to other tables misses in every round.
	var status string
	for round := 1; round <= 3; round++ {
		untilHit(t, "books", books)
		a.API(p, "POST", "/drafts", map[string]any{"title": fmt.Sprintf("Sketch %d", round)}).Must(t, 201)
		name := fmt.Sprintf("Bea %d", round)
		a.API(p, "PATCH", "/authors/1", map[string]any{"name": name}).Must(t, 200)
		eventually(t, "the embedding list after authors changed", embedded, `"`+name+`"`)
		b := get(t, books, "")
		if status = b.header.Get("Cache-Status"); b.hit() {
			return
		}
	}
	t.Errorf("books alone after writes to drafts and authors: Cache-Status %q, want a hit", status)
}

// A hit answers If-None-Match with 304, and HEAD from the stored GET.
func TestTheModulesCacheRevalidatesAndAnswersHeadFromWhatItHolds(t *testing.T) {
	edge := startEdge(t, "Caddyfile.edge.example")
	a := testserver.New(t, testserver.WithPlans(plans.Defaults(), "pro"))
	p := a.NewProject(edgeDoc)
	a.API(p, "POST", "/books", map[string]any{"title": "First"}).Must(t, 201)
	books := edge + "/v1/" + p.ID + "/books/1"
	send := func(method string, header map[string]string) *http.Response {
		req, _ := http.NewRequest(method, books, nil)
		for k, v := range header {
			req.Header.Set(k, v)
		}
		res, err := http.DefaultClient.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		res.Body.Close()
		return res
	}
	// The create's purge announcement reaches the edge through
	// PostgreSQL's NOTIFY, which a loaded machine can deliver after the
	// record was cached: a late purge (safe, and allowed) then drops it
	// between two checks. So the checks run on one stored answer, from the
	// first hit on, and again on a fresh one (at most five times) if the
	// answer went in between; a cache that never answers them fails.
	var problems []string
	for attempt := 1; attempt <= 5; attempt++ {
		get(t, books, "")
		hit, _ := untilHit(t, "the record", books)
		etag := hit.header.Get("ETag")
		if etag == "" || hit.header.Get("Age") == "" {
			t.Fatalf("a hit without ETag or Age: %v", hit.header)
		}
		problems = nil
		if res := send("GET", map[string]string{"If-None-Match": etag}); res.StatusCode != 304 || !strings.Contains(res.Header.Get("Cache-Status"), "; hit") {
			problems = append(problems, fmt.Sprintf("If-None-Match with the stored ETag: %d, Cache-Status %q, want a 304 hit", res.StatusCode, res.Header.Get("Cache-Status")))
		}
		if res := send("GET", map[string]string{"If-None-Match": `"other"`}); res.StatusCode != 200 {
			problems = append(problems, fmt.Sprintf("If-None-Match with another ETag: %d, want 200", res.StatusCode))
		}
		// Go's client asks GET for gzip itself; HEAD must ask the same to be
		// the same variant.
		if res := send("HEAD", map[string]string{"Accept-Encoding": "gzip"}); res.StatusCode != 200 || !strings.Contains(res.Header.Get("Cache-Status"), "; hit") || res.Header.Get("ETag") != etag {
			problems = append(problems, fmt.Sprintf("HEAD: %d, Cache-Status %q, ETag %q", res.StatusCode, res.Header.Get("Cache-Status"), res.Header.Get("ETag")))
		}
		if len(problems) == 0 {
			break
		}
	}
	for _, p := range problems {
		t.Error(p)
	}
	// A request that asks for a fresh answer goes to the module.
	if res := send("GET", map[string]string{"Cache-Control": "no-cache"}); strings.Contains(res.Header.Get("Cache-Status"), "; hit") {
		t.Errorf("Cache-Control: no-cache was answered from the cache")
	}
}

// tablesmith_cache stands before the whole of /v1/ without a matcher: a
// realtime stream and the API description pass through it, unstored.
func TestTheModulesCacheLetsStreamsAndTheDescriptionThrough(t *testing.T) {
	edge := startEdge(t, "Caddyfile.edge.example")
	a := testserver.New(t, testserver.WithPlans(plans.Defaults(), "pro"))
	p := a.NewProject(`{"tables": [{"name": "books", "realtime": true, "permissions": {"read": "public"}, "cache": {"max_age": 3600},
		"columns": [{"name": "title", "type": "text"}]}]}`)
	for range 2 {
		res, err := http.Get(edge + "/v1/" + p.ID + "/openapi.json")
		if err != nil {
			t.Fatal(err)
		}
		res.Body.Close()
		if res.StatusCode != 200 || strings.Contains(res.Header.Get("Cache-Status"), "; hit") {
			t.Fatalf("openapi.json: %d, Cache-Status %q", res.StatusCode, res.Header.Get("Cache-Status"))
		}
	}
	// An anonymous stream of a public table, through the cache.
	res, err := http.Get(edge + "/v1/" + p.ID + "/realtime?tables=books")
	if err != nil {
		t.Fatal(err)
	}
	defer res.Body.Close()
	if res.StatusCode != 200 || !strings.HasPrefix(res.Header.Get("Content-Type"), "text/event-stream") {
		t.Fatalf("stream: %d %s", res.StatusCode, res.Header.Get("Content-Type"))
	}
	got := make(chan string, 1)
	go func() {
		buf := make([]byte, 0, 4096)
		chunk := make([]byte, 1024)
		for {
			n, err := res.Body.Read(chunk)
			buf = append(buf, chunk[:n]...)
			if strings.Contains(string(buf), `"Streamed"`) || err != nil {
				got <- string(buf)
				return
			}
		}
	}()
	time.Sleep(300 * time.Millisecond) // a stream starts at the present
	a.API(p, "POST", "/books", map[string]any{"title": "Streamed"}).Must(t, 201)
	select {
	case body := <-got:
		if !strings.Contains(body, `"Streamed"`) {
			t.Fatalf("the stream ended without the create: %q", body)
		}
	case <-time.After(10 * time.Second):
		t.Fatal("no event through the cache within 10 s: the stream was held back")
	}
}
