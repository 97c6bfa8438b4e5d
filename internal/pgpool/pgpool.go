// Package pgpool opens PostgreSQL pools whose statements cannot outlive
// their request. lib/pq cancels a statement whose context ends by sending
// a CancelRequest on a second connection, but the statement's own socket
// read goes on waiting: against a database that stops answering (packets
// dropped, not refused) it waits for as long as the outage lasts. Here
// every statement's socket takes its context's deadline, so it fails at
// the deadline whatever the network does (within Overshoot); a new
// connection is given up when the context of the call that needs it ends,
// or after the connect timeout; and optionally the server gets a
// statement_timeout on the same budget.
package pgpool

import (
	"context"
	"database/sql"
	"database/sql/driver"
	"fmt"
	"net"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/lib/pq"
)

// Options bound a pool's connections and statements.
type Options struct {
	// ConnectTimeout bounds establishing one connection (TCP, TLS and
	// startup); a shorter connect_timeout in the URL stays. 0: none.
	ConnectTimeout time.Duration
	// StatementTimeout is set as the server's statement_timeout for every
	// connection, unless the URL sets one. 0: the server's default.
	StatementTimeout time.Duration
	// EndOnCancel makes a statement whose context is cancelled (not only
	// one past its deadline) stop waiting on its socket within
	// cancelGrace: for pools whose callers give up on a server that
	// stopped answering and retry elsewhere (read replicas). Each
	// statement then costs a context.AfterFunc.
	EndOnCancel bool
}

// Apply puts the options into a driver configuration.
func (o Options) Apply(cfg *pq.Config) {
	if o.ConnectTimeout > 0 && (cfg.ConnectTimeout <= 0 || cfg.ConnectTimeout > o.ConnectTimeout) {
		cfg.ConnectTimeout = o.ConnectTimeout
	}
	if o.StatementTimeout > 0 {
		for k := range cfg.Runtime {
			if strings.EqualFold(k, "statement_timeout") {
				return
			}
		}
		rt := make(map[string]string, len(cfg.Runtime)+1)
		for k, v := range cfg.Runtime {
			rt[k] = v
		}
		rt["statement_timeout"] = strconv.FormatInt(o.StatementTimeout.Milliseconds(), 10)
		cfg.Runtime = rt
	}
}

// Open parses a URL, applies the options and opens a pool (no I/O).
func Open(databaseURL string, o Options, edit func(*pq.Config)) (*sql.DB, error) {
	cfg, err := pq.NewConfig(databaseURL)
	if err != nil {
		return nil, err
	}
	o.Apply(&cfg)
	if edit != nil {
		edit(&cfg)
	}
	c, err := NewConnector(cfg)
	if err != nil {
		return nil, err
	}
	c.(*connector).endOnCancel = o.EndOnCancel
	return sql.OpenDB(c), nil
}

// NewConnector returns a connector whose connections take each
// statement's context deadline as their socket deadline.
func NewConnector(cfg pq.Config) (driver.Connector, error) {
	inner, err := pq.NewConnectorConfig(cfg)
	if err != nil {
		return nil, err
	}
	inner.Dialer(&dialer{})
	return &connector{inner: inner}, nil
}

type connector struct {
	inner       *pq.Connector
	endOnCancel bool
}

// slot receives the socket that lib/pq dials for one Connect call.
type slot struct {
	mu    sync.Mutex
	nc    net.Conn
	ended bool // the Connect's context ended: close the socket
}

type slotKey struct{}

// hold keeps the socket lib/pq dialed, or closes it when the Connect's
// context has already ended.
func (s *slot) hold(nc net.Conn) error {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.ended {
		nc.Close()
		return net.ErrClosed
	}
	s.nc = nc
	return nil
}

// end closes the socket of a Connect whose context ended, so that the
// startup exchange fails at once.
func (s *slot) end() {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.ended = true
	if s.nc != nil {
		s.nc.Close()
	}
}

