// Package realtime serves the generated API's change stream
// (GET /v1/<project>/realtime, Server-Sent Events): one hub per node hears
// the change log's wake-ups on the node's one LISTEN connection and wakes
// the node's subscribers, each of which reads its tables' changes from the
// project's change log under its own scope and condition.
package realtime

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"iter"
	"log/slog"
	"sync"
	"time"

	"golang.org/x/sync/singleflight"

	"github.com/tablesmith/tablesmith/internal/apihttp"
	"github.com/tablesmith/tablesmith/internal/fairshare"
	"github.com/tablesmith/tablesmith/internal/registry"
	"github.com/tablesmith/tablesmith/schema"
)

// Defaults of Config.
const (
	DefaultRetention    = 15 * time.Minute
	DefaultHeartbeat    = 15 * time.Second
	DefaultRecheckEvery = 4 * time.Second
	// batchSize bounds the sequence numbers one read of the log covers,
	// so a subscriber far behind catches up in bounded steps.
	batchSize = 1000
)

// Config is what a Hub needs.
type Config struct {
	Registry *registry.Registry
	// Streams is the plan's cap on a project's concurrent streams: <0 no
	// cap, 0 streaming not allowed.
	Streams func(ctx context.Context, projectID string) (int, error)
	// Events counts delivered events of a table in analytics; nil: none.
	Events func(projectID, table, credential string, n int)
	// Retention is how long the change log keeps a change.
	Retention time.Duration
	// Heartbeat is the interval of the comment line that keeps proxies
	// from closing an idle stream.
	Heartbeat time.Duration
	// RecheckEvery is how often a stream verifies its credential, rules
	// and plan again when no event has asked it to.
	RecheckEvery time.Duration
	// SequenceEvery is how often the node numbers its subscribed
	// projects' new changes (DefaultSequenceEvery).
	SequenceEvery time.Duration
	// Reads sends catch-up reads of the change log to read replicas
	// (nil: the primary); a replica serves a range only once it has
	// replayed the range's last change.
	Reads apihttp.ReadRouter
	// Gate is the data pool's fair share (apihttp.Deps.Gate): every
	// statement on a project's change log takes one of the project's
	// slots, as its requests' statements do. Nil: no bound.
	Gate   *fairshare.Gate
	Logger *slog.Logger
	Now    func() time.Time
}

// Hub is one node's realtime state: the newest sequence number it has
// heard of per project and the project's subscribers.
type Hub struct {
	cfg   Config
	mu    sync.Mutex
	feeds map[string]*feed
	// reads lets subscribers with the same statement and range share one
	// read of the log.
	reads singleflight.Group
	// rounds are the projects' numbering rounds (guarded by mu), kept
	// once made: a few words per project this node has streamed.
	rounds map[string]*rounds
	// draining is closed by Drain: the node is stopping and every stream
	// ends with a reconnect hint.
	draining  chan struct{}
	drainOnce sync.Once
}

// feed is one project's subscribers on this node.
type feed struct {
	head int64 // newest sequence number known committed
	subs map[*subscriber]struct{}
}

// subscriber is one open stream's mailbox: each channel holds at most one
// pending signal, so a burst of wake-ups is one read.
type subscriber struct {
	wake    chan struct{}
	recheck chan struct{}
}

// NewHub returns a hub.
func NewHub(cfg Config) *Hub {
	if cfg.Retention <= 0 {
		cfg.Retention = DefaultRetention
	}
	if cfg.Heartbeat <= 0 {
		cfg.Heartbeat = DefaultHeartbeat
	}
	if cfg.RecheckEvery <= 0 {
		cfg.RecheckEvery = DefaultRecheckEvery
	}
	if cfg.SequenceEvery <= 0 {
		cfg.SequenceEvery = DefaultSequenceEvery
	}
	if cfg.Logger == nil {
		cfg.Logger = slog.Default()
	}
	if cfg.Now == nil {
		cfg.Now = time.Now
	}
	return &Hub{cfg: cfg, feeds: map[string]*feed{}, rounds: map[string]*rounds{}, draining: make(chan struct{})}
}

// Drain ends every stream of this node, and every stream opened after it
// as soon as it opens, with a reconnect event: the node is stopping, and
// the client resumes on another node by Last-Event-ID (docs/realtime.md).
func (h *Hub) Drain() { h.drainOnce.Do(func() { close(h.draining) }) }

// ErrTooManyStreams is join's answer when the project is at its cap.
var ErrTooManyStreams = errors.New("too many realtime streams")

// join registers a subscriber of project unless the project already has
// limit streams on this node (limit < 0: no cap).
func (h *Hub) join(projectID string, limit int) (*subscriber, error) {
	h.mu.Lock()
	defer h.mu.Unlock()
	f := h.feeds[projectID]
	if f == nil {
		f = &feed{subs: map[*subscriber]struct{}{}}
		h.feeds[projectID] = f
	}
	if limit >= 0 && len(f.subs) >= limit {
		return nil, ErrTooManyStreams
	}
	s := &subscriber{wake: make(chan struct{}, 1), recheck: make(chan struct{}, 1)}
	f.subs[s] = struct{}{}
	return s, nil
}

