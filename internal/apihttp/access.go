package apihttp

import (
	"errors"
	"net/http"
	"strconv"
	"strings"

	"github.com/tablesmith/tablesmith/access"
	"github.com/tablesmith/tablesmith/apierr"
	"github.com/tablesmith/tablesmith/internal/auth"
	"github.com/tablesmith/tablesmith/schema"
)

// Admission says what a request must pass before it runs.
type Admission struct {
	// Credential reads the Authorization header into the route's
	// principal (no header is anonymous; a wrong credential is 401).
	// Without it the request is anonymous whatever it sends: the sign-in
	// routes take their credentials in the body.
	Credential bool
	// Table, when set, is asked whether the principal may do Action to it.
	Table  *schema.CTable
	Action access.Action
}

// Admit is the one way into the generated API, for table routes and
// extension routes alike: authenticate (when asked), count the request
// against the plan (setting the X-RateLimit headers), then decide by the
// table's rules (when a table is given). The grant says which rows the
// action reaches and who sets the owner column.
func (h *Handler) Admit(w http.ResponseWriter, r *http.Request, rt *Route, a Admission) (access.Grant, error) {
	if a.Credential {
		if err := h.Authenticate(r, rt); err != nil {
			return access.Grant{}, err
		}
	}
	if err := h.countRequest(w, r, rt); err != nil {
		return access.Grant{}, err
	}
	if a.Table == nil {
		return access.Grant{}, nil
	}
	return Decide(rt.Principal, a.Table, a.Action)
}

// Decide asks the access rules whether p may do a to table t, with a
// refusal in the contract's terms (deniedError). Admit calls it for the
// request's table; a route that reaches several tables (realtime) calls
// it for each.
func Decide(p access.Principal, t *schema.CTable, a access.Action) (access.Grant, error) {
	g, err := access.Decide(p, t, a)
	if err != nil {
		return access.Grant{}, deniedError(err)
	}
	return g, nil
}

// deniedError maps an access refusal to the contract: 401 when another
// credential could help, 403 when the credential is not enough.
func deniedError(err error) error {
	var d *access.Denied
	if !errors.As(err, &d) {
		return err
	}
	if d.Unauthenticated {
		return apierr.New(apierr.CodeUnauthorized, "%s", d.Message)
	}
	return apierr.New(apierr.CodeForbidden, "%s", d.Message)
}

// Authenticate resolves the request's credential into rt.Principal. A
// missing credential is allowed here (public rules); a wrong one is not.
// Admit is the way in; Authenticate alone re-checks the credential of a
// long-lived request that was admitted already (a realtime stream).
// The credential's first bytes say what it is meant as: an API key
// (ts_), the owner's dashboard session (tsp_), else an end-user token;
// so an API-key request never pays for the other checks.
func (h *Handler) Authenticate(r *http.Request, rt *Route) error {
	rt.Principal = access.Principal{}
	header := r.Header.Get("Authorization")
	if header == "" {
		return nil
	}
	tok, ok := auth.BearerToken(header)
	if !ok {
		return apierr.New(apierr.CodeUnauthorized, "The Authorization header must be: Bearer <API key or access token>")
	}
	switch {
	case strings.HasPrefix(tok, auth.APIKeyPrefix):
		rec, err := h.d.Keys.Verify(r.Context(), tok, rt.Start)
		if err != nil {
			if errors.Is(err, auth.ErrInvalidToken) {
				return apierr.New(apierr.CodeUnauthorized, "This API key is not valid for this project: it is unknown, incomplete or revoked")
			}
			return err
		}
		if rec.ProjectID != rt.ProjectID {
			return apierr.New(apierr.CodeUnauthorized, "This API key is not valid for this project: it belongs to another project")
		}
		rt.Principal = access.Key(rec.Prefix, rec.Scope != auth.ScopeReadWrite)
		return nil
	case auth.LooksLikeSession(tok):
		return h.authenticateOwner(r, rt, tok)
	case auth.LooksLikeTicket(tok):
		return h.authenticateTicket(r, rt, tok)
	}
	if h.d.Users == nil {
		return apierr.New(apierr.CodeUnauthorized, "This credential is not valid for this project: send one of its API keys")
	}
	uid, err := h.d.Users.VerifyAccess(r.Context(), rt.Entry, tok)
	if err != nil {
		var ee *apierr.Error
		if errors.As(err, &ee) {
			return ee
		}
		if errors.Is(err, auth.ErrInvalidToken) {
			return apierr.New(apierr.CodeUnauthorized, "Invalid or expired access token")
		}
		return err
	}
	rt.Principal = access.User(uid)
	return nil
}

