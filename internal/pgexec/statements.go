package pgexec

import (
	"container/list"
	"context"
	"database/sql"
	"errors"
	"log/slog"
	"sync"
	"sync/atomic"

	"github.com/lib/pq"
)

// Statements runs a pool's generated-API statements as prepared
// statements: one per distinct SQL text, prepared on a connection the
// first time it runs there, and kept in a bounded least-recently-used
// cache. PostgreSQL then parses and analyses each text once per
// connection instead of once per request, and, once a statement has run
// a few times, reuses a generic plan when it costs no more than the
// custom ones (plan_cache_mode auto). bench/RESULTS.md has the numbers.
//
// The statements a request can produce are few per table (get, insert
// and update per column set, delete, one list per query shape), but
// query strings are the client's, so the cache is bounded: the least
// recently used statement is closed (on every connection) when a new one
// would exceed Max. A statement is closed only once no request is
// between looking it up and starting it.
//
// A connection that does not keep named statements between requests (a
// pooler such as PgBouncer in transaction mode, or a DISCARD ALL) answers
// "prepared statement does not exist" or "already exists": the request
// runs again unprepared, and Statements stops preparing for the pool.
type Statements struct {
	db  *sql.DB
	max int
	log *slog.Logger

	off atomic.Bool // set when the connections do not keep prepared statements

	mu     sync.Mutex
	byText map[string]*prepared
	order  list.List // of *prepared, most recently used first
}

type prepared struct {
	text  string
	elem  *list.Element
	ready chan struct{} // closed when preparing ended; stmt is nil if it failed
	stmt  *sql.Stmt
	users int  // requests between acquire and release
	gone  bool // evicted or forgotten: close at the last release
}

// NewStatements returns the prepared statements of db, at most max of
// them; max 0 prepares nothing (every call runs on db directly). logger
// may be nil.
func NewStatements(db *sql.DB, max int, logger *slog.Logger) *Statements {
	if logger == nil {
		logger = slog.Default()
	}
	return &Statements{db: db, max: max, log: logger, byText: map[string]*prepared{}}
}

// DB is the pool the statements run on.
func (s *Statements) DB() *sql.DB { return s.db }

// Len is the number of statements held.
func (s *Statements) Len() int {
	s.mu.Lock()
	defer s.mu.Unlock()
	return len(s.byText)
}

// Enabled reports whether statements are prepared.
func (s *Statements) Enabled() bool { return s.max > 0 && !s.off.Load() }

// QueryRowContext runs query as a prepared statement, or directly when
// preparing is off or preparing it failed (the direct run then reports
// the statement's error, as it would have without preparing).
func (s *Statements) QueryRowContext(ctx context.Context, query string, args ...any) *sql.Row {
	if !s.Enabled() {
		return s.db.QueryRowContext(ctx, query, args...)
	}
	p := s.acquire(ctx, query)
	if p == nil {
		return s.db.QueryRowContext(ctx, query, args...)
	}
	// The returned row holds its connection and keeps the statement
	// open until it is scanned, so releasing now is safe.
	row := p.stmt.QueryRowContext(ctx, args...)
	s.release(p)
	return row
}

