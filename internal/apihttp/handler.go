// Package apihttp serves the generated APIs (/v1/<project_id>/...) as a
// plain http.Handler: route, authenticate, rate-limit, authorize,
// validate, run one statement, write the envelope.
package apihttp

import (
	"bytes"
	"context"
	"database/sql"
	"errors"
	"fmt"
	"log/slog"
	"net/http"
	"strconv"
	"strings"
	"sync/atomic"
	"time"

	"github.com/cespare/xxhash/v2"

	"github.com/tablesmith/tablesmith/access"
	"github.com/tablesmith/tablesmith/apierr"
	"github.com/tablesmith/tablesmith/internal/apirequest"
	"github.com/tablesmith/tablesmith/internal/auth"
	"github.com/tablesmith/tablesmith/internal/cache"
	"github.com/tablesmith/tablesmith/internal/compress"
	"github.com/tablesmith/tablesmith/internal/cors"
	"github.com/tablesmith/tablesmith/internal/envelope"
	"github.com/tablesmith/tablesmith/internal/fairshare"
	"github.com/tablesmith/tablesmith/internal/files"
	"github.com/tablesmith/tablesmith/internal/pgexec"
	"github.com/tablesmith/tablesmith/internal/registry"
	"github.com/tablesmith/tablesmith/internal/requestlog"
	"github.com/tablesmith/tablesmith/internal/writedeadline"
	"github.com/tablesmith/tablesmith/translate"
)

// Deps are the handler's collaborators; optional ones may be nil.
type Deps struct {
	DB       *sql.DB
	Registry *registry.Registry
	Keys     *auth.Keys
	// MaxBody is the request body limit in bytes (default 1 MiB).
	MaxBody int64
	// MaxPageSize is the largest list limit (default translate.MaxLimit).
	MaxPageSize int
	// MaxBulkRows bounds the records of one bulk create (default
	// DefaultMaxBulkRows).
	MaxBulkRows int
	Logger      *slog.Logger
	// Limiter counts requests against the project's plan; nil: no limit.
	Limiter Limiter
	// Recorder receives one sample per request; nil: none.
	Recorder Recorder
	// Users verifies end-user access tokens; nil: API keys only.
	Users UserVerifier
	// Owners admits the project owner's dashboard with a platform session
	// token (auth.SessionPrefix); nil: sessions are refused.
	Owners OwnerVerifier
	// Routes serve project paths this package does not own, keyed by the
	// first segment after the project id ("auth", "docs", "openapi.json").
	// They run before any table route and do their own admission (see
	// Admit).
	Routes map[string]RouteHandler
	Now    func() time.Time
	// Gate bounds how many data statements one project runs at once on
	// this node (fair share of the data pool); nil: no bound.
	Gate *fairshare.Gate
	// Idempotency says whether a project's pool is a managed projects'
	// data pool, whose database holds tablesmith.idempotency_keys: writes
	// with an Idempotency-Key are honoured for projects whose tables are
	// on one (idempotency.go); nil answers the header 400.
	Idempotency func(*sql.DB) bool
	// Timeout bounds each request (default DefaultTimeout): statements
	// and waits for a connection end with it and the request answers 503.
	Timeout time.Duration
	// ExportTimeout bounds a CSV or NDJSON export instead of Timeout and
	// the plan's statement timeout (default DefaultExportTimeout, never
	// less than Timeout); export.go.
	ExportTimeout time.Duration
	// LongLived reports a request that runs until the client leaves (the
	// realtime stream): it gets no request deadline. nil: none.
	LongLived func(*http.Request) bool
	// Replicas sends reads to read replicas and follows each credential's
	// writes (replicas.go); nil: everything runs on the primary.
	Replicas ReadRouter
	// Files keeps the files of file columns (internal/files); nil: the
	// server takes no uploads. MaxFileSize bounds one file whatever its
	// column allows (0: the column's max_size alone).
	Files       files.Store
	MaxFileSize int64
	// FilesOrphaned is told of a committed write that may have left
	// stored files no row names (a write by filter on a table with file
	// columns): it sweeps them (internal/files.Sweep); nil: nothing.
	FilesOrphaned func(projectID string)
	// FileTokenKey signs and checks upload tokens (files.Sign); nil:
	// uploads of their own are refused.
	FileTokenKey func() []byte
	// FileLimits says what a project's plan and its stored files leave
	// for the files of a write (MaxFileSize, Remaining, Full); nil: only
	// MaxFileSize bounds them.
	FileLimits func(ctx context.Context, projectID string) (files.Limits, error)
	// CacheChanges announces each committed write to every node's edge
	// cache (edgecache.go); nil: no announcements.
	CacheChanges ChangeAnnouncer
}

