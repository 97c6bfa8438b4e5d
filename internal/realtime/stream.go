package realtime

import (
	"cmp"
	"context"
	"database/sql"
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"net/url"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/tablesmith/tablesmith/access"
	"github.com/tablesmith/tablesmith/apierr"
	"github.com/tablesmith/tablesmith/internal/apihttp"
	"github.com/tablesmith/tablesmith/internal/auth"
	"github.com/tablesmith/tablesmith/internal/pgexec"
	"github.com/tablesmith/tablesmith/internal/registry"
	"github.com/tablesmith/tablesmith/translate"
)

// RouteName is the path segment after the project id that opens a stream.
const RouteName = "realtime"

// Route is the generated API's route for RouteName (apihttp.Deps.Routes).
func (hub *Hub) Route(h *apihttp.Handler, w http.ResponseWriter, r *http.Request, rt *apihttp.Route) error {
	if len(rt.Rest) != 1 {
		return apierr.New(apierr.CodeNotFound, "Not found: the stream is /v1/%s/realtime?tables=<table>,...", rt.ProjectID)
	}
	// analytics.OperationStream: its lifetime stays out of the latency
	// percentiles and the error rate.
	rt.Operation = "stream"
	if r.Method != http.MethodGet {
		w.Header().Set("Allow", "GET")
		return apierr.New(apierr.CodeMethodNotAllowed, "The realtime stream is opened with GET")
	}
	q, err := translate.ParseQueryString(r.URL.RawQuery)
	if err == nil {
		err = translate.CheckParams(q, streamParams, nil)
	}
	if err != nil {
		return apihttp.PlannerError(err)
	}
	if err := takeQueryToken(r, q); err != nil {
		return err
	}
	if _, err := h.Admit(w, r, rt, apihttp.Admission{Credential: true}); err != nil {
		return err
	}
	spec, err := parseSpec(q, r.Header.Get("Last-Event-ID"))
	if err != nil {
		return err
	}
	tables, err := planTables(rt.Entry, rt.Principal, spec)
	if err != nil {
		return err
	}
	limit, err := hub.cfg.Streams(r.Context(), rt.ProjectID)
	if err != nil {
		return err
	}
	if limit == 0 {
		return apierr.New(apierr.CodeForbidden, "The project's plan does not include realtime streams")
	}
	sub, err := hub.join(rt.ProjectID, limit)
	if errors.Is(err, ErrTooManyStreams) {
		e := apierr.New(apierr.CodeRateLimited, "The project has %d open realtime streams, the most its plan allows; close one or retry later", limit)
		e.RetryAfter = 5 * time.Second
		return e
	}
	defer hub.leave(rt.ProjectID, sub)

	st := &stream{hub: hub, h: h, r: r, rt: rt, sub: sub, tables: tables, spec: spec, version: rt.Entry.Version,
		db: rt.Entry.Tables.DB(), schemaName: rt.Entry.Published.Schema}
	// The cursor is fixed after join, so no wake-up after it is missed;
	// a round first numbers what committed before the stream opened. The
	// round is shared with the project's other streams opening meanwhile.
	start, err := hub.startingPoint(r.Context(), rt.ProjectID)
	if err != nil {
		return err
	}
	hub.observe(rt.ProjectID, start.head)
	st.cursor = start.head
	reset := false
	if spec.resume >= 0 {
		if spec.resume < start.pruned {
			reset = true
		} else {
			st.cursor = spec.resume
		}
	}
	st.w = newSSEWriter(w, rt.ProjectID)
	if reset {
		st.reset(spec.resume)
	}
	st.run(r.Context())
	return nil
}

// streamParams are what a stream takes in its query string
// (docs/realtime.md).
var streamParams = translate.NewParams("tables", "where[", "access_token", "ticket", "last_event_id")

