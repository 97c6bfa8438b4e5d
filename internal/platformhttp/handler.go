// Package platformhttp serves the platform API (/api): accounts, projects,
// schema drafts, generate, versions and API keys, as a plain http.Handler.
package platformhttp

import (
	"context"
	"errors"
	"log/slog"
	"net/http"
	"path"
	"strings"
	"time"

	"github.com/tablesmith/tablesmith/apierr"
	"github.com/tablesmith/tablesmith/internal/analytics"
	"github.com/tablesmith/tablesmith/internal/auth"
	"github.com/tablesmith/tablesmith/internal/authproviders"
	"github.com/tablesmith/tablesmith/internal/clientaddr"
	"github.com/tablesmith/tablesmith/internal/envelope"
	"github.com/tablesmith/tablesmith/internal/extdb"
	"github.com/tablesmith/tablesmith/internal/jsonbody"
	"github.com/tablesmith/tablesmith/internal/loginthrottle"
	"github.com/tablesmith/tablesmith/internal/mail"
	"github.com/tablesmith/tablesmith/internal/plans"
	"github.com/tablesmith/tablesmith/internal/registry"
	"github.com/tablesmith/tablesmith/internal/requestlog"
	"github.com/tablesmith/tablesmith/internal/store"
	"github.com/tablesmith/tablesmith/internal/webhooks"
	"github.com/tablesmith/tablesmith/internal/writedeadline"
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
	// Analytics reports a project's requests in a window, with its usage
	// of plan, for GET /api/projects/{id}/analytics; nil: 404.
	Analytics func(ctx context.Context, projectID string, win analytics.Window, plan plans.Plan) (*analytics.Report, error)
	// Logs reads a page of a project's request log, newest first, and the
	// next page's cursor, for GET /api/projects/{id}/logs; nil: 404.
	Logs func(ctx context.Context, projectID string, f requestlog.Filter) ([]requestlog.Row, string, error)
	// Usage reports this hour's generated-API requests of a project.
	Usage func(ctx context.Context, projectID string) (used int64, resets time.Time)
	// FileUsage reports the bytes a project's stored files hold on this
	// node; nil: the server keeps no files.
	FileUsage func(ctx context.Context, projectID string) (int64, error)
	Now       func() time.Time
	// MaxBody limits request bodies (default 2 MiB: schema documents).
	MaxBody int64
	// External enables the postgres_external engine (external.go); nil:
	// the engine is listed as unavailable.
	External *extdb.Connections
	// LoginThrottle limits failed logins (zero: the end-user defaults).
	LoginThrottle loginthrottle.Limits
	// PlaceProject picks the data server of a new managed project (nil
	// or "": database_url).
	PlaceProject func(ctx context.Context) (string, error)
	// BuildIndexes starts this node's index builder after a generate;
	// nil: builds wait for a builder's poll.
	BuildIndexes func()
	// Webhooks keeps the projects' webhooks; WebhookKey is the server's
	// key their secrets derive from; WebhookAllowPrivate lets them target
	// private addresses (docs/webhooks.md).
	Webhooks            *webhooks.Store
	WebhookKey          func() []byte
	WebhookAllowPrivate bool
	// Mail queues the platform's own mail: the accounts' verification and
	// reset (docs/accounts.md) and invitations (docs/teams.md); nil: none
	// is sent, and inviting answers 503.
	Mail mail.Sender
	// TOTPKey seals the accounts' TOTP secrets (auth.DeriveKey of the
	// master secret, "totp").
	TOTPKey []byte
	// Outbox holds the e-mail the service queued: a project's Outbox page
	// and its templates (mail.go); nil: 404.
	Outbox *mail.Outbox
	// Providers keeps the projects' end-user sign-in providers.
	Providers *authproviders.Store
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
	m.HandleFunc("POST /api/auth/signup", h.serve(h.signup))
	m.HandleFunc("POST /api/auth/login", h.serve(h.login))
	m.HandleFunc("GET /api/account", h.authed(h.account))
	// Account security (docs/accounts.md): reset, verification, 2FA.
	m.HandleFunc("POST /api/auth/password-reset", h.serve(h.requestPasswordReset))
	m.HandleFunc("POST /api/auth/password-reset/confirm", h.serve(h.confirmPasswordReset))
	m.HandleFunc("POST /api/auth/verify-email", h.serve(h.verifyEmail))
	m.HandleFunc("POST /api/auth/login/mfa", h.serve(h.loginMFA))
	m.HandleFunc("POST /api/account/password", h.authed(h.changePassword))
	m.HandleFunc("POST /api/account/verify-email/resend", h.authed(h.resendVerification))
	m.HandleFunc("POST /api/account/totp", h.authed(h.startTOTP))
	m.HandleFunc("POST /api/account/totp/confirm", h.authed(h.confirmTOTP))
	m.HandleFunc("DELETE /api/account/totp", h.authed(h.disableTOTP))
	m.HandleFunc("POST /api/account/totp/recovery-codes", h.authed(h.regenerateRecoveryCodes))
	m.HandleFunc("GET /api/engines", h.serve(h.engines))
	m.HandleFunc("GET /api/openapi.json", h.serve(h.openAPI))

	m.HandleFunc("POST /api/projects", h.authed(h.createProject))
	m.HandleFunc("GET /api/projects", h.authed(h.listProjects))
	m.HandleFunc("GET /api/projects/{id}", h.owned(h.getProject))
	m.HandleFunc("PATCH /api/projects/{id}", h.owned(h.updateProject))
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
	m.HandleFunc("GET /api/projects/{id}/logs", h.owned(h.logs))
	m.HandleFunc("POST /api/projects/{id}/stream-tickets", h.owned(h.streamTicket))

	m.HandleFunc("POST /api/projects/{id}/webhooks", h.owned(h.createWebhook))
	m.HandleFunc("GET /api/projects/{id}/webhooks", h.owned(h.listWebhooks))
	m.HandleFunc("GET /api/projects/{id}/webhooks/{wid}", h.owned(h.getWebhook))
	m.HandleFunc("PATCH /api/projects/{id}/webhooks/{wid}", h.owned(h.updateWebhook))
	m.HandleFunc("DELETE /api/projects/{id}/webhooks/{wid}", h.owned(h.deleteWebhook))
	m.HandleFunc("POST /api/projects/{id}/webhooks/{wid}/rotate-secret", h.owned(h.rotateWebhookSecret))
	m.HandleFunc("POST /api/projects/{id}/webhooks/{wid}/replay", h.owned(h.replayWebhook))
	m.HandleFunc("GET /api/projects/{id}/webhooks/{wid}/deliveries", h.owned(h.webhookDeliveries))

	m.HandleFunc("GET /api/projects/{id}/members", h.owned(h.listMembers))
	m.HandleFunc("POST /api/projects/{id}/members", h.owned(h.inviteMember))
	m.HandleFunc("PATCH /api/projects/{id}/members/{account_id}", h.owned(h.updateMember))
	m.HandleFunc("DELETE /api/projects/{id}/members/{account_id}", h.owned(h.removeMember))
	m.HandleFunc("GET /api/projects/{id}/invitations", h.owned(h.listInvitations))
	m.HandleFunc("DELETE /api/projects/{id}/invitations/{iid}", h.owned(h.deleteInvitation))
	m.HandleFunc("POST /api/invites/accept", h.authed(h.acceptInvite))
	m.HandleFunc("POST /api/projects/{id}/transfer", h.owned(h.transferProject))
	m.HandleFunc("GET /api/projects/{id}/audit", h.owned(h.getAudit))

	m.HandleFunc("GET /api/projects/{id}/outbox", h.owned(h.outbox))
	m.HandleFunc("GET /api/projects/{id}/mail-templates", h.owned(h.mailTemplates))
	m.HandleFunc("PUT /api/projects/{id}/mail-templates/{kind}", h.owned(h.putMailTemplate))
	m.HandleFunc("DELETE /api/projects/{id}/mail-templates/{kind}", h.owned(h.resetMailTemplate))
	m.HandleFunc("GET /api/projects/{id}/auth/providers", h.owned(h.listProviders))
	m.HandleFunc("PUT /api/projects/{id}/auth/providers/{name}", h.owned(h.putProvider))
	m.HandleFunc("DELETE /api/projects/{id}/auth/providers/{name}", h.owned(h.deleteProvider))

	m.HandleFunc("/", h.serve(h.notFound))
}

