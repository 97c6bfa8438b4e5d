package endusers

import (
	"context"
	"encoding/json"
	"errors"
	"github.com/tablesmith/tablesmith/access"
	"net/http"
	"net/url"
	"slices"
	"strings"
	"time"

	"github.com/tablesmith/tablesmith/apierr"
	"github.com/tablesmith/tablesmith/internal/apihttp"
	"github.com/tablesmith/tablesmith/internal/auth"
	"github.com/tablesmith/tablesmith/internal/envelope"
	"github.com/tablesmith/tablesmith/internal/loginthrottle"
	"github.com/tablesmith/tablesmith/internal/pgexec"
	"github.com/tablesmith/tablesmith/internal/store"
	"github.com/tablesmith/tablesmith/internal/validate"
	"github.com/tablesmith/tablesmith/schema"
)

// endpoint is one /auth route.
type endpoint struct {
	method string
	serve  func(a *Auth, h *apihttp.Handler, w http.ResponseWriter, r *http.Request, rt *apihttp.Route, q *userQueries) error
}

// endpoints are the /v1/<project_id>/auth/<name> routes of CONTRACT 5.2.
var endpoints = map[string]endpoint{
	"register": {http.MethodPost, (*Auth).register},
	"login":    {http.MethodPost, (*Auth).login},
	"refresh":  {http.MethodPost, (*Auth).refresh},
	"logout":   {http.MethodPost, (*Auth).logout},
	"me":       {http.MethodGet, (*Auth).me},

	"password-reset":         {http.MethodPost, (*Auth).passwordReset},
	"password-reset/confirm": {http.MethodPost, (*Auth).passwordResetConfirm},
	"verify-email":           {http.MethodPost, (*Auth).verifyEmail},
	"verify-email/resend":    {http.MethodPost, (*Auth).verifyEmailResend},
	"email-change":           {http.MethodPost, (*Auth).emailChange},
	"email-change/confirm":   {http.MethodPost, (*Auth).emailChangeConfirm},
	// Sign in with providers (providers.go, providers_flow.go); {name}
	// is a provider's name.
	"providers":                  {http.MethodGet, (*Auth).listProviders},
	"providers/exchange":         {http.MethodPost, (*Auth).exchangeProviderCode},
	"providers/{name}/authorize": {http.MethodGet, (*Auth).authorizeProvider},
	"providers/{name}/callback":  {"GET, POST", (*Auth).providerCallback},
}

const msgAuthRoutes = "Not found: the auth routes are register, login, refresh, logout, me, password-reset, " +
	"password-reset/confirm, verify-email, verify-email/resend, email-change, email-change/confirm and providers"

// Serve is the apihttp.RouteHandler of /v1/<project_id>/auth/...: 404
// without an auth table or for an unknown route, 405 for a wrong method;
// otherwise the request counts against the plan like any other.
func (a *Auth) Serve(h *apihttp.Handler, w http.ResponseWriter, r *http.Request, rt *apihttp.Route) error {
	if rt.Entry.Published.Compiled.Auth == nil {
		return apierr.New(apierr.CodeNotFound, "Not found: this project has no auth table (a table with \"auth\": true enables /auth)")
	}
	key := routeKey(rt.Rest)
	ep, ok := endpoints[key]
	if !ok {
		return apierr.New(apierr.CodeNotFound, msgAuthRoutes)
	}
	if !slices.Contains(strings.Split(ep.method, ", "), r.Method) {
		w.Header().Set("Allow", ep.method)
		return apierr.New(apierr.CodeMethodNotAllowed, "Method %s is not allowed here; use %s", r.Method, ep.method)
	}
	// Analytics shows the operation as the route: /auth/<key>.
	rt.Operation = key
	return ep.serve(a, h, w, r, rt, a.queriesFor(rt.Entry))
}

// session is the data of register, login and refresh.
type session struct {
	User         json.RawMessage `json:"user"`
	AccessToken  string          `json:"access_token"`
	TokenType    string          `json:"token_type"`
	ExpiresIn    int64           `json:"expires_in"`
	RefreshToken string          `json:"refresh_token"`
	// EmailVerified tells whether the user proved the account's current
	// address (docs/end-user-auth.md, e-mail verification).
	EmailVerified bool `json:"email_verified"`
}