// DefaultTimeout is the request deadline when Deps.Timeout is zero.
const DefaultTimeout = 10 * time.Second

// Limiter decides whether a project may make another request.
type Limiter interface {
	// Take counts the request that started at now.
	Take(ctx context.Context, projectID string, now time.Time) (Quota, error)
}

// Quota is a limiter decision with what the headers report.
type Quota struct {
	Allowed   bool
	Limit     int64 // <0: unlimited
	Remaining int64
	Reset     time.Time
	Message   string
	// StatementTimeout is how long one of the project's data statements
	// may run (its plan's statement_timeout); 0: only the request's own
	// deadline bounds it. It comes with the decision because the limiter
	// already read the project's plan for it.
	StatementTimeout time.Duration
}

// Sample is one request as analytics and the request log see it.
type Sample struct {
	ProjectID, Table, Operation, Credential string
	Status                                  int
	Latency                                 time.Duration
	At                                      time.Time

	// Method is the request's HTTP method (PUT and PATCH are both "update").
	Method string

	// What the request log keeps besides (internal/requestlog).
	Path      string // after /v1/<project_id>
	RawQuery  string
	KeyPrefix string // an API key's public prefix
	EndUser   string // an end user's id
	Origin    string
	RequestID string
	Rows      int64 // records read or written; <0: not said
	Bytes     int64 // answer bytes as sent
	ErrorBody []byte
}

// Recorder takes samples without blocking.
type Recorder interface{ Record(Sample) }

// UserVerifier checks an end-user access token for a project.
type UserVerifier interface {
	VerifyAccess(ctx context.Context, entry *registry.Entry, token string) (userID any, err error)
}

// OwnerVerifier checks that a platform session token is one of the
// account that owns a project, or of one of its members (docs/teams.md).
// Its answer carries the plan's statement timeout, which a counted
// request learns from the limiter.
type OwnerVerifier interface {
	// VerifyOwner returns auth.ErrInvalidToken for an invalid or expired
	// session and ErrNotOwner for a session of an account that is neither
	// the owner nor a member.
	VerifyOwner(ctx context.Context, projectID, token string, now time.Time) (SessionAdmission, error)
	// VerifyTicket is VerifyOwner for a stream ticket (auth.TicketPrefix);
	// opening false accepts an expired one (a stream's re-check).
	VerifyTicket(ctx context.Context, projectID, ticket string, opening bool, now time.Time) (SessionAdmission, error)
}

// SessionAdmission is how a dashboard session is admitted.
type SessionAdmission struct {
	StatementTimeout time.Duration
	// ReadOnly: the session's account is a member who writes no data.
	ReadOnly bool
}

// ErrNotOwner is a valid session of an account that neither owns the
// project nor is its member.
var ErrNotOwner = errors.New("the session's account does not own the project")

// RouteHandler serves one extension route; h gives access to the
// pipeline's admission steps.
type RouteHandler func(h *Handler, w http.ResponseWriter, r *http.Request, rt *Route) error

// Handler is the generated-API handler.
type Handler struct {
	d            Deps
	estimates    *cache.Cache[int64]    // remembered estimated totals (countmemo.go)
	lists        *cache.Cache[listPlan] // built list statements (listplans.go)
	timeouts     atomic.Uint64          // statements cut by their plan's timeout (fairshare.go)
	exportPauses atomic.Uint64          // pauses exports made for other projects (export.go, giveWay)
}

// New returns the handler.
func New(d Deps) *Handler {
	if d.MaxBody <= 0 {
		d.MaxBody = 1 << 20
	}
	if d.Logger == nil {
		d.Logger = slog.Default()
	}
	if d.Now == nil {
		d.Now = time.Now
	}
	if d.Timeout <= 0 {
		d.Timeout = DefaultTimeout
	}
	if d.MaxBulkRows <= 0 {
		d.MaxBulkRows = DefaultMaxBulkRows
	}
	if d.ExportTimeout <= 0 {
		d.ExportTimeout = DefaultExportTimeout
	}
	d.ExportTimeout = max(d.ExportTimeout, d.Timeout)
	return &Handler{d: d, estimates: newEstimateMemo(), lists: newListPlans()}
}

