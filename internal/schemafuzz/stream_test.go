package schemafuzz

import (
	"bufio"
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"net/url"
	"sort"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/tablesmith/tablesmith/schema"
)

// Waits for the realtime path. A change is numbered within 100 ms of its
// commit and streamed at once; these bounds are a hundred times that, so
// that only a change that never comes fails, however loaded the machine.
const (
	connectWait  = 10 * time.Second
	deliveryWait = 15 * time.Second
	// settle is how long a stream that delivered every expected event is
	// watched for more (events it should not have sent).
	settle = 300 * time.Millisecond
)

// stream is an open realtime stream and what it delivered.
type stream struct {
	cancel context.CancelFunc
	mu     sync.Mutex
	events []change
	broken string // an error event, or the stream's end
	where  map[string]cond
}

func (st *stream) close() { st.cancel() }

func (st *stream) snapshot() ([]change, string) {
	st.mu.Lock()
	defer st.mu.Unlock()
	return append([]change(nil), st.events...), st.broken
}

// openStream opens one stream of every realtime table with the case's
// conditions, and waits until it is connected.
func (x *execution) openStream() *failure {
	q := url.Values{}
	var tables []string
	st := &stream{where: map[string]cond{}}
	for _, sw := range x.c.Streams {
		t, ok := x.comp.Table(sw.Table)
		if !ok || !t.Doc.Realtime {
			continue
		}
		tables = append(tables, sw.Table)
		if sw.Where == nil {
			continue
		}
		if _, exists := t.Column(sw.Where.Column); !exists {
			continue
		}
		w := *sw.Where
		if w.Val.Ref != nil {
			v, _ := x.resolve(w.Val.Ref)
			w.Val = value{JSON: v}
		}
		st.where[sw.Table] = w
		q.Set("where["+sw.Table+"]", exprOf(w, w.Val.JSON))
	}
	if len(tables) == 0 {
		return nil
	}
	q.Set("tables", strings.Join(tables, ","))
	ctx, cancel := context.WithCancel(context.Background())
	st.cancel = cancel
	path := "/v1/" + x.project + "/realtime?" + q.Encode()
	req, _ := http.NewRequestWithContext(ctx, "GET", x.rn.s.URL+path, nil)
	req.Header.Set("Accept", "text/event-stream")
	req.Header.Set("Authorization", "Bearer "+x.key)
	res, err := http.DefaultClient.Do(req)
	if err != nil {
		cancel()
		return &failure{Kind: "stream", Op: -1, Detail: err.Error()}
	}
	x.log = append(x.log, exchange{Method: "GET", Path: strings.TrimPrefix(path, "/v1/"+x.project), Status: res.StatusCode})
	if res.StatusCode != 200 {
		defer res.Body.Close()
		var b [2048]byte
		n, _ := res.Body.Read(b[:])
		cancel()
		return &failure{Kind: "a stream was refused", Op: -1, Detail: fmt.Sprintf("%d %s", res.StatusCode, b[:n])}
	}
	connected := make(chan struct{})
	go st.read(res, connected)
	select {
	case <-connected:
	case <-time.After(connectWait):
		cancel()
		return &failure{Kind: "stream did not connect", Op: -1}
	}
	x.stream = st
	return nil
}

// read collects the stream's events until it ends.
func (st *stream) read(res *http.Response, connected chan struct{}) {
	defer res.Body.Close()
	sc := bufio.NewScanner(res.Body)
	sc.Buffer(make([]byte, 1<<20), 1<<24)
	var name, data string
	once := false
	for sc.Scan() {
		line := sc.Text()
		switch {
		case strings.HasPrefix(line, ": connected") && !once:
			once = true
			close(connected)
		case strings.HasPrefix(line, "event: "):
			name = line[7:]
		case strings.HasPrefix(line, "data: "):
			data = line[6:]
		case line == "" && name != "":
			st.add(name, data)
			name, data = "", ""
		}
	}
	st.mu.Lock()
	if st.broken == "" {
		st.broken = "the stream ended"
	}
	st.mu.Unlock()
}

func (st *stream) add(name, data string) {
	st.mu.Lock()
	defer st.mu.Unlock()
	if name == "error" || name == "reset" {
		st.broken = name + ": " + data
		return
	}
	var d struct {
		Table  string                     `json:"table"`
		ID     json.RawMessage            `json:"id"`
		Record map[string]json.RawMessage `json:"record"`
	}
	if err := json.Unmarshal([]byte(data), &d); err != nil {
		st.broken = "an event that is not JSON: " + data
		return
	}
	id := idText(d.Record[schema.ColID])
	if d.ID != nil {
		id = idText(d.ID)
	}
	st.events = append(st.events, change{table: d.Table, op: name, id: id})
}

