// Command bare is the reference server of the benchmarks: plain net/http
// and a PostgreSQL driver running, for each operation, the statement a
// competent hand-written server runs, every one prepared once and reused,
// with no routing registry, credentials, rate limit, analytics or
// validation framework. What the module costs beyond it is Tablesmith's
// overhead.
//
// Paths mirror the generated API, /v1/<project>/<table>[/<id>], so the load
// driver sends both servers the same requests; the statements of those
// paths come from translate, as the module's do. Under /v1/ the driver is
// lib/pq with each SQL text prepared once (database/sql prepares it again
// on each connection that runs it); under /pgx/v1/ the same statements go
// through a pgx v5 pool, whose default statement cache prepares them; under
// /pgconn/v1/ through pgx's bare connections with no pool library
// (pgconn.go).
//
// GET /v1/<project>/users/active-by-age[?count=exact] is issue 18's list as
// one would write it by hand: active users, oldest first, the id as a
// tie-break in the same direction so that the (age) index serves the
// order, 20 rows as JSON like the module's data; with count=exact a second
// statement counts the active users.
//
// Two more prefixes serve include lists the way a hand-written server
// often does instead of one statement: /per-relation/v1/... (the page,
// then one query per relation for the whole page) and /n-plus-1/v1/...
// (the page, then one query per row), both on the lib/pq pool.
package main

import (
	"context"
	"database/sql"
	"errors"
	"flag"
	"log"
	"net"
	"net/http"
	_ "net/http/pprof"
	"os"
	"os/signal"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgxpool"
	"github.com/lib/pq"

	"github.com/tablesmith/tablesmith/access"
	"github.com/tablesmith/tablesmith/bench/fixture"
	"github.com/tablesmith/tablesmith/translate"
)

func main() {
	dbURL := flag.String("db", "", "PostgreSQL URL of the benchmark database")
	addr := flag.String("addr", "127.0.0.1:0", "listen address; the chosen one is printed")
	projects := flag.String("projects", "", "comma-separated project ids to serve")
	conns := flag.Int("conns", 8, "size of each database pool (lib/pq and pgx), as the module's max_connections")
	pprofAddr := flag.String("pprof", "", "serve net/http/pprof on this address")
	flag.Parse()
	if *dbURL == "" || *projects == "" {
		log.Fatal("bare: -db and -projects are required")
	}
	ctx := context.Background()
	pqDB := openPQ(*dbURL, *conns)
	pgxDB, err := openPgx(ctx, *dbURL, *conns)
	if err != nil {
		log.Fatal(err)
	}
	connDB := newConnPool(*dbURL, *conns)
	srv := &server{pq: pqDB, pgx: pgxDB, conn: connDB, projects: map[string]*project{}}
	for _, id := range strings.Split(*projects, ",") {
		pub, err := fixture.LoadPublished(ctx, pqDB.db, id)
		if err != nil {
			log.Fatal(err)
		}
		srv.projects[id] = &project{pub: pub, hand: fixture.HandWritten(pub)}
	}

	if *pprofAddr != "" {
		go func() { log.Println(http.ListenAndServe(*pprofAddr, nil)) }()
	}
	ln, err := net.Listen("tcp", *addr)
	if err != nil {
		log.Fatal(err)
	}
	// The driver reads this line to find the server.
	os.Stdout.WriteString("listening " + ln.Addr().String() + "\n")
	hs := &http.Server{Handler: srv, ReadHeaderTimeout: 10 * time.Second}
	go func() {
		sig := make(chan os.Signal, 1)
		signal.Notify(sig, syscall.SIGINT, syscall.SIGTERM)
		<-sig
		sctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
		defer cancel()
		_ = hs.Shutdown(sctx)
	}()
	if err := hs.Serve(ln); err != nil && err != http.ErrServerClosed {
		log.Fatal(err)
	}
	pqDB.db.Close()
	pgxDB.pool.Close()
	connDB.close()
}

// errNoRows is either driver's "no rows".
var errNoRows = errors.New("no rows")

// rowRunner runs a statement that selects one row and scans it.
type rowRunner interface {
	scanRow(ctx context.Context, query string, args []any, dest ...any) error
}

// pqPrepared is a lib/pq pool whose statements are prepared once per SQL
// text and kept: database/sql prepares a kept *sql.Stmt again, by itself,
// on each connection it runs on, so every execution after the first on a
// connection is one Bind/Execute round trip with no parsing or planning
// of a new text.
type pqPrepared struct {
	db    *sql.DB
	mu    sync.Mutex // serialises preparing, so a text is prepared once
	stmts sync.Map   // SQL text → *sql.Stmt
}

