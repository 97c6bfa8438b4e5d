package platformhttp

import (
	"context"
	"errors"
	"net/http"
	"strconv"
	"strings"

	"github.com/tablesmith/tablesmith/apierr"
	"github.com/tablesmith/tablesmith/internal/auth"
	"github.com/tablesmith/tablesmith/internal/envelope"
	"github.com/tablesmith/tablesmith/internal/loginthrottle"
	"github.com/tablesmith/tablesmith/internal/store"
)

// recoveryCodeCount is how many recovery codes an enrolment (or a
// regeneration) hands out.
const recoveryCodeCount = 10

// totpAAD binds a sealed TOTP secret to its account: copied onto another
// account's row, it does not open.
func totpAAD(accountID int64) string {
	return "tablesmith totp account " + strconv.FormatInt(accountID, 10)
}

// startTOTP begins an enrolment: a fresh secret, kept sealed as pending
// until a code from it confirms it. Starting again replaces it.
func (h *Handler) startTOTP(w http.ResponseWriter, r *http.Request, acc store.Account) error {
	if acc.TOTPEnabled {
		return apierr.New(apierr.CodeConflict, "Two-factor authentication is already on; turn it off first to enrol another device")
	}
	secret, url, err := auth.NewTOTP(acc.Email)
	if err != nil {
		return err
	}
	sealed, err := auth.Seal(h.d.TOTPKey, secret, totpAAD(acc.ID))
	if err != nil {
		return err
	}
	err = h.d.Store.StartTOTP(r.Context(), acc.ID, sealed)
	if errors.Is(err, store.ErrConflict) {
		return apierr.New(apierr.CodeConflict, "Two-factor authentication is already on")
	}
	if err != nil {
		return err
	}
	envelope.OK(w, map[string]any{"secret": secret, "otpauth_url": url})
	return nil
}

// confirmTOTP turns the pending enrolment on with a code from it, and
// answers the recovery codes, shown this once.
func (h *Handler) confirmTOTP(w http.ResponseWriter, r *http.Request, acc store.Account) error {
	var body struct {
		Code string `json:"code"`
	}
	if err := h.decode(w, r, &body); err != nil {
		return err
	}
	ctx := r.Context()
	t, err := h.d.Store.AccountTOTP(ctx, acc.ID)
	if err != nil {
		return err
	}
	if t.Secret != nil {
		return apierr.New(apierr.CodeConflict, "Two-factor authentication is already on")
	}
	if t.Pending == nil {
		return apierr.New(apierr.CodeConflict, "No enrolment to confirm; start one with POST /api/account/totp")
	}
	secret, err := auth.Open(h.d.TOTPKey, t.Pending, totpAAD(acc.ID))
	if err != nil {
		return err
	}
	step, ok := auth.MatchTOTP(secret, body.Code, h.d.Now())
	if !ok {
		return apierr.Fields(apierr.CodeValidation, "Wrong code", map[string]string{"code": "does not match; enter the current 6-digit code from your authenticator app"})
	}
	codes, hashes := newRecoveryCodes()
	err = h.d.Store.EnableTOTP(ctx, acc.ID, t.Pending, step, hashes)
	if errors.Is(err, store.ErrConflict) {
		return apierr.New(apierr.CodeConflict, "The enrolment changed meanwhile; start again")
	}
	if err != nil {
		return err
	}
	envelope.OK(w, map[string]any{"totp_enabled": true, "recovery_codes": codes})
	return nil
}

// disableTOTP turns two-factor off, with the password and a code (or a
// recovery code): a session alone is not enough.
func (h *Handler) disableTOTP(w http.ResponseWriter, r *http.Request, acc store.Account) error {
	var body struct {
		Password string `json:"password"`
		Code     string `json:"code"`
	}
	if err := h.decode(w, r, &body); err != nil {
		return err
	}
	if !acc.TOTPEnabled {
		return apierr.New(apierr.CodeConflict, "Two-factor authentication is not on")
	}
	if err := h.checkAccountPassword(w, r, acc, body.Password, "password"); err != nil {
		return err
	}
	if err := h.checkSignedInFactor(w, r, acc, body.Code); err != nil {
		return err
	}
	if err := h.d.Store.DisableTOTP(r.Context(), acc.ID); err != nil {
		return err
	}
	envelope.OK(w, map[string]any{"totp_enabled": false})
	return nil
}

// regenerateRecoveryCodes replaces the recovery codes, with a code (or a
// recovery code); the old ones stop working.
func (h *Handler) regenerateRecoveryCodes(w http.ResponseWriter, r *http.Request, acc store.Account) error {
	var body struct {
		Code string `json:"code"`
	}
	if err := h.decode(w, r, &body); err != nil {
		return err
	}
	if !acc.TOTPEnabled {
		return apierr.New(apierr.CodeConflict, "Two-factor authentication is not on")
	}
	if err := h.checkSignedInFactor(w, r, acc, body.Code); err != nil {
		return err
	}
	codes, hashes := newRecoveryCodes()
	if err := h.d.Store.ReplaceRecoveryCodes(r.Context(), acc.ID, hashes); err != nil {
		return err
	}
	envelope.OK(w, map[string]any{"recovery_codes": codes})
	return nil
}

