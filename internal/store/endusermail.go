package store

import (
	"context"
	"database/sql"
	"errors"
	"time"

	"github.com/tablesmith/tablesmith/internal/events"
)

// Purposes of end-user tokens (migration 014).
const (
	PurposePasswordReset = "password_reset"
	PurposeVerifyEmail   = "verify_email"
	PurposeEmailChange   = "email_change"
)

// EndUserToken is a single-use token mailed to an end user.
type EndUserToken struct {
	Purpose   string
	ProjectID string
	// UserID is "" for the stand-in of a reset of an unknown address.
	UserID string
	// Email is the address the link was sent to; NewEmail the address an
	// e-mail change moves to.
	Email     string
	NewEmail  string
	ExpiresAt time.Time
	UsedAt    *time.Time
}

// CreateEndUserToken stores a token by its hash.
func (s *Store) CreateEndUserToken(ctx context.Context, hash []byte, t EndUserToken, now time.Time) error {
	_, err := s.DB.ExecContext(ctx, `INSERT INTO tablesmith.end_user_tokens
		(hash, purpose, project_id, user_id, email, new_email, created_at, expires_at)
		VALUES ($1, $2, $3, nullif($4, ''), $5, nullif($6, ''), $7, $8)`,
		hash, t.Purpose, t.ProjectID, t.UserID, t.Email, t.NewEmail, now, t.ExpiresAt)
	return err
}

const endUserTokenCols = `purpose, project_id, coalesce(user_id, ''), email, coalesce(new_email, ''), expires_at, used_at`

func scanEndUserToken(row *sql.Row) (EndUserToken, error) {
	var t EndUserToken
	err := row.Scan(&t.Purpose, &t.ProjectID, &t.UserID, &t.Email, &t.NewEmail, &t.ExpiresAt, &t.UsedAt)
	if errors.Is(err, sql.ErrNoRows) {
		return t, ErrNotFound
	}
	return t, err
}

// EndUserTokenByHash returns a token; ErrNotFound if it was never issued
// (or was pruned after it expired).
func (s *Store) EndUserTokenByHash(ctx context.Context, hash []byte) (EndUserToken, error) {
	return scanEndUserToken(s.DB.QueryRowContext(ctx, `SELECT `+endUserTokenCols+`
		FROM tablesmith.end_user_tokens WHERE hash = $1`, hash))
}

// UseEndUserToken marks a token used and runs fn in the same transaction;
// fn's error rolls both back (the token stays usable). Only a token of the
// purpose and project, for a user, unused and unexpired, is taken, else
// ErrNotFound. The row lock of the UPDATE serialises concurrent uses:
// the second waits for the first to commit and then finds it used.
func (s *Store) UseEndUserToken(ctx context.Context, hash []byte, purpose, projectID string, now time.Time,
	fn func(tx *sql.Tx, t EndUserToken) error) (EndUserToken, error) {
	tx, err := s.DB.BeginTx(ctx, nil)
	if err != nil {
		return EndUserToken{}, err
	}
	defer tx.Rollback()
	t, err := scanEndUserToken(tx.QueryRowContext(ctx, `UPDATE tablesmith.end_user_tokens SET used_at = $4
		WHERE hash = $1 AND purpose = $2 AND project_id = $3 AND user_id IS NOT NULL
		  AND used_at IS NULL AND expires_at > $4
		RETURNING `+endUserTokenCols, hash, purpose, projectID, now))
	if err != nil {
		return t, err
	}
	if err := fn(tx, t); err != nil {
		return t, err
	}
	return t, tx.Commit()
}

