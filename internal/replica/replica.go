// Package replica sends the generated API's reads to PostgreSQL streaming
// replicas (issue 22): a read runs on a replica that is up, replaying and
// at most MaxLag behind the primary, and, for a client that wrote in the
// last moments, only on one that has replayed past that client's write;
// anything else, a replica that fails under a read included, runs on the
// primary. A health checker polls every replica's replayed position a few
// times a second, so the read path asks the replicas nothing.
package replica

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"log/slog"
	"net"
	"net/url"
	"sync"
	"sync/atomic"
	"time"

	"github.com/lib/pq"
	"github.com/redis/go-redis/v9"
	"github.com/redis/go-redis/v9/maintnotifications"

	"github.com/tablesmith/tablesmith/internal/pgexec"
	"github.com/tablesmith/tablesmith/internal/pgpool"
)

// DefaultMaxLag is how stale a replica's data may be for a read by a
// client that has not just written (max_replica_lag).
const DefaultMaxLag = time.Second

// DefaultPoll is how often the health checker reads every replica's
// position: often enough that a replica that fails or falls behind is
// out well within 2 s, rarely enough to cost nothing worth measuring.
const DefaultPoll = 250 * time.Millisecond

// checkTimeout bounds one health check of one replica: a replica that
// stops answering is out after this, not after the request timeout. Its
// statement waits at most this plus pgpool's grace on the socket (1 s in
// all), so that, with the poll, a lost replica is found within ~1.25 s.
const checkTimeout = 500 * time.Millisecond

// Config is what a Set is built from.
type Config struct {
	// Primary is the primary's data pool: reads of projects on it may go
	// to the replicas, and writes' positions are read from it.
	Primary *pgexec.Statements
	// PrimaryURL, when set, gives the health checker its own connection
	// to the primary, so that a busy data pool cannot delay its samples.
	PrimaryURL string
	// URLs are the replicas' PostgreSQL URLs, of the same database.
	URLs []string
	// MaxLag bounds the staleness of a replica that serves other clients'
	// reads (default DefaultMaxLag).
	MaxLag time.Duration
	// RedisURL, when set, shares write positions between nodes in Redis;
	// without it they are kept in the primary (an unlogged table).
	RedisURL string
	// Pool bounds the replicas' connections and statements, like the
	// primary's data pool.
	Pool               pgpool.Options
	MaxOpenConns       int
	PreparedStatements int
	Poll               time.Duration // default DefaultPoll
	Logger             *slog.Logger
	Now                func() time.Time
}

// Set is the replicas of one primary.
type Set struct {
	cfg       Config
	replicas  []*Replica
	store     positions
	recent    *recent
	redis     *redis.Client
	primaryDB *sql.DB
	sampleDB  *sql.DB // where the checker reads the primary's position

	next         atomic.Uint64 // round robin among fit replicas
	primaryReads atomic.Uint64
	wroteErrors  atomic.Uint64

	mu      sync.Mutex // guards hist
	hist    history
	stop    context.CancelFunc
	wg      sync.WaitGroup
	started bool
}

// Replica is one replica: its pools and its last known health.
type Replica struct {
	// Name identifies the replica in metrics and logs: host, port and
	// database of its URL, never its credentials.
	Name  string
	stmts *pgexec.Statements
	db    *sql.DB
	check *sql.DB // its own connection, so a busy pool cannot fail the check
	state atomic.Pointer[health]
	reads atomic.Uint64
	log   *slog.Logger

	// lost ends when a health check finds the replica unreachable: the
	// reads still waiting on it give up and go to the primary.
	lostMu   sync.Mutex
	lost     context.Context
	markLost context.CancelFunc
}

// lostContext is the context that ends when the replica is next found
// unreachable.
func (r *Replica) lostContext() context.Context {
	r.lostMu.Lock()
	defer r.lostMu.Unlock()
	if r.lost == nil {
		r.lost, r.markLost = context.WithCancel(context.Background())
	}
	return r.lost
}

// declareLost ends the reads waiting on the replica; later reads get a
// new context.
func (r *Replica) declareLost() {
	r.lostMu.Lock()
	defer r.lostMu.Unlock()
	if r.markLost != nil {
		r.markLost()
		r.lost, r.markLost = nil, nil
	}
}