// pendingUser is the data of a register or reset that issues no tokens.
type pendingUser struct {
	User          json.RawMessage `json:"user"`
	EmailVerified bool            `json:"email_verified"`
}

func (a *Auth) newSession(ctx context.Context, projectID string, u user, verified bool, now time.Time) (session, error) {
	refresh, hash := newRefreshToken()
	sid, err := a.cfg.Store.CreateEndUserSession(ctx, projectID, u.ID, hash, now, now.Add(a.cfg.RefreshTTL))
	if err != nil {
		return session{}, err
	}
	access, err := a.issueAccess(ctx, projectID, u.ID, sid, now)
	if err != nil {
		return session{}, err
	}
	return session{User: u.Record, AccessToken: access, TokenType: "Bearer",
		ExpiresIn: int64(a.cfg.AccessTTL / time.Second), RefreshToken: refresh, EmailVerified: verified}, nil
}

// emailVerified reports whether a user proved their current address.
func (a *Auth) emailVerified(ctx context.Context, projectID string, u user) (bool, error) {
	return a.cfg.Store.EmailVerified(ctx, projectID, u.ID, u.Email)
}

// errNotVerified refuses a session to an unverified address where the
// project requires verification; only the right password gets here.
var errNotVerified = apierr.New(apierr.CodeEmailNotVerified,
	"Confirm your e-mail address first: follow the link sent to it, or ask for a new one at /auth/verify-email/resend")

// answerSession signs u in and writes the session; an account that may
// not have one yet (not active, or an unverified address where the
// project requires verification) gets the user alone and a message that
// says why.
func (a *Auth) answerSession(w http.ResponseWriter, r *http.Request, rt *apihttp.Route, q *userQueries, u user, status int, message string) error {
	ctx := r.Context()
	verified, err := a.emailVerified(ctx, rt.ProjectID, u)
	if err != nil {
		return err
	}
	switch {
	case !u.Active:
		// The schema creates users inactive (is_active defaults to false):
		// someone activates them before they can sign in.
		envelope.Write(w, status, envelope.Success{Data: pendingUser{u.Record, verified},
			Message: message + "; the account is not active yet, so no tokens were issued"})
		return nil
	case !verified && verification(q) == schema.EmailVerificationRequired:
		envelope.Write(w, status, envelope.Success{Data: pendingUser{u.Record, verified},
			Message: message + "; confirm the e-mail address with the link sent to it, then sign in"})
		return nil
	}
	s, err := a.newSession(ctx, rt.ProjectID, u, verified, a.cfg.Now())
	if err != nil {
		return err
	}
	envelope.Write(w, status, envelope.Success{Data: s, Message: message})
	return nil
}

