package store

import (
	"context"
	"database/sql"
	"errors"
	"time"

	"github.com/lib/pq"
)

// Purposes of an account token (tablesmith.account_tokens).
const (
	TokenReset  = "reset"
	TokenVerify = "verify"
)

// ErrConflict is returned when an account is not in the state a change
// needs (two-factor already on, or no enrolment pending).
var ErrConflict = errors.New("conflict")

// AllowMail counts a dashboard account's message to subject (the end
// users' MailLimits) and reports whether the limits allow it; a refused
// message is not counted. One statement, so two concurrent requests
// cannot both take the last place.
func (s *Store) AllowMail(ctx context.Context, subject []byte, now time.Time, lim MailLimits) (bool, error) {
	res, err := s.DB.ExecContext(ctx, `
		INSERT INTO tablesmith.account_mail_sends AS m (subject, window_start, sent, last_sent)
		VALUES ($1, $2, 1, $2)
		ON CONFLICT (subject) DO UPDATE SET
			window_start = CASE WHEN m.window_start <= $3 THEN $2 ELSE m.window_start END,
			sent         = CASE WHEN m.window_start <= $3 THEN 1 ELSE m.sent + 1 END,
			last_sent    = $2
		WHERE m.last_sent <= $4 AND (m.window_start <= $3 OR m.sent < $5)`,
		subject, now, now.Add(-lim.Window), now.Add(-lim.Gap), lim.PerWindow)
	if err != nil {
		return false, err
	}
	n, err := res.RowsAffected()
	return n == 1, err
}

// CreateAccountToken stores the hash of a token for the account with
// e-mail email, and returns the account's id; ErrNotFound (having done
// the same work) when no account has that address.
func (s *Store) CreateAccountToken(ctx context.Context, hash []byte, purpose, email string, expires time.Time) (int64, error) {
	var id int64
	err := s.DB.QueryRowContext(ctx, `INSERT INTO tablesmith.account_tokens (token_hash, account_id, purpose, email, expires_at)
		SELECT $1, id, $2, email, $4 FROM tablesmith.accounts WHERE email = $3 RETURNING account_id`,
		hash, purpose, email, expires).Scan(&id)
	if errors.Is(err, sql.ErrNoRows) {
		return 0, ErrNotFound
	}
	return id, err
}

// useToken deletes a live token of purpose in tx and returns its account
// id: the delete is what makes a token single use (of two concurrent
// uses, the second finds nothing). A token whose address is no longer
// the account's is refused.
func useToken(ctx context.Context, tx *sql.Tx, hash []byte, purpose string, now time.Time) (int64, error) {
	var id int64
	err := tx.QueryRowContext(ctx, `DELETE FROM tablesmith.account_tokens t USING tablesmith.accounts a
		WHERE t.token_hash = $1 AND t.purpose = $2 AND t.expires_at > $3 AND a.id = t.account_id AND a.email = t.email
		RETURNING t.account_id`, hash, purpose, now).Scan(&id)
	if errors.Is(err, sql.ErrNoRows) {
		return 0, ErrNotFound
	}
	if err != nil {
		return 0, err
	}
	// The other links of the same kind go too: one reset is one reset.
	_, err = tx.ExecContext(ctx, `DELETE FROM tablesmith.account_tokens WHERE account_id = $1 AND purpose = $2`, id, purpose)
	return id, err
}

// ResetPassword uses a reset token: sets the password hash, bumps the
// session generation (every session ends) and marks the address
// verified (the link reached it). ErrNotFound: unknown, used or expired.
func (s *Store) ResetPassword(ctx context.Context, hash []byte, passwordHash string, now time.Time) (Account, error) {
	tx, err := s.DB.BeginTx(ctx, nil)
	if err != nil {
		return Account{}, err
	}
	defer tx.Rollback()
	id, err := useToken(ctx, tx, hash, TokenReset, now)
	if err != nil {
		return Account{}, err
	}
	acc, err := scanAccount(tx.QueryRowContext(ctx, `UPDATE tablesmith.accounts
		SET password_hash = $2, session_gen = session_gen + 1, email_verified_at = coalesce(email_verified_at, $3)
		WHERE id = $1 RETURNING `+accountCols, id, passwordHash, now))
	if err != nil {
		return Account{}, err
	}
	return acc, tx.Commit()
}

