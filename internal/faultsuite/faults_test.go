package faultsuite_test

import (
	"bytes"
	"encoding/json"
	"io"
	"net/http"
	"net/url"
	"runtime"
	"runtime/pprof"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/redis/go-redis/v9"

	"github.com/tablesmith/tablesmith/internal/pgpool"
	"github.com/tablesmith/tablesmith/internal/plans"
	"github.com/tablesmith/tablesmith/internal/service"
	"github.com/tablesmith/tablesmith/internal/testpg"
	"github.com/tablesmith/tablesmith/internal/testproxy"
	"github.com/tablesmith/tablesmith/internal/testserver"
)

func TestMain(m *testing.M) { testpg.Main(m, "faultsuite") }

// deadline is the request deadline of the services under test; margin is
// what an answer may take beyond it: pgpool.Overshoot (a statement's
// socket on a database that stopped answering gives up that long after
// the statement's deadline, so that lib/pq's cancel is sent first) plus
// scheduling on a loaded machine. The deadline is long enough for the
// margin to be a small part of it (12%): a connect timeout, a retry or a
// second attempt that ran past the deadline would fail the bound, where
// a margin larger than the deadline hid them.
const (
	deadline   = 5 * time.Second
	scheduling = 400 * time.Millisecond
	margin     = pgpool.Overshoot + scheduling
)

// redisTimeout is the rate limiter's bound on a Redis command (the
// default of ratelimit.Config.RedisTimeout), after which the node counts
// alone.
const redisTimeout = 500 * time.Millisecond

const itemsSchema = `{"tables": [{"name": "items", "columns": [
	{"name": "name", "type": "text", "required": true}]}]}`

// client gives up long after any bound the tests assert, so that a hang
// fails the test instead of stalling the suite.
var client = &http.Client{Timeout: 20 * time.Second}

type answer struct {
	status int
	header http.Header
	code   string
	took   time.Duration
}

func do(t *testing.T, s *testserver.Server, method, path, token string, body any) answer {
	t.Helper()
	var rdr io.Reader
	if body != nil {
		raw, _ := json.Marshal(body)
		rdr = bytes.NewReader(raw)
	}
	req, err := http.NewRequest(method, s.URL+path, rdr)
	if err != nil {
		t.Fatal(err)
	}
	if body != nil {
		req.Header.Set("Content-Type", "application/json")
	}
	if token != "" {
		req.Header.Set("Authorization", "Bearer "+token)
	}
	start := time.Now()
	res, err := client.Do(req)
	if err != nil {
		t.Fatalf("%s %s: %v", method, path, err)
	}
	defer res.Body.Close()
	raw, _ := io.ReadAll(res.Body)
	a := answer{status: res.StatusCode, header: res.Header, took: time.Since(start)}
	var env struct {
		Error struct{ Code string } `json:"error"`
	}
	_ = json.Unmarshal(raw, &env)
	a.code = env.Error.Code
	return a
}

// serverBehind starts a service whose database connections (control
// pool, data pool, listener) all go through a proxy.
func serverBehind(t *testing.T, opts ...testserver.Option) (*testserver.Server, *testproxy.Proxy) {
	t.Helper()
	u, err := url.Parse(testpg.URL(t))
	if err != nil {
		t.Fatal(err)
	}
	px := testproxy.Start(t, u.Host)
	u.Host = px.Addr
	opts = append([]testserver.Option{testserver.WithConfig(func(c *service.Config) {
		c.DatabaseURL = u.String()
		c.RequestTimeout = deadline
	})}, opts...)
	s := testserver.New(t, opts...)
	// The service closes before the proxy stops (cleanups run in reverse):
	// let its last writes through.
	t.Cleanup(func() { px.SetMode(testproxy.Forward) })
	return s, px
}

// request is one request the suite sends during an outage.
type request struct {
	name, method, path string
	token              string
	body               any
}

func requestsOf(p *testserver.Project, id string) []request {
	return []request{
		{"list", "GET", "/v1/" + p.ID + "/items", p.Key, nil},
		{"get", "GET", "/v1/" + p.ID + "/items/" + id, p.Key, nil},
		{"create", "POST", "/v1/" + p.ID + "/items", p.Key, map[string]any{"name": "during"}},
		{"platform", "GET", "/api/projects/" + p.ID, p.Session, nil},
	}
}

