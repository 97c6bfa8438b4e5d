package webhooks

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"math/rand/v2"
	"net"
	"net/http"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"syscall"
	"time"
)

// Change is one change of the log as a webhook delivers it.
type Change struct {
	ID     int64
	Table  string
	Event  string
	Record json.RawMessage // the row as a GET shows it (for a delete, the row removed)
	Old    json.RawMessage // an update's row before it, shown alike; nil when the log has none
	At     time.Time       // when it was captured, in its transaction
}

// Source reads a webhook's changes.
type Source interface {
	// Changes returns the changes after change id after, up to limit ids
	// further, of the webhook's tables and events that pass its
	// conditions, in log order, and the last change id it looked at:
	// changes not for the webhook move its cursor too.
	Changes(ctx context.Context, w *Webhook, after int64, limit int) ([]Change, int64, error)
}

// Defaults of Config.
const (
	DefaultPoll     = time.Second
	DefaultIdle     = 100 * time.Millisecond
	DefaultLeaseFor = 4 * time.Second
	DefaultMax      = 256
	batch           = 500
)

// Config is what a Deliverer needs.
type Config struct {
	Store  *Store
	Source Source
	// Node names this node in leases.
	Node string
	// Key is the server's webhook key, from which each webhook's secret is
	// derived (Secret); read for every delivery, as a reload may change it.
	Key func() []byte
	// AllowPrivate lets webhooks reach loopback, private and link-local
	// addresses (webhook_allow_private).
	AllowPrivate bool
	// PerHour is the project's plan's deliveries an hour (< 0: no limit).
	PerHour func(ctx context.Context, projectID string) (int, error)
	Logger  *slog.Logger
	// Poll is how often due webhooks are claimed and leases renewed;
	// LeaseFor how long a lease lasts unrenewed (another node takes a dead
	// node's webhooks over after it); Idle how often a webhook with
	// nothing to send looks for changes.
	Poll, LeaseFor, Idle time.Duration
	// Max bounds the webhooks this node delivers at once.
	Max int
	// Backoff is the wait before the next attempt after attempt failures
	// in a row (default: 5 s doubling to an hour, with jitter).
	Backoff func(attempts int) time.Duration
}

// Deliverer runs this node's deliveries: it leases due webhooks and runs
// one worker per leased webhook, which delivers its changes one by one,
// in order, and moves its cursor on each 2xx.
type Deliverer struct {
	cfg       Config
	client    *http.Client
	mu        sync.Mutex
	active    map[string]*worker
	wg        sync.WaitGroup
	delivered atomic.Uint64
	failures  atomic.Uint64
	// handoff is closed by Handoff (under mu, so no worker starts after).
	handoff chan struct{}
	kick    chan struct{}
}

// Stats are this node's deliveries, for its Prometheus metrics.
type Stats struct {
	// Delivered and Failed count attempts answered 2xx and not.
	Delivered, Failed uint64
	// Active is how many webhooks this node delivers now.
	Active int
	// Lag is how long the oldest change a worker of this node has read
	// but not delivered yet has waited since it was made (0: none waits).
	Lag time.Duration
}

// Stats reads this node's Stats.
func (d *Deliverer) Stats() Stats {
	d.mu.Lock()
	defer d.mu.Unlock()
	st := Stats{Delivered: d.delivered.Load(), Failed: d.failures.Load(), Active: len(d.active)}
	now := time.Now()
	for _, w := range d.active {
		if at := w.pending.Load(); at != nil {
			st.Lag = max(st.Lag, now.Sub(*at))
		}
	}
	return st
}

type worker struct {
	cancel  context.CancelFunc
	wake    chan struct{}
	project string
	// pending is when the oldest change read and not yet delivered was
	// made; nil when none is.
	pending atomic.Pointer[time.Time]
}

// New returns a Deliverer; Run starts it.
func New(cfg Config) *Deliverer {
	if cfg.Poll <= 0 {
		cfg.Poll = DefaultPoll
	}
	if cfg.LeaseFor <= 0 {
		cfg.LeaseFor = DefaultLeaseFor
	}
	if cfg.Idle <= 0 {
		cfg.Idle = DefaultIdle
	}
	if cfg.Max <= 0 {
		cfg.Max = DefaultMax
	}
	if cfg.Backoff == nil {
		cfg.Backoff = Backoff
	}
	if cfg.Logger == nil {
		cfg.Logger = slog.Default()
	}
	return &Deliverer{cfg: cfg, client: newClient(cfg.AllowPrivate), active: map[string]*worker{}, handoff: make(chan struct{}), kick: make(chan struct{}, 1)}
}

