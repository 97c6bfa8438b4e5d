package endusers

import (
	"context"
	"database/sql"
	"errors"
	"net/http"

	"github.com/tablesmith/tablesmith/apierr"
	"github.com/tablesmith/tablesmith/internal/apihttp"
	"github.com/tablesmith/tablesmith/internal/envelope"
	"github.com/tablesmith/tablesmith/internal/mail"
	"github.com/tablesmith/tablesmith/internal/pgexec"
	"github.com/tablesmith/tablesmith/internal/store"
	"github.com/tablesmith/tablesmith/schema"
)

// errEmailTaken is a new address that another user has.
var errEmailTaken = apierr.Fields(apierr.CodeConflict, "Another account uses this e-mail address",
	map[string]string{"new_email": "already exists"})

// emailChange mails a confirmation link to the new address of the
// signed-in user; the address changes only when the link is followed,
// which proves the user reads it.
func (a *Auth) emailChange(h *apihttp.Handler, w http.ResponseWriter, r *http.Request, rt *apihttp.Route, q *userQueries) error {
	if _, err := h.Admit(w, r, rt, apihttp.Admission{Credential: true}); err != nil {
		return err
	}
	if err := needUser(rt, "/auth/email-change"); err != nil {
		return err
	}
	newEmail, redirect, err := readMailRequest(h, w, r, rt, q, "new_email")
	if err != nil {
		return err
	}
	ctx := r.Context()
	u, err := a.userByID(ctx, q, rt.Principal.UserID)
	if err != nil {
		return err
	}
	if !u.Existing {
		return errUserGone
	}
	if newEmail == u.Email {
		return apierr.Fields(apierr.CodeValidation, "Validation failed", map[string]string{"new_email": "is already the account's address"})
	}
	other, err := a.userByEmail(ctx, q, newEmail)
	if err != nil {
		return err
	}
	if other.Existing {
		return errEmailTaken
	}
	allowed, err := a.allowMail(ctx, rt, flowChange, newEmail)
	if err != nil {
		return err
	}
	if !allowed {
		return &apierr.Error{Code: apierr.CodeTooManyAttempts, RetryAfter: a.cfg.MailLimits.Gap,
			Message: "A link was sent to this address moments ago (or too often this hour); try again later"}
	}
	t := store.EndUserToken{UserID: u.ID, Email: u.Email, NewEmail: newEmail}
	if err := a.issue(ctx, r, rt, flowChange, t, newEmail, redirect, map[string]string{"Email": u.Email, "NewEmail": newEmail}); err != nil {
		return err
	}
	envelope.Write(w, http.StatusAccepted, envelope.Success{Message: "A link to confirm the new address was sent to it"})
	return nil
}

// emailChangeConfirm moves the user to the new address of the token,
// which counts as verified (the link reached it).
func (a *Auth) emailChangeConfirm(h *apihttp.Handler, w http.ResponseWriter, r *http.Request, rt *apihttp.Route, q *userQueries) error {
	if _, err := h.Admit(w, r, rt, apihttp.Admission{}); err != nil {
		return err
	}
	in, err := readStrings(h, w, r, "token")
	if err != nil {
		return err
	}
	ctx, now := r.Context(), a.cfg.Now()
	var rec []byte
	var moved store.EndUserToken
	_, err = a.useToken(ctx, rt, flowChange, in["token"], func(tx *sql.Tx, t store.EndUserToken) error {
		moved = t
		uid, ok := userIDValue(q.table, t.UserID)
		if !ok {
			return errTokenUnknown
		}
		if !q.email.Unique {
			// No unique index reports the conflict: look first.
			other, err := a.userByEmail(ctx, q, t.NewEmail)
			if err != nil {
				return err
			}
			if other.Existing && other.ID != t.UserID {
				return errEmailTaken
			}
		}
		if err := a.cfg.Store.MarkEmailVerified(ctx, tx, rt.ProjectID, t.UserID, t.NewEmail, now); err != nil {
			return err
		}
		// The auth table's write comes last (see passwordResetConfirm).
		st := q.sql.UpdateRecord([]*schema.CColumn{q.email}, []any{t.NewEmail}, nil, uid, nil)
		var err error
		rec, err = pgexec.JSON(ctx, a.tableQuerier(q, tx), st.SQL, st.Args...)
		switch {
		case errors.Is(err, pgexec.ErrNoRow):
			return errTokenUnknown // the user was deleted since
		case err != nil:
			if e := apierr.As(pgexec.MapError(err, q.table, pgexec.OpWrite)); e.Code == apierr.CodeConflict {
				return errEmailTaken
			}
			return pgexec.MapError(err, q.table, pgexec.OpWrite)
		}
		return nil
	})
	if err != nil {
		return err
	}
	a.noticeOldAddress(ctx, rt, moved)
	envelope.Write(w, http.StatusOK, envelope.Success{RawData: rec, Message: "E-mail address changed"})
	return nil
}

// noticeOldAddress tells the address the user moved away from that the
// change happened, once it has. The change stands if the notice cannot be
// queued (it is logged): the user asked for it and proved the new address.
// A client that hangs up once the change committed does not cancel the
// notice: it is the old owner's only word of the change.
func (a *Auth) noticeOldAddress(ctx context.Context, rt *apihttp.Route, t store.EndUserToken) {
	if a.cfg.Mail == nil || t.Email == "" {
		return
	}
	ctx = context.WithoutCancel(ctx)
	m := mail.Message{ProjectID: rt.ProjectID, Kind: mail.KindEmailChanged, To: t.Email,
		Data: map[string]string{"Email": t.Email, "NewEmail": t.NewEmail}}
	if err := a.cfg.Mail.Send(ctx, m); err != nil {
		a.cfg.Logger.Error("email change: the notice to the old address was not queued", "project", rt.ProjectID, "err", err)
	}
}
