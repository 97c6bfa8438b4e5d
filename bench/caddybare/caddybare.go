// Package caddybare is bench/bare's GET by id and hand-written list as a
// Caddy handler: the same prepared lib/pq statements and the same answer,
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
// module's GET text, and the hand-written list (fixture.HandWritten).
package caddybare

import (
	"database/sql"
	"errors"
	"net/http"
	"os"
	"strconv"
	"strings"

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

// Handler serves the two bare routes.
type Handler struct {
	db        *sql.DB
	get, list *sql.Stmt
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
	pub, err := fixture.LoadPublished(ctx, db, os.Getenv("TABLESMITH_BENCH_BARE_PROJECT"))
	if err != nil {
		return err
	}
	users, ok := pub.Tables["users"]
	if !ok {
		return errors.New("bench_bare: the project has no users table")
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

// ServeHTTP answers /v1/<p>/users/<id> and /v1/<p>/users/active-by-age
// as bench/bare does.
func (h *Handler) ServeHTTP(w http.ResponseWriter, r *http.Request, _ caddyhttp.Handler) error {
	parts := strings.Split(r.URL.Path, "/")
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
		http.NotFound(w, r)
		return nil
	}
	if err != nil {
		return caddyhttp.Error(http.StatusInternalServerError, err)
	}
	var meta []byte
	if message == "" {
		meta = translate.Meta{Page: 1, Limit: 20}.AppendJSON(nil)
	}
	body := fixture.Envelope(data, message, meta)
	w.Header().Set("Content-Type", "application/json; charset=utf-8")
	w.WriteHeader(http.StatusOK)
	_, _ = w.Write(body)
	return nil
}

var (
	_ caddy.Provisioner           = (*Handler)(nil)
	_ caddy.CleanerUpper          = (*Handler)(nil)
	_ caddyhttp.MiddlewareHandler = (*Handler)(nil)
)
