// Package endusers lets the users of a generated API sign up and sign in
// (CONTRACT 5.2): the /auth routes, per-project access tokens, rotating
// refresh tokens and login throttling.
package endusers

import (
	"context"
	"database/sql"
	"errors"
	"log/slog"
	"net/http"
	"sync"
	"time"

	"github.com/tablesmith/tablesmith/apierr"
	"github.com/tablesmith/tablesmith/internal/authproviders"
	"github.com/tablesmith/tablesmith/internal/loginthrottle"
	"github.com/tablesmith/tablesmith/internal/mail"
	"github.com/tablesmith/tablesmith/internal/registry"
	"github.com/tablesmith/tablesmith/internal/store"
)

// Defaults of Config; docs/end-user-auth.md explains the choices.
const (
	DefaultAccessTTL     = time.Hour
	DefaultRefreshTTL    = 30 * 24 * time.Hour
	DefaultStatusTTL     = 5 * time.Second
	DefaultLoginWindow   = loginthrottle.DefaultWindow
	DefaultEmailFailures = loginthrottle.DefaultEmailFailures
	DefaultAddrFailures  = loginthrottle.DefaultAddrFailures
)

// Config is what Auth is built from. DB, Store and Secret are required.
type Config struct {
	// DB runs statements on the auth tables of projects whose registry
	// entry names no pool of its own.
	DB *sql.DB
	// Store keeps sessions, refresh tokens and login failures in the
	// control schema.
	Store *store.Store
	// Secret returns the master secret. It is called for every token, so a
	// reload that changes the secret applies at once (and the access tokens
	// signed with the old one stop verifying).
	Secret func(ctx context.Context) (string, error)
	Now    func() time.Time
	// AccessTTL is the lifetime of an access token.
	AccessTTL time.Duration
	// RefreshTTL is the lifetime of a refresh token; each rotation starts
	// a new one.
	RefreshTTL time.Duration
	// StatusTTL is how long this node trusts what it read of a session
	// (revoked or not) and of its user (exists, is_active) before reading
	// it again; revocations on any node end the trust at once.
	StatusTTL time.Duration
	Throttle  Throttle
	// Mail queues the e-mail of password reset, verification and e-mail
	// change (the service's outbox).
	Mail mail.Sender
	// MailLimits bound that mail per address (DefaultMailLimits).
	MailLimits store.MailLimits
	// ClientAddr is the client's address for login throttling; default:
	// the address Caddy determined (loginthrottle.ClientAddr).
	ClientAddr func(r *http.Request) string
	Logger     *slog.Logger
}

// Throttle limits failed logins; the platform API's login uses the same
// limits and counting (loginthrottle).
type Throttle = loginthrottle.Limits

// Auth serves the /auth routes of every project and verifies the access
// tokens they issue. It is safe for concurrent use.
type Auth struct {
	cfg    Config
	status *statusCache
	mu     sync.Mutex
	// queries holds each project's auth-table statements for the
	// published version they were built from.
	queries map[string]*userQueries
	// discovery caches the sign-in providers' discovery documents and
	// keys (providers_flow.go).
	discovery authproviders.Discovery
}

// New returns an Auth with the defaults filled in.
func New(cfg Config) *Auth {
	if cfg.Now == nil {
		cfg.Now = time.Now
	}
	if cfg.AccessTTL <= 0 {
		cfg.AccessTTL = DefaultAccessTTL
	}
	if cfg.RefreshTTL <= 0 {
		cfg.RefreshTTL = DefaultRefreshTTL
	}
	if cfg.StatusTTL <= 0 {
		cfg.StatusTTL = DefaultStatusTTL
	}
	cfg.Throttle = cfg.Throttle.WithDefaults()
	if cfg.MailLimits == (store.MailLimits{}) {
		cfg.MailLimits = DefaultMailLimits
	}
	if cfg.ClientAddr == nil {
		cfg.ClientAddr = loginthrottle.ClientAddr
	}
	if cfg.Logger == nil {
		cfg.Logger = slog.Default()
	}
	return &Auth{cfg: cfg, status: newStatusCache(cfg.StatusTTL), queries: map[string]*userQueries{}}
}

// VerifyAccess checks an end-user access token for a project and returns
// the user's id in the form the auth table's key binds (int64 or string).
// Besides the signature, audience, issuer and expiry, it refuses tokens
// whose session was revoked and tokens of users that were deleted or have
// is_active false; that status is read at most once per StatusTTL per
// session on this node (see statusCache for the cost).
func (a *Auth) VerifyAccess(ctx context.Context, entry *registry.Entry, token string) (any, error) {
	t := entry.Published.Compiled.Auth
	if t == nil {
		return nil, apierr.New(apierr.CodeUnauthorized, "This credential is not valid for this project: send one of its API keys (the project has no end users, so it issues no access tokens)")
	}
	claims, err := a.parseAccess(ctx, entry.ProjectID, token)
	if err != nil {
		return nil, err
	}
	uid, ok := userIDValue(t, claims.Subject)
	if !ok {
		return nil, errBadAccess
	}
	if err := a.checkStatus(ctx, entry, claims.SessionID, claims.Subject, uid); err != nil {
		return nil, err
	}
	return uid, nil
}

// Forget drops what this node cached of a session; the service calls it
// for the "user:<session id>" events other nodes send when they revoke one.
func (a *Auth) Forget(sessionID string) { a.status.Invalidate(sessionID) }

// ForgetAll drops every cached session status (after missed events).
func (a *Auth) ForgetAll() { a.status.InvalidateAll() }

// Prune deletes expired refresh tokens, finished sessions, ended login
// windows, expired mailed tokens and ended mail windows, and trims the status cache; the service runs it periodically.
func (a *Auth) Prune(ctx context.Context) {
	now := a.cfg.Now()
	if err := a.cfg.Store.PruneEndUsers(ctx, now, a.cfg.Throttle.Window); err != nil && !errors.Is(err, context.Canceled) {
		a.cfg.Logger.Warn("prune end-user sessions", "err", err)
	}
	if err := a.cfg.Store.PruneEndUserMail(ctx, now, a.cfg.MailLimits.Window); err != nil && !errors.Is(err, context.Canceled) {
		a.cfg.Logger.Warn("prune end-user mail tokens", "err", err)
	}
	a.status.Sweep(now)
	if err := a.providerStore().Prune(ctx, now); err != nil && !errors.Is(err, context.Canceled) {
		a.cfg.Logger.Warn("prune provider sign-ins", "err", err)
	}
}

// Errors every refused access token shares: 401 without saying more than
// the client can act on.
var (
	errBadAccess     = apierr.New(apierr.CodeUnauthorized, "Invalid access token")
	errExpiredAccess = apierr.New(apierr.CodeUnauthorized, "The access token has expired: get a new one from /auth/refresh")
	errSignedOut     = apierr.New(apierr.CodeUnauthorized, "The session of this access token was signed out or revoked")
	errUserGone      = apierr.New(apierr.CodeUnauthorized, "The user of this access token no longer exists")
	errUserDisabled  = apierr.New(apierr.CodeUnauthorized, "The account of this access token is not active")
)
