// Package caddybare is bench/bare's GET by id, hand-written list and
// create of a post as a Caddy handler: the same prepared lib/pq
// statements and the same answer,
// with nothing of the module around them (no credential, limiter, gate,
// deadline, request id or ETag). Run in Caddyfile.example's layout in
// place of tablesmith_api, it is what Caddy itself leaves of the bare
// server's pace: the ceiling of any handler under Caddy (bench/RESULTS.md,
// round 6). Only the benchmark's build (-tags bench) registers it.
//
//	bench_bare /v1/*
//
// serves the project TABLESMITH_BENCH_BARE_PROJECT of the database at
// TABLESMITH_BENCH_BARE_URL, with a pool of TABLESMITH_BENCH_BARE_POOL
// connections (default 8), and the statements bench/bare runs: the
// module's GET text, the hand-written list (fixture.HandWritten), and the
// module's INSERT … RETURNING for the columns a posts body has.
package caddybare

import (
	"database/sql"
	"errors"
	"net/http"
	"os"
	"strconv"
	"strings"
	"sync"

	"github.com/caddyserver/caddy/v2"
	"github.com/caddyserver/caddy/v2/caddyconfig/httpcaddyfile"
	"github.com/caddyserver/caddy/v2/modules/caddyhttp"
	_ "github.com/lib/pq"

	"github.com/tablesmith/tablesmith/bench/fixture"
	"github.com/tablesmith/tablesmith/translate"
)

func init() {
	caddy.RegisterModule(Handler{})
	httpcaddyfile.RegisterHandlerDirective("bench_bare", func(h httpcaddyfile.Helper) (caddyhttp.MiddlewareHandler, error) {
		h.Next()
		return &Handler{}, nil
	})
	httpcaddyfile.RegisterDirectiveOrder("bench_bare", httpcaddyfile.Before, "handle")
}

// Handler serves the bare routes.
type Handler struct {
	db        *sql.DB
	get, list *sql.Stmt
	posts     *translate.TableSQL
	inserts   *sync.Map // fixture.PostInput.Columns mask → *sql.Stmt
}

// CaddyModule registers the handler.
func (Handler) CaddyModule() caddy.ModuleInfo {
	return caddy.ModuleInfo{ID: "http.handlers.bench_bare", New: func() caddy.Module { return new(Handler) }}
}

// Provision opens the pool and prepares both statements once.
func (h *Handler) Provision(ctx caddy.Context) error {
	conns := 8
	if v := os.Getenv("TABLESMITH_BENCH_BARE_POOL"); v != "" {
		n, err := strconv.Atoi(v)
		if err != nil || n < 1 {
			return errors.New("bench_bare: TABLESMITH_BENCH_BARE_POOL is not a positive number")
		}
		conns = n
	}
	db, err := sql.Open("postgres", os.Getenv("TABLESMITH_BENCH_BARE_URL"))
	if err != nil {
		return err
	}
	db.SetMaxOpenConns(conns)
	db.SetMaxIdleConns(conns)
	h.db = db
	h.inserts = new(sync.Map)
	pub, err := fixture.LoadPublished(ctx, db, os.Getenv("TABLESMITH_BENCH_BARE_PROJECT"))
	if err != nil {
		return err
	}
	users, ok := pub.Tables["users"]
	if !ok {
		return errors.New("bench_bare: the project has no users table")
	}
	if h.posts, ok = pub.Tables["posts"]; !ok {
		return errors.New("bench_bare: the project has no posts table")
	}
	if h.get, err = db.PrepareContext(ctx, users.Get); err != nil {
		return err
	}
	h.list, err = db.PrepareContext(ctx, fixture.HandWritten(pub).Page)
	return err
}

// Cleanup closes the pool.
func (h *Handler) Cleanup() error {
	if h.db == nil {
		return nil
	}
	return h.db.Close()
}

// ServeHTTP answers GET /v1/<p>/users/<id>, GET
// /v1/<p>/users/active-by-age and POST /v1/<p>/posts as bench/bare does.
func (h *Handler) ServeHTTP(w http.ResponseWriter, r *http.Request, _ caddyhttp.Handler) error {
	parts := strings.Split(r.URL.Path, "/")
	if r.Method == http.MethodPost && len(parts) == 4 && parts[3] == "posts" {
		return h.create(w, r)
	}
	if len(parts) != 5 || parts[3] != "users" {
		http.NotFound(w, r)
		return nil
	}
	var data []byte
	var err error
	message := ""
	if parts[4] == fixture.HandWrittenPath {
		err = h.list.QueryRowContext(r.Context()).Scan(&data)
	} else {
		id, perr := strconv.ParseInt(parts[4], 10, 64)
		if perr != nil {
			http.NotFound(w, r)
			return nil
		}
		message = "Record retrieved successfully"
		err = h.get.QueryRowContext(r.Context(), id).Scan(&data)
	}
	if errors.Is(err, sql.ErrNoRows) {
		fixture.WriteJSON(w, http.StatusNotFound, fixture.NotFound)
		return nil
	}
	if err != nil {
		return caddyhttp.Error(http.StatusInternalServerError, err)
	}
	var meta []byte
	if message == "" {
		meta = translate.Meta{Page: 1, Limit: 20}.AppendJSON(nil)
	}
	fixture.WriteJSON(w, http.StatusOK, fixture.Envelope(data, message, meta))
	return nil
}

// create inserts a post with the statement for the columns its body has,
// prepared on first use.
func (h *Handler) create(w http.ResponseWriter, r *http.Request) error {
	in, problem := fixture.ReadPost(r.Body, true)
	if problem != nil {
		fixture.WriteJSON(w, http.StatusBadRequest, problem)
		return nil
	}
	mask, names, values := in.Columns()
	v, ok := h.inserts.Load(mask)
	if !ok {
		st, err := h.db.PrepareContext(r.Context(), h.posts.Insert(fixture.ColumnsOf(h.posts, names)))
		if err != nil {
			return caddyhttp.Error(http.StatusInternalServerError, err)
		}
		if v, ok = h.inserts.LoadOrStore(mask, st); ok {
			st.Close()
		}
	}
	var data []byte
	if err := v.(*sql.Stmt).QueryRowContext(r.Context(), values...).Scan(&data); err != nil {
		return caddyhttp.Error(http.StatusInternalServerError, err)
	}
	fixture.WriteJSON(w, http.StatusCreated, fixture.Envelope(data, "Record created successfully", nil))
	return nil
}

var (
	_ caddy.Provisioner           = (*Handler)(nil)
	_ caddy.CleanerUpper          = (*Handler)(nil)
	_ caddyhttp.MiddlewareHandler = (*Handler)(nil)
)