// Handoff stops this node's deliveries for other nodes to take over (the
// node is stopping): no webhook is leased any more, and each worker
// finishes the delivery in flight, acknowledges what was delivered and
// gives its lease up, so another node's next poll (DefaultPoll) goes on
// from where this one stopped instead of waiting out the lease. It
// returns when every worker has stopped or ctx ends.
func (d *Deliverer) Handoff(ctx context.Context) {
	d.mu.Lock()
	if !d.handingOff() {
		close(d.handoff)
	}
	d.mu.Unlock()
	stopped := make(chan struct{})
	go func() {
		d.wg.Wait()
		close(stopped)
	}()
	select {
	case <-stopped:
	case <-ctx.Done():
	}
}

func (d *Deliverer) handingOff() bool {
	select {
	case <-d.handoff:
		return true
	default:
		return false
	}
}

// MaxBackoff is the longest wait between two attempts: a receiver that
// comes back after an outage of any length has its backlog flowing
// within a minute (issue 39), for at most 60 attempts an hour while it
// is down.
const MaxBackoff = time.Minute

// Backoff is the default wait after attempts failures in a row: 5 s,
// doubling, each between 80 % and 120 % of that so that webhooks failing
// together do not retry together, and never past MaxBackoff.
func Backoff(attempts int) time.Duration {
	d := 5 * time.Second << min(max(attempts-1, 0), 10)
	return min(time.Duration(float64(d)*(0.8+0.4*rand.Float64())), MaxBackoff)
}

// newClient is the deliveries' HTTP client: 10 s per delivery, no
// redirect followed, no proxy from the environment, and, unless private
// targets are allowed, a dialer that refuses them on the address it
// connects to (after DNS, so a name that resolves to one is refused too).
func newClient(allowPrivate bool) *http.Client {
	d := &net.Dialer{Timeout: 5 * time.Second}
	if !allowPrivate {
		d.Control = func(_, address string, _ syscall.RawConn) error {
			ip, err := hostPortIP(address)
			if err != nil || !publicAddr(ip) {
				return errBlocked{addr: address}
			}
			return nil
		}
	}
	return &http.Client{
		Timeout: Timeout,
		Transport: &http.Transport{DialContext: d.DialContext, MaxIdleConnsPerHost: 4, IdleConnTimeout: time.Minute,
			TLSHandshakeTimeout: 5 * time.Second, ResponseHeaderTimeout: Timeout},
		CheckRedirect: func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse },
	}
}

// Run delivers until ctx ends, then waits for its workers.
func (d *Deliverer) Run(ctx context.Context) {
	t := time.NewTicker(d.cfg.Poll)
	defer t.Stop()
	for {
		d.poll(ctx)
		select {
		case <-ctx.Done():
			d.stopAll()
			return
		case <-t.C:
		case <-d.kick:
		}
	}
}

// Kick makes the deliverer look for due webhooks now (another node gave
// its leases up).
func (d *Deliverer) Kick() {
	select {
	case d.kick <- struct{}{}:
	default:
	}
}

// Changed wakes the workers of a project: it has new changes numbered.
func (d *Deliverer) Changed(projectID string) {
	d.mu.Lock()
	defer d.mu.Unlock()
	for _, w := range d.active {
		if w.project == projectID {
			select {
			case w.wake <- struct{}{}:
			default:
			}
		}
	}
}

