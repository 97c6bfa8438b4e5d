package caddymodule

import (
	"fmt"
	"net/http"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/caddyserver/caddy/v2"
	"github.com/caddyserver/caddy/v2/caddyconfig/caddyfile"
	"github.com/caddyserver/caddy/v2/caddyconfig/httpcaddyfile"
	"github.com/caddyserver/caddy/v2/modules/caddyhttp"

	"github.com/tablesmith/tablesmith/internal/edgecache"
)

// CacheHandler is the edge cache of the generated API
// (`tablesmith_cache`, docs/edge-cache.md): put before tablesmith_api, it
// answers the anonymous reads that Tablesmith marked shareable from this
// process's memory, and the tablesmith app purges it when a write or a
// publish is announced on any node.
type CacheHandler struct {
	// MaxSize bounds the memory all stored answers take (bytes; default
	// 64 MiB), MaxAnswer one answer (default 1 MiB): a larger one is
	// passed on and not kept.
	MaxSize   int64 `json:"max_size,omitempty"`
	MaxAnswer int64 `json:"max_answer,omitempty"`

	store *edgecache.Store
}

// CaddyModule returns the module information.
func (*CacheHandler) CaddyModule() caddy.ModuleInfo {
	return caddy.ModuleInfo{ID: "http.handlers.tablesmith_cache", New: func() caddy.Module { return new(CacheHandler) }}
}

// Bounds of max_size and max_answer.
const (
	minCacheSize   = 1 << 20
	maxCacheAnswer = 64 << 20
)

// Validate checks the bounds, for a Caddyfile and a JSON config alike.
func (h *CacheHandler) Validate() error {
	if h.MaxSize != 0 && h.MaxSize < minCacheSize {
		return fmt.Errorf("tablesmith_cache: max_size must be at least 1MiB, not %d bytes", h.MaxSize)
	}
	if h.MaxAnswer < 0 || h.MaxAnswer > maxCacheAnswer {
		return fmt.Errorf("tablesmith_cache: max_answer must be between 1 byte and 64MiB, not %d bytes", h.MaxAnswer)
	}
	if h.MaxSize != 0 && h.MaxAnswer > h.MaxSize {
		return fmt.Errorf("tablesmith_cache: max_answer (%d bytes) is larger than max_size (%d bytes)", h.MaxAnswer, h.MaxSize)
	}
	return nil
}

// Provision makes the store and hands it to the tablesmith app of this
// config, which purges it from its Start on.
func (h *CacheHandler) Provision(ctx caddy.Context) error {
	if err := h.Validate(); err != nil {
		return err
	}
	app, err := appOf(ctx)
	if err != nil {
		return err
	}
	h.store = edgecache.NewStore(int(h.MaxSize), int(h.MaxAnswer))
	app.addEdgeStore(h.store)
	return nil
}

// cacheable says whether a request may be answered from the cache or
// its answer stored: an anonymous GET or HEAD of the whole resource.
func cacheable(r *http.Request) bool {
	return (r.Method == http.MethodGet || r.Method == http.MethodHead) &&
		len(r.Header["Authorization"]) == 0 && len(r.Header["Range"]) == 0
}

// requestDirective says whether the request's Cache-Control holds d.
func requestDirective(r *http.Request, d string) bool {
	for _, v := range r.Header["Cache-Control"] {
		for part := range strings.SplitSeq(v, ",") {
			if strings.EqualFold(strings.TrimSpace(part), d) {
				return true
			}
		}
	}
	return false
}

// cacheKey names the answer a request asks for: host, path and query as
// sent, and the request headers Tablesmith's answers vary on besides
// Authorization (cacheable requests carry none): the encoding it
// compresses with and the CORS origin it echoes. HEAD is served from a
// stored GET.
func cacheKey(r *http.Request) string {
	var b strings.Builder
	b.Grow(len(r.Host) + len(r.RequestURI) + 64)
	b.WriteString(r.Host)
	b.WriteByte(0)
	b.WriteString(r.RequestURI)
	b.WriteByte(0)
	b.WriteString(r.Header.Get("Accept-Encoding"))
	b.WriteByte(0)
	b.WriteString(r.Header.Get("Origin"))
	return b.String()
}

// Cache-Status values (RFC 9211).
var (
	statusMiss   = []string{"Tablesmith; fwd=miss"}
	statusBypass = []string{"Tablesmith; fwd=request"}
)

// ServeHTTP answers from the store when it holds a fresh answer, and
// otherwise passes the request on and stores the answer if Tablesmith
// marked it shareable.
func (h *CacheHandler) ServeHTTP(w http.ResponseWriter, r *http.Request, next caddyhttp.Handler) error {
	if !cacheable(r) || requestDirective(r, "no-store") {
		return next.ServeHTTP(w, r)
	}
	key := cacheKey(r)
	now := time.Now()
	if !requestDirective(r, "no-cache") {
		if a, ok := h.store.Get(key, now); ok {
			serveStored(w, r, a, now)
			return nil
		}
	}
	if r.Method == http.MethodHead {
		w.Header()["Cache-Status"] = statusBypass
		return next.ServeHTTP(w, r)
	}
	rec := recorderPool.Get().(*recorder)
	*rec = recorder{ResponseWriter: w, max: int(h.store.MaxAnswer()), body: rec.body[:0]}
	readAt := h.store.Begin()
	err := next.ServeHTTP(rec, r)
	if err == nil && rec.ttl > 0 && !rec.tooBig {
		body := make([]byte, len(rec.body))
		copy(body, rec.body)
		h.store.Put(key, readAt, rec.status, rec.stored, body, now, rec.ttl)
	}
	if cap(rec.body) <= 64<<10 {
		rec.ResponseWriter, rec.stored = nil, nil
		recorderPool.Put(rec)
	}
	return err
}