// register creates a user exactly as POST /<auth table> would (same
// validation, sanitization and password hashing) and signs them in.
func (a *Auth) register(h *apihttp.Handler, w http.ResponseWriter, r *http.Request, rt *apihttp.Route, q *userQueries) error {
	if _, err := h.Admit(w, r, rt, apihttp.Admission{}); err != nil {
		return err
	}
	body, err := h.ReadBody(w, r)
	if err != nil {
		return err
	}
	t := q.table
	// redirect_to (where the verification link leads) is not a column,
	// unless the auth table has one of that name.
	var redirect *url.URL
	if _, isColumn := t.Inputs["redirect_to"]; !isColumn {
		raw, err := optionalString(body, "redirect_to")
		if err != nil {
			return err
		}
		if redirect, err = RedirectTarget(rt.Entry, raw); err != nil {
			return err
		}
	}
	res, problems := validate.Record(t, body, validate.Create)
	// A user without an e-mail or a password could never sign in, even
	// where the schema leaves those columns optional.
	for _, c := range []*schema.CColumn{q.email, q.password} {
		if v, present := body[c.Input]; !present || v == nil {
			if problems == nil {
				problems = validate.Problems{}
			}
			if _, named := problems[c.Input]; !named {
				problems[c.Input] = schema.MsgRequired
			}
		}
	}
	if problems != nil {
		return apierr.Fields(apierr.CodeValidation, "Validation failed", problems)
	}
	ctx := r.Context()
	var email string
	for i, c := range res.Columns {
		if c == q.email {
			email, _ = res.Values[i].(string)
		}
	}
	if !q.email.Unique {
		// A unique column lets the insert report the conflict; without one,
		// look first (two racing registrations may still both succeed).
		for i, c := range res.Columns {
			email, ok := res.Values[i].(string)
			if c != q.email || !ok {
				continue
			}
			u, err := a.userByEmail(ctx, q, email)
			if err != nil {
				return err
			}
			if u.Existing {
				return apierr.Fields(apierr.CodeConflict, "A record with this value already exists", map[string]string{q.email.Input: "already exists"})
			}
		}
	}
	for i, c := range res.Columns {
		if s, ok := res.Values[i].(string); ok && c.Kind.Traits.Secret {
			if res.Values[i], err = auth.HashPassword(s); err != nil {
				return err
			}
		}
	}
	st := q.sql.InsertRecord(res.Columns, res.Values)
	rec, err := pgexec.JSON(ctx, q.db, st.SQL, st.Args...)
	if err != nil {
		return pgexec.MapError(err, t, pgexec.OpWrite)
	}
	id, ok := recordID(t, rec)
	if !ok {
		return errors.New("register: the created user has no id")
	}
	u := user{ID: id, Record: rec, Active: recordActive(rec), Email: email, Existing: true}
	if verification(q) != schema.EmailVerificationOff {
		if err := a.sendVerification(ctx, r, rt, u, redirect); err != nil {
			return err
		}
	}
	return a.answerSession(w, r, rt, q, u, http.StatusCreated, "Registered")
}

// login checks an e-mail and password. Unknown e-mail and wrong password
// give the same answer after the same work (a dummy hash check, one
// failure recorded); the throttle is checked first so a locked subject
// costs no hashing.
func (a *Auth) login(h *apihttp.Handler, w http.ResponseWriter, r *http.Request, rt *apihttp.Route, q *userQueries) error {
	if _, err := h.Admit(w, r, rt, apihttp.Admission{}); err != nil {
		return err
	}
	body, err := h.ReadBody(w, r)
	if err != nil {
		return err
	}
	if alias := q.password.Input; alias != "password" {
		// The password may also come under the name register takes.
		if v, ok := body[alias]; ok {
			if _, both := body["password"]; !both {
				body["password"] = v
				delete(body, alias)
			}
		}
	}
	in, err := onlyStrings(body, "email", "password")
	if err != nil {
		return err
	}
	ctx, now := r.Context(), a.cfg.Now()
	email := strings.ToLower(strings.TrimSpace(in["email"]))
	throttle := loginthrottle.Throttle{Limits: a.cfg.Throttle, Store: a.cfg.Store, Scope: rt.ProjectID}
	attempt := loginthrottle.Subjects(email, a.cfg.ClientAddr(r))
	if err := throttle.Check(ctx, w, attempt, now); err != nil {
		return err
	}
	u, err := a.userByEmail(ctx, q, email)
	if err != nil {
		return err
	}
	if !auth.CheckPasswordOrDummy(u.Hash, in["password"]) {
		if err := throttle.Failed(ctx, attempt, now); err != nil {
			return err
		}
		return apierr.New(apierr.CodeInvalidCreds, "Invalid e-mail or password")
	}
	if err := throttle.Succeeded(ctx, attempt); err != nil {
		return err
	}
	if !u.Active {
		return apierr.New(apierr.CodeForbidden, "This account is not active")
	}
	verified, err := a.emailVerified(ctx, rt.ProjectID, u)
	if err != nil {
		return err
	}
	if !verified && verification(q) == schema.EmailVerificationRequired {
		return errNotVerified
	}
	s, err := a.newSession(ctx, rt.ProjectID, u, verified, now)
	if err != nil {
		return err
	}
	envelope.Write(w, http.StatusOK, envelope.Success{Data: s, Message: "Signed in"})
	return nil
}