// openPQ opens a lib/pq pool with the settings of internal/service.New.
func openPQ(url string, conns int) *pqPrepared {
	cfg, err := pq.NewConfig(url)
	if err != nil {
		log.Fatal(err)
	}
	c, err := pq.NewConnectorConfig(cfg)
	if err != nil {
		log.Fatal(err)
	}
	db := sql.OpenDB(c)
	db.SetMaxOpenConns(conns)
	db.SetMaxIdleConns(conns)
	db.SetConnMaxIdleTime(5 * time.Minute)
	return &pqPrepared{db: db}
}

func (p *pqPrepared) stmt(ctx context.Context, query string) (*sql.Stmt, error) {
	if st, ok := p.stmts.Load(query); ok {
		return st.(*sql.Stmt), nil
	}
	p.mu.Lock()
	defer p.mu.Unlock()
	if st, ok := p.stmts.Load(query); ok {
		return st.(*sql.Stmt), nil
	}
	// Not the request's context: the statement outlives the request.
	st, err := p.db.PrepareContext(context.WithoutCancel(ctx), query)
	if err != nil {
		return nil, err
	}
	p.stmts.Store(query, st)
	return st, nil
}

func (p *pqPrepared) scanRow(ctx context.Context, query string, args []any, dest ...any) error {
	st, err := p.stmt(ctx, query)
	if err != nil {
		return err
	}
	err = st.QueryRowContext(ctx, args...).Scan(dest...)
	if errors.Is(err, sql.ErrNoRows) {
		return errNoRows
	}
	return err
}

// query runs a prepared statement that selects rows.
func (p *pqPrepared) query(ctx context.Context, query string, args ...any) (*sql.Rows, error) {
	st, err := p.stmt(ctx, query)
	if err != nil {
		return nil, err
	}
	return st.QueryContext(ctx, args...)
}

// pgxPool is a pgx v5 pool with its default query mode: each connection
// prepares a text the first time it runs it and keeps it in its
// statement cache.
type pgxPool struct{ pool *pgxpool.Pool }

func openPgx(ctx context.Context, url string, conns int) (*pgxPool, error) {
	cfg, err := pgxpool.ParseConfig(url)
	if err != nil {
		return nil, err
	}
	cfg.MaxConns = int32(conns)
	pool, err := pgxpool.NewWithConfig(ctx, cfg)
	if err != nil {
		return nil, err
	}
	return &pgxPool{pool: pool}, nil
}

func (p *pgxPool) scanRow(ctx context.Context, query string, args []any, dest ...any) error {
	err := p.pool.QueryRow(ctx, query, args...).Scan(dest...)
	if errors.Is(err, pgx.ErrNoRows) {
		return errNoRows
	}
	return err
}

type server struct {
	pq       *pqPrepared
	pgx      *pgxPool
	conn     *connPool
	projects map[string]*project
}

// project holds a project's published SQL and the list statements built
// from it, once per distinct query string.
type project struct {
	pub   *translate.Published
	hand  fixture.HandSQL
	lists sync.Map // table + "?" + raw query → *translate.ListSQL
	// inserts and updates by the set of columns present
	writes sync.Map // kind + column mask → string
}

func (s *server) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	path := r.URL.Path
	mode := ""
	var db rowRunner = s.pq
	for _, m := range []string{"/per-relation", "/n-plus-1", "/pgconn", "/pgx"} {
		if rest, ok := strings.CutPrefix(path, m); ok {
			mode, path = m[1:], rest
		}
	}
	switch mode {
	case "pgx":
		mode, db = "", s.pgx
	case "pgconn":
		mode, db = "", s.conn
	}
	rest, ok := strings.CutPrefix(path, "/v1/")
	if !ok {
		http.NotFound(w, r)
		return
	}
	parts := strings.Split(rest, "/")
	p := s.projects[parts[0]]
	if p == nil || len(parts) < 2 || len(parts) > 3 {
		http.NotFound(w, r)
		return
	}
	t, ok := p.pub.Tables[parts[1]]
	if !ok {
		http.NotFound(w, r)
		return
	}
	ctx := r.Context()
	var err error
	switch {
	case len(parts) == 2 && r.Method == http.MethodGet && mode != "":
		err = s.includeList(ctx, w, r, p, t, mode)
	case len(parts) == 2 && r.Method == http.MethodGet:
		err = list(ctx, db, w, r, p, t)
	case len(parts) == 2 && r.Method == http.MethodPost:
		err = write(ctx, db, w, r, p, t, 0)
	case r.Method == http.MethodGet && parts[2] == fixture.HandWrittenPath && p.hand.Page != "":
		err = handList(ctx, db, w, p.hand, r.URL.Query().Get("count") == "exact")
	case r.Method == http.MethodGet:
		var id int64
		if id, err = strconv.ParseInt(parts[2], 10, 64); err == nil {
			err = one(ctx, db, w, t.Get, "Record retrieved successfully", id)
		}
	case r.Method == http.MethodPatch:
		var id int64
		if id, err = strconv.ParseInt(parts[2], 10, 64); err == nil {
			err = write(ctx, db, w, r, p, t, id)
		}
	default:
		http.Error(w, "method not allowed", http.StatusMethodNotAllowed)
		return
	}
	if err == errNoRows {
		fixture.WriteJSON(w, http.StatusNotFound, fixture.NotFound)
		return
	}
	if err != nil {
		log.Printf("%s %s: %v", r.Method, r.URL, err)
		fixture.WriteJSON(w, http.StatusInternalServerError, []byte(`{"success":false,"error":{"code":"INTERNAL_ERROR","message":"`+
			strings.ReplaceAll(err.Error(), `"`, `'`)+`"}}`))
	}
}

