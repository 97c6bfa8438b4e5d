package platformhttp

import (
	"errors"
	"net/http"
	"strings"
	"unicode/utf8"

	"github.com/tablesmith/tablesmith/apierr"
	"github.com/tablesmith/tablesmith/internal/auth"
	"github.com/tablesmith/tablesmith/internal/envelope"
	"github.com/tablesmith/tablesmith/internal/loginthrottle"
	"github.com/tablesmith/tablesmith/internal/plans"
	"github.com/tablesmith/tablesmith/internal/store"
	"github.com/tablesmith/tablesmith/schema"
)

type credentials struct {
	Email    string `json:"email"`
	Password string `json:"password"`
	Name     string `json:"name"`
}

// accountView is an account as the API shows it.
type accountView struct {
	store.Account
	Limits plans.Plan `json:"limits"`
	Usage  struct {
		Projects int `json:"projects"`
	} `json:"usage"`
}

func (h *Handler) signup(w http.ResponseWriter, r *http.Request) error {
	var c credentials
	if err := h.decode(w, r, &c); err != nil {
		return err
	}
	emailCol := schema.Column{Name: "email", Type: schema.TypeEmail, Required: true}
	problems := map[string]string{}
	email, msg := schema.CheckValue(&emailCol, c.Email)
	if msg != "" {
		problems["email"] = msg
	}
	if utf8.RuneCountInString(c.Password) < schema.MinPasswordLength {
		problems["password"] = "must be at least 8 characters"
	}
	c.Name = strings.TrimSpace(c.Name)
	if utf8.RuneCountInString(c.Name) > 100 {
		problems["name"] = "must be at most 100 characters"
	}
	if len(problems) > 0 {
		return apierr.Fields(apierr.CodeValidation, "Validation failed", problems)
	}
	hash, err := auth.HashPassword(c.Password)
	if err != nil {
		return err
	}
	cfg := h.d.Config()
	acc, err := h.d.Store.CreateAccount(r.Context(), email.(string), c.Name, hash, cfg.DefaultPlan)
	if errors.Is(err, store.ErrDuplicate) {
		return apierr.Fields(apierr.CodeConflict, "An account with this e-mail already exists", map[string]string{"email": "already registered"})
	}
	if err != nil {
		return err
	}
	// The account works at once; the verification mail follows (a
	// failure to queue it is logged, and the dashboard offers a resend).
	if err := h.sendVerification(r, acc); err != nil && !errors.Is(err, errVerifyThrottled) {
		h.d.Logger.Error("queue verification mail", "account", acc.ID, "err", err)
	}
	return h.respondSession(w, r, acc, http.StatusCreated)
}

func (h *Handler) login(w http.ResponseWriter, r *http.Request) error {
	var c credentials
	if err := h.decode(w, r, &c); err != nil {
		return err
	}
	ctx, now := r.Context(), h.d.Now()
	email := strings.ToLower(strings.TrimSpace(c.Email))
	// Throttled like end-user logins, in a table of its own.
	throttle := loginthrottle.Throttle{Limits: h.d.LoginThrottle, Store: h.d.Store, Scope: store.PlatformLogins}
	attempt := loginthrottle.Subjects(email, loginthrottle.ClientAddr(r))
	if err := throttle.Check(ctx, w, attempt, now); err != nil {
		return err
	}
	acc, err := h.d.Store.AccountByEmail(ctx, email)
	if err != nil && !errors.Is(err, store.ErrNotFound) {
		return err
	}
	// The same work and the same answer whether the e-mail is unknown or
	// the password wrong.
	if !auth.CheckPasswordOrDummy(acc.PasswordHash, c.Password) {
		if err := throttle.Failed(ctx, attempt, now); err != nil {
			return err
		}
		return apierr.New(apierr.CodeInvalidCreds, "Wrong e-mail or password")
	}
	if err := throttle.Succeeded(ctx, attempt); err != nil {
		return err
	}
	if acc.TOTPEnabled {
		return h.respondMFARequired(w, acc)
	}
	return h.respondSession(w, r, acc, http.StatusOK)
}

func (h *Handler) respondSession(w http.ResponseWriter, r *http.Request, acc store.Account, status int) error {
	tok, err := h.d.Sessions.Issue(acc.ID, acc.SessionGen)
	if err != nil {
		return err
	}
	view, err := h.view(r, acc)
	if err != nil {
		return err
	}
	envelope.Write(w, status, envelope.Success{Data: map[string]any{"account": view, "token": tok,
		"token_type": "Bearer", "expires_in": int(h.d.Sessions.TTL.Seconds())}})
	return nil
}

func (h *Handler) view(r *http.Request, acc store.Account) (accountView, error) {
	cfg := h.d.Config()
	v := accountView{Account: acc, Limits: cfg.Plans.Get(acc.Plan, cfg.DefaultPlan)}
	v.Limits.Name = acc.Plan
	n, err := h.d.Store.CountProjects(r.Context(), acc.ID)
	v.Usage.Projects = n
	return v, err
}

func (h *Handler) account(w http.ResponseWriter, r *http.Request, acc store.Account) error {
	v, err := h.view(r, acc)
	if err != nil {
		return err
	}
	envelope.OK(w, v)
	return nil
}