// poll renews this node's leases, stops the workers that lost theirs, and
// starts workers for newly due webhooks.
func (d *Deliverer) poll(ctx context.Context) {
	d.mu.Lock()
	ids := make([]string, 0, len(d.active))
	for id := range d.active {
		ids = append(ids, id)
	}
	d.mu.Unlock()
	if len(ids) > 0 {
		held, err := d.cfg.Store.renew(ctx, d.cfg.Node, ids, d.cfg.LeaseFor)
		if err != nil {
			if ctx.Err() == nil {
				d.cfg.Logger.Warn("renew webhook leases", "err", err)
			}
			return
		}
		// A worker whose lease is gone stops; it leaves active when it has.
		d.mu.Lock()
		for _, id := range ids {
			if w := d.active[id]; w != nil && !held[id] {
				w.cancel()
			}
		}
		d.mu.Unlock()
	}
	d.mu.Lock()
	room := d.cfg.Max - len(d.active)
	d.mu.Unlock()
	if room <= 0 || d.handingOff() {
		return
	}
	due, err := d.cfg.Store.lease(ctx, d.cfg.Node, room, d.cfg.LeaseFor)
	if err != nil {
		if ctx.Err() == nil {
			d.cfg.Logger.Warn("lease webhooks", "err", err)
		}
		return
	}
	var giveBack []string
	defer func() { // after the unlock below
		for _, id := range giveBack {
			d.release(id)
		}
	}()
	d.mu.Lock()
	defer d.mu.Unlock()
	for i := range due {
		w := due[i]
		if d.handingOff() {
			// Leased just as the handoff began: give it straight back.
			giveBack = append(giveBack, w.ID)
			continue
		}
		if d.active[w.ID] != nil {
			continue
		}
		wctx, cancel := context.WithCancel(ctx)
		wk := &worker{cancel: cancel, wake: make(chan struct{}, 1), project: w.ProjectID}
		d.active[w.ID] = wk
		d.wg.Add(1)
		go func() {
			defer d.wg.Done()
			d.work(wctx, w.ID, wk)
			d.mu.Lock()
			if d.active[w.ID] == wk {
				delete(d.active, w.ID)
			}
			d.mu.Unlock()
			cancel()
		}()
	}
}

func (d *Deliverer) stopAll() {
	d.mu.Lock()
	for _, w := range d.active {
		w.cancel()
	}
	d.mu.Unlock()
	d.wg.Wait()
}

// work delivers one leased webhook's changes until its lease is lost, it
// is turned off, a delivery fails (its retry is the next lease's) or ctx
// ends. Each round reads the webhook again, so a change of its
// configuration (URL, tables, a rotated secret, a replay's cursor) applies
// from the next delivery on; a round that finds it changed under a
// delivery starts over from the new configuration.
func (d *Deliverer) work(ctx context.Context, id string, wk *worker) {
	idle := time.NewTicker(d.cfg.Idle)
	defer idle.Stop()
	defer func() {
		if d.handingOff() {
			d.release(id)
		}
	}()
	for ctx.Err() == nil && !d.handingOff() {
		w, err := d.cfg.Store.leased(ctx, d.cfg.Node, id)
		if err != nil || w == nil {
			if err != nil && ctx.Err() == nil {
				d.cfg.Logger.Warn("read webhook", "webhook", id, "err", err)
			}
			return
		}
		cursor := w.Cursor
		changes, upTo, err := d.cfg.Source.Changes(ctx, w, cursor, batch)
		if err != nil {
			if ctx.Err() == nil {
				d.cfg.Logger.Warn("read webhook changes", "webhook", w.ID, "project", w.ProjectID, "err", err)
			}
			d.release(w.ID)
			return
		}
		left := -1
		if len(changes) > 0 {
			if left, err = d.allowance(ctx, w); err != nil || left == 0 {
				return
			}
		}
		done := true
		acks := &unacknowledged{}
		for _, c := range changes {
			wk.pending.Store(&c.At)
			if left == 0 || d.handingOff() {
				// The next round reads the allowance again, or stops for
				// the handoff once this is acknowledged.
				done = false
				break
			}
			left--
			rec, outcome := d.attempt(ctx, w, c)
			if outcome == sent {
				acks.add(rec, c.ID)
				w.Attempts = 0 // the next change's attempt is its first
				if !acks.due() || d.acknowledge(ctx, w, acks) {
					cursor = c.ID
					continue
				}
			} else if d.acknowledge(ctx, w, acks) && outcome == refused {
				d.failed(ctx, w, rec)
			}
			done = false
			break
		}
		// What was delivered is acknowledged whatever ended the run.
		if !d.acknowledge(ctx, w, acks) {
			done = false
		}
		if !done {
			continue // the next read says whether to go on
		}
		wk.pending.Store(nil)
		if upTo > cursor {
			if _, err := d.cfg.Store.advance(ctx, d.cfg.Node, w, upTo); err != nil {
				return
			}
		}
		if upTo-w.Cursor >= batch {
			continue // a whole range was read: more may be waiting
		}
		select {
		case <-ctx.Done():
		case <-d.handoff:
		case <-wk.wake:
		case <-idle.C:
		}
	}
}