// Connect establishes a connection within ctx. lib/pq bounds the TCP dial
// by ctx but the startup exchange only by its connect timeout, a fixed
// deadline set on the socket: a request that needs a new connection a
// moment before its deadline, against a database that stopped answering,
// would wait the whole connect timeout past it. The socket is closed when
// ctx ends instead.
func (c *connector) Connect(ctx context.Context) (driver.Conn, error) {
	s := &slot{}
	stop := context.AfterFunc(ctx, s.end)
	dc, err := c.inner.Connect(context.WithValue(ctx, slotKey{}, s))
	if !stop() && err == nil {
		// ctx ended as the connection was made: its socket is closed.
		dc.Close()
		err = ctx.Err()
	}
	if err != nil {
		if ctx.Err() != nil {
			return nil, fmt.Errorf("connect: %w (%w)", ctx.Err(), err)
		}
		return nil, err
	}
	pc, ok := dc.(pqConn)
	if !ok || s.nc == nil {
		return dc, nil
	}
	return &conn{pqConn: pc, nc: s.nc, endOnCancel: c.endOnCancel}, nil
}

func (c *connector) Driver() driver.Driver { return c.inner.Driver() }

// dialer hands each connection's socket to the Connect call that dialed
// it. A dial outside Connect is lib/pq's CancelRequest: see cancelTimeout.
type dialer struct{ d net.Dialer }

func (d *dialer) Dial(network, address string) (net.Conn, error) {
	return d.DialContext(context.Background(), network, address)
}

func (d *dialer) DialTimeout(network, address string, timeout time.Duration) (net.Conn, error) {
	ctx, cancel := context.WithTimeout(context.Background(), timeout)
	defer cancel()
	return d.DialContext(ctx, network, address)
}

func (d *dialer) DialContext(ctx context.Context, network, address string) (net.Conn, error) {
	s, inConnect := ctx.Value(slotKey{}).(*slot)
	var limit time.Time
	if !inConnect {
		limit = time.Now().Add(cancelTimeout)
		var cancel context.CancelFunc
		ctx, cancel = context.WithDeadline(ctx, limit)
		defer cancel()
	}
	nc, err := d.d.DialContext(ctx, network, address)
	if err != nil {
		return nil, err
	}
	if inConnect {
		if err := s.hold(nc); err != nil {
			return nil, err
		}
		return nc, nil
	}
	_ = nc.SetDeadline(limit)
	return cancelConn{Conn: nc, limit: limit}, nil
}

// cancelTimeout bounds lib/pq's CancelRequest as a whole: dialing, TLS,
// sending it and reading until the server closes. A prepared statement
// whose context ends waits for its cancel to finish before it returns
// (lib/pq's stmt.watchCancel), and lib/pq gives the exchange the pool's
// connect timeout: against a database that stopped answering, the
// statement's answer came that long (5 s) after its deadline. The cancel
// takes effect once it is sent, so this needs to cover a connection and
// one packet; one that does not get through leaves the statement to the
// server's statement_timeout.
const cancelTimeout = 250 * time.Millisecond

// cancelConn is a CancelRequest's socket: lib/pq sets its own deadline on
// it (now plus the connect timeout), which may not pass limit.
type cancelConn struct {
	net.Conn
	limit time.Time
}

func (c cancelConn) SetDeadline(t time.Time) error {
	if t.IsZero() || t.After(c.limit) {
		t = c.limit
	}
	return c.Conn.SetDeadline(t)
}

// pqConn is what lib/pq's connection offers database/sql.
type pqConn interface {
	driver.Conn
	driver.ConnPrepareContext
	driver.QueryerContext
	driver.ExecerContext
	driver.ConnBeginTx
	driver.Pinger
	driver.NamedValueChecker
	driver.SessionResetter
	driver.Validator
}

// conn arms its socket with the deadline of each call's context before
// passing the call on; the rows of a query are read under the same
// deadline. database/sql uses a connection from one goroutine at a time.
type conn struct {
	pqConn
	nc    net.Conn
	armed time.Time

	endOnCancel bool
	stopWatch   func() bool // the previous statement's cancel watch
	rearm       atomic.Bool // a cancel watch moved the deadline: set it again
}