// takeQueryToken moves ?access_token= (an API key or an end user's token)
// or ?ticket= (the owner dashboard's stream ticket) into the Authorization
// header (EventSource cannot send headers) and out of the URL, which
// loggers print, and out of q; a header, when sent, wins. A dashboard
// session is refused in the URL: it lives 7 days, a ticket one minute.
func takeQueryToken(r *http.Request, q url.Values) error {
	tok, ticket := q.Get("access_token"), q.Get("ticket")
	_, hasToken := q["access_token"]
	_, hasTicket := q["ticket"]
	if !hasToken && !hasTicket {
		return nil
	}
	q.Del("access_token")
	q.Del("ticket")
	// r.URL is shared with the request the server logs.
	r.URL.RawQuery = q.Encode()
	switch {
	case hasToken && hasTicket:
		return apierr.Fields(apierr.CodeInvalidQuery, "Invalid query parameter ticket: give access_token or ticket, not both",
			map[string]string{"ticket": "give access_token or ticket, not both"})
	case hasTicket && ticket != "" && !auth.LooksLikeTicket(ticket):
		return apierr.Fields(apierr.CodeInvalidQuery, "Invalid query parameter ticket: not a stream ticket (POST /api/projects/{id}/stream-tickets makes one)",
			map[string]string{"ticket": "is not a stream ticket"})
	case hasToken && auth.LooksLikeSession(tok):
		return apierr.New(apierr.CodeUnauthorized, "A dashboard session must not travel in a URL: open the stream with a stream ticket (POST /api/projects/{id}/stream-tickets, then ?ticket=)")
	}
	if ticket != "" {
		tok = ticket
	}
	if tok != "" && r.Header.Get("Authorization") == "" {
		r.Header.Set("Authorization", "Bearer "+tok)
	}
	return nil
}

// spec is a stream's parameters as parsed from the URL.
type spec struct {
	tables []string
	where  map[string]string
	resume int64 // Last-Event-ID, -1 when not given
}

func parseSpec(q map[string][]string, lastEventID string) (spec, error) {
	s := spec{where: map[string]string{}, resume: -1}
	raw := strings.TrimSpace(strings.Join(q["tables"], ","))
	if raw == "" {
		return s, apierr.Fields(apierr.CodeInvalidQuery, "Name the tables to watch: ?tables=<table>,<table>",
			map[string]string{"tables": "is required"})
	}
	for _, name := range strings.Split(raw, ",") {
		name = strings.TrimSpace(name)
		if name != "" && !slices.Contains(s.tables, name) {
			s.tables = append(s.tables, name)
		}
	}
	for key, vals := range q {
		name, ok := strings.CutPrefix(key, "where[")
		if !ok {
			continue
		}
		name, ok = strings.CutSuffix(name, "]")
		if !ok || !slices.Contains(s.tables, name) {
			return s, apierr.Fields(apierr.CodeInvalidQuery, "where[<table>] names a table of ?tables=",
				map[string]string{key: "names no table of tables="})
		}
		if len(vals) > 1 {
			return s, apierr.Fields(apierr.CodeInvalidQuery, "Give each where[<table>] once; combine conditions with and",
				map[string]string{key: "is given more than once"})
		}
		s.where[name] = vals[0]
	}
	if lastEventID == "" && len(q["last_event_id"]) > 0 {
		lastEventID = q["last_event_id"][0]
	}
	if lastEventID != "" {
		n, err := strconv.ParseInt(strings.TrimSpace(lastEventID), 10, 64)
		if err != nil || n < 0 {
			return s, apierr.Fields(apierr.CodeInvalidQuery, "Last-Event-ID must be an event id this stream sent",
				map[string]string{"last_event_id": "must be a non-negative integer"})
		}
		s.resume = n
	}
	return s, nil
}

// tableFeed is one watched table: its change read under the caller's
// scope and condition.
type tableFeed struct {
	name string
	read *translate.ChangeSQL
}

// planTables checks every table against the entry and the caller's read
// rule and renders its change read.
func planTables(entry *registry.Entry, p access.Principal, s spec) ([]tableFeed, error) {
	var out []tableFeed
	for _, name := range s.tables {
		t, ok := entry.Published.Compiled.Table(name)
		if !ok {
			return nil, apierr.Fields(apierr.CodeInvalidQuery, fmt.Sprintf("Table %q does not exist", name),
				map[string]string{"tables": fmt.Sprintf("%q is not a table of this project", name)})
		}
		if !t.Doc.Realtime {
			return nil, apierr.Fields(apierr.CodeInvalidQuery, fmt.Sprintf("Table %q does not stream its changes; set \"realtime\": true on it and generate", name),
				map[string]string{"tables": fmt.Sprintf("%q has realtime off", name)})
		}
		g, err := apihttp.Decide(p, t, access.Read)
		if err != nil {
			return nil, err
		}
		cq, err := translate.ParseChangeFilter("where["+name+"]", s.where[name])
		if err != nil {
			return nil, apihttp.PlannerError(err)
		}
		cq.Caller, cq.Rows = p, g.Rows
		read, err := translate.BuildChanges(entry.Published, t, cq)
		if err != nil {
			return nil, apihttp.PlannerError(err)
		}
		out = append(out, tableFeed{name: name, read: read})
	}
	return out, nil
}