// VerifyEmail uses a verification token and marks the account's address
// verified. ErrNotFound: unknown, used or expired.
func (s *Store) VerifyEmail(ctx context.Context, hash []byte, now time.Time) (Account, error) {
	tx, err := s.DB.BeginTx(ctx, nil)
	if err != nil {
		return Account{}, err
	}
	defer tx.Rollback()
	id, err := useToken(ctx, tx, hash, TokenVerify, now)
	if err != nil {
		return Account{}, err
	}
	acc, err := scanAccount(tx.QueryRowContext(ctx, `UPDATE tablesmith.accounts
		SET email_verified_at = coalesce(email_verified_at, $2) WHERE id = $1 RETURNING `+accountCols, id, now))
	if err != nil {
		return Account{}, err
	}
	return acc, tx.Commit()
}

// ChangePassword sets an account's password hash and bumps its session
// generation, so every session issued before ends.
func (s *Store) ChangePassword(ctx context.Context, id int64, passwordHash string) (Account, error) {
	return scanAccount(s.DB.QueryRowContext(ctx, `UPDATE tablesmith.accounts
		SET password_hash = $2, session_gen = session_gen + 1 WHERE id = $1 RETURNING `+accountCols, id, passwordHash))
}

// TOTP is an account's two-factor state, sealed as stored.
type TOTP struct {
	Secret   []byte // enabled; nil when off
	Pending  []byte // an enrolment awaiting its first code
	LastStep int64  // the last time step whose code was accepted
}

// AccountTOTP reads an account's two-factor state.
func (s *Store) AccountTOTP(ctx context.Context, id int64) (TOTP, error) {
	var t TOTP
	err := s.DB.QueryRowContext(ctx, `SELECT totp_secret, totp_pending, totp_last_step FROM tablesmith.accounts WHERE id = $1`, id).
		Scan(&t.Secret, &t.Pending, &t.LastStep)
	if errors.Is(err, sql.ErrNoRows) {
		return t, ErrNotFound
	}
	return t, err
}

// StartTOTP keeps a sealed secret as the pending enrolment (replacing an
// earlier one); ErrConflict when two-factor is already on.
func (s *Store) StartTOTP(ctx context.Context, id int64, sealed []byte) error {
	return oneRow(s.DB.ExecContext(ctx, `UPDATE tablesmith.accounts SET totp_pending = $2
		WHERE id = $1 AND totp_secret IS NULL`, id, sealed))
}

// EnableTOTP turns the pending enrolment that was checked (sealed) on,
// with the step of the code that confirmed it used, and stores the
// recovery codes' hashes; ErrConflict when that enrolment is no longer
// the pending one.
func (s *Store) EnableTOTP(ctx context.Context, id int64, sealed []byte, step int64, codeHashes [][]byte) error {
	tx, err := s.DB.BeginTx(ctx, nil)
	if err != nil {
		return err
	}
	defer tx.Rollback()
	if err := oneRow(tx.ExecContext(ctx, `UPDATE tablesmith.accounts
		SET totp_secret = totp_pending, totp_pending = NULL, totp_last_step = $3
		WHERE id = $1 AND totp_secret IS NULL AND totp_pending = $2`, id, sealed, step)); err != nil {
		return err
	}
	if err := replaceRecoveryCodes(ctx, tx, id, codeHashes); err != nil {
		return err
	}
	return tx.Commit()
}