// respondMFARequired answers a right password on an account with
// two-factor on: no session yet, only the token for the second step.
func (h *Handler) respondMFARequired(w http.ResponseWriter, acc store.Account) error {
	tok, err := h.d.Sessions.IssueMFA(acc.ID, acc.SessionGen)
	if err != nil {
		return err
	}
	envelope.OK(w, map[string]any{"mfa_required": true, "mfa_token": tok, "expires_in": int(auth.MFATTL.Seconds())})
	return nil
}

// loginMFA is a login's second step: the MFA token and a code or a
// recovery code answer the session a login without two-factor answers.
func (h *Handler) loginMFA(w http.ResponseWriter, r *http.Request) error {
	var body struct {
		MFAToken     string `json:"mfa_token"`
		Code         string `json:"code"`
		RecoveryCode string `json:"recovery_code"`
	}
	if err := h.decode(w, r, &body); err != nil {
		return err
	}
	if (body.Code == "") == (body.RecoveryCode == "") {
		return apierr.Fields(apierr.CodeValidation, "Send either code or recovery_code", map[string]string{"code": "send this or recovery_code, not both"})
	}
	ctx, now := r.Context(), h.d.Now()
	sess, err := h.d.Sessions.VerifyMFA(body.MFAToken)
	if err != nil {
		return apierr.New(apierr.CodeUnauthorized, "This sign-in step is invalid or has expired; log in again")
	}
	acc, err := h.d.Store.AccountByID(ctx, sess.AccountID)
	if err != nil && !errors.Is(err, store.ErrNotFound) {
		return err
	}
	if err != nil || acc.SessionGen != sess.Generation || !acc.TOTPEnabled {
		return apierr.New(apierr.CodeUnauthorized, "This sign-in step is no longer valid; log in again")
	}
	throttle := h.platformThrottle()
	attempt := loginthrottle.AccountSubjects(acc.ID, loginthrottle.ClientAddr(r))
	if err := throttle.Check(ctx, w, attempt, now); err != nil {
		return err
	}
	ok, err := h.secondFactorOK(ctx, acc, body.Code, body.RecoveryCode)
	if err != nil {
		return err
	}
	if !ok {
		if err := throttle.Failed(ctx, attempt, now); err != nil {
			return err
		}
		return apierr.New(apierr.CodeInvalidCreds, "Wrong or already used code")
	}
	if err := throttle.Succeeded(ctx, attempt); err != nil {
		return err
	}
	return h.respondSession(w, r, acc, http.StatusOK)
}

// checkSignedInFactor confirms a signed-in change with a code, which may
// be a recovery code, throttled per account; a wrong one is a 400 naming
// code (a 401 would end the dashboard's session).
func (h *Handler) checkSignedInFactor(w http.ResponseWriter, r *http.Request, acc store.Account, code string) error {
	ctx, now := r.Context(), h.d.Now()
	throttle := h.platformThrottle()
	attempt := loginthrottle.AccountSubjects(acc.ID, loginthrottle.ClientAddr(r))
	if err := throttle.Check(ctx, w, attempt, now); err != nil {
		return err
	}
	totpCode, recovery := code, ""
	if !isTOTPCode(code) {
		totpCode, recovery = "", code
	}
	ok, err := h.secondFactorOK(ctx, acc, totpCode, recovery)
	if err != nil {
		return err
	}
	if !ok {
		if err := throttle.Failed(ctx, attempt, now); err != nil {
			return err
		}
		return apierr.Fields(apierr.CodeValidation, "Wrong code", map[string]string{"code": "wrong or already used; enter the current code from your authenticator app or a recovery code"})
	}
	return nil
}

// secondFactorOK checks a TOTP code (each time step once) or uses up a
// recovery code.
func (h *Handler) secondFactorOK(ctx context.Context, acc store.Account, code, recovery string) (bool, error) {
	if recovery != "" {
		return h.d.Store.UseRecoveryCode(ctx, acc.ID, auth.HashToken(auth.NormalizeRecoveryCode(recovery)))
	}
	t, err := h.d.Store.AccountTOTP(ctx, acc.ID)
	if err != nil || t.Secret == nil {
		return false, err
	}
	secret, err := auth.Open(h.d.TOTPKey, t.Secret, totpAAD(acc.ID))
	if err != nil {
		return false, err
	}
	step, ok := auth.MatchTOTP(secret, code, h.d.Now())
	if !ok || step <= t.LastStep {
		return false, nil
	}
	return h.d.Store.UseTOTPStep(ctx, acc.ID, step)
}

// isTOTPCode tells a 6-digit code from a recovery code.
func isTOTPCode(s string) bool {
	s = strings.TrimSpace(s)
	if len(s) != 6 {
		return false
	}
	_, err := strconv.Atoi(s)
	return err == nil
}

// newRecoveryCodes returns fresh recovery codes and their stored hashes.
func newRecoveryCodes() ([]string, [][]byte) {
	codes := auth.NewRecoveryCodes(recoveryCodeCount)
	hashes := make([][]byte, len(codes))
	for i, c := range codes {
		hashes[i] = auth.HashToken(auth.NormalizeRecoveryCode(c))
	}
	return codes, hashes
}