// stream is one open stream.
type stream struct {
	hub        *Hub
	h          *apihttp.Handler
	r          *http.Request
	rt         *apihttp.Route
	sub        *subscriber
	tables     []tableFeed
	spec       spec
	version    int
	db         *sql.DB
	schemaName string
	cursor     int64 // the last sequence number this stream has passed
	w          *sseWriter
}

// reset tells the client that changes after its id are gone.
func (st *stream) reset(asked int64) {
	st.w.event(st.cursor, "reset", map[string]any{
		"message":       fmt.Sprintf("Changes after event %d are older than the retention window; reload the data, then follow the stream from this event", asked),
		"last_event_id": asked,
	})
	st.w.flush()
}

// run serves the stream until the client leaves or a check ends it.
func (st *stream) run(ctx context.Context) {
	heartbeat := time.NewTicker(st.hub.cfg.Heartbeat)
	defer heartbeat.Stop()
	recheck := time.NewTicker(st.hub.cfg.RecheckEvery)
	defer recheck.Stop()
	// A resume may already have changes to send.
	signal(st.sub.wake)
	for {
		var err error
		select {
		case <-ctx.Done():
			return
		case <-st.hub.draining:
			st.reconnectElsewhere()
			return
		case <-st.sub.wake:
			err = st.catchUp(ctx)
		case <-heartbeat.C:
			st.w.comment("heartbeat")
			st.w.flush()
		case <-st.sub.recheck:
			err = st.recheck(ctx)
		case <-recheck.C:
			err = st.recheck(ctx)
		}
		if st.w.failed != nil || ctx.Err() != nil {
			return
		}
		if err != nil {
			st.end(err)
			return
		}
	}
}

// ReconnectDelay is the reconnection delay a stream ends with when its
// node stops: by then the load balancer has taken the node out (its
// health check sees /api/ready answer 503 from the moment the stop
// began), so the client's reconnect goes to another node.
const ReconnectDelay = time.Second

// reconnectElsewhere ends the stream because the node is stopping: a
// "reconnect" event whose id is the stream's cursor, so an EventSource
// (which reconnects on its own) or any client resuming with that
// Last-Event-ID misses nothing and reads nothing twice.
func (st *stream) reconnectElsewhere() {
	st.w.retry(ReconnectDelay)
	st.w.event(st.cursor, "reconnect", map[string]any{
		"message":       "This node is shutting down; reconnect to resume from this event",
		"last_event_id": st.cursor,
	})
	st.w.flush()
}

// end sends the reason the stream ends as an error event.
func (st *stream) end(err error) {
	e := apierr.As(err)
	if e.Code == apierr.CodeInternal {
		st.hub.cfg.Logger.Error("realtime stream failed", "err", err, "project", st.rt.ProjectID)
	}
	st.w.event(-1, "error", map[string]any{"error": map[string]any{"code": e.Code, "message": e.Message}})
	st.w.flush()
}

// change is one row of a change read.
type change struct {
	seq    int64
	op     string
	record json.RawMessage // nil: the row is out of the subscriber's reach
	at     time.Time       // when it was captured
}

type delivery struct {
	change
	table string
}

// catchUp sends every change between the cursor and the newest committed
// one, in sequence order, in bounded batches.
func (st *stream) catchUp(ctx context.Context) error {
	for {
		head := st.hub.head(st.rt.ProjectID)
		if head <= st.cursor {
			return nil
		}
		to := min(head, st.cursor+batchSize)
		var batch []delivery
		for _, tf := range st.tables {
			rows, err := st.readRange(ctx, tf, st.cursor, to)
			if err != nil {
				return err
			}
			for _, c := range rows {
				if c.record != nil {
					batch = append(batch, delivery{change: c, table: tf.name})
				}
			}
		}
		slices.SortFunc(batch, func(a, b delivery) int { return cmp.Compare(a.seq, b.seq) })
		counts := map[string]int{}
		for _, d := range batch {
			data := map[string]any{"table": d.table, "record": d.record}
			if d.op == "delete" {
				var id struct {
					ID json.RawMessage `json:"id"`
				}
				_ = json.Unmarshal(d.record, &id)
				data["id"] = id.ID
			}
			st.w.event(d.seq, d.op, data)
			counts[d.table]++
		}
		st.cursor = to
		st.w.flush()
		if st.w.failed != nil {
			return nil
		}
		if ev := st.hub.cfg.Events; ev != nil {
			for table, n := range counts {
				ev(st.rt.ProjectID, table, st.rt.Principal.Kind.String(), n)
			}
		}
	}
}

