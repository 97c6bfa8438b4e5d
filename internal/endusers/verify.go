package endusers

import (
	"context"
	"database/sql"
	"net/http"
	"net/url"

	"github.com/tablesmith/tablesmith/internal/apihttp"
	"github.com/tablesmith/tablesmith/internal/envelope"
	"github.com/tablesmith/tablesmith/internal/store"
)

// msgVerifySent is the one answer of a resend, whoever asks.
const msgVerifySent = "If an account uses this address and it is not verified yet, a link to verify it was sent to it"

// sendVerification mails a verification link for a user's current
// address, within the per-address limits (over them: nothing is sent).
func (a *Auth) sendVerification(ctx context.Context, r *http.Request, rt *apihttp.Route, u user, redirect *url.URL) error {
	allowed, err := a.allowMail(ctx, rt, flowVerify, u.Email)
	if err != nil || !allowed {
		return err
	}
	return a.issue(ctx, r, rt, flowVerify, store.EndUserToken{UserID: u.ID, Email: u.Email}, u.Email, redirect,
		map[string]string{"Email": u.Email})
}

// verifyEmail marks the address a verification token was sent to as
// verified for its user.
func (a *Auth) verifyEmail(h *apihttp.Handler, w http.ResponseWriter, r *http.Request, rt *apihttp.Route, q *userQueries) error {
	if _, err := h.Admit(w, r, rt, apihttp.Admission{}); err != nil {
		return err
	}
	in, err := readStrings(h, w, r, "token")
	if err != nil {
		return err
	}
	ctx, now := r.Context(), a.cfg.Now()
	t, err := a.useToken(ctx, rt, flowVerify, in["token"], func(tx *sql.Tx, t store.EndUserToken) error {
		return a.cfg.Store.MarkEmailVerified(ctx, tx, rt.ProjectID, t.UserID, t.Email, now)
	})
	if err != nil {
		return err
	}
	envelope.Write(w, http.StatusOK, envelope.Success{Data: map[string]any{"email": t.Email, "email_verified": true},
		Message: "E-mail address verified"})
	return nil
}

// verifyEmailResend mails a new verification link. Like a reset request
// it answers 202 with the same body after the same work whether or not
// the address has an account that needs one (the stand-in token is
// stored for the others).
func (a *Auth) verifyEmailResend(h *apihttp.Handler, w http.ResponseWriter, r *http.Request, rt *apihttp.Route, q *userQueries) error {
	return a.mailLink(h, w, r, rt, q, flowVerify, msgVerifySent, func(ctx context.Context, u user) (bool, error) {
		verified, err := a.emailVerified(ctx, rt.ProjectID, u)
		return !verified, err
	})
}