// notFound answers paths no route serves: 405 with Allow when the path
// exists under other methods, else 404.
func (h *Handler) notFound(w http.ResponseWriter, r *http.Request) error {
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
		return apierr.New(apierr.CodeMethodNotAllowed, "Method %s is not allowed here; allowed: %s", r.Method, strings.Join(allow, ", "))
	}
	return apierr.New(apierr.CodeNotFound, "No such platform API endpoint: %s %s", r.Method, r.URL.Path)
}

// ServeHTTP recovers panics into a 500 envelope. A request that worked
// long (a generate converting a big table) answers with a write deadline
// of its own (internal/writedeadline).
func (h *Handler) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	w = &writedeadline.Writer{ResponseWriter: w, Start: time.Now()}
	defer envelope.Recover(w, r, h.d.Logger, "platform API", nil)
	if !cleanPath(r.URL.Path) {
		// ServeMux would answer 307 with an HTML body to a path it cleans
		// (/api/projects//schema: an empty project id); a JSON client
		// gets the contract's 404 instead.
		envelope.WriteError(w, apierr.New(apierr.CodeNotFound, "No such platform API endpoint: %s %s (a path segment is empty, such as a missing project id)", r.Method, r.URL.Path))
		return
	}
	h.mux.ServeHTTP(w, r)
}