// errBehind says a replica has not replayed a range's last change yet.
var errBehind = errors.New("the replica has not replayed the range yet")

// readRange reads one table's changes in (from, to] on a read replica
// that has replayed change to, else on the primary.
func (st *stream) readRange(ctx context.Context, tf tableFeed, from, to int64) ([]change, error) {
	primary := st.rt.Entry.Tables
	if st.hub.cfg.Reads == nil || primary == nil || primary.DB() != st.db {
		return st.hub.read(ctx, st.rt.ProjectID, st.db, tf, from, to)
	}
	var out []change
	err := st.hub.cfg.Reads.Read(ctx, primary, "", func(ctx context.Context, s *pgexec.Statements) error {
		db := s.DB()
		if s != primary {
			head, err := logHead(ctx, db, st.schemaName)
			if err != nil {
				return err
			}
			if head < to {
				return errBehind
			}
		}
		var err error
		out, err = st.hub.read(ctx, st.rt.ProjectID, db, tf, from, to)
		return err
	})
	if errors.Is(err, errBehind) {
		return st.hub.read(ctx, st.rt.ProjectID, st.db, tf, from, to)
	}
	return out, err
}

// read runs one table's change read for the range (from, to] in one of
// the project's fair-share slots, waiting for it as long as the stream
// lasts; streams whose read is the same statement with the same arguments
// share it (and its slot).
func (hub *Hub) read(ctx context.Context, projectID string, db *sql.DB, tf tableFeed, from, to int64) ([]change, error) {
	args := append(slices.Clone(tf.read.Args), tf.name, from, to)
	key := fmt.Sprintf("%p\x00%s\x00%v", db, tf.read.SQL, args)
	v, err, _ := hub.reads.Do(key, func() (any, error) {
		slot, err := hub.cfg.Gate.AcquireUntil(ctx, projectID, time.Now())
		if err != nil {
			return nil, err
		}
		defer slot.Release()
		rows, err := db.QueryContext(ctx, tf.read.SQL, args...)
		if err != nil {
			return nil, fmt.Errorf("read changes of %s: %w", tf.name, err)
		}
		defer rows.Close()
		var out []change
		for rows.Next() {
			var c change
			var rec, old []byte // old: NULL, not asked for (translate.ChangeQuery.Old)
			if err := rows.Scan(&c.seq, &c.op, &rec, &c.at, &old); err != nil {
				return nil, err
			}
			if rec != nil {
				c.record = json.RawMessage(rec)
			}
			out = append(out, c)
		}
		return out, rows.Err()
	})
	if err != nil {
		return nil, err
	}
	return v.([]change), nil
}

// recheck verifies again that the stream may go on: the credential is
// still valid, the tables still stream and may be read, and the plan
// still allows streams. A database that cannot answer now is not a
// reason to end it.
func (st *stream) recheck(ctx context.Context) error {
	entry, err := st.hub.cfg.Registry.Get(ctx, st.rt.ProjectID)
	if errors.Is(err, registry.ErrNotPublished) {
		return apierr.New(apierr.CodeNotFound, "The project no longer exists")
	}
	if err != nil {
		return transient(err)
	}
	again := &apihttp.Route{ProjectID: st.rt.ProjectID, Rest: st.rt.Rest, Entry: entry, Start: st.hub.cfg.Now(), Rechecking: true}
	if err := st.h.Authenticate(st.r, again); err != nil {
		return transient(err)
	}
	if entry.Version != st.version || again.Principal != st.rt.Principal {
		tables, err := planTables(entry, again.Principal, st.spec)
		if err != nil {
			return err
		}
		st.tables, st.version, st.rt.Principal = tables, entry.Version, again.Principal
	}
	if entry.Tables != nil && entry.Tables.DB() != st.db {
		// The project moved to another data server (move-project): its
		// change log, numbers and all, is read there from now on.
		st.db, st.rt.Entry = entry.Tables.DB(), entry
	}
	limit, err := st.hub.cfg.Streams(ctx, st.rt.ProjectID)
	if err != nil {
		return transient(err)
	}
	if limit == 0 {
		return apierr.New(apierr.CodeForbidden, "The project's plan no longer includes realtime streams")
	}
	return nil
}

// transient keeps a stream open through an outage: only a refusal ends it.
func transient(err error) error {
	if apierr.As(err).Code == apierr.CodeUnavailable {
		return nil
	}
	return err
}