// health is a replica's state as last checked.
type health struct {
	fit    bool          // may serve reads
	up     bool          // answered the last check as a replica
	replay LSN           // replayed position at the last check
	lag    time.Duration // staleness at the last check
	reason string        // why it is not fit, for logs
}

// New opens the replicas' pools (no I/O); Start begins checking them.
// Until the first check every read goes to the primary.
func New(cfg Config) (*Set, error) {
	if cfg.Primary == nil {
		return nil, errors.New("replica: no primary pool")
	}
	if cfg.MaxLag <= 0 {
		cfg.MaxLag = DefaultMaxLag
	}
	if cfg.Poll <= 0 {
		cfg.Poll = DefaultPoll
	}
	if cfg.Logger == nil {
		cfg.Logger = slog.Default()
	}
	if cfg.Now == nil {
		cfg.Now = time.Now
	}
	if cfg.MaxOpenConns <= 0 {
		cfg.MaxOpenConns = 20
	}
	// A position outlives the lag bound by a few seconds: after that any
	// fit replica has replayed it anyway.
	ttl := cfg.MaxLag + 5*time.Second
	s := &Set{cfg: cfg, primaryDB: cfg.Primary.DB(), recent: &recent{m: map[string]recentEntry{}, ttl: ttl},
		hist: history{keep: max(4*cfg.MaxLag, 10*time.Second), fresh: 2 * cfg.Poll}}
	if cfg.RedisURL != "" {
		opt, err := redis.ParseURL(cfg.RedisURL)
		if err != nil {
			return nil, fmt.Errorf("redis_url: %w", err)
		}
		opt.DialTimeout, opt.ReadTimeout, opt.WriteTimeout, opt.PoolTimeout = time.Second, time.Second, time.Second, time.Second
		opt.MaxRetries = 1
		opt.DisableIdentity = true
		opt.MaintNotificationsConfig = &maintnotifications.Config{Mode: maintnotifications.ModeDisabled}
		s.redis = redis.NewClient(opt)
		s.store = &redisPositions{client: s.redis, ttl: ttl}
	} else {
		s.store = &pgPositions{db: s.primaryDB, ttl: ttl}
	}
	s.sampleDB = s.primaryDB
	if cfg.PrimaryURL != "" {
		db, err := pgpool.Open(cfg.PrimaryURL, pgpool.Options{ConnectTimeout: time.Second, StatementTimeout: time.Second}, nil)
		if err != nil {
			return nil, fmt.Errorf("database_url: %w", err)
		}
		db.SetMaxOpenConns(1)
		db.SetMaxIdleConns(1)
		s.sampleDB = db
	}
	// A replica that is down should fail a connection attempt fast: the
	// read then still has time for the primary.
	opts := cfg.Pool
	opts.EndOnCancel = true
	opts.ConnectTimeout = min(max(opts.ConnectTimeout, 0), time.Second)
	if opts.ConnectTimeout == 0 {
		opts.ConnectTimeout = time.Second
	}
	for i, u := range cfg.URLs {
		db, err := pgpool.Open(u, opts, func(c *pq.Config) { c.BinaryParameters = true })
		if err != nil {
			s.closePools()
			return nil, fmt.Errorf("replica_url %d: %w", i+1, err)
		}
		db.SetMaxOpenConns(cfg.MaxOpenConns)
		db.SetMaxIdleConns(cfg.MaxOpenConns)
		db.SetConnMaxIdleTime(5 * time.Minute)
		check, err := pgpool.Open(u, pgpool.Options{ConnectTimeout: time.Second, StatementTimeout: time.Second}, nil)
		if err != nil {
			db.Close()
			s.closePools()
			return nil, fmt.Errorf("replica_url %d: %w", i+1, err)
		}
		check.SetMaxOpenConns(1)
		check.SetMaxIdleConns(1)
		r := &Replica{Name: nameOf(u, i), db: db, check: check, log: cfg.Logger,
			stmts: pgexec.NewStatements(db, cfg.PreparedStatements, cfg.Logger)}
		r.state.Store(&health{reason: "not checked yet"})
		s.replicas = append(s.replicas, r)
	}
	return s, nil
}

// nameOf is a replica's name for metrics: host:port/database.
func nameOf(raw string, i int) string {
	u, err := url.Parse(raw)
	if err != nil || u.Host == "" {
		if cfg, err := pq.NewConfig(raw); err == nil && cfg.Host != "" {
			return fmt.Sprintf("%s:%d/%s", cfg.Host, cfg.Port, cfg.Database)
		}
		return fmt.Sprintf("replica%d", i+1)
	}
	return u.Host + u.Path
}