// serveStored writes a stored answer, or 304 to a request whose
// If-None-Match holds its ETag.
func serveStored(w http.ResponseWriter, r *http.Request, a *edgecache.Answer, now time.Time) {
	hd := w.Header()
	for k, v := range a.Header {
		hd[k] = v
	}
	age := int(now.Sub(a.Stored) / time.Second)
	hd["Age"] = []string{strconv.Itoa(age)}
	hd["Cache-Status"] = []string{"Tablesmith; hit; ttl=" + strconv.Itoa(int(a.Expires.Sub(now)/time.Second))}
	if inm := r.Header.Get("If-None-Match"); inm != "" && etagListed(inm, etagOf(a.Header)) {
		delete(hd, "Content-Length")
		w.WriteHeader(http.StatusNotModified)
		return
	}
	w.WriteHeader(a.Status)
	if r.Method != http.MethodHead {
		_, _ = w.Write(a.Body) // a client that left is not an error of the cache
	}
}

// etagOf is an answer's ETag: Tablesmith sets the header under its
// conventional spelling, which is not Go's canonical one.
func etagOf(h http.Header) string {
	if v := h["ETag"]; len(v) > 0 { //nolint:staticcheck // the spelling apihttp writes it under
		return v[0]
	}
	return h.Get("ETag")
}

// etagListed says whether an If-None-Match list names etag (weak
// comparison, as for GET).
func etagListed(list, etag string) bool {
	if etag == "" {
		return false
	}
	etag = strings.TrimPrefix(etag, "W/")
	for t := range strings.SplitSeq(list, ",") {
		t = strings.TrimSpace(t)
		if t == "*" || strings.TrimPrefix(t, "W/") == etag {
			return true
		}
	}
	return false
}

// recorder passes an answer on to the client and keeps a copy of it
// when Tablesmith marked it shareable.
type recorder struct {
	http.ResponseWriter
	max         int
	wroteHeader bool
	status      int
	ttl         time.Duration
	stored      http.Header
	body        []byte
	tooBig      bool
}

var recorderPool = sync.Pool{New: func() any { return new(recorder) }}

func (rec *recorder) WriteHeader(status int) {
	if rec.wroteHeader {
		rec.ResponseWriter.WriteHeader(status)
		return
	}
	if status >= 100 && status < 200 {
		rec.ResponseWriter.WriteHeader(status) // informational: the answer is still to come
		return
	}
	rec.wroteHeader, rec.status = true, status
	hd := rec.Header()
	if rec.ttl = edgecache.Shareable(status, hd); rec.ttl > 0 {
		rec.stored = hd.Clone()
	}
	hd["Cache-Status"] = statusMiss
	rec.ResponseWriter.WriteHeader(status)
}

func (rec *recorder) Write(p []byte) (int, error) {
	if !rec.wroteHeader {
		rec.WriteHeader(http.StatusOK)
	}
	if rec.ttl > 0 && !rec.tooBig {
		if len(rec.body)+len(p) > rec.max {
			rec.tooBig, rec.body = true, rec.body[:0]
		} else {
			rec.body = append(rec.body, p...)
		}
	}
	return rec.ResponseWriter.Write(p)
}

// Unwrap lets http.ResponseController reach the underlying writer.
func (rec *recorder) Unwrap() http.ResponseWriter { return rec.ResponseWriter }

// UnmarshalCaddyfile parses
//
//	tablesmith_cache [<matcher>] {
//		max_size   <size>
//		max_answer <size>
//	}
func (h *CacheHandler) UnmarshalCaddyfile(d *caddyfile.Dispenser) error {
	d.Next()
	if d.NextArg() {
		return d.ArgErr()
	}
	for d.NextBlock(0) {
		var err error
		switch d.Val() {
		case "max_size":
			h.MaxSize, err = sizeArg(d, "tablesmith_cache max_size")
		case "max_answer":
			h.MaxAnswer, err = sizeArg(d, "tablesmith_cache max_answer")
		default:
			return d.Errf("tablesmith_cache: unknown subdirective %q (max_size, max_answer)", d.Val())
		}
		if err != nil {
			return err
		}
	}
	return nil
}

func parseCacheHandler(h httpcaddyfile.Helper) (caddyhttp.MiddlewareHandler, error) {
	m := new(CacheHandler)
	return m, m.UnmarshalCaddyfile(h.Dispenser)
}

// Interface guards.
var (
	_ caddyhttp.MiddlewareHandler = (*CacheHandler)(nil)
	_ caddy.Validator             = (*CacheHandler)(nil)
	_ caddyfile.Unmarshaler       = (*CacheHandler)(nil)
)