// mustBeUnavailable sends every request n times at once and wants each
// answered 503 SERVICE_UNAVAILABLE with Retry-After within bound.
func mustBeUnavailable(t *testing.T, s *testserver.Server, reqs []request, n int, bound time.Duration) {
	t.Helper()
	var wg sync.WaitGroup
	answers := make([]answer, len(reqs)*n)
	for i := range answers {
		wg.Add(1)
		go func() {
			defer wg.Done()
			r := reqs[i%len(reqs)]
			answers[i] = do(t, s, r.method, r.path, r.token, r.body)
		}()
	}
	wg.Wait()
	for i, a := range answers {
		r := reqs[i%len(reqs)]
		if a.status != 503 || a.code != "SERVICE_UNAVAILABLE" || a.header.Get("Retry-After") == "" {
			t.Errorf("%s: %d %s (Retry-After %q), want 503 SERVICE_UNAVAILABLE with Retry-After", r.name, a.status, a.code, a.header.Get("Retry-After"))
		}
		if a.took > bound {
			t.Errorf("%s: answered after %v, want within %v", r.name, a.took.Round(time.Millisecond), bound)
		}
	}
}

// seed creates a project with one record for s, through a service of its
// own on the same database with the default deadline and no proxy between:
// the setup never meets the deadline or the faults under test
// (docs/testing.md). s serves the project from the database as any node
// would.
func seed(t *testing.T, s *testserver.Server) (*testserver.Project, string) {
	t.Helper()
	setup := testserver.New(t)
	p := setup.NewProject(itemsSchema)
	rec := setup.API(p, "POST", "/items", map[string]any{"name": "first"}).Must(t, 201)
	id := rec.Data()["id"]
	return p, jsonString(id)
}

func jsonString(v any) string {
	switch v := v.(type) {
	case string:
		return v
	case float64:
		raw, _ := json.Marshal(v)
		return string(raw)
	}
	return ""
}

func TestADatabaseThatStopsAnsweringGets503WithinTheDeadlineAndServesAgainAfter(t *testing.T) {
	s, px := serverBehind(t)
	p, id := seed(t, s)
	reqs := requestsOf(p, id)
	goroutines := runtime.NumGoroutine()

	px.SetMode(testproxy.Blackhole)
	// Five of each at once: more than the pools' idle connections, so
	// some wait for a connection and some dial a new one.
	mustBeUnavailable(t, s, reqs, 5, deadline+margin)

	if a := do(t, s, "GET", "/api/health", "", nil); a.status != 200 || a.took > scheduling {
		t.Errorf("health during the outage: %d after %v, want 200 at once", a.status, a.took)
	}
	// The ping's own connections were dropped with the outage: ready
	// needs a new one, which must not take the connect timeout (5 s).
	if a := do(t, s, "GET", "/api/ready", "", nil); a.status != 503 || a.code != "SERVICE_UNAVAILABLE" || a.took > service.ReadyTimeout+scheduling {
		t.Errorf("ready during the outage: %d %s after %v, want 503 within %v", a.status, a.code, a.took, service.ReadyTimeout+scheduling)
	}

	px.SetMode(testproxy.Forward)
	waitFor(t, 10*time.Second, func() bool { return do(t, s, "GET", "/v1/"+p.ID+"/items", p.Key, nil).status == 200 })
	for _, r := range reqs {
		if a := do(t, s, r.method, r.path, r.token, r.body); a.status >= 300 {
			t.Errorf("%s after the outage: %d %s", r.name, a.status, a.code)
		}
	}
	if a := do(t, s, "GET", "/api/ready", "", nil); a.status != 200 {
		t.Errorf("ready after the outage: %d %s", a.status, a.code)
	}
	// What waited on the blackhole has ended: no goroutine per request
	// is left behind. The last to end are dials given up during the
	// outage, which end at the connect timeout (5 s); 20 s is that four
	// times over for a loaded machine under -race. If some are left, the
	// failure shows their stacks.
	end := time.Now().Add(20 * time.Second)
	for runtime.NumGoroutine() >= goroutines+20 {
		if time.Now().After(end) {
			var stacks strings.Builder
			_ = pprof.Lookup("goroutine").WriteTo(&stacks, 1)
			t.Fatalf("%d goroutines 20 s after the outage, %d before it; by stack:\n%.20000s", runtime.NumGoroutine(), goroutines, stacks.String())
		}
		time.Sleep(100 * time.Millisecond)
	}
}

func TestADatabaseThatResetsItsConnectionsGets503AtOnce(t *testing.T) {
	s, px := serverBehind(t)
	p, id := seed(t, s)

	px.SetMode(testproxy.Reset)
	mustBeUnavailable(t, s, requestsOf(p, id), 2, margin)

	px.SetMode(testproxy.Forward)
	waitFor(t, 10*time.Second, func() bool { return do(t, s, "GET", "/api/ready", "", nil).status == 200 })
}

