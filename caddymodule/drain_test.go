package caddymodule_test

// A node stopped with SIGTERM (issue 43, item 2), two real Caddy
// processes on one database: the stopping node says it is not ready at
// once and goes on serving through shutdown_delay, ends its realtime
// stream with a reconnect event the client resumes from on the other
// node, hands its webhook over before it exits, and exits cleanly.

import (
	"database/sql"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/tablesmith/tablesmith/internal/testcaddy"
	"github.com/tablesmith/tablesmith/internal/testpg"
	"github.com/tablesmith/tablesmith/schema"
)

// drainCaddyfile: shutdown_delay is how long a stopping node serves while
// /api/ready answers 503 (a balancer checking every 2 s needs that long
// to take it out); grace_period bounds the requests in flight after it.
const drainCaddyfile = `{
	admin off
	persist_config off
	auto_https off
	shutdown_delay 5s
	grace_period 30s
	tablesmith {
		database_url {env.TABLESMITH_DATABASE_URL}
		secret drain-test-secret
		default_plan unlimited
		webhook_allow_private on
	}
}

http://127.0.0.1:{$NODE_PORT} {
	handle /v1/* {
		tablesmith_api
	}
	handle /api/* {
		tablesmith_platform
	}
}
`

// followStream opens the project's stream of events on base (resuming
// after lastID when it is not negative) and sends what arrives on the
// returned channel, which closes when the stream ends.
func followStream(t *testing.T, base, project, key string, lastID int64) <-chan sseEvent {
	t.Helper()
	req, err := http.NewRequest("GET", base+"/v1/"+project+"/realtime?tables=events", nil)
	if err != nil {
		t.Fatal(err)
	}
	req.Header.Set("Authorization", "Bearer "+key)
	if lastID >= 0 {
		req.Header.Set("Last-Event-ID", strconv.FormatInt(lastID, 10))
	}
	res, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	if res.StatusCode != 200 {
		body, _ := io.ReadAll(res.Body)
		res.Body.Close()
		t.Fatalf("stream on %s: %d %s", base, res.StatusCode, body)
	}
	out := make(chan sseEvent, 1000)
	go func() {
		defer close(out)
		defer res.Body.Close()
		readEvents(res.Body, func(ev sseEvent) { out <- ev })
	}()
	return out
}