// DisableTOTP turns two-factor off and forgets its secret and codes.
func (s *Store) DisableTOTP(ctx context.Context, id int64) error {
	tx, err := s.DB.BeginTx(ctx, nil)
	if err != nil {
		return err
	}
	defer tx.Rollback()
	if _, err := tx.ExecContext(ctx, `UPDATE tablesmith.accounts
		SET totp_secret = NULL, totp_pending = NULL, totp_last_step = 0 WHERE id = $1`, id); err != nil {
		return err
	}
	if err := replaceRecoveryCodes(ctx, tx, id, nil); err != nil {
		return err
	}
	return tx.Commit()
}

// ReplaceRecoveryCodes swaps an account's recovery codes for new ones.
func (s *Store) ReplaceRecoveryCodes(ctx context.Context, id int64, codeHashes [][]byte) error {
	tx, err := s.DB.BeginTx(ctx, nil)
	if err != nil {
		return err
	}
	defer tx.Rollback()
	if err := replaceRecoveryCodes(ctx, tx, id, codeHashes); err != nil {
		return err
	}
	return tx.Commit()
}

func replaceRecoveryCodes(ctx context.Context, tx *sql.Tx, id int64, codeHashes [][]byte) error {
	if _, err := tx.ExecContext(ctx, `DELETE FROM tablesmith.account_recovery_codes WHERE account_id = $1`, id); err != nil {
		return err
	}
	if len(codeHashes) == 0 {
		return nil
	}
	_, err := tx.ExecContext(ctx, `INSERT INTO tablesmith.account_recovery_codes (account_id, code_hash)
		SELECT $1, h FROM unnest($2::bytea[]) AS h`, id, pq.ByteaArray(codeHashes))
	return err
}

// UseTOTPStep records step as used; false when it (or a later one) was
// used already: a code is good once, even to two concurrent logins.
func (s *Store) UseTOTPStep(ctx context.Context, id, step int64) (bool, error) {
	err := oneRow(s.DB.ExecContext(ctx, `UPDATE tablesmith.accounts SET totp_last_step = $2
		WHERE id = $1 AND totp_last_step < $2 AND totp_secret IS NOT NULL`, id, step))
	if errors.Is(err, ErrConflict) {
		return false, nil
	}
	return err == nil, err
}

// UseRecoveryCode deletes a recovery code; false when the account has no
// such code (any more).
func (s *Store) UseRecoveryCode(ctx context.Context, id int64, codeHash []byte) (bool, error) {
	err := oneRow(s.DB.ExecContext(ctx, `DELETE FROM tablesmith.account_recovery_codes
		WHERE account_id = $1 AND code_hash = $2`, id, codeHash))
	if errors.Is(err, ErrConflict) {
		return false, nil
	}
	return err == nil, err
}

// CountRecoveryCodes counts the recovery codes an account has left.
func (s *Store) CountRecoveryCodes(ctx context.Context, id int64) (int, error) {
	var n int
	err := s.DB.QueryRowContext(ctx, `SELECT count(*) FROM tablesmith.account_recovery_codes WHERE account_id = $1`, id).Scan(&n)
	return n, err
}

// PruneAccountTokens deletes expired tokens and ended mail windows.
func (s *Store) PruneAccountTokens(ctx context.Context, now time.Time, mailWindow time.Duration) error {
	if _, err := s.DB.ExecContext(ctx, `DELETE FROM tablesmith.account_tokens WHERE expires_at <= $1`, now); err != nil {
		return err
	}
	_, err := s.DB.ExecContext(ctx, `DELETE FROM tablesmith.account_mail_sends WHERE window_start <= $1`, now.Add(-mailWindow))
	return err
}

// oneRow turns an update's result into ErrConflict when it changed no row.
func oneRow(res sql.Result, err error) error {
	if err != nil {
		return err
	}
	n, err := res.RowsAffected()
	if err != nil {
		return err
	}
	if n == 0 {
		return ErrConflict
	}
	return nil
}