func TestAReadWhoseConnectionWasDroppedIsRetriedOnAFreshOne(t *testing.T) {
	s, px := serverBehind(t)
	p, id := seed(t, s)
	s.API(p, "GET", "/items/"+id, nil).Must(t, 200)
	s.API(p, "GET", "/items", nil).Must(t, 200)

	// Each statement has been sent and its answer is held back when every
	// connection is reset (the database restarted, or a proxy or firewall
	// between dropped them); new connections work at once.
	px.SetSlow(3 * time.Second)
	done := make(chan answer, 2)
	go func() { done <- do(t, s, "GET", "/v1/"+p.ID+"/items/"+id, p.Key, nil) }()
	go func() { done <- do(t, s, "GET", "/v1/"+p.ID+"/items", p.Key, nil) }()
	time.Sleep(300 * time.Millisecond)
	px.SetMode(testproxy.Reset)
	px.SetMode(testproxy.Forward)
	for range 2 {
		a := <-done
		if a.status != 200 {
			t.Errorf("%d %s, want 200 from the read run again", a.status, a.code)
		}
		if a.took > deadline+margin {
			t.Errorf("answered after %v", a.took)
		}
	}
}

func TestAConnectionDroppedWhileTheStatementRunsAnswers503(t *testing.T) {
	s, px := serverBehind(t)
	p, id := seed(t, s)

	// The statement's answer is held back; the connection is then reset
	// under it and new connections are refused, so the retry fails too.
	px.SetSlow(3 * time.Second)
	done := make(chan answer, 2)
	go func() { done <- do(t, s, "GET", "/v1/"+p.ID+"/items/"+id, p.Key, nil) }()
	go func() { done <- do(t, s, "POST", "/v1/"+p.ID+"/items", p.Key, map[string]any{"name": "x"}) }()
	time.Sleep(300 * time.Millisecond)
	px.SetMode(testproxy.Reset)
	for range 2 {
		a := <-done
		if a.status != 503 || a.code != "SERVICE_UNAVAILABLE" {
			t.Errorf("%d %s, want 503 SERVICE_UNAVAILABLE", a.status, a.code)
		}
		if a.took > deadline+margin {
			t.Errorf("answered after %v", a.took)
		}
	}
}

func TestASlowDatabaseIsServedWhileItAnswersWithinTheDeadlineAnd503PastIt(t *testing.T) {
	s, px := serverBehind(t)
	p, id := seed(t, s)

	px.SetSlow(50 * time.Millisecond)
	for _, r := range requestsOf(p, id) {
		if a := do(t, s, r.method, r.path, r.token, r.body); a.status >= 300 || a.took > deadline+margin {
			t.Errorf("%s on a slightly slow database: %d %s after %v", r.name, a.status, a.code, a.took)
		}
	}
	px.SetSlow(2 * deadline)
	mustBeUnavailable(t, s, requestsOf(p, id), 1, deadline+margin)
	px.SetMode(testproxy.Forward)
}

func TestRedisThatFailsLeavesTheLimitToEachNodeWithinBoundedTime(t *testing.T) {
	u := testpg.RedisURL(t)
	opt, err := redis.ParseURL(u)
	if err != nil {
		t.Fatal(err)
	}
	rpx := testproxy.Start(t, opt.Addr)
	viaProxy, _ := url.Parse(u)
	viaProxy.Host = rpx.Addr
	set := plans.Defaults()
	set["tiny"] = plans.Plan{Name: "tiny", RatePerHour: 3, Projects: plans.Unlimited}
	s, _ := serverBehind(t, testserver.WithPlans(set, "tiny"), testserver.WithConfig(func(c *service.Config) {
		c.RedisURL = viaProxy.String()
	}))

	for _, mode := range []struct {
		name string
		set  func()
	}{
		{"blackhole", func() { rpx.SetMode(testproxy.Blackhole) }},
		{"reset", func() { rpx.SetMode(testproxy.Reset) }},
		{"slow", func() { rpx.SetSlow(2 * time.Second) }},
	} {
		t.Run(mode.name, func(t *testing.T) {
			rpx.SetMode(testproxy.Forward)
			p := s.NewProject(itemsSchema)
			mode.set()
			defer rpx.SetMode(testproxy.Forward)
			for i := 1; i <= 4; i++ {
				a := do(t, s, "GET", "/v1/"+p.ID+"/items", p.Key, nil)
				want := 200
				if i == 4 {
					want = 429 // counted on this node: the plan still holds
				}
				if a.status != want || a.header.Get("X-RateLimit-Limit") != "3" {
					t.Errorf("request %d: %d %s (X-RateLimit-Limit %q), want %d", i, a.status, a.code, a.header.Get("X-RateLimit-Limit"), want)
				}
				if a.took > redisTimeout+margin {
					t.Errorf("request %d: answered after %v, want within %v", i, a.took, redisTimeout+margin)
				}
			}
		})
	}
}

func waitFor(t *testing.T, limit time.Duration, ok func() bool) {
	t.Helper()
	end := time.Now().Add(limit)
	for !ok() {
		if time.Now().After(end) {
			t.Fatalf("not so after %v", limit)
		}
		time.Sleep(100 * time.Millisecond)
	}
}