// cleanPath reports whether ServeMux would serve p as it is: no empty,
// "." or ".." segment.
func cleanPath(p string) bool {
	c := path.Clean(p)
	if strings.HasSuffix(p, "/") && c != "/" {
		c += "/"
	}
	return c == p
}

// serve is the one place that writes the error envelope: a handler
// returns its error, and an internal one is logged here, once, with
// the request it failed.
func (h *Handler) serve(next func(http.ResponseWriter, *http.Request) error) http.HandlerFunc {
	return func(w http.ResponseWriter, r *http.Request) {
		if err := next(w, r); err != nil {
			envelope.Fail(w, r, h.d.Logger, "platform API", err)
		}
	}
}

// authed requires a valid session and passes the account on.
func (h *Handler) authed(next func(http.ResponseWriter, *http.Request, store.Account) error) http.HandlerFunc {
	return h.serve(func(w http.ResponseWriter, r *http.Request) error {
		acc, err := h.sessionAccount(r)
		if err != nil {
			return err
		}
		return next(w, r, acc)
	})
}

// sessionAccount returns the account of the request's session.
func (h *Handler) sessionAccount(r *http.Request) (store.Account, error) {
	tok, ok := auth.BearerToken(r.Header.Get("Authorization"))
	if !ok {
		return store.Account{}, apierr.New(apierr.CodeUnauthorized, "Missing session: send Authorization: Bearer <token from /api/auth/login>")
	}
	sess, err := h.d.Sessions.VerifySession(tok)
	if err != nil {
		return store.Account{}, apierr.New(apierr.CodeUnauthorized, "Invalid or expired session; log in again")
	}
	acc, err := h.d.Store.AccountByID(r.Context(), sess.AccountID)
	if errors.Is(err, store.ErrNotFound) {
		return acc, apierr.New(apierr.CodeUnauthorized, "The account no longer exists")
	}
	if err == nil && acc.SessionGen != sess.Generation {
		// The password changed (or was reset) since this session began.
		return store.Account{}, apierr.New(apierr.CodeUnauthorized, "This session ended when the account's password changed; log in again")
	}
	return acc, err
}

// owned additionally loads the project in the path and admits its
// members: someone else's project is simply not found, and a member
// whose role is below the route's (roles.go) is refused with 403. The
// caller's role reaches next in the request's context (roleOf).
func (h *Handler) owned(next func(http.ResponseWriter, *http.Request, store.Account, store.Project) error) http.HandlerFunc {
	return h.authed(func(w http.ResponseWriter, r *http.Request, acc store.Account) error {
		p, err := h.d.Store.Project(r.Context(), r.PathValue("id"))
		role := ""
		if err == nil {
			role, err = h.d.Store.MemberRole(r.Context(), p, acc.ID)
		}
		if errors.Is(err, store.ErrNotFound) {
			return apierr.New(apierr.CodeNotFound, "Project %q not found", r.PathValue("id"))
		}
		if err != nil {
			return err
		}
		if need := requiredRole(r.Pattern); !atLeast(role, need) {
			return forbidden(need, role)
		}
		return next(w, r.WithContext(withRole(r.Context(), role)), acc, p)
	})
}

// decode reads a JSON object body into v by the shared rules (jsonbody),
// refusing unknown fields and NUL characters.
func (h *Handler) decode(w http.ResponseWriter, r *http.Request, v any) error {
	return jsonbody.Decode(w, r, h.d.MaxBody, v)
}

func created(w http.ResponseWriter, data any) {
	envelope.Write(w, http.StatusCreated, envelope.Success{Data: data})
}

// baseURL is this server as the client reached it (X-Forwarded-Proto
// only from a trusted proxy).
func baseURL(r *http.Request) string {
	return clientaddr.Scheme(r) + "://" + r.Host
}