// compareEvents checks what realtime captured and delivered: the change
// log holds exactly the changes the model owes (creates, updates and
// deletes, cascades included), and the stream delivered those that pass
// its conditions, no more.
func (x *execution) compareEvents() *failure {
	if x.stream == nil {
		return nil
	}
	ns := schema.QuoteIdent(schema.ProjectSchema(x.project))
	db := x.rn.s.Svc.DB
	deadline := time.Now().Add(deliveryWait)
	for {
		var pending int
		if err := db.QueryRow(`SELECT count(*) FROM ` + ns + `."_realtime_pending"`).Scan(&pending); err != nil {
			return &failure{Kind: "read the change log", Op: -1, Detail: err.Error()}
		}
		if pending == 0 {
			break
		}
		if time.Now().After(deadline) {
			return &failure{Kind: "changes were not numbered", Op: -1, Detail: fmt.Sprintf("%d changes still pending after %s", pending, deliveryWait)}
		}
		time.Sleep(50 * time.Millisecond)
	}
	rows, err := db.Query(`SELECT tbl, op, "row"->>'id' FROM ` + ns + `."_realtime_log" ORDER BY seq`)
	if err != nil {
		return &failure{Kind: "read the change log", Op: -1, Detail: err.Error()}
	}
	var logged []change
	for rows.Next() {
		var c change
		if err := rows.Scan(&c.table, &c.op, &c.id); err != nil {
			rows.Close()
			return &failure{Kind: "read the change log", Op: -1, Detail: err.Error()}
		}
		logged = append(logged, c)
	}
	rows.Close()
	if !sameChanges(x.m.events, logged) {
		return &failure{Kind: "the change log differs from the model", Op: -1, Detail: fmt.Sprintf("model:\n%s\nlog:\n%s", changeSet(x.m.events), changeSet(logged))}
	}

	var want []change
	for _, c := range x.m.events {
		mt := x.m.tables[c.table]
		w, filtered := x.stream.where[c.table]
		switch {
		case filtered && c.imageUnknown:
			c.optional = true
			want = append(want, c)
		case !filtered || x.m.match(mt, &mrow{vals: c.image}, w):
			want = append(want, c)
		}
	}
	for {
		got, broken := x.stream.snapshot()
		if broken != "" {
			return &failure{Kind: "the stream broke", Op: -1, Detail: broken}
		}
		if len(got) >= required(want) || time.Now().After(deadline) {
			time.Sleep(settle)
			got, broken = x.stream.snapshot()
			if broken != "" {
				return &failure{Kind: "the stream broke", Op: -1, Detail: broken}
			}
			if !sameChanges(want, got) {
				return &failure{Kind: "the stream's events differ from the model", Op: -1, Detail: fmt.Sprintf("model:\n%s\nstream:\n%s", changeSet(want), changeSet(got))}
			}
			return nil
		}
		time.Sleep(50 * time.Millisecond)
	}
}

// sameChanges reports whether got holds every change of want that is
// not optional, and nothing beyond those and the optional ones.
func sameChanges(want, got []change) bool {
	left := map[string]int{}
	for _, c := range got {
		left[c.table+" "+c.op+" "+c.id]++
	}
	for _, optional := range []bool{false, true} { // the required first
		for _, c := range want {
			k := c.table + " " + c.op + " " + c.id
			switch {
			case c.optional != optional:
			case left[k] > 0:
				left[k]--
			case !c.optional:
				return false
			}
		}
	}
	for _, n := range left {
		if n > 0 {
			return false
		}
	}
	return true
}

// required counts the changes that must come.
func required(cs []change) int {
	n := 0
	for _, c := range cs {
		if !c.optional {
			n++
		}
	}
	return n
}

// changeSet writes changes as a sorted list, for comparing multisets.
func changeSet(cs []change) string {
	lines := make([]string, len(cs))
	for i, c := range cs {
		lines[i] = c.table + " " + c.op + " " + c.id
		if c.optional {
			lines[i] += " (optional)"
		}
	}
	sort.Strings(lines)
	return strings.Join(lines, "\n") + "\n(" + strconv.Itoa(len(cs)) + ")"
}
