package main

import (
	"context"
	"database/sql"
	"fmt"
	"strconv"
	"sync/atomic"

	"github.com/jackc/pgx/v5/pgconn"
)

// connPool runs statements on pgx's low-level connections (pgconn) with
// no database/sql and no pool library: a channel of connections, each
// preparing a text the first time it runs it. Parameters and results go
// as text, as lib/pq sends them. It is the cheapest way this module's
// dependencies reach PostgreSQL (bench/RESULTS.md, round 8: what the
// driver layer costs a request), served under /pgconn/v1/. Connections
// open on first use, so the benchmarks of the other routes hold no
// PostgreSQL connection for it.
type connPool struct {
	url    string
	idle   chan *preparedConn
	opened atomic.Int32
}

type preparedConn struct {
	pg    *pgconn.PgConn
	names map[string]string // SQL text → prepared statement name
}

func newConnPool(url string, conns int) *connPool {
	return &connPool{url: url, idle: make(chan *preparedConn, conns)}
}

// get takes an idle connection, opens one while fewer than the pool's
// size are open, or waits for one.
func (p *connPool) get(ctx context.Context) (*preparedConn, error) {
	select {
	case c := <-p.idle:
		return c, nil
	default:
	}
	if n := p.opened.Add(1); int(n) <= cap(p.idle) {
		c, err := p.connect(ctx)
		if err != nil {
			p.opened.Add(-1)
		}
		return c, err
	}
	p.opened.Add(-1)
	select {
	case c := <-p.idle:
		return c, nil
	case <-ctx.Done():
		return nil, ctx.Err()
	}
}

func (p *connPool) connect(ctx context.Context) (*preparedConn, error) {
	pg, err := pgconn.Connect(ctx, p.url)
	if err != nil {
		return nil, err
	}
	return &preparedConn{pg: pg, names: map[string]string{}}, nil
}

// put returns a connection to the pool, or a new one in place of a
// connection that a cancelled request closed (pgconn closes the
// connection whose statement's context ends).
func (p *connPool) put(c *preparedConn) {
	if c.pg.IsClosed() {
		if fresh, err := p.connect(context.Background()); err == nil {
			c = fresh
		}
	}
	p.idle <- c
}

// close closes the idle connections (at shutdown every one is idle).
func (p *connPool) close() {
	for {
		select {
		case c := <-p.idle:
			_ = c.pg.Close(context.Background())
		default:
			return
		}
	}
}

func (p *connPool) scanRow(ctx context.Context, query string, args []any, dest ...any) error {
	c, err := p.get(ctx)
	if err != nil {
		return err
	}
	defer p.put(c)
	name, ok := c.names[query]
	if !ok {
		name = "s" + strconv.Itoa(len(c.names))
		if _, err := c.pg.Prepare(ctx, name, query, nil); err != nil {
			return err
		}
		c.names[query] = name
	}
	params := make([][]byte, len(args))
	for i, a := range args {
		var err error
		if params[i], err = textParam(a); err != nil {
			return err
		}
	}
	rr := c.pg.ExecPrepared(ctx, name, params, nil, nil)
	found := false
	for rr.NextRow() {
		if found {
			continue
		}
		found = true
		if err := scanText(rr.Values(), dest); err != nil {
			_, _ = rr.Close()
			return err
		}
	}
	if _, err := rr.Close(); err != nil {
		return err
	}
	if !found {
		return errNoRows
	}
	return nil
}

// textParam writes a parameter in PostgreSQL's text format (nil: NULL).
func textParam(v any) ([]byte, error) {
	switch v := v.(type) {
	case nil:
		return nil, nil
	case string:
		return []byte(v), nil
	case int64:
		return strconv.AppendInt(nil, v, 10), nil
	case bool:
		if v {
			return []byte("t"), nil
		}
		return []byte("f"), nil
	}
	return nil, fmt.Errorf("pgconn runner: parameter of type %T", v)
}

// scanText copies a row's text values into the destinations bench/bare
// scans: JSON as bytes, counts as integers.
func scanText(values [][]byte, dest []any) error {
	if len(values) != len(dest) {
		return fmt.Errorf("pgconn runner: %d columns for %d destinations", len(values), len(dest))
	}
	for i, d := range dest {
		v := values[i]
		switch d := d.(type) {
		case *[]byte:
			if v == nil {
				*d = nil
			} else {
				*d = append((*d)[:0], v...)
			}
		case *sql.NullInt64:
			d.Valid = v != nil
			if d.Valid {
				n, err := strconv.ParseInt(string(v), 10, 64)
				if err != nil {
					return err
				}
				d.Int64 = n
			}
		case *int64:
			n, err := strconv.ParseInt(string(v), 10, 64)
			if err != nil {
				return err
			}
			*d = n
		default:
			return fmt.Errorf("pgconn runner: destination of type %T", d)
		}
	}
	return nil
}
