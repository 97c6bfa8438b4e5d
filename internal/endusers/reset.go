package endusers

import (
	"context"
	"database/sql"
	"errors"
	"net/http"

	"github.com/tablesmith/tablesmith/apierr"
	"github.com/tablesmith/tablesmith/internal/apihttp"
	"github.com/tablesmith/tablesmith/internal/auth"
	"github.com/tablesmith/tablesmith/internal/envelope"
	"github.com/tablesmith/tablesmith/internal/pgexec"
	"github.com/tablesmith/tablesmith/internal/store"
	"github.com/tablesmith/tablesmith/schema"
)

// msgResetSent is the one answer of a reset request, whoever asks: it
// tells nothing about which addresses have accounts.
const msgResetSent = "If an account uses this address, a link to reset its password was sent to it"

// passwordReset mails a reset link. Every request for a valid address
// answers 202 with the same body after the same database work: the
// throttle, the lookup, and a stored token (a stand-in that is never
// sent, for an address without an account). Over the throttle nothing is
// stored or sent, whether or not the account exists.
func (a *Auth) passwordReset(h *apihttp.Handler, w http.ResponseWriter, r *http.Request, rt *apihttp.Route, q *userQueries) error {
	return a.mailLink(h, w, r, rt, q, flowReset, msgResetSent, func(context.Context, user) (bool, error) { return true, nil })
}

// mailLink is a public "mail me a link" request (reset, verification
// resend): it answers 202 with the same body whether or not the address
// has an account, after the same work: the throttle, the lookup and, within
// the throttle, a stored token. The token names the user only where wants
// says the user needs the link; otherwise it is a stand-in that is never
// sent.
func (a *Auth) mailLink(h *apihttp.Handler, w http.ResponseWriter, r *http.Request, rt *apihttp.Route, q *userQueries,
	f mailFlow, sent string, wants func(context.Context, user) (bool, error)) error {
	if _, err := h.Admit(w, r, rt, apihttp.Admission{}); err != nil {
		return err
	}
	email, redirect, err := readMailRequest(h, w, r, rt, q, "email")
	if err != nil {
		return err
	}
	ctx := r.Context()
	allowed, err := a.allowMail(ctx, rt, f, email)
	if err != nil {
		return err
	}
	u, err := a.userByEmail(ctx, q, email)
	if err != nil {
		return err
	}
	if allowed {
		t := store.EndUserToken{Email: email}
		if u.Existing {
			need, err := wants(ctx, u)
			if err != nil {
				return err
			}
			if need {
				t.UserID = u.ID
			}
		}
		if err := a.issue(ctx, r, rt, f, t, email, redirect, map[string]string{"Email": email}); err != nil {
			return err
		}
	}
	envelope.Write(w, http.StatusAccepted, envelope.Success{Message: sent})
	return nil
}

// passwordResetConfirm sets a new password with a reset token: the
// password is checked by the password column's rules and stored as its
// argon2id hash, the token is used up in the same transaction, and every
// session of the user ends (on every node). The answer signs the user in
// with a fresh session.
func (a *Auth) passwordResetConfirm(h *apihttp.Handler, w http.ResponseWriter, r *http.Request, rt *apihttp.Route, q *userQueries) error {
	if _, err := h.Admit(w, r, rt, apihttp.Admission{}); err != nil {
		return err
	}
	in, err := readStrings(h, w, r, "token", "password")
	if err != nil {
		return err
	}
	v, msg := schema.CheckValue(&q.password.Column, in["password"])
	plain, _ := v.(string)
	if msg == "" && plain == "" {
		msg = schema.MsgRequired
	}
	if msg != "" {
		return apierr.Fields(apierr.CodeValidation, "Validation failed", map[string]string{"password": msg})
	}
	ctx, now := r.Context(), a.cfg.Now()
	// Checked before hashing, so a bad token costs no argon2id.
	tokenHash, err := a.checkToken(ctx, rt, flowReset, in["token"])
	if err != nil {
		return err
	}
	hash, err := auth.HashPassword(plain)
	if err != nil {
		return err
	}
	var revoked []string
	tok, err := a.consumeToken(ctx, rt, flowReset, tokenHash, func(tx *sql.Tx, t store.EndUserToken) error {
		uid, ok := userIDValue(q.table, t.UserID)
		if !ok {
			return errTokenUnknown
		}
		// Following the link proved the address it was sent to.
		if err := a.cfg.Store.MarkEmailVerified(ctx, tx, rt.ProjectID, t.UserID, t.Email, now); err != nil {
			return err
		}
		var err error
		if revoked, err = a.cfg.Store.RevokeAllEndUserSessions(ctx, tx, rt.ProjectID, t.UserID, "password_reset", now); err != nil {
			return err
		}
		// The auth table's write comes last: on another pool it commits
		// on its own, and nothing after it may then fail but the commit.
		st := q.sql.UpdateRecord([]*schema.CColumn{q.password}, []any{hash}, nil, uid, nil)
		if _, err := pgexec.JSON(ctx, a.tableQuerier(q, tx), st.SQL, st.Args...); err != nil {
			if errors.Is(err, pgexec.ErrNoRow) {
				return errTokenUnknown // the user was deleted since
			}
			return pgexec.MapError(err, q.table, pgexec.OpWrite)
		}
		return nil
	})
	if err != nil {
		return err
	}
	for _, sid := range revoked {
		a.status.Invalidate(sid)
	}
	uid, _ := userIDValue(q.table, tok.UserID)
	u, err := a.userByID(ctx, q, uid)
	if err != nil {
		return err
	}
	if !u.Existing {
		return errTokenUnknown
	}
	return a.answerSession(w, r, rt, q, u, http.StatusOK, "Password changed; every other session was signed out")
}