// acquire returns the prepared statement for query, preparing it if
// needed; nil if it could not be prepared.
func (s *Statements) acquire(ctx context.Context, query string) *prepared {
	s.mu.Lock()
	p, ok := s.byText[query]
	if ok {
		p.users++
		s.order.MoveToFront(p.elem)
		s.mu.Unlock()
		select {
		case <-p.ready:
		case <-ctx.Done():
			s.release(p)
			return nil
		}
		if p.stmt == nil {
			s.release(p)
			return nil
		}
		return p
	}
	p = &prepared{text: query, ready: make(chan struct{}), users: 1}
	p.elem = s.order.PushFront(p)
	s.byText[query] = p
	var evicted []*sql.Stmt
	for len(s.byText) > s.max {
		if st := s.dropLocked(s.order.Back().Value.(*prepared)); st != nil {
			evicted = append(evicted, st)
		}
	}
	s.mu.Unlock()
	for _, st := range evicted {
		st.Close()
	}

	// Prepare outside the lock, on a context that a cancelled request
	// does not end half-way: others may be waiting for this statement. It
	// keeps the request's deadline, so a database that stops answering
	// cannot hold the preparation (and its waiters) past it.
	pctx := context.WithoutCancel(ctx)
	if d, ok := ctx.Deadline(); ok {
		var cancel context.CancelFunc
		pctx, cancel = context.WithDeadline(pctx, d)
		defer cancel()
	}
	stmt, err := s.db.PrepareContext(pctx, query)
	s.mu.Lock()
	if err == nil {
		p.stmt = stmt
	} else if s.byText[query] == p {
		s.order.Remove(p.elem)
		delete(s.byText, query)
	}
	close(p.ready)
	s.mu.Unlock()
	if err != nil {
		s.noteError(err)
		s.release(p)
		return nil
	}
	return p
}

// release ends a request's use of p; the last user of a statement that
// left the cache closes it.
func (s *Statements) release(p *prepared) {
	s.mu.Lock()
	p.users--
	var st *sql.Stmt
	if p.gone && p.users == 0 {
		st, p.stmt = p.stmt, nil
	}
	s.mu.Unlock()
	if st != nil {
		st.Close()
	}
}

// dropLocked removes p from the cache and returns its statement if it
// can be closed now (no request is using it); otherwise its last release
// closes it.
func (s *Statements) dropLocked(p *prepared) *sql.Stmt {
	s.order.Remove(p.elem)
	delete(s.byText, p.text)
	p.gone = true
	if p.users > 0 {
		return nil
	}
	st := p.stmt
	p.stmt = nil
	return st
}

// Forget closes the statement for query, if held: the next run prepares
// it again.
func (s *Statements) Forget(query string) {
	s.mu.Lock()
	var st *sql.Stmt
	if p, ok := s.byText[query]; ok {
		st = s.dropLocked(p)
	}
	s.mu.Unlock()
	if st != nil {
		st.Close()
	}
}

// Close closes every statement held; later calls run unprepared.
func (s *Statements) Close() {
	s.off.Store(true)
	s.closeAll()
}

// retry reports whether a statement that failed with err should run
// again unprepared, and adjusts the cache: err says the prepared form is
// unusable, which PostgreSQL reports before the statement does anything,
// so running it again is safe for writes too. It does not ask whether
// preparing is still on: a concurrent request may have just turned it
// off because of the same kind of error.
func (s *Statements) retry(err error, query string) bool {
	if err == nil {
		return false // before pe: taking its address moves it to the heap
	}
	var pe *pq.Error
	if !errors.As(err, &pe) {
		return false
	}
	switch pe.Code {
	case "26000", "42P05": // prepared statement does not exist / already exists
		s.noteError(err)
		return true
	case "0A000": // cached plan must not change result type
		s.Forget(query)
		return true
	}
	return false
}

// noteError turns preparing off for good when the connections do not
// keep named statements.
func (s *Statements) noteError(err error) {
	var pe *pq.Error
	if !errors.As(err, &pe) || (pe.Code != "26000" && pe.Code != "42P05") {
		return
	}
	if s.off.CompareAndSwap(false, true) {
		s.log.Warn("the database connections do not keep prepared statements (a pooler in transaction mode?); running statements unprepared from now on",
			"error", err.Error())
		go s.closeAll()
	}
}

func (s *Statements) closeAll() {
	s.mu.Lock()
	var sts []*sql.Stmt
	for s.order.Len() > 0 {
		if st := s.dropLocked(s.order.Front().Value.(*prepared)); st != nil {
			sts = append(sts, st)
		}
	}
	s.mu.Unlock()
	for _, st := range sts {
		st.Close()
	}
}