// RevokeAllEndUserSessions revokes every live session of a user in tx
// and tells every node to forget each (on commit); it returns their ids
// so the caller can forget them on this node too.
func (s *Store) RevokeAllEndUserSessions(ctx context.Context, tx *sql.Tx, projectID, userID, reason string, now time.Time) ([]string, error) {
	rows, err := tx.QueryContext(ctx, `UPDATE tablesmith.end_user_sessions SET revoked_at = $3, revoked_reason = $4
		WHERE project_id = $1 AND user_id = $2 AND revoked_at IS NULL RETURNING id`, projectID, userID, now, reason)
	if err != nil {
		return nil, err
	}
	var ids []string
	for rows.Next() {
		var id string
		if err := rows.Scan(&id); err != nil {
			rows.Close()
			return nil, err
		}
		ids = append(ids, id)
	}
	rows.Close()
	if err := rows.Err(); err != nil {
		return nil, err
	}
	for _, id := range ids {
		if err := events.Notify(ctx, tx, events.SessionEnded{SessionID: id}); err != nil {
			return nil, err
		}
	}
	return ids, nil
}

// MarkEmailVerified records that a user proved they read an address
// (q: the store's DB or a transaction on it).
func (s *Store) MarkEmailVerified(ctx context.Context, q interface {
	ExecContext(ctx context.Context, query string, args ...any) (sql.Result, error)
}, projectID, userID, email string, now time.Time) error {
	_, err := q.ExecContext(ctx, `INSERT INTO tablesmith.end_user_verified_emails (project_id, user_id, email, verified_at)
		VALUES ($1, $2, $3, $4) ON CONFLICT DO NOTHING`, projectID, userID, email, now)
	return err
}

// EmailVerified reports whether a user proved they read an address.
func (s *Store) EmailVerified(ctx context.Context, projectID, userID, email string) (bool, error) {
	var ok bool
	err := s.DB.QueryRowContext(ctx, `SELECT EXISTS (SELECT 1 FROM tablesmith.end_user_verified_emails
		WHERE project_id = $1 AND user_id = $2 AND email = $3)`, projectID, userID, email).Scan(&ok)
	return ok, err
}

// MailLimits bound the mail sent per address and purpose.
type MailLimits struct {
	// Gap is the least time between two messages.
	Gap time.Duration
	// PerWindow messages at most in each Window.
	PerWindow int
	Window    time.Duration
}

// AllowEndUserMail counts a message to an address if the limits allow
// it, in one statement (concurrent requests cannot both pass a limit),
// and reports whether they did.
func (s *Store) AllowEndUserMail(ctx context.Context, projectID, purpose, address string, l MailLimits, now time.Time) (bool, error) {
	var ok bool
	err := s.DB.QueryRowContext(ctx, `
		INSERT INTO tablesmith.end_user_mail_throttle AS m (project_id, purpose, address, window_start, sent, last_sent_at)
		VALUES ($1, $2, $3, $4, 1, $4)
		ON CONFLICT (project_id, purpose, address) DO UPDATE SET
			window_start = CASE WHEN m.window_start <= $5 THEN $4 ELSE m.window_start END,
			sent         = CASE WHEN m.window_start <= $5 THEN 1 ELSE m.sent + 1 END,
			last_sent_at = $4
		WHERE m.last_sent_at <= $6 AND (m.window_start <= $5 OR m.sent < $7)
		RETURNING true`, projectID, purpose, address, now, now.Add(-l.Window), now.Add(-l.Gap), l.PerWindow).Scan(&ok)
	if errors.Is(err, sql.ErrNoRows) {
		return false, nil
	}
	return ok, err
}

// expiredTokenGrace is how long an expired token is kept, so that a late
// click is told "has expired" rather than "not valid".
const expiredTokenGrace = 7 * 24 * time.Hour

// PruneEndUserMail deletes tokens long expired and ended throttle windows.
func (s *Store) PruneEndUserMail(ctx context.Context, now time.Time, window time.Duration) error {
	if _, err := s.DB.ExecContext(ctx, `DELETE FROM tablesmith.end_user_tokens WHERE expires_at < $1`, now.Add(-expiredTokenGrace)); err != nil {
		return err
	}
	_, err := s.DB.ExecContext(ctx, `DELETE FROM tablesmith.end_user_mail_throttle WHERE window_start <= $1`, now.Add(-window))
	return err
}
