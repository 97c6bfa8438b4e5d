package events_test

import (
	"context"
	"database/sql"
	"errors"
	"reflect"
	"strings"
	"testing"
	"time"

	"github.com/lib/pq"

	"github.com/tablesmith/tablesmith/internal/events"
	"github.com/tablesmith/tablesmith/internal/testpg"
)

func TestMain(m *testing.M) { testpg.Main(m, "events") }

// The payloads nodes of the previous version send and read: a rolling
// deploy mixes both, so these strings must not change.
var wire = []struct {
	payload string
	event   events.Event
}{
	{"project:p_1a2b3c", events.ProjectChanged{ProjectID: "p_1a2b3c"}},
	{"key:ts_live_ab12", events.KeyRevoked{Prefix: "ts_live_ab12"}},
	{"plan:42", events.PlanChanged{AccountID: 42}},
	{"user:5f0c7e2a-9d1b-4c1e-8a53-0d7f5b2e9c11", events.SessionEnded{SessionID: "5f0c7e2a-9d1b-4c1e-8a53-0d7f5b2e9c11"}},
	{"leaving:web-2.internal:4021", events.NodeLeaving{Node: "web-2.internal:4021"}},
	// Sent by the capture trigger's SQL, so it must not change either.
	{"realtime:1a2b3c:42", events.RealtimeChanged{ProjectID: "1a2b3c", Seq: 42}},
	{"key_created:ts_ab12cd34", events.KeyCreated{Prefix: "ts_ab12cd34"}},
}

func TestEncodeWritesThePayloadsOfThePreviousVersion(t *testing.T) {
	for _, c := range wire {
		if got := events.Encode(c.event); got != c.payload {
			t.Errorf("Encode(%#v) = %q, want %q", c.event, got, c.payload)
		}
	}
}

func TestDecodeReadsThePayloadsOfThePreviousVersion(t *testing.T) {
	for _, c := range wire {
		got, err := events.Decode(c.payload)
		if err != nil || got != c.event {
			t.Errorf("Decode(%q) = %#v, %v; want %#v", c.payload, got, err, c.event)
		}
	}
}

func TestDecodeRoundTripsValuesWithColons(t *testing.T) {
	for _, e := range []events.Event{events.ProjectChanged{ProjectID: "a:b"}, events.SessionEnded{SessionID: "x::y"}, events.PlanChanged{AccountID: -7}} {
		got, err := events.Decode(events.Encode(e))
		if err != nil || got != e {
			t.Errorf("Decode(Encode(%#v)) = %#v, %v", e, got, err)
		}
	}
}

func TestDecodeRefusesMalformedPayloadsAndMarksUnknownKinds(t *testing.T) {
	for _, p := range []string{"", "project", "project:", "key:", "user:", "plan:", "plan:abc", "plan:1.5", "plan:99999999999999999999", "realtime:", "realtime:p1", "realtime:p1:x", "realtime::3"} {
		if e, err := events.Decode(p); err == nil || errors.Is(err, events.ErrUnknownKind) {
			t.Errorf("Decode(%q) = %#v, %v; want a malformed-payload error", p, e, err)
		}
	}
	for _, p := range []string{"table:p_1.items", "PROJECT:p_1", ":x"} {
		if _, err := events.Decode(p); !errors.Is(err, events.ErrUnknownKind) {
			t.Errorf("Decode(%q) error %v, want ErrUnknownKind", p, err)
		}
	}
}

func TestDispatchCallsTheHandlersOfTheEventsTypeInOrder(t *testing.T) {
	var d events.Dispatcher
	var got []string
	events.On(&d, func(e events.ProjectChanged) { got = append(got, "first "+e.ProjectID) })
	events.On(&d, func(e events.ProjectChanged) { got = append(got, "second "+e.ProjectID) })
	events.On(&d, func(e events.PlanChanged) { got = append(got, "plan") })
	if !d.Dispatch(events.ProjectChanged{ProjectID: "p"}) {
		t.Fatal("Dispatch reported no handler for ProjectChanged")
	}
	if d.Dispatch(events.KeyRevoked{Prefix: "k"}) {
		t.Error("Dispatch reported a handler for KeyRevoked, none was registered")
	}
	if len(got) != 2 || got[0] != "first p" || got[1] != "second p" {
		t.Errorf("handlers ran as %q, want [first p, second p]", got)
	}
}

func TestNotifyReachesAListenerOnTheChannel(t *testing.T) {
	url := testpg.URL(t)
	db, err := sql.Open("postgres", url)
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	l := pq.NewListener(url, time.Second, time.Second, nil)
	defer l.Close()
	if err := l.Listen(events.Channel); err != nil {
		t.Fatal(err)
	}
	if err := events.Notify(context.Background(), db, events.KeyRevoked{Prefix: "ts_x"}); err != nil {
		t.Fatal(err)
	}
	select {
	case n := <-l.Notify:
		if n.Channel != "tablesmith_events" || n.Extra != "key:ts_x" {
			t.Errorf("received %q on %q, want key:ts_x on tablesmith_events", n.Extra, n.Channel)
		}
	case <-time.After(10 * time.Second):
		t.Fatal("no notification within 10 s")
	}
}

func TestCacheChangedNamesTheProjectAndItsChangedTables(t *testing.T) {
	for _, c := range []struct {
		payload string
		event   events.CacheChanged
	}{
		{"cache:1a2b3c4d5e6f:posts,comments", events.CacheChanged{ProjectID: "1a2b3c4d5e6f", Tables: []string{"posts", "comments"}}},
		{"cache:1a2b3c4d5e6f", events.CacheChanged{ProjectID: "1a2b3c4d5e6f"}},
	} {
		if got := events.Encode(c.event); got != c.payload {
			t.Errorf("Encode(%#v) = %q, want %q", c.event, got, c.payload)
		}
		got, err := events.Decode(c.payload)
		if err != nil || !reflect.DeepEqual(got, c.event) {
			t.Errorf("Decode(%q) = %#v, %v; want %#v", c.payload, got, err, c.event)
		}
	}
	for _, p := range []string{"cache:", "cache::posts"} {
		if _, err := events.Decode(p); err == nil {
			t.Errorf("Decode(%q) accepted a payload without a project", p)
		}
	}
}

func TestACacheChangeTooLongForANotificationPurgesTheWholeProject(t *testing.T) {
	var many []string
	for range 200 {
		many = append(many, strings.Repeat("t", 63))
	}
	got := events.Encode(events.CacheChanged{ProjectID: "1a2b3c4d5e6f", Tables: many})
	if got != "cache:1a2b3c4d5e6f" {
		t.Errorf("a list of 200 long table names encodes as %d bytes (%.40q...), want the project alone", len(got), got)
	}
}