// release gives a lease up (after an error that is not the receiver's,
// or in a handoff).
func (d *Deliverer) release(id string) {
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	_ = d.cfg.Store.release(ctx, d.cfg.Node, id)
}

// allowance is how many deliveries the project's plan has left this hour
// (-1: no limit), read once per batch; with none left the webhook waits
// for the next hour.
func (d *Deliverer) allowance(ctx context.Context, w *Webhook) (int, error) {
	if d.cfg.PerHour == nil {
		return -1, nil
	}
	limit, err := d.cfg.PerHour(ctx, w.ProjectID)
	if err != nil || limit < 0 {
		return limit, err
	}
	used, err := d.cfg.Store.deliveredThisHour(ctx, w.ProjectID)
	if err != nil {
		return 0, err
	}
	if used < limit {
		return limit - used, nil
	}
	next := time.Now().Truncate(time.Hour).Add(time.Hour)
	d.cfg.Logger.Info("webhook paused: the plan's deliveries per hour are used", "webhook", w.ID, "project", w.ProjectID, "limit", limit, "until", next)
	return 0, d.cfg.Store.pause(ctx, d.cfg.Node, w.ID, next)
}

// Payload is the JSON body of a delivery.
type Payload struct {
	Type        string          `json:"type"`
	Table       string          `json:"table"`
	Record      json.RawMessage `json:"record"`
	OldRecord   json.RawMessage `json:"old_record"`
	ChangeID    int64           `json:"change_id"`
	CommittedAt time.Time       `json:"committed_at"`
	Project     string          `json:"project"`
}

func payload(w *Webhook, c Change) ([]byte, error) {
	p := Payload{Type: c.Event, Table: c.Table, Record: c.Record, OldRecord: json.RawMessage("null"), ChangeID: c.ID,
		CommittedAt: c.At.UTC(), Project: w.ProjectID}
	switch {
	case c.Event == EventDelete:
		p.Record, p.OldRecord = json.RawMessage("null"), c.Record
	case c.Old != nil:
		p.OldRecord = c.Old
	}
	return json.Marshal(p)
}

// keys are the secrets that sign a webhook's deliveries now: its current
// generation's and, during a rotation, the previous one's.
func (d *Deliverer) keys(w *Webhook, now time.Time) [][]byte {
	server := d.cfg.Key()
	keys := [][]byte{Secret(server, w.ID, w.secretGen)}
	if w.SecretRotating != nil && now.Before(*w.SecretRotating) && w.secretGen > 1 {
		keys = append(keys, Secret(server, w.ID, w.secretGen-1))
	}
	return keys
}

// outcome is what became of one attempt.
type outcome int

const (
	sent      outcome = iota // the receiver answered 2xx
	refused                  // it answered otherwise, or not at all: a failed attempt
	abandoned                // shutting down or the lease lost: the change is sent again
)

// attempt sends one change and describes the attempt for the log.
func (d *Deliverer) attempt(ctx context.Context, w *Webhook, c Change) (Delivery, outcome) {
	now := time.Now()
	rec := Delivery{ChangeID: c.ID, Table: c.Table, Event: c.Event, Attempt: w.Attempts + 1, At: now}
	refuse := func(status int, reason, response string) (Delivery, outcome) {
		rec.Status, rec.Error, rec.Response = status, reason, response
		rec.LatencyMS = int(time.Since(now).Milliseconds())
		return rec, refused
	}
	body, err := payload(w, c)
	if err != nil {
		d.cfg.Logger.Error("webhook payload", "webhook", w.ID, "err", err)
		return rec, abandoned
	}
	id := MessageID(w.ID, c.ID)
	req, err := http.NewRequestWithContext(ctx, http.MethodPost, w.URL, bytes.NewReader(body))
	if err != nil {
		return refuse(0, err.Error(), "")
	}
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("User-Agent", "Tablesmith-Webhooks/1")
	req.Header.Set("webhook-id", id)
	req.Header.Set("webhook-timestamp", strconv.FormatInt(now.Unix(), 10))
	req.Header.Set("webhook-signature", Signature(d.keys(w, now), id, now, body))
	res, err := d.client.Do(req)
	if err != nil {
		if ctx.Err() != nil {
			return rec, abandoned
		}
		return refuse(0, deliveryError(err), "")
	}
	excerpt, _ := io.ReadAll(io.LimitReader(res.Body, MaxResponseRead))
	res.Body.Close()
	if res.StatusCode < 200 || res.StatusCode > 299 {
		msg := fmt.Sprintf("the receiver answered %d", res.StatusCode)
		if res.StatusCode >= 300 && res.StatusCode < 400 {
			msg += " (redirects are not followed)"
		}
		return refuse(res.StatusCode, msg, keep(excerpt))
	}
	d.delivered.Add(1)
	rec.Status, rec.Response = res.StatusCode, keep(excerpt)
	rec.LatencyMS = int(time.Since(now).Milliseconds())
	return rec, sent
}