// leave forgets a subscriber.
func (h *Hub) leave(projectID string, s *subscriber) {
	h.mu.Lock()
	defer h.mu.Unlock()
	if f := h.feeds[projectID]; f != nil {
		delete(f.subs, s)
		if len(f.subs) == 0 {
			delete(h.feeds, projectID)
		}
	}
}

// Changed is the wake-up of a commit: every change of project up to seq
// is committed. Subscribers of the project on this node are woken.
func (h *Hub) Changed(projectID string, seq int64) {
	h.mu.Lock()
	defer h.mu.Unlock()
	f := h.feeds[projectID]
	if f == nil {
		return
	}
	if seq > f.head {
		f.head = seq
	}
	for s := range f.subs {
		signal(s.wake)
	}
}

// observe raises a project's known head to seq (read from the log).
func (h *Hub) observe(projectID string, seq int64) {
	h.mu.Lock()
	defer h.mu.Unlock()
	if f := h.feeds[projectID]; f != nil && seq > f.head {
		f.head = seq
	}
}

// head is the newest sequence number of project known committed.
func (h *Hub) head(projectID string) int64 {
	h.mu.Lock()
	defer h.mu.Unlock()
	if f := h.feeds[projectID]; f != nil {
		return f.head
	}
	return 0
}

// Recheck makes every stream verify its credential, rules and plan now:
// a key was revoked, a session ended, a plan or a schema changed.
func (h *Hub) Recheck() {
	h.mu.Lock()
	defer h.mu.Unlock()
	for _, f := range h.feeds {
		for s := range f.subs {
			signal(s.recheck)
		}
	}
}

// Resync follows a reconnect of the node's listener, when wake-ups may
// have been lost: each project's head is read from its log again and
// every subscriber is woken and rechecked.
func (h *Hub) Resync(ctx context.Context) {
	for id, entry := range h.subscribed(ctx) {
		if seq, err := logHead(ctx, entry.Tables.DB(), entry.Published.Schema); err == nil {
			h.Changed(id, seq)
		}
	}
	h.Recheck()
}

// SequenceEvery is how often Sequence should run.
func (h *Hub) SequenceEvery() time.Duration { return h.cfg.SequenceEvery }

// subscribed yields the projects this node has subscribers of, with their
// loaded versions (projects that fail to load are left out).
func (h *Hub) subscribed(ctx context.Context) iter.Seq2[string, *registry.Entry] {
	h.mu.Lock()
	ids := make([]string, 0, len(h.feeds))
	for id := range h.feeds {
		ids = append(ids, id)
	}
	h.mu.Unlock()
	return func(yield func(string, *registry.Entry) bool) {
		for _, id := range ids {
			if entry, err := h.cfg.Registry.Get(ctx, id); err == nil && !yield(id, entry) {
				return
			}
		}
	}
}

// Retention is how long the change logs keep a change.
func (h *Hub) Retention() time.Duration { return h.cfg.Retention }

// Subscribers is how many streams this node serves (all projects).
func (h *Hub) Subscribers() int {
	h.mu.Lock()
	defer h.mu.Unlock()
	n := 0
	for _, f := range h.feeds {
		n += len(f.subs)
	}
	return n
}

func signal(c chan struct{}) {
	select {
	case c <- struct{}{}:
	default:
	}
}

// logHead is the newest sequence number in a project's change log (0 when
// it is empty).
func logHead(ctx context.Context, db *sql.DB, schemaName string) (int64, error) {
	var seq int64
	// A pruned log may be empty; its head is then the pruning mark.
	err := db.QueryRowContext(ctx, `SELECT greatest((SELECT max(seq) FROM `+logRel(schemaName)+`), (SELECT max(pruned_through) FROM `+
		schema.QuoteIdent(schemaName)+"."+schema.QuoteIdent(schema.RealtimeState)+`), 0)`).Scan(&seq)
	if err != nil {
		return 0, fmt.Errorf("read the head of the change log: %w", err)
	}
	return seq, nil
}

// logState is where a project's change log stands: its head (as
// logHead) and its retention mark (as prunedThrough).
type logState struct{ head, pruned int64 }

// readLogState reads both in one statement.
func readLogState(ctx context.Context, db *sql.DB, schemaName string) (logState, error) {
	var st logState
	state := schema.QuoteIdent(schemaName) + "." + schema.QuoteIdent(schema.RealtimeState)
	err := db.QueryRowContext(ctx, `SELECT greatest((SELECT max(seq) FROM `+logRel(schemaName)+`), p, 0), p
		FROM (SELECT coalesce(max(pruned_through), 0) AS p FROM `+state+`) s`).Scan(&st.head, &st.pruned)
	if err != nil {
		return logState{}, fmt.Errorf("read the head of the change log: %w", err)
	}
	return st, nil
}

func logRel(schemaName string) string {
	return schema.QuoteIdent(schemaName) + "." + schema.QuoteIdent(schema.RealtimeLog)
}