// Route is a parsed generated-API path.
type Route struct {
	ProjectID string
	// Rest is the path after the project id, split on '/'.
	Rest      []string
	Entry     *registry.Entry
	Table     string
	Operation string
	Principal access.Principal
	// Start is when the request arrived: the one clock reading that key
	// verification, the limiter and the latency sample share.
	Start time.Time
	// Rechecking marks a long-lived request's periodic re-check of its
	// credential (a realtime stream): a stream ticket that opened it may
	// have expired since.
	Rechecking bool
	counted    bool
	// unrecorded keeps the request out of analytics: a CORS preflight,
	// or the project's API description and Swagger UI.
	unrecorded bool
	// statementTimeout is the plan's bound on one data statement, from
	// the limiter's decision (Quota.StatementTimeout).
	statementTimeout time.Duration
	// shared marks a read whose answer shared caches may keep
	// (edgecache.go): it reads the primary, never a lagging replica.
	shared bool
	// rows is how many records the answer read or wrote, for the request
	// log, where one record's operations do not say it; <0: not said.
	rows int64
}

// ServeHTTP runs the pipeline. Every answer, error or not, is an envelope.
func (h *Handler) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	rt := &Route{Start: h.d.Now(), rows: -1}
	sw := &statusWriter{ResponseWriter: w, request: r, start: rt.Start, keepErrors: h.d.Recorder != nil}
	timeout := h.d.Timeout
	if apirequest.IsExportRequest(r) {
		timeout = h.d.ExportTimeout
	}
	ctx, cancel := context.WithTimeout(r.Context(), timeout)
	if h.d.LongLived != nil && h.d.LongLived(r) || isFileTransfer(r) {
		cancel()
		ctx, cancel = context.WithCancel(r.Context())
	}
	defer cancel()
	r = r.WithContext(ctx)
	// Deferred in this order, the sample is recorded after a panic's 500,
	// and also while an export broken off on purpose (export.go) goes on
	// up to net/http.
	defer func() {
		if h.d.Recorder != nil && rt.ProjectID != "" && rt.Entry != nil && !rt.unrecorded {
			h.d.Recorder.Record(sampleOf(r, rt, sw, h.d.Now()))
		}
	}()
	defer envelope.Recover(sw, r, h.d.Logger, "generated API", func() bool { return sw.wrote })
	setRequestID(sw, r)
	h.noteWrites(sw, r, rt)
	h.announceWrites(sw, r, rt)
	if err := h.serve(sw, r, rt); err != nil {
		envelope.Fail(sw, r, h.d.Logger, "generated API", err)
	}
}

// sampleOf is what analytics and the request log keep of a request. The
// strings are the request's own (no copy); only an error's answer was
// copied, by the statusWriter, capped.
func sampleOf(r *http.Request, rt *Route, sw *statusWriter, now time.Time) Sample {
	status := sw.status()
	s := Sample{ProjectID: rt.ProjectID, Table: rt.Table, Operation: rt.Operation,
		Credential: rt.Principal.Kind.String(), Method: r.Method, Status: status, Latency: now.Sub(rt.Start), At: rt.Start,
		Path: r.URL.Path[len("/v1/")+len(rt.ProjectID):], RawQuery: r.URL.RawQuery, KeyPrefix: rt.Principal.KeyPrefix,
		Origin: r.Header.Get("Origin"), RequestID: sw.Header().Get("X-Request-Id"), Rows: rt.rows, Bytes: sw.bytes,
		ErrorBody: sw.errorBody}
	if rt.Principal.UserID != nil {
		s.EndUser = fmt.Sprint(rt.Principal.UserID)
	}
	if s.Rows < 0 && status < 300 {
		switch rt.Operation {
		case apirequest.OpGet, apirequest.OpCreate, apirequest.OpUpdate, apirequest.OpDelete:
			// One record's operation: those on many set rt.rows.
			s.Rows = 1
		}
	}
	return s
}