func TestASigtermedNodeLeavesWithoutAFailedRequestALostEventOrAStuckWebhook(t *testing.T) {
	t.Parallel()
	bin := testcaddy.Binary(t)
	dbURL := testpg.NewDatabase(t)
	dir := t.TempDir()
	config := filepath.Join(dir, "Caddyfile")
	if err := os.WriteFile(config, []byte(drainCaddyfile), 0o600); err != nil {
		t.Fatal(err)
	}
	node := func() *testcaddy.Process { return testcaddy.StartNode(t, bin, config, dir, dbURL, 0) }
	var mu sync.Mutex
	delivered := map[int64]bool{}
	receiver := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		var msg struct {
			ChangeID int64 `json:"change_id"`
		}
		if err := json.NewDecoder(r.Body).Decode(&msg); err != nil {
			http.Error(w, "unreadable", http.StatusBadRequest)
			return
		}
		mu.Lock()
		delivered[msg.ChangeID] = true
		mu.Unlock()
	}))
	t.Cleanup(receiver.Close)
	deliveredCount := func() int {
		mu.Lock()
		defer mu.Unlock()
		return len(delivered)
	}

	// Node a alone: it takes the webhook's lease with the first delivery.
	a := node()
	_, token, project, key := testcaddy.Published(t, a.Base, `{"tables": [{"name": "events", "realtime": true,
		"columns": [{"name": "n", "type": "integer"}]}]}`)
	hook := testcaddy.MustCall(t, 201, "POST", a.Base+"/api/projects/"+project+"/webhooks", token,
		map[string]any{"url": receiver.URL, "tables": []string{"events"}}).Data()["id"].(string)
	testcaddy.MustCall(t, 201, "POST", a.Base+"/v1/"+project+"/events", key, map[string]any{"n": -1})
	eventually(t, "node a's first delivery", time.Minute, func() bool { return deliveredCount() == 1 })
	db, err := sql.Open("postgres", dbURL)
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	holder := func() string {
		var n sql.NullString
		if err := db.QueryRow(`SELECT leased_by FROM tablesmith.webhooks WHERE id = $1`, hook).Scan(&n); err != nil {
			t.Error(err)
		}
		return n.String
	}
	aName := holder()
	if aName == "" {
		t.Fatal("node a delivered without holding the webhook's lease")
	}
	b := node()
	onA := followStream(t, a.Base, project, key, -1)

	// A writer on node a itself (no balancer in front): every request it
	// sends is answered 201 until the node stops listening, and then is
	// refused before it is sent. A new connection each, so none is sent
	// on a connection the stopping node is closing. One connection may
	// fall between the two: the kernel completed it just before Caddy
	// closed its listener, and closing a listener resets the connections
	// still queued on it, unread. That request never reached the node;
	// it counts as unsent only if the node then refuses connections and
	// the write does not exist (checked below), else it is a failure.
	direct := &http.Client{Transport: &http.Transport{DisableKeepAlives: true}}
	type write struct {
		n  int
		at time.Time
	}
	var created []write
	var writeErrs []string
	unsent := -1
	stopWriting := make(chan struct{})
	writerDone := make(chan struct{})
	go func() {
		defer close(writerDone)
		for n := 0; ; n++ {
			select {
			case <-stopWriting:
				return
			default:
			}
			status, body, err := createEvent(direct, a.Base, project, key, n, "")
			if errors.Is(err, syscall.ECONNREFUSED) {
				return // the node has stopped listening
			}
			if (errors.Is(err, io.EOF) || errors.Is(err, syscall.ECONNRESET)) && refusesConnections(a.Base) {
				unsent = n // reset in the closed listener's queue
				return
			}
			if err != nil {
				writeErrs = append(writeErrs, fmt.Sprintf("create %d: %v", n, err))
				return
			}
			if status != 201 {
				writeErrs = append(writeErrs, fmt.Sprintf("create %d: %d %s", n, status, body))
				return
			}
			created = append(created, write{n: n, at: time.Now()})
			time.Sleep(20 * time.Millisecond)
		}
	}()
	time.Sleep(500 * time.Millisecond) // some writes before the stop

	a.Terminate(t)
	terminated := time.Now()
	var notReady time.Time
	// The watch of the exit polls every 50 ms: 5 s is the margin for a
	// -race node on a loaded machine.
	eventually(t, "node a's /api/ready answering 503", 5*time.Second, func() bool {
		res, err := direct.Get(a.Base + "/api/ready")
		if err != nil {
			return false
		}
		res.Body.Close()
		if res.StatusCode == 503 {
			notReady = time.Now()
			return true
		}
		return false
	})
	t.Logf("not ready %v after SIGTERM", notReady.Sub(terminated).Round(time.Millisecond))

	// The stream on node a ends with a reconnect event naming where to
	// resume.
	var fromA []sseEvent
	streamEnded := time.After(10 * time.Second)
	for open := true; open; {
		select {
		case ev, ok := <-onA:
			if !ok {
				open = false
				break
			}
			fromA = append(fromA, ev)
		case <-streamEnded:
			t.Fatal("node a's stream did not end within 10 s of SIGTERM")
		}
	}
	last := fromA[len(fromA)-1]
	if last.name != "reconnect" || last.id < 0 {
		t.Fatalf("node a's stream ended with %q (id %d), want a reconnect event with an id", last.name, last.id)
	}

	// The webhook goes to node b while node a still runs (it serves for
	// shutdown_delay, 5 s, however fast the handoff).
	eventually(t, "node b taking the webhook over", 30*time.Second, func() bool { h := holder(); return h != "" && h != aName })
	if ended, _ := a.Exited(time.Millisecond); ended {
		t.Fatal("node b took the webhook over only after node a had exited: no handoff")
	}
	t.Logf("the webhook moved to node b %v after SIGTERM", time.Since(terminated).Round(time.Millisecond))

	ended, exitErr := a.Exited(time.Minute)
	if !ended {
		t.Fatal("node a did not exit within a minute of SIGTERM")
	}
	if exitErr != nil {
		t.Errorf("node a exited with %v, want status 0", exitErr)
	}
	close(stopWriting)
	<-writerDone
	if len(writeErrs) > 0 {
		t.Fatalf("writes to the stopping node failed:\n%s", strings.Join(writeErrs, "\n"))
	}
	if unsent >= 0 {
		var copies int
		if err := db.QueryRow(`SELECT count(*) FROM `+schema.QuoteIdent(schema.ProjectSchema(project))+`.events WHERE n = $1`, unsent).Scan(&copies); err != nil {
			t.Fatal(err)
		}
		if copies != 0 {
			t.Fatalf("write %d was created but its client got no answer (the connection ended unanswered)", unsent)
		}
		t.Logf("write %d was reset in the listener's queue as the node stopped listening, and was not created", unsent)
	}
	servedWhileNotReady := 0
	for _, w := range created {
		if w.at.After(notReady) {
			servedWhileNotReady++
		}
	}
	if servedWhileNotReady == 0 {
		t.Errorf("no write was served after /api/ready answered 503: the node stopped serving at once")
	}
	t.Logf("%d writes, %d of them after /api/ready said 503", len(created), servedWhileNotReady)

	// Resumed on node b from the reconnect event's id: every write comes
	// once, across both streams.
	seen := map[int]int{}
	for _, ev := range fromA {
		if n := createdN(ev); n >= 0 {
			seen[n]++
		}
	}
	onB := followStream(t, b.Base, project, key, last.id)
	missing := func() int {
		m := 0
		for _, w := range created {
			if seen[w.n] == 0 {
				m++
			}
		}
		return m
	}
	resumed := time.After(30 * time.Second)
	for missing() > 0 {
		select {
		case ev, ok := <-onB:
			if !ok {
				t.Fatal("node b's stream ended")
			}
			if n := createdN(ev); n >= 0 {
				seen[n]++
			}
		case <-resumed:
			t.Fatalf("%d of %d writes never came on either stream", missing(), len(created))
		}
	}
	for n, times := range seen {
		if times > 1 {
			t.Errorf("write %d came %d times across the two streams", n, times)
		}
	}
	// And the webhook delivers every change, the first one included.
	eventually(t, "every change delivered by the webhook", time.Minute, func() bool { return deliveredCount() == len(created)+1 })
}

// refusesConnections reports whether a new TCP connection to base's
// host and port is refused: its listener is closed.
func refusesConnections(base string) bool {
	conn, err := net.DialTimeout("tcp", strings.TrimPrefix(base, "http://"), time.Second)
	if err == nil {
		conn.Close()
	}
	return errors.Is(err, syscall.ECONNREFUSED)
}

// eventually polls ok every 20 ms until it holds, or fails the test after
// limit, naming what it waited for.
func eventually(t *testing.T, what string, limit time.Duration, ok func() bool) {
	t.Helper()
	deadline := time.Now().Add(limit)
	for !ok() {
		if time.Now().After(deadline) {
			t.Fatalf("no %s within %v", what, limit)
		}
		time.Sleep(20 * time.Millisecond)
	}
}
