package caddymodule_test

// Nodes come and go behind the real balancer (issue 43, item 4): three
// Caddy nodes on one database behind Caddyfile.balancer.example, under
// reads, creates with an Idempotency-Key and two realtime streams, while
// one node's config is reloaded with a setting that replaces its service,
// each node in turn is stopped with SIGTERM and replaced by a new process
// (a rolling replacement), and then one is killed with SIGKILL and
// started again. No read or write may fail, no write may happen twice,
// and the streams, resuming by Last-Event-ID, must miss nothing.

import (
	"database/sql"
	"fmt"
	"io"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/tablesmith/tablesmith/internal/testcaddy"
	"github.com/tablesmith/tablesmith/internal/testpg"
	"github.com/tablesmith/tablesmith/schema"
)

// resumingStream follows a project's stream through base as an
// EventSource would: when the stream ends it reconnects with the last id
// it saw, after the delay the server asked for. It counts each created
// record's n.
type resumingStream struct {
	mu      sync.Mutex
	seen    map[int]int
	lastID  int64
	opens   int
	refused []string
	// connected is closed when the first open is answered: from then on
	// every change reaches the stream (a stream starts at the present).
	connected     chan struct{}
	connectedOnce sync.Once
}

func (s *resumingStream) run(base, project, key string, stop <-chan struct{}) {
	client := &http.Client{}
	for {
		select {
		case <-stop:
			return
		default:
		}
		req, _ := http.NewRequest("GET", base+"/v1/"+project+"/realtime?tables=events", nil)
		req.Header.Set("Authorization", "Bearer "+key)
		s.mu.Lock()
		if s.lastID >= 0 {
			req.Header.Set("Last-Event-ID", strconv.FormatInt(s.lastID, 10))
		}
		s.opens++
		s.mu.Unlock()
		res, err := client.Do(req)
		if err != nil {
			time.Sleep(time.Second)
			continue
		}
		if res.StatusCode != 200 {
			body, _ := io.ReadAll(res.Body)
			res.Body.Close()
			s.mu.Lock()
			s.refused = append(s.refused, fmt.Sprintf("%d %s", res.StatusCode, body))
			s.mu.Unlock()
			time.Sleep(time.Second)
			continue
		}
		s.connectedOnce.Do(func() { close(s.connected) })
		done := make(chan struct{})
		go func() { // a stop ends the read
			select {
			case <-stop:
				res.Body.Close()
			case <-done:
			}
		}()
		s.read(res.Body)
		close(done)
		res.Body.Close()
		time.Sleep(time.Second) // the reconnect event's retry
	}
}

func (s *resumingStream) read(body io.Reader) {
	readEvents(body, func(ev sseEvent) {
		s.mu.Lock()
		defer s.mu.Unlock()
		if ev.id >= 0 {
			s.lastID = ev.id
		}
		if n := createdN(ev); n >= 0 {
			s.seen[n]++
		}
	})
}

