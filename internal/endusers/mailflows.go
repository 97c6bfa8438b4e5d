package endusers

import (
	"context"
	"crypto/rand"
	"crypto/sha256"
	"database/sql"
	"encoding/base64"
	"errors"
	"net/http"
	"net/url"
	"strings"
	"time"

	"github.com/tablesmith/tablesmith/apierr"
	"github.com/tablesmith/tablesmith/internal/apihttp"
	"github.com/tablesmith/tablesmith/internal/clientaddr"
	"github.com/tablesmith/tablesmith/internal/mail"
	"github.com/tablesmith/tablesmith/internal/pgexec"
	"github.com/tablesmith/tablesmith/internal/store"
	"github.com/tablesmith/tablesmith/schema"
)

// mailFlow is one kind of e-mailed link: password reset, address
// verification, e-mail change.
type mailFlow struct {
	purpose string
	kind    mail.Kind
	// prefix starts every token of the flow, so a token pasted into the
	// wrong form is recognisably not one of it.
	prefix  string
	ttl     time.Duration
	ttlText string
	// page is Tablesmith's hosted page (the dashboard's) that the link
	// opens when the request named no redirect_to.
	page string
}

var (
	flowReset  = mailFlow{store.PurposePasswordReset, mail.KindPasswordReset, "tspr_", time.Hour, "1 hour", "/auth/reset-password"}
	flowVerify = mailFlow{store.PurposeVerifyEmail, mail.KindVerifyEmail, "tsv_", 24 * time.Hour, "24 hours", "/auth/verify-email"}
	flowChange = mailFlow{store.PurposeEmailChange, mail.KindEmailChange, "tse_", time.Hour, "1 hour", "/auth/confirm-email-change"}
)

// DefaultMailLimits bound the mail of each flow per address: one a
// minute, five an hour.
var DefaultMailLimits = store.MailLimits{Gap: time.Minute, PerWindow: 5, Window: time.Hour}

// newMailToken returns a flow's token (the prefix and 256 random bits)
// and the SHA-256 that is stored.
func newMailToken(f mailFlow) (token string, hash []byte) {
	b := make([]byte, 32)
	if _, err := rand.Read(b); err != nil {
		panic(err) // crypto/rand does not fail on supported platforms
	}
	token = f.prefix + base64.RawURLEncoding.EncodeToString(b)
	return token, hashMailToken(token)
}

func hashMailToken(token string) []byte {
	h := sha256.Sum256([]byte(token))
	return h[:]
}

// mailLink is the link a message carries: redirect_to (already checked by
// RedirectTarget) with token and type added to its query, or the hosted
// page on the host the request came to.
func mailLink(r *http.Request, projectID string, f mailFlow, token string, redirect *url.URL) string {
	if redirect != nil {
		u := *redirect
		q := u.Query()
		q.Set("token", token)
		q.Set("type", f.purpose)
		u.RawQuery = q.Encode()
		return u.String()
	}
	q := url.Values{"project": {projectID}, "token": {token}}
	return clientaddr.Scheme(r) + "://" + r.Host + f.page + "?" + q.Encode()
}

// issue stores a token of a flow for a user and mails its link to "to".
// data adds template values to Link and ExpiresIn.
func (a *Auth) issue(ctx context.Context, r *http.Request, rt *apihttp.Route, f mailFlow, t store.EndUserToken, to string,
	redirect *url.URL, data map[string]string) error {
	token, hash := newMailToken(f)
	now := a.cfg.Now()
	t.Purpose, t.ProjectID, t.ExpiresAt = f.purpose, rt.ProjectID, now.Add(f.ttl)
	if err := a.cfg.Store.CreateEndUserToken(ctx, hash, t, now); err != nil {
		return err
	}
	if t.UserID == "" {
		return nil // the stand-in of an unknown address: stored, never sent
	}
	if a.cfg.Mail == nil {
		return errors.New("end-user mail: no mail sender configured")
	}
	d := map[string]string{"Link": mailLink(r, rt.ProjectID, f, token, redirect), "ExpiresIn": f.ttlText}
	for k, v := range data {
		d[k] = v
	}
	return a.cfg.Mail.Send(ctx, mail.Message{ProjectID: rt.ProjectID, Kind: f.kind, To: to, Data: d})
}

// Errors of a token that cannot be used: one shape (400, details.token),
// a message that says what to do.
var (
	errTokenUnknown = apierr.Fields(apierr.CodeValidation, "This link is not valid: request a new one",
		map[string]string{"token": "is not a valid token of this project"})
	errTokenUsed = apierr.Fields(apierr.CodeValidation, "This link was already used: request a new one",
		map[string]string{"token": "was already used"})
	errTokenExpired = apierr.Fields(apierr.CodeValidation, "This link has expired: request a new one",
		map[string]string{"token": "has expired"})
)

