// Command bare is the reference server of the benchmarks: plain net/http
// and lib/pq running, for each operation, the very statement Tablesmith
// runs (its text comes from translate, as the module's does), with no
// routing registry, credentials, rate limit, analytics or validation
// framework. What the module costs beyond it is Tablesmith's overhead.
//
// Paths mirror the generated API, /v1/<project>/<table>[/<id>], so the load
// driver sends both servers the same requests. Under /binary/v1/... the
// same statements go through a second pool opened with lib/pq's
// binary_parameters=yes, as the module's data pool is (one round trip per
// statement instead of two). Two more prefixes serve include lists the way
// a hand-written server often does instead of one statement:
// /per-relation/v1/... (the page, then one query per relation for the
// whole page) and /n-plus-1/v1/... (the page, then one query per row).
package main

import (
	"context"
	"database/sql"
	"encoding/json"
	"flag"
	"github.com/tablesmith/tablesmith/internal/access"
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

	"github.com/lib/pq"

	"github.com/tablesmith/tablesmith/bench/fixture"
	"github.com/tablesmith/tablesmith/schema"
	"github.com/tablesmith/tablesmith/translate"
)

func main() {
	dbURL := flag.String("db", "", "PostgreSQL URL of the benchmark database")
	addr := flag.String("addr", "127.0.0.1:0", "listen address; the chosen one is printed")
	projects := flag.String("projects", "", "comma-separated project ids to serve")
	conns := flag.Int("conns", 20, "database pool size (as the module's max_connections)")
	pprofAddr := flag.String("pprof", "", "serve net/http/pprof on this address")
	flag.Parse()
	if *dbURL == "" || *projects == "" {
		log.Fatal("bare: -db and -projects are required")
	}
	srv := &server{db: openPool(*dbURL, false, *conns), binary: openPool(*dbURL, true, *conns), projects: map[string]*project{}}
	db := srv.db
	ctx := context.Background()
	for _, id := range strings.Split(*projects, ",") {
		pub, err := fixture.LoadPublished(ctx, db, id)
		if err != nil {
			log.Fatal(err)
		}
		srv.projects[id] = &project{pub: pub}
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
	srv.db.Close()
	srv.binary.Close()
}

// openPool opens a pool with the settings of internal/service.New.
func openPool(url string, binary bool, conns int) *sql.DB {
	cfg, err := pq.NewConfig(url)
	if err != nil {
		log.Fatal(err)
	}
	cfg.BinaryParameters = binary
	c, err := pq.NewConnectorConfig(cfg)
	if err != nil {
		log.Fatal(err)
	}
	db := sql.OpenDB(c)
	db.SetMaxOpenConns(conns)
	db.SetMaxIdleConns(conns)
	db.SetConnMaxIdleTime(5 * time.Minute)
	return db
}

type server struct {
	db       *sql.DB // lib/pq's defaults
	binary   *sql.DB // binary_parameters=yes
	projects map[string]*project
}

// project holds a project's published SQL and the list statements built
// from it, once per distinct query string.
type project struct {
	pub   *translate.Published
	lists sync.Map // table + "?" + raw query → *translate.ListSQL
	// inserts and updates by the set of columns present
	writes sync.Map // kind + column mask → string
}

func (s *server) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	path := r.URL.Path
	mode, db := "", s.db
	for _, m := range []string{"/per-relation", "/n-plus-1", "/binary"} {
		if rest, ok := strings.CutPrefix(path, m); ok {
			mode, path = m[1:], rest
		}
	}
	if mode == "binary" {
		mode, db = "", s.binary
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
	if err == sql.ErrNoRows {
		writeJSON(w, http.StatusNotFound, []byte(`{"success":false,"error":{"code":"NOT_FOUND","message":"Record not found"}}`))
		return
	}
	if err != nil {
		log.Printf("%s %s: %v", r.Method, r.URL, err)
		writeJSON(w, http.StatusInternalServerError, []byte(`{"success":false,"error":{"code":"INTERNAL_ERROR","message":"`+
			strings.ReplaceAll(err.Error(), `"`, `'`)+`"}}`))
	}
}

// one runs a by-id statement that selects one JSON record.
func one(ctx context.Context, db *sql.DB, w http.ResponseWriter, stmt, message string, args ...any) error {
	var data []byte
	if err := db.QueryRowContext(ctx, stmt, args...).Scan(&data); err != nil {
		return err
	}
	if data == nil {
		return sql.ErrNoRows
	}
	writeJSON(w, http.StatusOK, envelope(data, message, nil))
	return nil
}

// list runs the statement translate builds for the query string, built on
// first use and reused, with the estimate the module runs when an
// estimated count reaches the cap.
func list(ctx context.Context, db *sql.DB, w http.ResponseWriter, r *http.Request, p *project, t *translate.TableSQL) error {
	key := t.Table.Name + "?" + r.URL.RawQuery
	v, ok := p.lists.Load(key)
	if !ok {
		q, err := translate.ParseList(r.URL.Query())
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
	var data []byte
	if err := db.QueryRowContext(ctx, ls.SQL, ls.Args...).Scan(&count, &data); err != nil {
		return err
	}
	meta := ls.Meta(count)
	if ls.NeedsEstimate(count) {
		stmt, args := ls.Estimate()
		var plan []byte
		if err := db.QueryRowContext(ctx, stmt, args...).Scan(&plan); err != nil {
			return err
		}
		var err error
		if meta, err = ls.EstimatedMeta(plan); err != nil {
			return err
		}
	}
	writeJSON(w, http.StatusOK, envelope(data, "", meta.AppendJSON(nil)))
	return nil
}

// postInput is a posts body, decoded the way a hand-written server would.
type postInput struct {
	Title     *string `json:"title"`
	Views     *int64  `json:"views"`
	Published *bool   `json:"published"`
	AuthorID  *int64  `json:"author_id"`
}

// write creates (id 0) or patches a post with translate's INSERT or
// UPDATE for the columns present, in the table's column order as the
// module's validator gives them.
func write(ctx context.Context, db *sql.DB, w http.ResponseWriter, r *http.Request, p *project, t *translate.TableSQL, id int64) error {
	if t.Table.Name != "posts" {
		http.Error(w, "bare writes posts only", http.StatusNotImplemented)
		return nil
	}
	var in postInput
	if err := json.NewDecoder(r.Body).Decode(&in); err != nil {
		writeJSON(w, http.StatusBadRequest, []byte(`{"success":false,"error":{"code":"INVALID_JSON","message":"bad body"}}`))
		return nil
	}
	var names []string
	var args []any
	mask := 0
	add := func(bit int, name string, present bool, v any) {
		if present {
			mask |= bit
			names = append(names, name)
			args = append(args, v)
		}
	}
	add(1, "title", in.Title != nil, deref(in.Title))
	add(2, "views", in.Views != nil, deref(in.Views))
	add(4, "published", in.Published != nil, deref(in.Published))
	add(8, "author_id", in.AuthorID != nil, deref(in.AuthorID))
	if id == 0 && (in.Title == nil || in.AuthorID == nil) {
		writeJSON(w, http.StatusBadRequest, []byte(`{"success":false,"error":{"code":"VALIDATION_ERROR","message":"title and author_id are required"}}`))
		return nil
	}
	kind := "u"
	if id == 0 {
		kind = "i"
	}
	key := kind + strconv.Itoa(mask)
	stmt, ok := p.writes.Load(key)
	if !ok {
		cols := make([]*schema.CColumn, len(names))
		for i, n := range names {
			cols[i], _ = t.Table.Column(n)
		}
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
	if err := db.QueryRowContext(ctx, stmt.(string), args...).Scan(&data); err != nil {
		return err
	}
	if data == nil {
		return sql.ErrNoRows
	}
	writeJSON(w, status, envelope(data, message, nil))
	return nil
}

func deref[T any](p *T) any {
	if p == nil {
		return nil
	}
	return *p
}

// envelope wraps raw JSON data as the contract's success envelope.
func envelope(data []byte, message string, meta []byte) []byte {
	b := make([]byte, 0, len(data)+len(meta)+96)
	b = append(b, `{"success":true,"data":`...)
	b = append(b, data...)
	if message != "" {
		b = append(b, `,"message":"`...)
		b = append(b, message...)
		b = append(b, '"')
	}
	if meta != nil {
		b = append(b, `,"meta":`...)
		b = append(b, meta...)
	}
	return append(b, '}', '\n')
}

func writeJSON(w http.ResponseWriter, status int, body []byte) {
	h := w.Header()
	h.Set("Content-Type", "application/json; charset=utf-8")
	w.WriteHeader(status)
	_, _ = w.Write(body)
}
