package platformhttp

import (
	"errors"
	"net/http"

	"github.com/tablesmith/tablesmith/apierr"
	"github.com/tablesmith/tablesmith/internal/auth"
	"github.com/tablesmith/tablesmith/internal/envelope"
	"github.com/tablesmith/tablesmith/internal/mail"
	"github.com/tablesmith/tablesmith/internal/store"
)

// sendVerification mails an account a link that verifies its address,
// counted against the address's mail limits; errVerifyThrottled when
// they allow no more now.
func (h *Handler) sendVerification(r *http.Request, acc store.Account) error {
	ctx := r.Context()
	allowed, err := h.allowMail(ctx, "verify", acc.Email)
	if err != nil {
		return err
	}
	if !allowed {
		return errVerifyThrottled
	}
	token, hash := auth.NewOneTimeToken(auth.VerifyTokenPrefix)
	if _, err := h.d.Store.CreateAccountToken(ctx, hash, store.TokenVerify, acc.Email, h.d.Now().Add(verifyTTL)); err != nil {
		return err
	}
	return h.sendAccountMail(ctx, mail.Message{AccountID: acc.ID, Kind: mail.KindAccountVerify, To: acc.Email, Data: map[string]string{
		"Link": accountLink(r, "verify-email", token), "Email": acc.Email, "ExpiresIn": verifyTTLText}})
}

var errVerifyThrottled = errors.New("verification mail throttled")

// resendVerification mails the signed-in account a new verification link.
func (h *Handler) resendVerification(w http.ResponseWriter, r *http.Request, acc store.Account) error {
	if acc.EmailVerified {
		return apierr.New(apierr.CodeConflict, "Your e-mail address is already verified")
	}
	err := h.sendVerification(r, acc)
	if errors.Is(err, errVerifyThrottled) {
		w.Header().Set("Retry-After", "60")
		return apierr.New(apierr.CodeTooManyAttempts, "A verification e-mail was sent a moment ago; check your inbox, or try again in a minute (at most 5 an hour)")
	}
	if err != nil {
		return err
	}
	envelope.Write(w, http.StatusAccepted, envelope.Success{Data: map[string]any{"email": acc.Email},
		Message: "A new verification link is on its way to " + acc.Email})
	return nil
}

// verifyEmail uses a verification link's token. It needs no session: the
// link may be opened in another browser than the dashboard's.
func (h *Handler) verifyEmail(w http.ResponseWriter, r *http.Request) error {
	var body struct {
		Token string `json:"token"`
	}
	if err := h.decode(w, r, &body); err != nil {
		return err
	}
	if body.Token == "" {
		return apierr.Fields(apierr.CodeValidation, "Validation failed", map[string]string{"token": "is required"})
	}
	acc, err := h.d.Store.VerifyEmail(r.Context(), auth.HashToken(body.Token), h.d.Now())
	if errors.Is(err, store.ErrNotFound) {
		return badLink("token", "This verification link is invalid, expired or already used; sign in and ask for a new one")
	}
	if err != nil {
		return err
	}
	envelope.OK(w, map[string]any{"email": acc.Email, "email_verified": true})
	return nil
}
