//go:build bench

package bench

import (
	"bufio"
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"runtime"
	"slices"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/tablesmith/tablesmith/internal/testserver"
)

const realtimeBenchSchema = `{"tables": [{"name": "posts", "realtime": true, "columns": [
	{"name": "title", "type": "text", "required": true}, {"name": "sent_at", "type": "text"}]}]}`

// TestRealtimeFanOut opens 1,000 streams on one node, then creates 20
// records a second for 15 s through the API and measures, for every
// event every stream reads, the time from the create's answer (the
// commit) to the stream's read of it; and the memory the idle streams
// hold, per stream (the server's and the in-process clients' together,
// an upper bound of the server's). Run:
//
//	go test -tags bench -run TestRealtimeFanOut -v -timeout 10m ./bench/
func TestRealtimeFanOut(t *testing.T) {
	const subscribers, perSecond, seconds = 1000, 20, 15
	s := testserver.New(t)
	p := s.NewProject(realtimeBenchSchema)
	client := &http.Client{Transport: &http.Transport{MaxIdleConnsPerHost: subscribers, MaxConnsPerHost: 0}}
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()

	var committed sync.Map // title → time the create answered
	lat := make(chan time.Duration, subscribers*perSecond*seconds)
	var ready sync.WaitGroup
	ready.Add(subscribers)
	before := heapAndStacks()
	for i := 0; i < subscribers; i++ {
		req, _ := http.NewRequestWithContext(ctx, "GET", s.URL+"/v1/"+p.ID+"/realtime?tables=posts", nil)
		req.Header.Set("Authorization", "Bearer "+p.Key)
		req.Header.Set("Accept", "text/event-stream")
		resp, err := client.Do(req)
		if err != nil || resp.StatusCode != 200 {
			t.Fatalf("stream %d: %v %v", i, err, resp)
		}
		go func() {
			defer resp.Body.Close()
			sc := bufio.NewScanner(resp.Body)
			once := false
			for sc.Scan() {
				line := sc.Text()
				if strings.HasPrefix(line, ": connected") && !once {
					once = true
					ready.Done()
				}
				if rest, ok := strings.CutPrefix(line, "data: "); ok {
					at := time.Now()
					var d struct {
						Record struct{ Title string } `json:"record"`
					}
					if json.Unmarshal([]byte(rest), &d) == nil {
						if c, ok := committed.Load(d.Record.Title); ok {
							lat <- at.Sub(c.(time.Time))
						}
					}
				}
			}
		}()
	}
	ready.Wait()
	time.Sleep(time.Second) // let the streams settle idle
	after := heapAndStacks()
	perStream := float64(after-before) / subscribers

	tick := time.NewTicker(time.Second / perSecond)
	for i := 0; i < perSecond*seconds; i++ {
		<-tick.C
		title := fmt.Sprintf("post %d", i)
		r := s.API(p, "POST", "/posts", map[string]any{"title": title})
		committed.Store(title, time.Now())
		if r.Status != 201 {
			t.Fatalf("create: %d %s", r.Status, r.Raw)
		}
	}
	tick.Stop()
	time.Sleep(2 * time.Second)
	cancel()
	close(lat)
	var all []time.Duration
	for d := range lat {
		all = append(all, d)
	}
	slices.Sort(all)
	want := subscribers * perSecond * seconds
	if len(all) < want*99/100 {
		t.Fatalf("%d of %d deliveries measured", len(all), want)
	}
	pct := func(q float64) time.Duration { return all[int(q*float64(len(all)-1))] }
	t.Logf("%d streams, %d creates/s for %d s: %d deliveries; commit to client read p50 %v, p99 %v, max %v (target p99 < 250ms); idle memory %.1f KB per stream (server and client, target < 64 KB)",
		subscribers, perSecond, seconds, len(all), pct(0.5).Round(time.Millisecond), pct(0.99).Round(time.Millisecond),
		all[len(all)-1].Round(time.Millisecond), perStream/1024)
}

// heapAndStacks is the process's live heap and goroutine stacks after a
// collection.
func heapAndStacks() uint64 {
	runtime.GC()
	var m runtime.MemStats
	runtime.ReadMemStats(&m)
	return m.HeapAlloc + m.StackInuse
}

// TestRealtimeWriteCostThroughTheAPI compares creates/s through the
// generated API (8 clients, keep-alive, in-process server on the local
// PostgreSQL) of a realtime table and of the same table without realtime,
// in alternating rounds, with a stream open on the realtime table so the
// sequencer runs as it does in use. Run:
//
//	go test -tags bench -run TestRealtimeWriteCostThroughTheAPI -v ./bench/
func TestRealtimeWriteCostThroughTheAPI(t *testing.T) {
	const clients, rounds = 8, 3
	const d = 8 * time.Second
	s := testserver.New(t)
	p := s.NewProject(`{"tables": [
		{"name": "plain", "columns": [{"name": "title", "type": "text", "required": true}, {"name": "n", "type": "integer"}]},
		{"name": "live", "realtime": true, "columns": [{"name": "title", "type": "text", "required": true}, {"name": "n", "type": "integer"}]}]}`)
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	req, _ := http.NewRequestWithContext(ctx, "GET", s.URL+"/v1/"+p.ID+"/realtime?tables=live", nil)
	req.Header.Set("Authorization", "Bearer "+p.Key)
	resp, err := http.DefaultClient.Do(req)
	if err != nil || resp.StatusCode != 200 {
		t.Fatalf("stream: %v %v", err, resp)
	}
	go func() { // drain the stream
		defer resp.Body.Close()
		sc := bufio.NewScanner(resp.Body)
		for sc.Scan() {
		}
	}()
	client := &http.Client{Transport: &http.Transport{MaxIdleConnsPerHost: clients}}
	body := []byte(`{"title": "a title of some length", "n": 42}`)
	rate := func(table string) float64 {
		var n sync.WaitGroup
		var created atomic.Int64
		stop := time.Now().Add(d)
		for c := 0; c < clients; c++ {
			n.Add(1)
			go func() {
				defer n.Done()
				for time.Now().Before(stop) {
					r, _ := http.NewRequest("POST", s.URL+"/v1/"+p.ID+"/"+table, strings.NewReader(string(body)))
					r.Header.Set("Authorization", "Bearer "+p.Key)
					r.Header.Set("Content-Type", "application/json")
					res, err := client.Do(r)
					if err != nil {
						t.Error(err)
						return
					}
					res.Body.Close()
					if res.StatusCode == 201 {
						created.Add(1)
					}
				}
			}()
		}
		n.Wait()
		return float64(created.Load()) / d.Seconds()
	}
	var plain, live []float64
	for r := 0; r < rounds; r++ {
		plain = append(plain, rate("plain"))
		live = append(live, rate("live"))
		t.Logf("round %d: plain %.0f creates/s, realtime %.0f creates/s", r+1, plain[r], live[r])
	}
	slices.Sort(plain)
	slices.Sort(live)
	pm, lm := plain[len(plain)/2], live[len(live)/2]
	t.Logf("median: plain %.0f/s, realtime %.0f/s, ratio %.2f (target >= 0.85)", pm, lm, lm/pm)
}