// Start checks the replicas now and then every Poll until Close.
func (s *Set) Start(ctx context.Context) {
	s.mu.Lock()
	if s.started {
		s.mu.Unlock()
		return
	}
	s.started = true
	bg, stop := context.WithCancel(context.Background())
	s.stop = stop
	s.mu.Unlock()
	if p, ok := s.store.(*pgPositions); ok {
		// Created here rather than by the first write, so that nodes
		// starting together do not race on it under load.
		if err := p.ensure(ctx); err != nil {
			s.cfg.Logger.Warn("replica: cannot create tablesmith.read_positions; reads by clients who wrote go to the primary until it exists", "err", err)
		}
	}
	s.checkAll(ctx)
	s.wg.Add(1)
	go func() {
		defer s.wg.Done()
		t := time.NewTicker(s.cfg.Poll)
		defer t.Stop()
		sweep := time.NewTicker(time.Minute)
		defer sweep.Stop()
		for {
			select {
			case <-bg.Done():
				return
			case <-t.C:
				s.checkAll(bg)
			case <-sweep.C:
				s.recent.sweep(s.cfg.Now())
				if p, ok := s.store.(*pgPositions); ok {
					sctx, cancel := context.WithTimeout(bg, 5*time.Second)
					p.sweep(sctx)
					cancel()
				}
			}
		}
	}()
}

// Close stops the checker and closes the replicas' pools.
func (s *Set) Close() {
	if s.stop != nil {
		s.stop()
	}
	s.wg.Wait()
	s.closePools()
	if s.redis != nil {
		_ = s.redis.Close()
	}
}

func (s *Set) closePools() {
	if s.sampleDB != nil && s.sampleDB != s.primaryDB {
		s.sampleDB.Close()
	}
	for _, r := range s.replicas {
		r.stmts.Close()
		r.db.Close()
		r.check.Close()
	}
}

// Replicas are the set's replicas, in configuration order.
func (s *Set) Replicas() []*Replica { return s.replicas }

// Scope names whose write positions a read must respect: a credential
// of a project. Empty: an anonymous client, which no position follows.
func Scope(projectID, credential string) string {
	if credential == "" {
		return ""
	}
	return projectID + "/" + credential
}

// Read runs f, a read's statements, on a replica fit for a read by scope
// or else on primary. A replica that fails under f (lost, restarting,
// refusing connections, cancelling for recovery, or not yet holding a
// table the published schema names) hands the read to the primary, so
// the client sees no error; a lost one is out until its next good check.
// f may run twice, so it must only read and must not answer yet.
func (s *Set) Read(ctx context.Context, primary *pgexec.Statements, scope string, f func(context.Context, *pgexec.Statements) error) error {
	if primary != s.cfg.Primary || len(s.replicas) == 0 {
		return f(ctx, primary) // a fronted database, not ours to route
	}
	var pos LSN
	if scope != "" {
		var err error
		if pos, err = s.position(ctx, scope); err != nil {
			// Unknown whether the client just wrote: only the primary
			// is sure to hold its write.
			s.primaryReads.Add(1)
			return f(ctx, primary)
		}
	}
	r := s.pick(pos)
	if r == nil {
		s.primaryReads.Add(1)
		return f(ctx, primary)
	}
	// A replica that stops answering (packets dropped, not refused) is
	// found by its health check within ~2 s; the reads waiting on it are
	// then cut short (pgpool's EndOnCancel) and run on the primary,
	// instead of waiting for the request's deadline.
	lost := r.lostContext()
	rctx, cancel := context.WithCancel(ctx)
	stop := context.AfterFunc(lost, cancel)
	err := f(rctx, r.stmts)
	stop()
	cancel()
	switch {
	case err == nil, ctx.Err() != nil:
		r.reads.Add(1)
		return err
	case lost.Err() != nil:
	default:
		switch fault(err) {
		case faultNone:
			r.reads.Add(1)
			return err
		case faultReplica:
			r.markDown(err)
		}
	}
	s.primaryReads.Add(1)
	return f(ctx, primary)
}

// position is scope's newest write position: the larger of this node's
// memory and the shared store's.
func (s *Set) position(ctx context.Context, scope string) (LSN, error) {
	local := s.recent.get(scope, s.cfg.Now())
	shared, err := s.store.get(ctx, scope)
	if err != nil {
		return 0, err
	}
	return max(local, shared), nil
}