var errBadRefresh = apierr.New(apierr.CodeUnauthorized, "Invalid refresh token")

// refresh rotates a refresh token: the presented one stops working and a
// new pair is returned. A token presented after it was rotated means it
// was copied (or a client raced itself): the whole session is revoked.
func (a *Auth) refresh(h *apihttp.Handler, w http.ResponseWriter, r *http.Request, rt *apihttp.Route, q *userQueries) error {
	if _, err := h.Admit(w, r, rt, apihttp.Admission{}); err != nil {
		return err
	}
	in, err := readStrings(h, w, r, "refresh_token")
	if err != nil {
		return err
	}
	ctx, now := r.Context(), a.cfg.Now()
	hash := hashRefresh(in["refresh_token"])
	tok, err := a.cfg.Store.RefreshTokenByHash(ctx, hash)
	if errors.Is(err, store.ErrNotFound) || err == nil && tok.ProjectID != rt.ProjectID {
		return errBadRefresh
	}
	if err != nil {
		return err
	}
	switch {
	case tok.RevokedAt != nil:
		return apierr.New(apierr.CodeUnauthorized, "This refresh token was revoked; sign in again")
	case tok.UsedAt != nil:
		return a.reused(ctx, rt.ProjectID, tok.SessionID, now)
	case !now.Before(tok.ExpiresAt):
		return apierr.New(apierr.CodeUnauthorized, "This refresh token has expired; sign in again")
	}
	uid, ok := userIDValue(q.table, tok.UserID)
	if !ok {
		return errBadRefresh
	}
	u, err := a.userByID(ctx, q, uid)
	if err != nil {
		return err
	}
	if !u.Existing {
		if err := a.revoke(ctx, rt.ProjectID, tok.SessionID, "user_gone", now); err != nil {
			return err
		}
		return apierr.New(apierr.CodeUnauthorized, "The user of this refresh token no longer exists")
	}
	if !u.Active {
		return apierr.New(apierr.CodeForbidden, "This account is not active")
	}
	verified, err := a.emailVerified(ctx, rt.ProjectID, u)
	if err != nil {
		return err
	}
	if !verified && verification(q) == schema.EmailVerificationRequired {
		// An address changed outside /auth, or verification turned to
		// required since this session began.
		return errNotVerified
	}
	next, nextHash := newRefreshToken()
	err = a.cfg.Store.RotateRefreshToken(ctx, hash, nextHash, now, now.Add(a.cfg.RefreshTTL))
	if errors.Is(err, store.ErrNotFound) {
		// Another request rotated (or revoked) it since we read it.
		return a.reused(ctx, rt.ProjectID, tok.SessionID, now)
	}
	if err != nil {
		return err
	}
	access, err := a.issueAccess(ctx, rt.ProjectID, u.ID, tok.SessionID, now)
	if err != nil {
		return err
	}
	envelope.OK(w, session{User: u.Record, AccessToken: access, TokenType: "Bearer",
		ExpiresIn: int64(a.cfg.AccessTTL / time.Second), RefreshToken: next, EmailVerified: verified})
	return nil
}

// reused revokes the family of a refresh token that came back after it
// was rotated.
func (a *Auth) reused(ctx context.Context, projectID, sessionID string, now time.Time) error {
	if err := a.revoke(ctx, projectID, sessionID, "reuse", now); err != nil {
		return err
	}
	return apierr.New(apierr.CodeUnauthorized, "This refresh token was already used; every token of its session is now revoked, sign in again")
}

// revoke ends a session on every node: the store notifies the others,
// this node forgets it directly.
func (a *Auth) revoke(ctx context.Context, projectID, sessionID, reason string, now time.Time) error {
	err := a.cfg.Store.RevokeEndUserSession(ctx, projectID, sessionID, reason, now)
	a.status.Invalidate(sessionID)
	if errors.Is(err, store.ErrNotFound) {
		return nil
	}
	return err
}

