package extdb

import (
	"context"
	"database/sql"
	"database/sql/driver"
	"errors"
	"log/slog"
	"sync"
	"time"

	"github.com/lib/pq"

	"github.com/tablesmith/tablesmith/apierr"
	"github.com/tablesmith/tablesmith/internal/pgexec"
	"github.com/tablesmith/tablesmith/internal/pgpool"
)

// Pools holds one connection pool per fronted database URL, shared by
// every project and request that uses the database, for the life of the
// service (a config reload keeps the service, and so the pools). Each pool
// has a connection limit and tracks the database's health: while the
// database is unreachable, requests fail at once with 503 instead of each
// waiting for a connect timeout, and the database is tried again every
// RetryInterval, by a background probe and by the first request after the
// interval, so the API recovers by itself when it comes back.
type Pools struct {
	// MaxOpenConns limits the connections of one pool on one node
	// (default 10).
	MaxOpenConns int
	// RetryInterval is how often a database that is down is tried again
	// (default 1s).
	RetryInterval time.Duration
	// PreparedStatements bounds each pool's prepared statements
	// (pgexec.Statements); 0 prepares nothing.
	PreparedStatements int
	Options            Options
	Logger             *slog.Logger
	Now                func() time.Time

	mu     sync.Mutex
	pools  map[string]*Pool
	closed bool
	stop   chan struct{}
	wg     sync.WaitGroup
}

// Pool is the pool of one fronted database.
type Pool struct {
	DB *sql.DB
	// Statements runs the generated API's statements on DB, prepared.
	Statements *pgexec.Statements
	Target     string // host:port/database, without credentials
	health     *health
}

// Health is what a pool knows about its database.
type Health struct {
	// State is up, down or unknown (no connection tried yet).
	State string `json:"state"`
	// Since is when the state began.
	Since *time.Time `json:"since,omitempty"`
	// Problem says why the database is down.
	Problem string `json:"problem,omitempty"`
}

// Health states.
const (
	StateUnknown = "unknown"
	StateUp      = "up"
	StateDown    = "down"
)

// ErrClosed is returned by Get after Close.
var ErrClosed = errors.New("extdb: pools are closed")

func (ps *Pools) init() {
	if ps.pools == nil {
		ps.pools = map[string]*Pool{}
		ps.stop = make(chan struct{})
	}
	if ps.MaxOpenConns <= 0 {
		ps.MaxOpenConns = 10
	}
	if ps.RetryInterval <= 0 {
		ps.RetryInterval = time.Second
	}
	if ps.Logger == nil {
		ps.Logger = slog.Default()
	}
	if ps.Now == nil {
		ps.Now = time.Now
	}
}

// Get returns the pool of a database URL, creating it on first use.
// Creating a pool opens no connection.
func (ps *Pools) Get(raw string) (*Pool, error) {
	ps.mu.Lock()
	defer ps.mu.Unlock()
	if ps.closed {
		return nil, ErrClosed
	}
	ps.init()
	if p, ok := ps.pools[raw]; ok {
		return p, nil
	}
	cfg, err := Config(raw, ps.Options)
	if err != nil {
		return nil, err
	}
	// Statements on the pool end by their request's deadline even when
	// the database stops answering (pgpool).
	inner, err := pgpool.NewConnector(cfg)
	if err != nil {
		return nil, &Problem{Kind: ProblemInvalidURL, Message: "the url cannot be used: " + err.Error(), Err: err}
	}
	h := &health{cfg: cfg, retry: ps.RetryInterval, now: ps.Now, log: ps.Logger, stop: ps.stop, wg: &ps.wg, inner: inner}
	db := sql.OpenDB(&trackedConnector{inner: inner, health: h})
	db.SetMaxOpenConns(ps.MaxOpenConns)
	db.SetMaxIdleConns(ps.MaxOpenConns)
	db.SetConnMaxIdleTime(2 * time.Minute)
	db.SetConnMaxLifetime(30 * time.Minute)
	h.flushIdle = func() {
		// Connections that sat idle while the database went away are
		// dead; dropping them spares the first requests after recovery
		// from finding that out one by one.
		db.SetMaxIdleConns(0)
		db.SetMaxIdleConns(ps.MaxOpenConns)
	}
	p := &Pool{DB: db, Statements: pgexec.NewStatements(db, ps.PreparedStatements, ps.Logger), Target: target(cfg), health: h}
	ps.pools[raw] = p
	return p, nil
}