// pick returns a fit replica that has replayed at least pos, taking
// turns among them; nil when there is none.
func (s *Set) pick(pos LSN) *Replica {
	n := len(s.replicas)
	start := int(s.next.Add(1) % uint64(n))
	for i := 0; i < n; i++ {
		r := s.replicas[(start+i)%n]
		h := r.state.Load()
		if h.fit && h.replay >= pos {
			return r
		}
	}
	return nil
}

// Wrote records that scope's write on primary committed, before its
// answer leaves: that client's next reads, on any node, go to a replica
// only once it has replayed the write. A write whose position could not
// be recorded is logged; this node still remembers it if it got that far.
func (s *Set) Wrote(ctx context.Context, primary *pgexec.Statements, scope string) {
	if primary != s.cfg.Primary || scope == "" || len(s.replicas) == 0 {
		return
	}
	lsn, err := s.store.wrote(ctx, s.primaryDB, scope)
	if lsn > 0 {
		s.recent.put(scope, lsn, s.cfg.Now())
	}
	if err != nil {
		s.wroteErrors.Add(1)
		s.cfg.Logger.Warn("replica: could not record a write's WAL position; that client's reads on other nodes may miss the write for up to max_replica_lag",
			"err", err)
	}
}

// faultKind says what a read's error means for the replica it ran on.
type faultKind int

const (
	faultNone    faultKind = iota // the read's own error: answer it
	faultReplica                  // the replica failed: out, and retry on the primary
	faultBehind                   // the replica lacks what the read needs yet: retry on the primary
)

func fault(err error) faultKind {
	if errors.Is(err, context.DeadlineExceeded) || errors.Is(err, context.Canceled) {
		return faultNone
	}
	var pe *pq.Error
	if errors.As(err, &pe) {
		code := string(pe.Code)
		switch {
		case code == "42P01" || code == "42703" || code == "42883" || code == "3F000":
			// Undefined table, column, function or schema: a generate the
			// replica has not replayed yet.
			return faultBehind
		case code == "40001":
			// Cancelled because of a conflict with recovery.
			return faultBehind
		case code == "57014":
			return faultNone // a statement timeout: the primary would wait as long
		case len(code) == 5 && (code[:2] == "08" || code[:2] == "57" || code[:2] == "53" || code[:2] == "58" || code[:2] == "XX"):
			return faultReplica
		}
		return faultNone
	}
	// Not an answer of PostgreSQL: did the connection or the dial fail,
	// or is it the read's own answer (not found, a bad query)?
	var ne net.Error
	if errors.As(err, &ne) || pgexec.BrokenConnection(err) {
		return faultReplica
	}
	return faultNone
}

// markDown takes the replica out until its next good check.
func (r *Replica) markDown(err error) {
	old := r.state.Load()
	if old.fit {
		r.log.Warn("replica: a read failed on the replica; its reads go elsewhere until it answers again", "replica", r.Name, "err", err)
	}
	r.state.Store(&health{up: false, replay: old.replay, lag: old.lag, reason: "a read failed: " + err.Error()})
}

// Stat is one replica's health and use, for metrics.
type Stat struct {
	Name string
	// Up is whether the replica serves reads now (reachable, replaying,
	// within the lag bound).
	Up bool
	// Reachable is whether it answered its last check as a replica.
	Reachable bool
	// Lag is its data's staleness at the last check.
	Lag time.Duration
	// Reads is how many reads it served.
	Reads uint64
	// Reason says why it is not up.
	Reason string
}

// Stats are the replicas' health and use.
func (s *Set) Stats() []Stat {
	out := make([]Stat, len(s.replicas))
	for i, r := range s.replicas {
		h := r.state.Load()
		out[i] = Stat{Name: r.Name, Up: h.fit, Reachable: h.up, Lag: h.lag, Reads: r.reads.Load(), Reason: h.reason}
	}
	return out
}

// PrimaryReads is how many reads went to the primary: no replica was fit
// (down, behind, or behind the client's own write) or one failed.
func (s *Set) PrimaryReads() uint64 { return s.primaryReads.Load() }

// WroteErrors is how many writes' positions could not be recorded.
func (s *Set) WroteErrors() uint64 { return s.wroteErrors.Load() }