func TestThroughTheBalancerNodesComeAndGoWithoutAFailedRequest(t *testing.T) {
	t.Parallel()
	bin := testcaddy.Binary(t)
	dbURL := testpg.NewDatabase(t)
	dir := t.TempDir()
	// The nodes have an admin endpoint, for the reload below; the reloaded
	// config changes request_timeout, which the service is built with, so
	// the reload replaces the node's service under the load.
	withAdmin := strings.Replace(drainCaddyfile, "admin off", "admin 127.0.0.1:{$ADMIN_PORT}", 1)
	config, reloaded := filepath.Join(dir, "Caddyfile"), filepath.Join(dir, "Caddyfile.reloaded")
	for path, text := range map[string]string{config: withAdmin,
		reloaded: strings.Replace(withAdmin, "\t\tdefault_plan unlimited\n", "\t\tdefault_plan unlimited\n\t\trequest_timeout 25s\n", 1)} {
		if err := os.WriteFile(path, []byte(text), 0o600); err != nil {
			t.Fatal(err)
		}
	}
	ports := []int{testcaddy.FreePort(t), testcaddy.FreePort(t), testcaddy.FreePort(t)}
	adminPorts := []int{testcaddy.FreePort(t), testcaddy.FreePort(t), testcaddy.FreePort(t)}
	nodeEnv := func(i int) []string {
		return []string{"NODE_PORT=" + strconv.Itoa(ports[i]), "ADMIN_PORT=" + strconv.Itoa(adminPorts[i])}
	}
	start := func(i int) *testcaddy.Process {
		return testcaddy.StartNode(t, bin, config, filepath.Join(dir, strconv.Itoa(i)), dbURL, ports[i], nodeEnv(i)...)
	}
	nodes := make([]*testcaddy.Process, 3)
	for i := range nodes {
		nodes[i] = start(i)
	}
	lbPort := testcaddy.FreePort(t)
	var upstreams []string
	for _, p := range ports {
		upstreams = append(upstreams, fmt.Sprintf("127.0.0.1:%d", p))
	}
	lbEnv := testcaddy.Env(filepath.Join(dir, "lb"), fmt.Sprintf("TABLESMITH_BALANCER_ADDRESS=http://127.0.0.1:%d", lbPort),
		"TABLESMITH_NODES="+strings.Join(upstreams, " "))
	lb := testcaddy.Start(t, bin, filepath.Join(testcaddy.ModuleRoot(t), "Caddyfile.balancer.example"),
		fmt.Sprintf("http://127.0.0.1:%d", lbPort), lbEnv)

	_, _, project, key := testcaddy.Published(t, lb.Base, `{"tables": [{"name": "events", "realtime": true,
		"columns": [{"name": "n", "type": "integer", "unique": true}]}]}`)

	// Two streams, most likely on two nodes (round robin).
	streams := []*resumingStream{
		{seen: map[int]int{}, lastID: -1, connected: make(chan struct{})},
		{seen: map[int]int{}, lastID: -1, connected: make(chan struct{})},
	}
	stopStream := make(chan struct{})
	var streamsDone sync.WaitGroup
	for _, st := range streams {
		streamsDone.Add(1)
		go func() {
			defer streamsDone.Done()
			st.run(lb.Base, project, key, stopStream)
		}()
		select {
		case <-st.connected:
		case <-time.After(time.Minute):
			t.Fatal("a stream did not open within a minute")
		}
	}

	stop := make(chan struct{})
	var wg sync.WaitGroup
	var failMu sync.Mutex
	var failures []string
	failed := func(f string, args ...any) {
		failMu.Lock()
		failures = append(failures, fmt.Sprintf(f, args...))
		failMu.Unlock()
	}
	var reads, written atomic.Int64
	for r := range 2 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for {
				select {
				case <-stop:
					return
				default:
				}
				res, err := testcaddy.Call("GET", lb.Base+"/v1/"+project+"/events?limit=1&count=none", key, nil)
				if err != nil || res.Status != 200 {
					failed("reader %d at %s: %v %d %s", r, time.Now().Format("15:04:05.000"), err, res.Status, res.Raw)
				}
				reads.Add(1)
				time.Sleep(50 * time.Millisecond)
			}
		}()
	}
	wg.Add(1)
	go func() { // creates, each with its own Idempotency-Key, retried by the balancer only
		defer wg.Done()
		client := &http.Client{}
		for n := 0; ; n++ {
			select {
			case <-stop:
				return
			default:
			}
			status, body, err := createEvent(client, lb.Base, project, key, n, fmt.Sprintf("rolling-%d", n))
			if err != nil || status != 201 {
				failed("create %d at %s: %v %d %s", n, time.Now().Format("15:04:05.000"), err, status, body)
				continue
			}
			written.Store(int64(n + 1))
			time.Sleep(50 * time.Millisecond)
		}
	}()
	// The balancer takes a node out for fail_duration (10 s) after one
	// failed request; each step waits that long after the node it changed
	// is ready again, so that two nodes are always in.
	settle := func(i int) {
		deadline := time.Now().Add(time.Minute)
		for {
			res, err := testcaddy.Call("GET", nodes[i].Base+"/api/ready", "", nil)
			if err == nil && res.Status == 200 {
				break
			}
			if time.Now().After(deadline) {
				t.Fatalf("node %d not ready a minute after it started", i)
			}
			time.Sleep(100 * time.Millisecond)
		}
		time.Sleep(11 * time.Second)
	}
	time.Sleep(2 * time.Second)
	// A reload of node 0 that replaces its service: `caddy reload`, as an
	// operator runs it, against the node's admin endpoint.
	reload := exec.Command(bin, "reload", "--config", reloaded, "--adapter", "caddyfile",
		"--address", "127.0.0.1:"+strconv.Itoa(adminPorts[0]))
	reload.Env = testcaddy.Env(filepath.Join(dir, "reload"), nodeEnv(0)...)
	if out, err := reload.CombinedOutput(); err != nil {
		t.Fatalf("caddy reload: %v\n%s", err, out)
	}
	t.Logf("node 0 reloaded with a new service (%d writes so far)", written.Load())
	time.Sleep(2 * time.Second)
	for i := range nodes { // a rolling replacement
		nodes[i].Terminate(t)
		if ended, err := nodes[i].Exited(time.Minute); !ended || err != nil {
			t.Fatalf("node %d after SIGTERM: ended %v, %v", i, ended, err)
		}
		t.Logf("node %d stopped and replaced (%d writes so far)", i, written.Load())
		nodes[i] = start(i)
		settle(i)
	}
	// A crash with writes in flight: six bulk creates of 1,000 rows (a few
	// hundred milliseconds each under -race) go out at once, about two to
	// each node, and node 1 is killed while they run. One that reached it
	// is sent again to another node (it carries an Idempotency-Key, and the
	// balancer kept its body): each is answered 201 once and its rows
	// exist once.
	const bulks, perBulk = 6, 1000
	bulkDone := make(chan error, bulks)
	for b := range bulks {
		go func() {
			rows := make([]string, perBulk)
			for j := range rows {
				rows[j] = fmt.Sprintf(`{"n": %d}`, 1_000_000+b*perBulk+j)
			}
			status, body, err := postJSON(http.DefaultClient, lb.Base+"/v1/"+project+"/events/bulk", key,
				"["+strings.Join(rows, ",")+"]", fmt.Sprintf("crash-bulk-%d", b))
			if err == nil && status != 201 {
				err = fmt.Errorf("%d %s", status, body)
			}
			if err != nil {
				err = fmt.Errorf("bulk create %d at %s: %w", b, time.Now().Format("15:04:05.000"), err)
			}
			bulkDone <- err
		}()
	}
	time.Sleep(50 * time.Millisecond)
	nodes[1].Kill(t) // a crash
	for range bulks {
		if err := <-bulkDone; err != nil {
			failed("%v", err)
		}
	}
	t.Logf("node 1 killed at %s (%d writes so far)", time.Now().Format("15:04:05.000"), written.Load())
	nodes[1] = start(1)
	settle(1)
	close(stop)
	wg.Wait()
	n := int(written.Load())
	var missed []int
	missingOrTwice := func() (missing, twice int) {
		missed = missed[:0]
		for _, st := range streams {
			st.mu.Lock()
			for i := range n {
				switch st.seen[i] {
				case 0:
					missing++
					missed = append(missed, i)
				case 1:
				default:
					twice++
				}
			}
			st.mu.Unlock()
		}
		return missing, twice
	}
	// The last creates reach the stream within a numbering round or two.
	deadline := time.Now().Add(30 * time.Second)
	for m, _ := missingOrTwice(); m > 0 && time.Now().Before(deadline); m, _ = missingOrTwice() {
		time.Sleep(100 * time.Millisecond)
	}
	close(stopStream)
	streamsDone.Wait()
	// Stopped together, not one by one in the cleanups (each serves on
	// for its shutdown_delay).
	for _, p := range append(nodes, lb) {
		p.Terminate(t)
	}
	for _, p := range append(nodes, lb) {
		if ended, _ := p.Exited(time.Minute); !ended {
			t.Errorf("%s did not exit within a minute of SIGTERM", p.Base)
		}
	}

	failMu.Lock()
	if len(failures) > 0 {
		t.Errorf("%d requests failed; the first: %s", len(failures), strings.Join(failures[:min(len(failures), 10)], "\n"))
		// What the balancer saw of the nodes around the failures.
		if out, err := os.ReadFile(lb.Log); err == nil {
			var kept []string
			for _, line := range strings.Split(string(out), "\n") {
				if strings.Contains(line, "reverse_proxy") {
					kept = append(kept, line)
				}
			}
			t.Logf("the balancer's log of its upstreams:\n%s", strings.Join(kept[max(0, len(kept)-60):], "\n"))
		}
	}
	failMu.Unlock()
	db, err := sql.Open("postgres", dbURL)
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	var rows, distinct int
	if err := db.QueryRow(`SELECT count(*), count(DISTINCT n) FROM `+schema.QuoteIdent(schema.ProjectSchema(project))+`.events`).Scan(&rows, &distinct); err != nil {
		t.Fatal(err)
	}
	// n is unique: a create sent twice would have answered 409, not 201.
	if rows < n+bulks*perBulk || rows != distinct {
		t.Errorf("%d rows (%d distinct) for %d acknowledged creates and %d bulk rows", rows, distinct, n, bulks*perBulk)
	}
	// Each stream (opened again after each stop) saw every create once.
	missing, twice := missingOrTwice()
	opens := 0
	for _, st := range streams {
		st.mu.Lock()
		opens += st.opens
		if len(st.refused) > 0 {
			t.Errorf("a stream's reopening was refused: %v", st.refused)
		}
		st.mu.Unlock()
	}
	if missing > 0 || twice > 0 {
		t.Errorf("the two streams missed %d of 2 x %d creates (%v) and saw %d twice (%d opens)", missing, n, missed[:min(len(missed), 10)], twice, opens)
	}
	t.Logf("%d reads, %d creates, %d stream opens in two streams, 0 failed", reads.Load(), n, opens)
}
