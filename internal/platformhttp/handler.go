// Package platformhttp serves the platform API (/api): accounts, projects,
// schema drafts, generate, versions and API keys, as a plain http.Handler.
package platformhttp

import (
	"context"
	"encoding/json"
	"errors"
	"io"
	"log/slog"
	"mime"
	"net/http"
	"runtime/debug"
	"strings"
	"time"

	"github.com/tablesmith/tablesmith/internal/auth"
	"github.com/tablesmith/tablesmith/internal/envelope"
	"github.com/tablesmith/tablesmith/internal/extdb"
	"github.com/tablesmith/tablesmith/internal/plans"
	"github.com/tablesmith/tablesmith/internal/registry"
	"github.com/tablesmith/tablesmith/internal/store"
)

// Deps are the handler's collaborators.
type Deps struct {
	Store    *store.Store
	Registry *registry.Registry
	Keys     *auth.Keys
	Sessions *auth.Sessions
	// Config returns the current plans and default plan (a reload may
	// change them while the handler lives on).
	Config  func() Config
	Trigram bool
	Logger  *slog.Logger
	// Analytics serves GET /api/projects/{id}/analytics; nil: 404.
	Analytics func(w http.ResponseWriter, r *http.Request, p store.Project, plan plans.Plan)
	// Usage reports this hour's generated-API requests of a project.
	Usage func(ctx context.Context, projectID string) (used int64, resets time.Time)
	Now   func() time.Time
	// MaxBody limits request bodies (default 2 MiB: schema documents).
	MaxBody int64
	// External enables the postgres_external engine (external.go); nil:
	// the engine is listed as unavailable.
	External *extdb.Connections
	// BuildIndexes starts this node's index builder after a generate;
	// nil: builds wait for a builder's poll.
	BuildIndexes func()
}

// Config is the part of the configuration that a reload may change.
type Config struct {
	Plans       plans.Set
	DefaultPlan string
}

// Handler is the platform API.
type Handler struct {
	d   Deps
	mux *http.ServeMux
}

// New builds the handler and its routes.
func New(d Deps) *Handler {
	if d.Logger == nil {
		d.Logger = slog.Default()
	}
	if d.Now == nil {
		d.Now = time.Now
	}
	if d.MaxBody <= 0 {
		d.MaxBody = 2 << 20
	}
	h := &Handler{d: d, mux: http.NewServeMux()}
	h.routes()
	return h
}

// routes reads as the table of contents of CONTRACT section 3.
func (h *Handler) routes() {
	m := h.mux
	m.HandleFunc("POST /api/auth/signup", h.signup)
	m.HandleFunc("POST /api/auth/login", h.login)
	m.HandleFunc("GET /api/account", h.authed(h.account))
	m.HandleFunc("GET /api/engines", h.engines)

	m.HandleFunc("POST /api/projects", h.authed(h.createProject))
	m.HandleFunc("GET /api/projects", h.authed(h.listProjects))
	m.HandleFunc("GET /api/projects/{id}", h.owned(h.getProject))
	m.HandleFunc("PATCH /api/projects/{id}", h.owned(h.renameProject))
	m.HandleFunc("DELETE /api/projects/{id}", h.owned(h.deleteProject))

	m.HandleFunc("GET /api/projects/{id}/schema", h.owned(h.getSchema))
	m.HandleFunc("PUT /api/projects/{id}/schema", h.owned(h.putSchema))
	m.HandleFunc("POST /api/projects/{id}/schema/validate", h.owned(h.validateSchema))
	m.HandleFunc("GET /api/projects/{id}/schema/plan", h.owned(h.planSchema))
	m.HandleFunc("GET /api/projects/{id}/schema/versions", h.owned(h.listVersions))
	m.HandleFunc("GET /api/projects/{id}/schema/versions/{version}", h.owned(h.getVersion))
	m.HandleFunc("POST /api/projects/{id}/schema/reset", h.owned(h.resetSchema))
	m.HandleFunc("GET /api/projects/{id}/schema/export", h.owned(h.exportSchema))
	m.HandleFunc("POST /api/projects/{id}/generate", h.owned(h.generate))
	m.HandleFunc("POST /api/projects/{id}/schema/refresh", h.owned(h.refreshSchema))

	m.HandleFunc("POST /api/projects/{id}/keys", h.owned(h.createKey))
	m.HandleFunc("GET /api/projects/{id}/keys", h.owned(h.listKeys))
	m.HandleFunc("DELETE /api/projects/{id}/keys/{key_id}", h.owned(h.revokeKey))

	m.HandleFunc("GET /api/projects/{id}/analytics", h.owned(h.analytics))

	m.HandleFunc("/", h.notFound)
}