// cancelGrace is how long after a context's deadline the socket itself
// gives up. lib/pq sends its CancelRequest when the context ends, but only
// if its watcher goroutine claims the statement before the statement
// returns: a socket that failed at the very same instant would end the
// statement first, the cancel would never be sent, and PostgreSQL would
// go on running it (a backend waiting on a lock does not notice its
// client left). The claim needs only that goroutine to be scheduled once
// the context ends, not the cancel's round trip (it is sent after the
// claim whatever the socket does), so the grace is a scheduling margin.
// It is also how late an answer can be against a database that stopped
// answering, so it is kept small (Overshoot).
const cancelGrace = 100 * time.Millisecond

// armSlack is how much later than its statement's deadline plus
// cancelGrace a socket may give up. Setting a socket's deadline costs a
// timer update in the runtime; every request has a deadline of its own,
// so a connection that takes a deadline up to armSlack past the one it
// needs keeps it for the statements of the next armSlack.
const armSlack = 100 * time.Millisecond

// Overshoot is the most a statement can outlast its context's deadline
// when the database stops answering: its socket gives up within
// cancelGrace+armSlack, and the cancel it may wait for within
// cancelTimeout.
const Overshoot = max(cancelGrace+armSlack, cancelTimeout)

func (c *conn) arm(ctx context.Context) {
	if c.endOnCancel {
		c.watch(ctx)
	}
	d, ok := ctx.Deadline()
	if !ok {
		if c.rearm.Swap(false) || !c.armed.IsZero() {
			_ = c.nc.SetDeadline(time.Time{})
			c.armed = time.Time{}
		}
		return
	}
	d = d.Add(cancelGrace)
	if c.rearm.Swap(false) || c.armed.IsZero() || c.armed.Before(d) || c.armed.After(d.Add(armSlack)) {
		c.armed = d.Add(armSlack)
		_ = c.nc.SetDeadline(c.armed)
	}
}

// watch ends the socket's wait cancelGrace after ctx is cancelled, as a
// deadline would (EndOnCancel). The watch lasts until the next statement
// replaces it, so that the rows of a query are covered too; one that
// fires after its statement ended only makes the next statement set its
// deadline again.
func (c *conn) watch(ctx context.Context) {
	if c.stopWatch != nil {
		c.stopWatch()
		c.stopWatch = nil
	}
	if ctx.Done() == nil {
		return
	}
	c.stopWatch = context.AfterFunc(ctx, func() {
		_ = c.nc.SetDeadline(time.Now().Add(cancelGrace))
		c.rearm.Store(true)
	})
}

func (c *conn) PrepareContext(ctx context.Context, query string) (driver.Stmt, error) {
	c.arm(ctx)
	st, err := c.pqConn.PrepareContext(ctx, query)
	if err != nil {
		return nil, err
	}
	if ps, ok := st.(pqStmt); ok {
		return &stmt{pqStmt: ps, c: c}, nil
	}
	return st, nil
}

func (c *conn) QueryContext(ctx context.Context, query string, args []driver.NamedValue) (driver.Rows, error) {
	c.arm(ctx)
	return c.pqConn.QueryContext(ctx, query, args)
}

func (c *conn) ExecContext(ctx context.Context, query string, args []driver.NamedValue) (driver.Result, error) {
	c.arm(ctx)
	return c.pqConn.ExecContext(ctx, query, args)
}

func (c *conn) BeginTx(ctx context.Context, opts driver.TxOptions) (driver.Tx, error) {
	c.arm(ctx)
	return c.pqConn.BeginTx(ctx, opts)
}

func (c *conn) Ping(ctx context.Context) error {
	c.arm(ctx)
	return c.pqConn.Ping(ctx)
}

type pqStmt interface {
	driver.Stmt
	driver.StmtQueryContext
	driver.StmtExecContext
}

type stmt struct {
	pqStmt
	c *conn
}

func (s *stmt) QueryContext(ctx context.Context, args []driver.NamedValue) (driver.Rows, error) {
	s.c.arm(ctx)
	return s.pqStmt.QueryContext(ctx, args)
}

func (s *stmt) ExecContext(ctx context.Context, args []driver.NamedValue) (driver.Result, error) {
	s.c.arm(ctx)
	return s.pqStmt.ExecContext(ctx, args)
}