func (h *Handler) serve(w http.ResponseWriter, r *http.Request, rt *Route) error {
	rest, ok := strings.CutPrefix(r.URL.Path, "/v1/")
	if !ok {
		return apierr.New(apierr.CodeNotFound, "Not found")
	}
	parts := strings.Split(strings.TrimSuffix(rest, "/"), "/")
	rt.ProjectID, rt.Rest = parts[0], parts[1:]
	if rt.ProjectID == "" || len(rt.Rest) == 0 || rt.Rest[0] == "" {
		crossOrigin(w, r, rt, nil)
		return apierr.New(apierr.CodeNotFound, "Not found: the path is /v1/<project_id>/<table>")
	}
	entry, err := h.d.Registry.Get(r.Context(), rt.ProjectID)
	if err != nil {
		// No project, no setting: the default lets a page read the 404.
		if crossOrigin(w, r, rt, nil) {
			return nil
		}
		if errors.Is(err, registry.ErrNotPublished) {
			return apierr.New(apierr.CodeNotFound, "Project %q not found (or its API has not been generated yet)", rt.ProjectID)
		}
		return err
	}
	rt.Entry = entry
	// Before any credential or count: a preflight never carries one.
	if crossOrigin(w, r, rt, entry.CORS) {
		if !entry.CORS.Allows(r.Header.Get("Origin")) {
			return apierr.New(apierr.CodeForbidden, "Origin %s may not call this project's API (it is not in the project's cors.allowed_origins)", r.Header.Get("Origin"))
		}
		return nil
	}
	if route, ok := h.d.Routes[rt.Rest[0]]; ok {
		rt.Table = rt.Rest[0]
		// A query string is read whole on every route; the routes that
		// take parameters check which (realtime), the others take none
		// but the API description's, which ignores them, and the provider
		// sign-in's authorize and callback (endusers checks their own).
		q, err := translate.ParseQueryString(r.URL.RawQuery)
		if err == nil && rt.Rest[0] == "auth" && (len(rt.Rest) < 4 || rt.Rest[1] != "providers") {
			err = translate.CheckParams(q, translate.NoParams, nil)
		}
		if err != nil {
			return PlannerError(err)
		}
		return route(h, w, r, rt)
	}
	if entry.WritesPaused && r.Method != http.MethodGet && r.Method != http.MethodHead {
		// A move to another data server (docs/deployment.md): reads go
		// on from the old copy; writes wait for the new one.
		e := apierr.New(apierr.CodeUnavailable, "The project is moving to another database server; writes resume within seconds")
		e.RetryAfter = 2 * time.Second
		return e
	}
	err = h.serveTable(w, r, rt)
	if errors.Is(err, pgexec.ErrSchemaChanged) {
		return h.afterSchemaChange(w, r, rt, err)
	}
	return err
}

// crossOrigin applies a project's CORS policy (nil: any origin) to the
// answer. A preflight is answered here, 204 to an allowed origin, and
// kept out of analytics; it reports true then, and the caller answers a
// disallowed origin's preflight with an error (docs/api.md, "CORS").
func crossOrigin(w http.ResponseWriter, r *http.Request, rt *Route, policy *cors.Policy) bool {
	if !cors.Preflight(r) {
		policy.Annotate(w.Header(), r.Header.Get("Origin"))
		return false
	}
	rt.unrecorded = true
	if policy.AnswerPreflight(w.Header(), r) {
		w.WriteHeader(http.StatusNoContent)
	}
	return true
}

// afterSchemaChange handles a statement built from a published version
// that a generate replaced while the request ran (a rename or drop that
// committed in between). Reads run once more against the new version;
// a write changed nothing (its statement failed) and is answered 503 so
// the client retries. If no newer version exists the database was changed
// behind Tablesmith's back, which stays a 500.
func (h *Handler) afterSchemaChange(w http.ResponseWriter, r *http.Request, rt *Route, cause error) error {
	old := rt.Entry.Version
	h.d.Registry.Invalidate(rt.ProjectID)
	entry, err := h.d.Registry.Get(r.Context(), rt.ProjectID)
	if err != nil || entry.Version == old {
		return cause
	}
	switch r.Method {
	case http.MethodGet, http.MethodHead:
		rt.Entry = entry
		return h.serveTable(w, r, rt)
	}
	e := apierr.New(apierr.CodeUnavailable, "The project's schema changed while the request ran; nothing was written, retry it")
	e.RetryAfter = time.Second
	return e
}

// statusWriter remembers the status written, for analytics and for
// knowing whether a panic can still be answered.
type statusWriter struct {
	http.ResponseWriter
	request *http.Request // for Accept-Encoding
	start   time.Time     // when the request arrived (writedeadline)
	code    int
	wrote   bool
	// beforeAnswer, when set, runs once before the status goes out
	// (replicas.go: a write's position is recorded first).
	beforeAnswer func(status int)
	// bytes counts the answer's bytes as sent; errorBody keeps the start
	// of an error's answer, uncompressed, when keepErrors is set (the
	// request log's).
	bytes      int64
	keepErrors bool
	errorBody  []byte
}