// authenticateOwner admits the owner's dashboard: a platform session of
// the account that owns the project. It goes through the same handlers as
// an API key, but its request is not counted against the plan (rt.counted)
// and analytics records it as "dashboard" (docs/limits-and-analytics.md).
func (h *Handler) authenticateOwner(r *http.Request, rt *Route, tok string) error {
	if h.d.Owners == nil {
		return apierr.New(apierr.CodeUnauthorized, "This credential is not valid for this project: dashboard sessions are not accepted by this server")
	}
	adm, err := h.d.Owners.VerifyOwner(r.Context(), rt.ProjectID, tok, rt.Start)
	switch {
	case errors.Is(err, auth.ErrInvalidToken):
		return apierr.New(apierr.CodeUnauthorized, "This dashboard session is not valid (expired or signed by another server); log in again")
	case errors.Is(err, ErrNotOwner):
		return apierr.New(apierr.CodeUnauthorized, "This credential is not valid for this project: the session is of an account that is not its member")
	case err != nil:
		return err
	}
	admitMember(rt, adm)
	return nil
}

// StreamRoute is the one route a stream ticket opens (realtime's).
const StreamRoute = "realtime"

// authenticateTicket admits the owner's dashboard by a stream ticket: as
// a session would, but only on the realtime stream, and only while the
// ticket is fresh when the stream opens (docs/realtime.md, "The owner's
// dashboard").
func (h *Handler) authenticateTicket(r *http.Request, rt *Route, tok string) error {
	if len(rt.Rest) == 0 || rt.Rest[0] != StreamRoute {
		return apierr.New(apierr.CodeUnauthorized, "A stream ticket opens only the realtime stream: send an API key or a session in the Authorization header")
	}
	if h.d.Owners == nil {
		return apierr.New(apierr.CodeUnauthorized, "This credential is not valid for this project: dashboard sessions are not accepted by this server")
	}
	adm, err := h.d.Owners.VerifyTicket(r.Context(), rt.ProjectID, tok, !rt.Rechecking, rt.Start)
	switch {
	case errors.Is(err, auth.ErrInvalidToken):
		return apierr.New(apierr.CodeUnauthorized, "This stream ticket is not valid for this project (expired, used for another project, or signed by another server); get a new one")
	case errors.Is(err, ErrNotOwner):
		return apierr.New(apierr.CodeUnauthorized, "This credential is not valid for this project: the ticket is of an account that is not its member")
	case err != nil:
		return err
	}
	admitMember(rt, adm)
	return nil
}

// admitMember makes rt a member's dashboard request, by session or
// ticket: the owner's (a viewer's when read-only), never counted against
// the plan, under the account's statement timeout.
func admitMember(rt *Route, adm SessionAdmission) {
	rt.Principal = access.Owner()
	if adm.ReadOnly {
		rt.Principal = access.Viewer()
	}
	rt.counted, rt.statementTimeout = true, adm.StatementTimeout
}

// countRequest applies the plan's rate limit and sets the X-RateLimit
// headers on every answer.
func (h *Handler) countRequest(w http.ResponseWriter, r *http.Request, rt *Route) error {
	if h.d.Limiter == nil || rt.counted {
		return nil // a request re-run after a schema change counts once
	}
	rt.counted = true
	q, err := h.d.Limiter.Take(r.Context(), rt.ProjectID, rt.Start)
	if err != nil {
		return err
	}
	rt.statementTimeout = q.StatementTimeout
	if q.Limit < 0 {
		return nil
	}
	hd := w.Header()
	setRateHeaders(hd, q)
	if !q.Allowed {
		wait := int64(q.Reset.Sub(h.d.Now()).Seconds()) + 1
		if wait < 1 {
			wait = 1
		}
		hd.Set("Retry-After", strconv.FormatInt(wait, 10))
		return apierr.New(apierr.CodeRateLimited, "%s", q.Message)
	}
	return nil
}

// The X-RateLimit header keys in the canonical form that Header.Set would
// make of them at every call, with an allocation each.
var (
	headerLimit     = http.CanonicalHeaderKey("X-RateLimit-Limit")
	headerRemaining = http.CanonicalHeaderKey("X-RateLimit-Remaining")
	headerReset     = http.CanonicalHeaderKey("X-RateLimit-Reset")
)

// setRateHeaders sets the three X-RateLimit headers as Header.Set with
// strconv.FormatInt would, with two allocations instead of nine: the three
// numbers share one string, and the three values one backing array.
func setRateHeaders(hd http.Header, q Quota) {
	var buf [3 * 20]byte // an int64 has at most 20 characters
	digits := strconv.AppendInt(buf[:0], q.Limit, 10)
	endLimit := len(digits)
	digits = strconv.AppendInt(digits, q.Remaining, 10)
	endRemaining := len(digits)
	digits = strconv.AppendInt(digits, q.Reset.Unix(), 10)
	all := string(digits)
	vals := []string{all[:endLimit], all[endLimit:endRemaining], all[endRemaining:]}
	// Full slice expressions: appending to one header cannot overwrite the next.
	hd[headerLimit] = vals[0:1:1]
	hd[headerRemaining] = vals[1:2:2]
	hd[headerReset] = vals[2:3:3]
}