// Close stops the probes and closes every pool.
func (ps *Pools) Close() {
	ps.mu.Lock()
	if ps.closed {
		ps.mu.Unlock()
		return
	}
	ps.closed = true
	ps.init()
	close(ps.stop)
	pools := ps.pools
	ps.pools = map[string]*Pool{}
	ps.mu.Unlock()
	ps.wg.Wait()
	for _, p := range pools {
		p.Statements.Close()
		p.DB.Close()
	}
}

// Health reports the database's state as the pool last saw it.
func (p *Pool) Health() Health { return p.health.report() }

// trackedConnector opens connections through the driver, refusing at
// once while the database is known to be down and between retries.
type trackedConnector struct {
	inner  driver.Connector
	health *health
}

func (c *trackedConnector) Connect(ctx context.Context) (driver.Conn, error) {
	if err := c.health.admit(); err != nil {
		return nil, err
	}
	conn, err := c.inner.Connect(ctx)
	if err != nil && ctx.Err() != nil {
		// The request gave up; that says nothing about the database.
		return nil, err
	}
	c.health.observe(err)
	if err != nil {
		return nil, unavailable(err)
	}
	return conn, nil
}

func (c *trackedConnector) Driver() driver.Driver { return c.inner.Driver() }

// unavailable is the error a request gets while its database is down:
// 503 SERVICE_UNAVAILABLE in the envelope. The message is for the API's
// callers, who need not learn the database's address; the project's
// owner sees the cause in the platform API.
func unavailable(cause error) error {
	return &apierr.Error{Code: apierr.CodeUnavailable,
		Message: "The project's database is unreachable right now; try again shortly", Cause: cause}
}

type health struct {
	cfg       pq.Config
	inner     driver.Connector
	retry     time.Duration
	now       func() time.Time
	log       *slog.Logger
	stop      chan struct{}
	wg        *sync.WaitGroup
	flushIdle func()

	mu      sync.Mutex
	state   string
	since   time.Time
	lastTry time.Time
	lastErr error
	probing bool
}

// admit lets a connection attempt through unless the database is down
// and was tried less than one retry interval ago.
func (h *health) admit() error {
	h.mu.Lock()
	defer h.mu.Unlock()
	now := h.now()
	if h.state == StateDown && now.Sub(h.lastTry) < h.retry {
		return unavailable(h.lastErr)
	}
	h.lastTry = now
	return nil
}

// observe records the outcome of a connection attempt.
func (h *health) observe(err error) {
	h.mu.Lock()
	defer h.mu.Unlock()
	now := h.now()
	h.lastTry = now
	if err == nil {
		if h.state != StateUp {
			if h.state == StateDown {
				h.log.Info("fronted database is reachable again", "database", target(h.cfg), "down_for", now.Sub(h.since).Round(time.Millisecond))
			}
			h.state, h.since, h.lastErr = StateUp, now, nil
		}
		return
	}
	h.lastErr = err
	if h.state == StateDown {
		return
	}
	h.state, h.since = StateDown, now
	h.log.Warn("fronted database is unreachable", "database", target(h.cfg), "err", Classify(err, h.cfg).Message)
	if h.flushIdle != nil {
		go h.flushIdle()
	}
	if !h.probing {
		h.probing = true
		h.wg.Add(1)
		go h.probe()
	}
}

// probe tries the database every retry interval until it answers, so the
// health state recovers even when no request comes.
func (h *health) probe() {
	defer h.wg.Done()
	t := time.NewTicker(h.retry)
	defer t.Stop()
	for {
		select {
		case <-h.stop:
			return
		case <-t.C:
		}
		h.mu.Lock()
		down := h.state == StateDown
		if !down {
			h.probing = false
		}
		h.mu.Unlock()
		if !down {
			return
		}
		ctx, cancel := context.WithTimeout(context.Background(), h.cfg.ConnectTimeout+time.Second)
		conn, err := h.inner.Connect(ctx)
		cancel()
		if err == nil {
			conn.Close()
		}
		h.observe(err)
	}
}

func (h *health) report() Health {
	h.mu.Lock()
	defer h.mu.Unlock()
	if h.state == "" {
		return Health{State: StateUnknown}
	}
	since := h.since
	r := Health{State: h.state, Since: &since}
	if h.lastErr != nil && h.state == StateDown {
		r.Problem = Classify(h.lastErr, h.cfg).Message
	}
	return r
}