// keepError copies the start of an error's answer for the request log.
func (s *statusWriter) keepError(status int, body []byte) {
	if s.keepErrors && status >= 400 && s.errorBody == nil {
		s.errorBody = bytes.Clone(body[:min(len(body), requestlog.MaxErrorBody)])
	}
}

func (s *statusWriter) WriteHeader(code int) {
	if !s.wrote {
		s.answering(code)
		s.code, s.wrote = code, true
	}
	s.ResponseWriter.WriteHeader(code)
}

func (s *statusWriter) Write(b []byte) (int, error) {
	if !s.wrote {
		s.answering(http.StatusOK)
		s.code, s.wrote = http.StatusOK, true
	}
	if s.code >= 400 && s.errorBody == nil && s.Header().Get("Content-Encoding") == "" {
		s.keepError(s.code, b)
	}
	n, err := s.ResponseWriter.Write(b)
	s.bytes += int64(n)
	return n, err
}

func (s *statusWriter) answering(code int) {
	writedeadline.ForAnswer(s.ResponseWriter, s.start)
	defaultCacheControl(s.Header(), code)
	if f := s.beforeAnswer; f != nil {
		s.beforeAnswer = nil
		f(code)
	}
}

// WriteBody writes a whole answer, compressed when it is big enough and
// the client accepts zstd or gzip (internal/compress says why the module
// does this itself), always with a Content-Length (see autoLengthMax).
func (s *statusWriter) WriteBody(status int, body []byte) {
	h := s.Header()
	if status == http.StatusOK && s.request != nil && (s.request.Method == http.MethodGet || s.request.Method == http.MethodHead) {
		if s.notModified(h, body) {
			return
		}
	}
	s.keepError(status, body)
	if s.request != nil {
		body = compressBody(h, s.request, body)
	}
	if len(body) > autoLengthMax || (s.request != nil && s.request.Method == http.MethodHead) {
		h["Content-Length"] = []string{strconv.Itoa(len(body))}
	}
	s.WriteHeader(status)
	_, _ = s.Write(body)
}

// autoLengthMax is the largest body that net/http (HTTP/1.1 and HTTP/2)
// sends with a Content-Length of its own: one that is still in its 2 KiB
// buffer when the handler returns. Leaving those to it keeps a typical
// answer at eight headers, the most a header map holds before it grows
// (and net/http copies the map when the status goes out); bigger answers,
// and HEAD, whose body is never written, get theirs here so that they are
// not chunked.
const autoLengthMax = 2048

// compressBody returns body compressed for r when it is big enough and
// the client accepts zstd or gzip, with the headers that say so.
func compressBody(h http.Header, r *http.Request, body []byte) []byte {
	if len(body) < compress.MinSize {
		return body
	}
	h["Vary"] = append(h["Vary"], "Accept-Encoding")
	if enc := compress.Negotiate(r.Header.Get("Accept-Encoding")); enc != "" && len(h["Content-Encoding"]) == 0 {
		body = compress.Encode(enc, make([]byte, 0, len(body)/4), body)
		h["Content-Encoding"] = []string{enc}
	}
	return body
}

// notModified tags a read's answer with a weak ETag, a hash of its
// uncompressed body (the same on every node, so an edge cache or a
// browser may revalidate against any of them), and answers 304 without
// the body when the client's If-None-Match already holds it. The request
// still ran and counted: a 304 saves the transfer, not the query.
func (s *statusWriter) notModified(h http.Header, body []byte) bool {
	weakTag := weakETag(body)
	tag := weakTag[2:]
	h["ETag"] = []string{weakTag}
	inm := s.request.Header.Get("If-None-Match")
	if inm == "" || !matchesETag(inm, tag) {
		return false
	}
	delete(h, "Content-Type")
	delete(h, "Content-Length")
	s.WriteHeader(http.StatusNotModified)
	return true
}

// weakETag is the entity tag of an answer's body: a hash of its
// uncompressed bytes, weak because the same body may go out compressed.
func weakETag(body []byte) string {
	var b [32]byte
	weak := append(b[:0], `W/"`...)
	weak = strconv.AppendUint(weak, xxhash.Sum64(body), 36)
	weak = append(weak, '"')
	return string(weak) // one allocation for the header and the comparison
}

func (s *statusWriter) status() int {
	if !s.wrote {
		return http.StatusOK
	}
	return s.code
}

// Unwrap lets http.ResponseController reach the underlying writer.
func (s *statusWriter) Unwrap() http.ResponseWriter { return s.ResponseWriter }