// notFound answers paths no route serves: 405 with Allow when the path
// exists under other methods, else 404.
func (h *Handler) notFound(w http.ResponseWriter, r *http.Request) {
	var allow []string
	for _, method := range []string{"GET", "POST", "PUT", "PATCH", "DELETE"} {
		probe := r.Clone(r.Context())
		probe.Method = method
		if _, pattern := h.mux.Handler(probe); pattern != "/" && pattern != "" {
			allow = append(allow, method)
		}
	}
	if len(allow) > 0 {
		w.Header().Set("Allow", strings.Join(allow, ", "))
		envelope.WriteError(w, envelope.New(envelope.CodeMethodNotAllowed, "Method %s is not allowed here; allowed: %s", r.Method, strings.Join(allow, ", ")))
		return
	}
	envelope.WriteError(w, envelope.New(envelope.CodeNotFound, "No such platform API endpoint: %s %s", r.Method, r.URL.Path))
}

// ServeHTTP recovers panics into a 500 envelope.
func (h *Handler) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	defer func() {
		if p := recover(); p != nil {
			h.d.Logger.Error("panic in platform API", "panic", p, "stack", string(debug.Stack()))
			envelope.WriteError(w, errors.New("panic"))
		}
	}()
	h.mux.ServeHTTP(w, r)
}

type ctxKey int

const accountKey ctxKey = 1

// authed requires a valid session and puts the account in the context.
func (h *Handler) authed(next func(http.ResponseWriter, *http.Request, store.Account)) http.HandlerFunc {
	return func(w http.ResponseWriter, r *http.Request) {
		tok, ok := auth.BearerToken(r.Header.Get("Authorization"))
		if !ok {
			envelope.WriteError(w, envelope.New(envelope.CodeUnauthorized, "Missing session: send Authorization: Bearer <token from /api/auth/login>"))
			return
		}
		id, err := h.d.Sessions.Verify(tok)
		if err != nil {
			envelope.WriteError(w, envelope.New(envelope.CodeUnauthorized, "Invalid or expired session; log in again"))
			return
		}
		acc, err := h.d.Store.AccountByID(r.Context(), id)
		if errors.Is(err, store.ErrNotFound) {
			envelope.WriteError(w, envelope.New(envelope.CodeUnauthorized, "The account no longer exists"))
			return
		}
		if err != nil {
			h.fail(w, r, err)
			return
		}
		next(w, r, acc)
	}
}

// owned additionally loads the project in the path and makes sure the
// account owns it; someone else's project is simply not found.
func (h *Handler) owned(next func(http.ResponseWriter, *http.Request, store.Account, store.Project)) http.HandlerFunc {
	return h.authed(func(w http.ResponseWriter, r *http.Request, acc store.Account) {
		p, err := h.d.Store.Project(r.Context(), r.PathValue("id"))
		if errors.Is(err, store.ErrNotFound) || (err == nil && p.AccountID != acc.ID) {
			envelope.WriteError(w, envelope.New(envelope.CodeNotFound, "Project %q not found", r.PathValue("id")))
			return
		}
		if err != nil {
			h.fail(w, r, err)
			return
		}
		next(w, r, acc, p)
	})
}

// fail logs an unexpected error and answers with an envelope that hides it.
func (h *Handler) fail(w http.ResponseWriter, r *http.Request, err error) {
	if e := envelope.As(err); e.Code == envelope.CodeInternal {
		h.d.Logger.Error("platform API request failed", "err", err, "method", r.Method, "path", r.URL.Path)
	}
	envelope.WriteError(w, err)
}

// decode reads a JSON object body into v, rejecting unknown fields.
func (h *Handler) decode(w http.ResponseWriter, r *http.Request, v any) error {
	if mt, _, err := mime.ParseMediaType(r.Header.Get("Content-Type")); err != nil || mt != "application/json" {
		return envelope.New(envelope.CodeUnsupportedMedia, "The body must be JSON with Content-Type: application/json")
	}
	raw, err := io.ReadAll(http.MaxBytesReader(w, r.Body, h.d.MaxBody))
	if err != nil {
		var mbe *http.MaxBytesError
		if errors.As(err, &mbe) {
			return envelope.New(envelope.CodePayloadTooLarge, "The body is larger than %d bytes", h.d.MaxBody)
		}
		return envelope.New(envelope.CodeInvalidJSON, "The body could not be read")
	}
	dec := json.NewDecoder(strings.NewReader(string(raw)))
	dec.DisallowUnknownFields()
	if err := dec.Decode(v); err != nil {
		var ute *json.UnmarshalTypeError
		if errors.As(err, &ute) && ute.Field != "" {
			return envelope.Fields(envelope.CodeValidation, "Validation failed", map[string]string{ute.Field: "has the wrong type"})
		}
		if strings.HasPrefix(err.Error(), "json: unknown field ") {
			f := strings.Trim(strings.TrimPrefix(err.Error(), "json: unknown field "), `"`)
			return envelope.Fields(envelope.CodeValidation, "Validation failed", map[string]string{f: "unknown field"})
		}
		return envelope.New(envelope.CodeInvalidJSON, "The body must be a JSON object")
	}
	return nil
}

func created(w http.ResponseWriter, data any) {
	envelope.Write(w, http.StatusCreated, envelope.Success{Data: data})
}

func baseURL(r *http.Request) string {
	scheme := "http"
	if r.TLS != nil {
		scheme = "https"
	}
	if p := r.Header.Get("X-Forwarded-Proto"); p == "https" || p == "http" {
		scheme = p
	}
	return scheme + "://" + r.Host
}