// logout revokes the session of a refresh token given in the body, or,
// without a body, the session of the access token that authenticates the
// request. Its refresh tokens and its access tokens stop working. An
// empty body is no body, whatever Content-Type says (clients that always
// send application/json).
func (a *Auth) logout(h *apihttp.Handler, w http.ResponseWriter, r *http.Request, rt *apihttp.Route, q *userQueries) error {
	ctx, now := r.Context(), a.cfg.Now()
	if r.ContentLength == 0 {
		if _, err := h.Admit(w, r, rt, apihttp.Admission{Credential: true}); err != nil {
			return err
		}
		if err := needUser(rt, "logout"); err != nil {
			return err
		}
		tok, _ := auth.BearerToken(r.Header.Get("Authorization"))
		claims, err := a.parseAccess(ctx, rt.ProjectID, tok)
		if err != nil {
			return err
		}
		if err := a.revoke(ctx, rt.ProjectID, claims.SessionID, "logout", now); err != nil {
			return err
		}
		envelope.Write(w, http.StatusOK, envelope.Success{Message: "Signed out"})
		return nil
	}
	if _, err := h.Admit(w, r, rt, apihttp.Admission{}); err != nil {
		return err
	}
	in, err := readStrings(h, w, r, "refresh_token")
	if err != nil {
		return err
	}
	tok, err := a.cfg.Store.RefreshTokenByHash(ctx, hashRefresh(in["refresh_token"]))
	if errors.Is(err, store.ErrNotFound) || err == nil && tok.ProjectID != rt.ProjectID {
		return errBadRefresh
	}
	if err != nil {
		return err
	}
	if err := a.revoke(ctx, rt.ProjectID, tok.SessionID, "logout", now); err != nil {
		return err
	}
	envelope.Write(w, http.StatusOK, envelope.Success{Message: "Signed out"})
	return nil
}

// me returns the signed-in user's record.
func (a *Auth) me(h *apihttp.Handler, w http.ResponseWriter, r *http.Request, rt *apihttp.Route, q *userQueries) error {
	if _, err := h.Admit(w, r, rt, apihttp.Admission{Credential: true}); err != nil {
		return err
	}
	if err := needUser(rt, "/auth/me"); err != nil {
		return err
	}
	u, err := a.userByID(r.Context(), q, rt.Principal.UserID)
	if err != nil {
		return err
	}
	if !u.Existing {
		return errUserGone
	}
	envelope.Write(w, http.StatusOK, envelope.Success{RawData: u.Record})
	return nil
}

// needUser admits only end users: no credential is 401, an API key 403
// (a key is valid but is nobody's account).
func needUser(rt *apihttp.Route, what string) error {
	switch rt.Principal.Kind {
	case access.EndUser:
		return nil
	case access.APIKey, access.Dashboard:
		return apierr.New(apierr.CodeForbidden, "%s needs an end-user access token; an API key or dashboard session belongs to no user", what)
	default:
		return apierr.New(apierr.CodeUnauthorized, "%s needs an end-user access token: Authorization: Bearer <access token>", what)
	}
}

// readStrings reads a body of exactly the named string fields, all
// required; anything else is a validation error naming the field.
func readStrings(h *apihttp.Handler, w http.ResponseWriter, r *http.Request, fields ...string) (map[string]string, error) {
	body, err := h.ReadBody(w, r)
	if err != nil {
		return nil, err
	}
	return onlyStrings(body, fields...)
}

// onlyStrings checks that body holds exactly the named non-empty strings.
func onlyStrings(body map[string]any, fields ...string) (map[string]string, error) {
	out := map[string]string{}
	problems := map[string]string{}
	for _, f := range fields {
		v, present := body[f]
		s, isString := v.(string)
		switch {
		case !present || v == nil:
			problems[f] = schema.MsgRequired
		case !isString:
			problems[f] = "must be a string"
		case s == "":
			problems[f] = "must not be empty"
		case strings.ContainsRune(s, 0):
			// PostgreSQL text cannot hold it (the e-mail is looked up).
			problems[f] = "must not contain NUL characters"
		default:
			out[f] = s
		}
		delete(body, f)
	}
	for f := range body {
		problems[f] = "unknown field"
	}
	if len(problems) > 0 {
		return nil, apierr.Fields(apierr.CodeValidation, "Validation failed", problems)
	}
	return out, nil
}