// one runs a by-id statement that selects one JSON record.
func one(ctx context.Context, db rowRunner, w http.ResponseWriter, stmt, message string, args ...any) error {
	var data []byte
	if err := db.scanRow(ctx, stmt, args, &data); err != nil {
		return err
	}
	if data == nil {
		return errNoRows
	}
	fixture.WriteJSON(w, http.StatusOK, fixture.Envelope(data, message, nil))
	return nil
}

// handList serves the hand-written list: the page, and with exact the
// count as a second statement.
func handList(ctx context.Context, db rowRunner, w http.ResponseWriter, h fixture.HandSQL, exact bool) error {
	var data []byte
	if err := db.scanRow(ctx, h.Page, nil, &data); err != nil {
		return err
	}
	meta := translate.Meta{Page: 1, Limit: 20}
	if exact {
		var total int64
		if err := db.scanRow(ctx, h.Count, nil, &total); err != nil {
			return err
		}
		pages := (total + 19) / 20
		meta.Total, meta.TotalPages = &total, &pages
	}
	fixture.WriteJSON(w, http.StatusOK, fixture.Envelope(data, "", meta.AppendJSON(nil)))
	return nil
}

// list runs the statement translate builds for the query string, built on
// first use and reused, with the estimate the module runs when an
// estimated count reaches the cap.
func list(ctx context.Context, db rowRunner, w http.ResponseWriter, r *http.Request, p *project, t *translate.TableSQL) error {
	key := t.Table.Name + "?" + r.URL.RawQuery
	v, ok := p.lists.Load(key)
	if !ok {
		q, err := translate.ParseListUpTo(r.URL.Query(), 1000) // the module's max_page_size in the benchmark
		if err != nil {
			return err
		}
		q.Caller = access.Key("", false)
		ls, err := translate.BuildList(p.pub, t.Table, q)
		if err != nil {
			return err
		}
		v, _ = p.lists.LoadOrStore(key, ls)
	}
	ls := v.(*translate.ListSQL)
	var count sql.NullInt64
	var data, next []byte
	if err := db.scanRow(ctx, ls.SQL, ls.Args, &count, &data, &next); err != nil {
		return err
	}
	meta := ls.Meta(count)
	cursor, err := ls.NextCursor(next, data)
	if err != nil {
		return err
	}
	meta.NextCursor = cursor
	if ls.NeedsEstimate(count) {
		stmt, args := ls.Estimate()
		var plan []byte
		if err := db.scanRow(ctx, stmt, args, &plan); err != nil {
			return err
		}
		var err error
		if meta, err = ls.EstimatedMeta(plan); err != nil {
			return err
		}
	}
	fixture.WriteJSON(w, http.StatusOK, fixture.Envelope(data, "", meta.AppendJSON(nil)))
	return nil
}

// write creates (id 0) or patches a post with translate's INSERT or
// UPDATE for the columns present, in the table's column order as the
// module's validator gives them.
func write(ctx context.Context, db rowRunner, w http.ResponseWriter, r *http.Request, p *project, t *translate.TableSQL, id int64) error {
	if t.Table.Name != "posts" {
		http.Error(w, "bare writes posts only", http.StatusNotImplemented)
		return nil
	}
	in, problem := fixture.ReadPost(r.Body, id == 0)
	if problem != nil {
		fixture.WriteJSON(w, http.StatusBadRequest, problem)
		return nil
	}
	mask, names, args := in.Columns()
	kind := "u"
	if id == 0 {
		kind = "i"
	}
	key := kind + strconv.Itoa(mask)
	stmt, ok := p.writes.Load(key)
	if !ok {
		cols := fixture.ColumnsOf(t, names)
		if id == 0 {
			stmt = t.Insert(cols)
		} else {
			stmt = t.Update(cols, nil, false)
		}
		p.writes.Store(key, stmt)
	}
	status, message := http.StatusCreated, "Record created successfully"
	if id != 0 {
		args = append(args, id)
		status, message = http.StatusOK, "Record updated successfully"
	}
	var data []byte
	if err := db.scanRow(ctx, stmt.(string), args, &data); err != nil {
		return err
	}
	if data == nil {
		return errNoRows
	}
	fixture.WriteJSON(w, status, fixture.Envelope(data, message, nil))
	return nil
}