// unacknowledged are the attempts a receiver accepted that the webhook's
// cursor has not moved past yet. They are acknowledged together, every
// ackEvery attempts or ackAfter after the first: at a thousand changes a
// second, a commit for each (the log's row and the cursor) was what held
// deliveries back (bench/RESULTS.md, "Webhooks"). A node that dies first
// leaves them to be sent again by the next holder, with the same
// webhook-id: at least once, as before.
type unacknowledged struct {
	attempts []Delivery
	upTo     int64
	since    time.Time
}

const (
	ackEvery = 100
	ackAfter = 200 * time.Millisecond
)

func (u *unacknowledged) add(rec Delivery, changeID int64) {
	if len(u.attempts) == 0 {
		u.since = time.Now()
	}
	u.attempts, u.upTo = append(u.attempts, rec), changeID
}

func (u *unacknowledged) due() bool {
	return len(u.attempts) >= ackEvery || time.Since(u.since) >= ackAfter
}

// acknowledge records u's attempts and moves the cursor past them; false
// when the webhook is no longer this node's to deliver as it was read.
func (d *Deliverer) acknowledge(ctx context.Context, w *Webhook, u *unacknowledged) bool {
	if len(u.attempts) == 0 {
		return true
	}
	held, err := d.cfg.Store.acknowledge(ctx, d.cfg.Node, w, u.attempts, u.upTo)
	if err != nil {
		if ctx.Err() == nil {
			d.cfg.Logger.Warn("acknowledge webhook deliveries", "webhook", w.ID, "err", err)
		}
		return false
	}
	u.attempts = u.attempts[:0] // in the log now, whether or not the cursor moved
	if held {
		w.Cursor = u.upTo
	}
	return held
}

// failed records a failed attempt and schedules the next.
func (d *Deliverer) failed(ctx context.Context, w *Webhook, rec Delivery) {
	d.failures.Add(1)
	next := time.Now().Add(d.cfg.Backoff(w.Attempts + 1))
	rec.NextRetryAt = &next
	if err := d.cfg.Store.record(ctx, w, rec); err != nil {
		d.cfg.Logger.Warn("record webhook delivery", "webhook", w.ID, "err", err)
	}
	disabled, err := d.cfg.Store.fail(ctx, d.cfg.Node, w.ID, next, rec.Error)
	if err != nil {
		d.cfg.Logger.Warn("record webhook failure", "webhook", w.ID, "err", err)
	}
	if disabled {
		d.cfg.Logger.Warn("webhook disabled: its deliveries failed for 24 hours", "webhook", w.ID, "project", w.ProjectID, "err", rec.Error)
	}
}

// deliveryError says why a delivery got no answer, without Go's wrapping.
func deliveryError(err error) string {
	var blocked errBlocked
	if errors.As(err, &blocked) {
		return blocked.Error()
	}
	var ne net.Error
	if errors.As(err, &ne) && ne.Timeout() {
		return fmt.Sprintf("no answer within %v", Timeout)
	}
	msg := err.Error()
	if i := strings.LastIndex(msg, ": "); i >= 0 && strings.HasPrefix(msg, "Post ") {
		msg = msg[i+2:]
	}
	return msg
}

// keep is the part of a receiver's answer the delivery log keeps: at most
// MaxResponseKept bytes, as valid UTF-8 (a character cut in two, or any
// invalid byte, becomes U+FFFD).
func keep(b []byte) string {
	return strings.ToValidUTF8(string(b[:min(len(b), MaxResponseKept)]), "\uFFFD")
}
