package webhooks_test

// Two real Caddy nodes on one database (issue 39, item 4): one delivers a
// webhook at a time, and when it is killed with SIGKILL in the middle of
// 10,000 writes the other takes the webhook over and every change still
// arrives.

import (
	"database/sql"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/tablesmith/tablesmith/internal/testcaddy"
	"github.com/tablesmith/tablesmith/internal/testpg"
)

const nodeCaddyfile = `{
	admin off
	persist_config off
	auto_https off
	tablesmith {
		database_url {env.TABLESMITH_DATABASE_URL}
		secret nodes-test-secret
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

// arrival is one delivery as the receiver saw it.
type arrival struct {
	changeID  int64
	webhookID string
	at        time.Time
}

// countingReceiver answers every delivery 200 and keeps what arrived.
type countingReceiver struct {
	mu   sync.Mutex
	all  []arrival
	seen map[int64]bool
}

func (c *countingReceiver) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	body, err := io.ReadAll(r.Body)
	var msg struct {
		ChangeID int64 `json:"change_id"`
	}
	if err != nil || json.Unmarshal(body, &msg) != nil {
		http.Error(w, "unreadable", http.StatusBadRequest)
		return
	}
	c.mu.Lock()
	c.all = append(c.all, arrival{changeID: msg.ChangeID, webhookID: r.Header.Get("webhook-id"), at: time.Now()})
	c.seen[msg.ChangeID] = true
	c.mu.Unlock()
}

func (c *countingReceiver) distinct() int {
	c.mu.Lock()
	defer c.mu.Unlock()
	return len(c.seen)
}

func (c *countingReceiver) arrivals() []arrival {
	c.mu.Lock()
	defer c.mu.Unlock()
	return append([]arrival(nil), c.all...)
}

func TestKillingTheDeliveringNodeMidwayThroughTenThousandWritesLosesNoChange(t *testing.T) {
	t.Parallel()
	const batches, perBatch = 100, 100 // 10,000 writes
	bin := testcaddy.Binary(t)
	dbURL := testpg.NewDatabase(t)
	dir := t.TempDir()
	config := filepath.Join(dir, "Caddyfile")
	if err := os.WriteFile(config, []byte(nodeCaddyfile), 0o600); err != nil {
		t.Fatal(err)
	}
	rc := &countingReceiver{seen: map[int64]bool{}}
	receiver := httptest.NewServer(rc)
	t.Cleanup(receiver.Close)

	// Node a alone: it leases the webhook and delivers the first change.
	a := testcaddy.StartNode(t, bin, config, dir, dbURL, 0)
	_, token, project, key := testcaddy.Published(t, a.Base, `{"tables": [{"name": "events", "realtime": true,
		"columns": [{"name": "n", "type": "integer"}]}]}`)
	hook := testcaddy.MustCall(t, 201, "POST", a.Base+"/api/projects/"+project+"/webhooks", token,
		map[string]any{"url": receiver.URL, "tables": []string{"events"}}).Data()["id"].(string)
	testcaddy.MustCall(t, 201, "POST", a.Base+"/v1/"+project+"/events", key, map[string]any{"n": -1})
	waitUntil(t, "node a's first delivery", time.Minute, func() bool { return rc.distinct() == 1 })

	db, err := sql.Open("postgres", dbURL)
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	holder := func() string {
		var node sql.NullString
		if err := db.QueryRow(`SELECT leased_by FROM tablesmith.webhooks WHERE id = $1`, hook).Scan(&node); err != nil {
			t.Error(err)
		}
		return node.String
	}
	aName := holder()
	if aName == "" {
		t.Fatal("node a delivered without holding the webhook's lease")
	}

	// Node b joins; the writes go through b, so they go on after a dies.
	b := testcaddy.StartNode(t, bin, config, dir, dbURL, 0)
	written := make(chan error, 1)
	go func() {
		for i := range batches {
			rows := make([]map[string]any, perBatch)
			for j := range rows {
				rows[j] = map[string]any{"n": i*perBatch + j}
			}
			r, err := testcaddy.Call("POST", b.Base+"/v1/"+project+"/events/bulk", key, rows)
			if err == nil && r.Status != 201 {
				err = fmt.Errorf("bulk create %d: %d %s", i, r.Status, r.Raw)
			}
			if err != nil {
				written <- err
				return
			}
		}
		written <- nil
	}()

	// Midway through the deliveries, node a dies as in a crash.
	waitUntil(t, "a third of the changes delivered", 2*time.Minute, func() bool { return rc.distinct() > batches*perBatch/3 })
	if got := holder(); got != aName {
		t.Fatalf("the lease moved to %q while node a (%q) was alive", got, aName)
	}
	a.Kill(t)
	killed := time.Now()
	waitUntil(t, "node b taking the webhook over", time.Minute, func() bool { h := holder(); return h != "" && h != aName })
	took := time.Since(killed)
	t.Logf("node b took the webhook over %v after node a was killed", took.Round(time.Millisecond))
	// The bound: the lease's 4 s and one poll (1 s) make 5 s; 5 s more is
	// the margin for two -race nodes on a loaded two-core machine.
	if took > 10*time.Second {
		t.Errorf("node b took the webhook over %v after node a died, want about 5 s", took)
	}

	if err := <-written; err != nil {
		t.Fatal(err)
	}
	want := batches*perBatch + 1
	waitUntil(t, "every change delivered", 3*time.Minute, func() bool { return rc.distinct() == want })

	all := rc.arrivals()
	ids := map[int64]string{}
	var last int64
	for i, d := range all {
		prev, dup := ids[d.changeID]
		// The same change always carries the same webhook-id (receivers
		// drop duplicates by it), and that id names the change.
		if dup && prev != d.webhookID {
			t.Fatalf("change %d came as %q and as %q", d.changeID, prev, d.webhookID)
		}
		if !strings.HasSuffix(d.webhookID, "_"+strconv.FormatInt(d.changeID, 10)) {
			t.Fatalf("change %d came with webhook-id %q", d.changeID, d.webhookID)
		}
		// One node at a time: while node a held the webhook nothing came twice.
		if dup && d.at.Before(killed) {
			t.Fatalf("change %d came twice while only node a delivered", d.changeID)
		}
		// In order: a change arrives for the first time only after every
		// earlier one; a duplicate (resent after the kill) may go back.
		if !dup {
			if d.changeID < last {
				t.Fatalf("arrival %d: change %d first came after change %d", i, d.changeID, last)
			}
			last = d.changeID
		}
		ids[d.changeID] = d.webhookID
	}
	t.Logf("%d changes, %d deliveries (%d resent after the kill)", want, len(all), len(all)-want)
}

// waitUntil polls ok every 20 ms until it holds, or fails the test after
// limit, naming what it waited for.
func waitUntil(t *testing.T, what string, limit time.Duration, ok func() bool) {
	t.Helper()
	deadline := time.Now().Add(limit)
	for !ok() {
		if time.Now().After(deadline) {
			t.Fatalf("no %s within %v", what, limit)
		}
		time.Sleep(20 * time.Millisecond)
	}
}
