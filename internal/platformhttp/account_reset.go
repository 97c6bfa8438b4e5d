package platformhttp

import (
	"errors"
	"net/http"
	"unicode/utf8"

	"github.com/tablesmith/tablesmith/apierr"
	"github.com/tablesmith/tablesmith/internal/auth"
	"github.com/tablesmith/tablesmith/internal/envelope"
	"github.com/tablesmith/tablesmith/internal/loginthrottle"
	"github.com/tablesmith/tablesmith/internal/mail"
	"github.com/tablesmith/tablesmith/internal/store"
	"github.com/tablesmith/tablesmith/schema"
)

// resetAccepted is the one answer to a reset request, whether or not the
// address has an account and whether or not a mail went out.
const resetAccepted = "If an account uses this address, a link to choose a new password is on its way"

// requestPasswordReset mails a reset link. Known address or not, the
// request does the same statements (the throttle, then one insert that
// finds no account for a stranger) and answers the same 202; the mail
// is queued after the answer.
func (h *Handler) requestPasswordReset(w http.ResponseWriter, r *http.Request) error {
	var body struct {
		Email string `json:"email"`
	}
	if err := h.decode(w, r, &body); err != nil {
		return err
	}
	email, err := checkEmail(body.Email)
	if err != nil {
		return err
	}
	ctx := r.Context()
	allowed, err := h.allowMail(ctx, "reset", email)
	if err != nil {
		return err
	}
	if allowed {
		token, hash := auth.NewOneTimeToken(auth.ResetTokenPrefix)
		id, err := h.d.Store.CreateAccountToken(ctx, hash, store.TokenReset, email, h.d.Now().Add(resetTTL))
		switch {
		case err == nil:
			h.sendLater(mail.Message{AccountID: id, Kind: mail.KindAccountReset, To: email, Data: map[string]string{
				"Link": accountLink(r, "reset-password", token), "Email": email, "ExpiresIn": resetTTLText}})
		case !errors.Is(err, store.ErrNotFound):
			return err
		}
	}
	envelope.Write(w, http.StatusAccepted, envelope.Success{Data: map[string]any{}, Message: resetAccepted})
	return nil
}

// confirmPasswordReset sets a new password with a reset token, ends every
// session and answers a new one, as a login does.
func (h *Handler) confirmPasswordReset(w http.ResponseWriter, r *http.Request) error {
	var body struct {
		Token    string `json:"token"`
		Password string `json:"password"`
	}
	if err := h.decode(w, r, &body); err != nil {
		return err
	}
	problems := map[string]string{}
	if body.Token == "" {
		problems["token"] = "is required"
	}
	if msg := checkNewPassword(body.Password); msg != "" {
		problems["password"] = msg
	}
	if len(problems) > 0 {
		return apierr.Fields(apierr.CodeValidation, "Validation failed", problems)
	}
	// Hashed before the token is used: a failure here leaves it usable.
	pw, err := auth.HashPassword(body.Password)
	if err != nil {
		return err
	}
	acc, err := h.d.Store.ResetPassword(r.Context(), auth.HashToken(body.Token), pw, h.d.Now())
	if errors.Is(err, store.ErrNotFound) {
		return badLink("token", "This password reset link is invalid, expired or already used; ask for a new one")
	}
	if err != nil {
		return err
	}
	return h.respondSession(w, r, acc, http.StatusOK)
}

// changePassword sets a new password for the signed-in account after
// checking the current one, ends every other session and answers a
// fresh one for this client.
func (h *Handler) changePassword(w http.ResponseWriter, r *http.Request, acc store.Account) error {
	var body struct {
		Current string `json:"current_password"`
		New     string `json:"new_password"`
	}
	if err := h.decode(w, r, &body); err != nil {
		return err
	}
	if msg := checkNewPassword(body.New); msg != "" {
		return apierr.Fields(apierr.CodeValidation, "Validation failed", map[string]string{"new_password": msg})
	}
	if err := h.checkAccountPassword(w, r, acc, body.Current, "current_password"); err != nil {
		return err
	}
	pw, err := auth.HashPassword(body.New)
	if err != nil {
		return err
	}
	acc, err = h.d.Store.ChangePassword(r.Context(), acc.ID, pw)
	if err != nil {
		return err
	}
	return h.respondSession(w, r, acc, http.StatusOK)
}

// checkAccountPassword confirms a signed-in account's password, counting
// wrong ones per account like logins (a stolen session cannot guess
// it); a wrong one is a 400 naming field, not a 401, which would end
// the dashboard's session.
func (h *Handler) checkAccountPassword(w http.ResponseWriter, r *http.Request, acc store.Account, password, field string) error {
	ctx, now := r.Context(), h.d.Now()
	throttle := h.platformThrottle()
	attempt := loginthrottle.AccountSubjects(acc.ID, loginthrottle.ClientAddr(r))
	if err := throttle.Check(ctx, w, attempt, now); err != nil {
		return err
	}
	if !auth.CheckPassword(acc.PasswordHash, password) {
		if err := throttle.Failed(ctx, attempt, now); err != nil {
			return err
		}
		return apierr.Fields(apierr.CodeValidation, "Wrong password", map[string]string{field: "wrong password"})
	}
	return nil
}

// platformThrottle counts failed platform logins and confirmations.
func (h *Handler) platformThrottle() loginthrottle.Throttle {
	return loginthrottle.Throttle{Limits: h.d.LoginThrottle, Store: h.d.Store, Scope: store.PlatformLogins}
}

// checkNewPassword applies signup's rule to a new password.
func checkNewPassword(pw string) string {
	if utf8.RuneCountInString(pw) < schema.MinPasswordLength {
		return "must be at least 8 characters"
	}
	return ""
}

// badLink refuses a mailed token that does not (or no longer) work: a 400
// naming the field, so the page can offer to send a new link.
func badLink(field, msg string) error {
	return apierr.Fields(apierr.CodeValidation, msg, map[string]string{field: "invalid, expired or already used"})
}