// checkToken checks a presented token of a flow without using it and
// returns its hash: unknown (or another project's, or a stand-in), used
// and expired tokens are refused.
func (a *Auth) checkToken(ctx context.Context, rt *apihttp.Route, f mailFlow, raw string) ([]byte, error) {
	if !strings.HasPrefix(raw, f.prefix) {
		return nil, errTokenUnknown
	}
	hash := hashMailToken(raw)
	t, err := a.cfg.Store.EndUserTokenByHash(ctx, hash)
	switch {
	case errors.Is(err, store.ErrNotFound):
		return nil, errTokenUnknown
	case err != nil:
		return nil, err
	case t.ProjectID != rt.ProjectID || t.Purpose != f.purpose || t.UserID == "":
		return nil, errTokenUnknown
	case t.UsedAt != nil:
		return nil, errTokenUsed
	case !a.cfg.Now().Before(t.ExpiresAt):
		return nil, errTokenExpired
	}
	return hash, nil
}

// consumeToken marks a checked token used and runs fn in the same
// control-schema transaction; fn's error undoes the marking. Of
// concurrent uses exactly one gets to fn, the others are told the token
// was used.
func (a *Auth) consumeToken(ctx context.Context, rt *apihttp.Route, f mailFlow, hash []byte,
	fn func(tx *sql.Tx, t store.EndUserToken) error) (store.EndUserToken, error) {
	t, err := a.cfg.Store.UseEndUserToken(ctx, hash, f.purpose, rt.ProjectID, a.cfg.Now(), fn)
	if errors.Is(err, store.ErrNotFound) {
		return t, errTokenUsed // another request used it a moment ago
	}
	return t, err
}

// useToken is checkToken then consumeToken.
func (a *Auth) useToken(ctx context.Context, rt *apihttp.Route, f mailFlow, raw string,
	fn func(tx *sql.Tx, t store.EndUserToken) error) (store.EndUserToken, error) {
	hash, err := a.checkToken(ctx, rt, f, raw)
	if err != nil {
		return store.EndUserToken{}, err
	}
	return a.consumeToken(ctx, rt, f, hash, fn)
}

// tableQuerier is where a token's change to the auth table runs: in the
// token's transaction when the project's tables share the control
// database's pool (one commit for both), else on the project's pool
// while the transaction holds the token (its row lock still lets only
// one use through, and a failed write leaves the token usable).
func (a *Auth) tableQuerier(q *userQueries, tx *sql.Tx) pgexec.Querier {
	if q.db == a.cfg.Store.DB {
		return tx
	}
	return q.db
}

// allowMail counts a message of a flow to an address against the limits.
func (a *Auth) allowMail(ctx context.Context, rt *apihttp.Route, f mailFlow, address string) (bool, error) {
	return a.cfg.Store.AllowEndUserMail(ctx, rt.ProjectID, f.purpose, address, a.cfg.MailLimits, a.cfg.Now())
}

// checkEmail validates an address like the auth table's e-mail column
// and returns it normalized; problems are named after field.
func checkEmail(q *userQueries, field, raw string) (string, error) {
	v, msg := schema.CheckValue(&q.email.Column, raw)
	s, ok := v.(string)
	if msg == "" && !ok {
		msg = "must be an e-mail address"
	}
	if msg != "" {
		return "", apierr.Fields(apierr.CodeValidation, "Validation failed", map[string]string{field: msg})
	}
	return s, nil
}

// readMailRequest reads {<field>, redirect_to?} and checks both: the
// address like the e-mail column, redirect_to by RedirectTarget.
func readMailRequest(h *apihttp.Handler, w http.ResponseWriter, r *http.Request, rt *apihttp.Route, q *userQueries, field string) (string, *url.URL, error) {
	body, err := h.ReadBody(w, r)
	if err != nil {
		return "", nil, err
	}
	raw, err := optionalString(body, "redirect_to")
	if err != nil {
		return "", nil, err
	}
	in, err := onlyStrings(body, field)
	if err != nil {
		return "", nil, err
	}
	redirect, err := RedirectTarget(rt.Entry, raw)
	if err != nil {
		return "", nil, err
	}
	email, err := checkEmail(q, field, in[field])
	return email, redirect, err
}

// optionalString takes an optional string field out of body: "" when it
// is absent or null.
func optionalString(body map[string]any, field string) (string, error) {
	v, present := body[field]
	delete(body, field)
	if !present || v == nil {
		return "", nil
	}
	s, ok := v.(string)
	if !ok {
		return "", apierr.Fields(apierr.CodeValidation, "Validation failed", map[string]string{field: "must be a string"})
	}
	return s, nil
}

// verification is the auth table's e-mail verification setting.
func verification(q *userQueries) string {
	if v := q.table.Doc.EmailVerification; v != "" {
		return v
	}
	return schema.EmailVerificationOff
}
