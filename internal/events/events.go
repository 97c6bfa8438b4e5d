// Package events is the cross-node signal bus: the PostgreSQL channel that
// carries it, the typed events every node reacts to, their payloads, and a
// dispatcher that hands each received event to the areas that registered
// for its type.
//
// The payloads are "<kind>:<value>" strings and must stay as they are:
// during a rolling deploy, nodes of the old and the new version read each
// other's notifications.
package events

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"strconv"
	"strings"
)

// Channel is the PostgreSQL NOTIFY channel every node LISTENs on.
const Channel = "tablesmith_events"

// Event is one cross-node signal. Only this package's types implement it.
type Event interface {
	kind() string
	value() string
}

// ProjectChanged tells every node to drop what it cached of a project: a
// generate published a new version, the project was deleted, or the
// connection of its fronted database changed. The three share one payload
// ("project:<id>"), because that is what the nodes already running read.
type ProjectChanged struct{ ProjectID string }

// KeyRevoked tells every node to forget a revoked API key ("key:<prefix>").
type KeyRevoked struct{ Prefix string }

// KeyCreated tells every node that a key with this prefix now exists, so
// that a node that remembered the prefix as unknown looks it up again
// ("key_created:<prefix>"). Nodes of a version before it ignore it: they
// remember no unknown prefixes.
type KeyCreated struct{ Prefix string }

// PlanChanged tells every node an account moved to another plan
// ("plan:<account id>").
type PlanChanged struct{ AccountID int64 }

// SessionEnded tells every node to forget what it cached of an end-user
// session, ended by a logout or a refresh-token reuse ("user:<session id>").
type SessionEnded struct{ SessionID string }

// RealtimeChanged is the change log's wake-up: every change of a
// project's realtime tables up to Seq has committed
// ("realtime:<project id>:<seq>"). The capture trigger sends it
// (schema.DDL.RealtimeSetup), not Go code.
type RealtimeChanged struct {
	ProjectID string
	Seq       int64
}

// CacheChanged tells every node that a write changed rows of a
// project's tables, so each purges the answers its edge cache keeps of
// them ("cache:<project id>:<table>,<table>"). No tables
// ("cache:<project id>") means every table of the project: a list too
// long for a notification is sent that way.
type CacheChanged struct {
	ProjectID string
	Tables    []string
}

// NodeLeaving tells the other nodes that a node is stopping and has
// given up its webhook leases and index builds, so each looks for work
// to take over now instead of at its next poll ("leaving:<node name>").
type NodeLeaving struct{ Node string }

// maxCacheTables bounds the table list of a CacheChanged payload, well
// under PostgreSQL's 8000-byte limit on a notification.
const maxCacheTables = 6000

func (CacheChanged) kind() string { return "cache" }
func (e CacheChanged) value() string {
	tables := strings.Join(e.Tables, ",")
	if tables == "" || len(tables) > maxCacheTables {
		return e.ProjectID
	}
	return e.ProjectID + ":" + tables
}

func (RealtimeChanged) kind() string { return "realtime" }
func (e RealtimeChanged) value() string {
	return e.ProjectID + ":" + strconv.FormatInt(e.Seq, 10)
}

func (ProjectChanged) kind() string { return "project" }
func (KeyRevoked) kind() string     { return "key" }
func (KeyCreated) kind() string     { return "key_created" }
func (PlanChanged) kind() string    { return "plan" }
func (SessionEnded) kind() string   { return "user" }
func (NodeLeaving) kind() string    { return "leaving" }

func (e ProjectChanged) value() string { return e.ProjectID }
func (e KeyRevoked) value() string     { return e.Prefix }
func (e KeyCreated) value() string     { return e.Prefix }
func (e PlanChanged) value() string    { return strconv.FormatInt(e.AccountID, 10) }
func (e SessionEnded) value() string   { return e.SessionID }
func (e NodeLeaving) value() string    { return e.Node }

// Encode is the NOTIFY payload of e.
func Encode(e Event) string { return e.kind() + ":" + e.value() }

// ErrUnknownKind is returned by Decode for a payload of a kind this
// version does not know (a newer node may send one): ignore it.
var ErrUnknownKind = errors.New("unknown event kind")

// Decode reads a NOTIFY payload. A payload of a known kind whose value is
// unreadable is an error that is not ErrUnknownKind.
func Decode(payload string) (Event, error) {
	kind, value, ok := strings.Cut(payload, ":")
	if !ok {
		return nil, fmt.Errorf("event %q: no kind", payload)
	}
	var e Event
	switch kind {
	case "project":
		e = ProjectChanged{ProjectID: value}
	case "key":
		e = KeyRevoked{Prefix: value}
	case "key_created":
		e = KeyCreated{Prefix: value}
	case "user":
		e = SessionEnded{SessionID: value}
	case "leaving":
		e = NodeLeaving{Node: value}
	case "realtime":
		project, seq, ok := strings.Cut(value, ":")
		n, err := strconv.ParseInt(seq, 10, 64)
		if !ok || err != nil || project == "" {
			return nil, fmt.Errorf("event %q: want realtime:<project id>:<seq>", payload)
		}
		e = RealtimeChanged{ProjectID: project, Seq: n}
	case "cache":
		project, tables, _ := strings.Cut(value, ":")
		if project == "" {
			return nil, fmt.Errorf("event %q: want cache:<project id>[:<tables>]", payload)
		}
		ev := CacheChanged{ProjectID: project}
		if tables != "" {
			ev.Tables = strings.Split(tables, ",")
		}
		e = ev
	case "plan":
		id, err := strconv.ParseInt(value, 10, 64)
		if err != nil {
			return nil, fmt.Errorf("event %q: account id: %w", payload, err)
		}
		e = PlanChanged{AccountID: id}
	default:
		return nil, fmt.Errorf("event %q: %w", payload, ErrUnknownKind)
	}
	if value == "" {
		return nil, fmt.Errorf("event %q: empty value", payload)
	}
	return e, nil
}

// Execer runs a statement: a *sql.DB or a *sql.Tx. Notifying inside the
// transaction that made the change delivers the event only if it commits.
type Execer interface {
	ExecContext(ctx context.Context, query string, args ...any) (sql.Result, error)
}

// Notify sends e to every listening node (this one included).
func Notify(ctx context.Context, db Execer, e Event) error {
	if _, err := db.ExecContext(ctx, `SELECT pg_notify($1, $2)`, Channel, Encode(e)); err != nil {
		return fmt.Errorf("notify %s: %w", Encode(e), err)
	}
	return nil
}

// Dispatcher hands each event to the functions registered for its type,
// in the order they were registered. Register before dispatching starts:
// it is not safe for registration concurrent with Dispatch.
type Dispatcher struct {
	handlers map[string][]func(Event)
}

// On registers f for events of type E.
func On[E Event](d *Dispatcher, f func(E)) {
	var zero E
	if d.handlers == nil {
		d.handlers = map[string][]func(Event){}
	}
	k := zero.kind()
	d.handlers[k] = append(d.handlers[k], func(e Event) {
		if ev, ok := e.(E); ok { // always, as the kind names one type
			f(ev)
		}
	})
}

// Dispatch calls the functions registered for e's type; it reports
// whether there was any.
func (d *Dispatcher) Dispatch(e Event) bool {
	hs := d.handlers[e.kind()]
	for _, f := range hs {
		f(e)
	}
	return len(hs) > 0
}
