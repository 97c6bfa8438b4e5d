//go:build bench

package bench

import (
	"encoding/json"
	"io"
	"net/http"
	"net/http/httptest"
	"os"
	"strconv"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/tablesmith/tablesmith/internal/service"
	"github.com/tablesmith/tablesmith/internal/testserver"
)

// hookReceiver answers deliveries (503 while down) and keeps, per
// record title, when its first delivery arrived, and the change ids in
// the order they first arrived.
type hookReceiver struct {
	down  atomic.Bool
	mu    sync.Mutex
	first map[string]time.Time
	order []int64
	seen  map[int64]bool
}

func (h *hookReceiver) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	at := time.Now()
	body, _ := io.ReadAll(r.Body)
	if h.down.Load() {
		w.WriteHeader(http.StatusServiceUnavailable)
		return
	}
	var msg struct {
		ChangeID int64 `json:"change_id"`
		Record   struct {
			Title string `json:"title"`
		} `json:"record"`
	}
	if json.Unmarshal(body, &msg) != nil {
		w.WriteHeader(http.StatusBadRequest)
		return
	}
	h.mu.Lock()
	if !h.seen[msg.ChangeID] {
		h.seen[msg.ChangeID] = true
		h.order = append(h.order, msg.ChangeID)
		h.first[msg.Record.Title] = at
	}
	h.mu.Unlock()
}

func (h *hookReceiver) delivered() int {
	h.mu.Lock()
	defer h.mu.Unlock()
	return len(h.seen)
}

// paced creates records in table at perSecond for d through the API
// (writers at once) and returns each title's answer time and the create
// latencies. Titles are prefix + a number.
func paced(t *testing.T, s *testserver.Server, p *testserver.Project, table, prefix string, perSecond int, d time.Duration, answered *sync.Map) latencies {
	const writers = 32
	total := perSecond * int(d/time.Second)
	tokens := make(chan int, total)
	go func() {
		start := time.Now()
		for i := range total {
			// The i-th write is due at start + i/perSecond.
			time.Sleep(time.Until(start.Add(time.Duration(i) * time.Second / time.Duration(perSecond))))
			tokens <- i
		}
		close(tokens)
	}()
	var mu sync.Mutex
	var lat []time.Duration
	failed := 0
	var wg sync.WaitGroup
	for range writers {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := range tokens {
				title := prefix + strconv.Itoa(i)
				began := time.Now()
				r := s.API(p, "POST", "/"+table, map[string]any{"title": title})
				done := time.Now()
				mu.Lock()
				if r.Status != 201 {
					failed++
				} else {
					lat = append(lat, done.Sub(began))
					if answered != nil {
						answered.Store(title, done)
					}
				}
				mu.Unlock()
			}
		}()
	}
	wg.Wait()
	return summarize(lat, failed)
}

// TestWebhookDelivery measures issue 39's item 7 on one in-process node:
//
//  1. the write cost: 1,000 creates a second for 10 s on a realtime table,
//     without a webhook and then with one (the create latencies);
//  2. delivery: 1,000 creates a second for 30 s with one webhook to a
//     receiver on 127.0.0.1: the time from each create's answer to its
//     delivery's arrival, and the backlog (created, not yet delivered)
//     every second;
//  3. an outage: the receiver answers 503 for BENCH_WEBHOOK_OUTAGE
//     (default 10m) while 50 creates a second go on, then comes back:
//     the time until every change has arrived, and whether they arrived
//     in change order.
//
// Run:
//
//	go test -tags bench -run TestWebhookDelivery -v -timeout 30m ./bench/
func TestWebhookDelivery(t *testing.T) {
	outage := 10 * time.Minute
	if v := os.Getenv("BENCH_WEBHOOK_OUTAGE"); v != "" {
		var err error
		if outage, err = time.ParseDuration(v); err != nil {
			t.Fatal(err)
		}
	}
	s := testserver.New(t, testserver.WithConfig(func(c *service.Config) { c.WebhookAllowPrivate = true }))
	p := s.NewProject(`{"tables": [{"name": "live", "realtime": true, "columns": [{"name": "title", "type": "text", "required": true}]}]}`)

	without := paced(t, s, p, "live", "w", 1000, 10*time.Second, nil)
	t.Logf("writes, realtime table, no webhook:   %s", without)

	rc := &hookReceiver{first: map[string]time.Time{}, seen: map[int64]bool{}}
	receiver := httptest.NewServer(rc)
	defer receiver.Close()
	s.Do("POST", "/api/projects/"+p.ID+"/webhooks", p.Session, map[string]any{"url": receiver.URL, "tables": []string{"live"}}).Must(t, 201)

	with := paced(t, s, p, "live", "x", 1000, 10*time.Second, nil)
	t.Logf("writes, realtime table, one webhook:  %s", with)
	waitDelivered(t, rc, with.n, time.Minute)

	// Delivery latency at 1,000 writes a second, and the backlog.
	var answered sync.Map
	base := rc.delivered()
	stop := make(chan struct{})
	var backlog []int
	sampled := make(chan struct{})
	go func() {
		defer close(sampled)
		tick := time.NewTicker(time.Second)
		defer tick.Stop()
		for {
			select {
			case <-tick.C:
				n := 0
				answered.Range(func(any, any) bool { n++; return true })
				backlog = append(backlog, n-(rc.delivered()-base))
			case <-stop:
				return
			}
		}
	}()
	writes := paced(t, s, p, "live", "y", 1000, 30*time.Second, &answered)
	close(stop)
	<-sampled
	waitDelivered(t, rc, base+writes.n, time.Minute)
	var lat []time.Duration
	rc.mu.Lock()
	answered.Range(func(k, v any) bool {
		if at, ok := rc.first[k.(string)]; ok {
			lat = append(lat, max(0, at.Sub(v.(time.Time))))
		}
		return true
	})
	rc.mu.Unlock()
	t.Logf("writes at 1,000/s for 30 s:          %s", writes)
	t.Logf("delivery, from the create's answer:   %s", summarize(lat, 0))
	t.Logf("backlog each second (created, not delivered): %v", backlog)

	// A receiver down for the outage, then back.
	rc.down.Store(true)
	before := rc.delivered()
	during := paced(t, s, p, "live", "z", 50, outage, nil)
	rc.down.Store(false)
	back := time.Now()
	waitDelivered(t, rc, before+during.n, 10*time.Minute)
	t.Logf("outage of %v, %d changes written during it: all delivered %v after the receiver came back",
		outage, during.n, time.Since(back).Round(time.Millisecond))
	rc.mu.Lock()
	defer rc.mu.Unlock()
	for i := 1; i < len(rc.order); i++ {
		if rc.order[i] < rc.order[i-1] {
			t.Errorf("change %d first arrived after change %d", rc.order[i], rc.order[i-1])
		}
	}
	t.Logf("%d changes in all, first arrivals in change order: %v", len(rc.order), !t.Failed())
}

func waitDelivered(t *testing.T, rc *hookReceiver, n int, limit time.Duration) {
	t.Helper()
	deadline := time.Now().Add(limit)
	for rc.delivered() < n {
		if time.Now().After(deadline) {
			t.Fatalf("%d of %d changes delivered after %v", rc.delivered(), n, limit)
		}
		time.Sleep(10 * time.Millisecond)
	}
}
