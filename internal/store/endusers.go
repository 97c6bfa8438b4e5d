package store

import (
	"context"
	"database/sql"
	"errors"
	"time"

	"github.com/lib/pq"

	"github.com/tablesmith/tablesmith/internal/events"
)

// RefreshToken is what a presented refresh token refers to.
type RefreshToken struct {
	SessionID string
	ProjectID string
	UserID    string
	ExpiresAt time.Time
	// UsedAt is set once the token was rotated: presenting it again is reuse.
	UsedAt *time.Time
	// RevokedAt is set when its session (the family) is revoked.
	RevokedAt *time.Time
}

// CreateEndUserSession starts a sign-in session for a user of a project
// with its first refresh token (stored as its hash), in one statement.
func (s *Store) CreateEndUserSession(ctx context.Context, projectID, userID string, tokenHash []byte, now, expires time.Time) (string, error) {
	id := "ses_" + RandomID(24)
	_, err := s.DB.ExecContext(ctx, `
		WITH ses AS (INSERT INTO tablesmith.end_user_sessions (id, project_id, user_id, created_at)
		             VALUES ($1, $2, $3, $4) RETURNING id)
		INSERT INTO tablesmith.end_user_refresh_tokens (hash, session_id, created_at, expires_at)
		SELECT $5, id, $4, $6 FROM ses`, id, projectID, userID, now, tokenHash, expires)
	if err != nil {
		return "", err
	}
	return id, nil
}

// RefreshTokenByHash returns the state of a refresh token; ErrNotFound for
// a token never issued (or pruned after it expired).
func (s *Store) RefreshTokenByHash(ctx context.Context, hash []byte) (RefreshToken, error) {
	var t RefreshToken
	err := s.DB.QueryRowContext(ctx, `
		SELECT r.session_id, s.project_id, s.user_id, r.expires_at, r.used_at, s.revoked_at
		FROM tablesmith.end_user_refresh_tokens r JOIN tablesmith.end_user_sessions s ON s.id = r.session_id
		WHERE r.hash = $1`, hash).Scan(&t.SessionID, &t.ProjectID, &t.UserID, &t.ExpiresAt, &t.UsedAt, &t.RevokedAt)
	if errors.Is(err, sql.ErrNoRows) {
		return t, ErrNotFound
	}
	return t, err
}

// RotateRefreshToken marks a live, unused, unexpired token used and adds
// its successor to the same session, in one statement. The row lock of the
// UPDATE serialises concurrent rotations of one token: exactly one wins,
// the others get ErrNotFound (and treat it as reuse).
func (s *Store) RotateRefreshToken(ctx context.Context, oldHash, newHash []byte, now, expires time.Time) error {
	var sid string
	err := s.DB.QueryRowContext(ctx, `
		WITH old AS (
			UPDATE tablesmith.end_user_refresh_tokens r SET used_at = $3
			WHERE r.hash = $1 AND r.used_at IS NULL AND r.expires_at > $3
			  AND EXISTS (SELECT 1 FROM tablesmith.end_user_sessions s WHERE s.id = r.session_id AND s.revoked_at IS NULL)
			RETURNING r.session_id)
		INSERT INTO tablesmith.end_user_refresh_tokens (hash, session_id, created_at, expires_at)
		SELECT $2, session_id, $3, $4 FROM old RETURNING session_id`, oldHash, newHash, now, expires).Scan(&sid)
	if errors.Is(err, sql.ErrNoRows) {
		return ErrNotFound
	}
	return err
}

// RevokeEndUserSession revokes a session (the whole refresh-token family
// and every access token naming it) and tells every node to forget it.
// Revoking a revoked session keeps its first revocation and succeeds.
func (s *Store) RevokeEndUserSession(ctx context.Context, projectID, sessionID, reason string, now time.Time) error {
	tx, err := s.DB.BeginTx(ctx, nil)
	if err != nil {
		return err
	}
	defer tx.Rollback()
	res, err := tx.ExecContext(ctx, `UPDATE tablesmith.end_user_sessions
		SET revoked_at = coalesce(revoked_at, $3), revoked_reason = coalesce(revoked_reason, $4)
		WHERE id = $1 AND project_id = $2`, sessionID, projectID, now, reason)
	if err != nil {
		return err
	}
	if n, _ := res.RowsAffected(); n == 0 {
		return ErrNotFound
	}
	if err := events.Notify(ctx, tx, events.SessionEnded{SessionID: sessionID}); err != nil {
		return err
	}
	return tx.Commit()
}

// EndUserSessionLive reports whether a session of a project exists for a
// user and is not revoked.
func (s *Store) EndUserSessionLive(ctx context.Context, projectID, sessionID, userID string) (bool, error) {
	var live bool
	err := s.DB.QueryRowContext(ctx, `SELECT EXISTS (SELECT 1 FROM tablesmith.end_user_sessions
		WHERE id = $1 AND project_id = $2 AND user_id = $3 AND revoked_at IS NULL)`, sessionID, projectID, userID).Scan(&live)
	return live, err
}

// LoginWindow is the failed-login count of one subject in its window.
type LoginWindow struct {
	Start    time.Time
	Failures int
}

// PlatformLogins is the projectID under which the login failures of
// platform accounts are counted (in a table of their own).
const PlatformLogins = ""

// loginFailures is the table that counts a scope's failed logins: a
// project's end users, or the platform's accounts.
func loginFailures(projectID string) string {
	if projectID == PlatformLogins {
		return "tablesmith.platform_login_failures"
	}
	return "tablesmith.end_user_login_failures"
}

// LoginFailures returns the windows of the given subjects that started
// after since (older windows are over and count nothing).
func (s *Store) LoginFailures(ctx context.Context, projectID string, subjects []string, since time.Time) (map[string]LoginWindow, error) {
	rows, err := s.DB.QueryContext(ctx, `SELECT subject, window_start, failures FROM `+loginFailures(projectID)+`
		WHERE project_id = $1 AND subject = ANY($2) AND window_start > $3`, projectID, pq.Array(subjects), since)
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	out := map[string]LoginWindow{}
	for rows.Next() {
		var subject string
		var w LoginWindow
		if err := rows.Scan(&subject, &w.Start, &w.Failures); err != nil {
			return nil, err
		}
		out[subject] = w
	}
	return out, rows.Err()
}

// RecordLoginFailure counts one failed login for each subject: a window
// that ended (started at or before now-window) starts over at now.
func (s *Store) RecordLoginFailure(ctx context.Context, projectID string, subjects []string, now time.Time, window time.Duration) error {
	_, err := s.DB.ExecContext(ctx, `
		INSERT INTO `+loginFailures(projectID)+` AS f (project_id, subject, window_start, failures)
		SELECT $1, subject, $3, 1 FROM unnest($2::text[]) AS subject
		ON CONFLICT (project_id, subject) DO UPDATE SET
			window_start = CASE WHEN f.window_start <= $4 THEN $3 ELSE f.window_start END,
			failures     = CASE WHEN f.window_start <= $4 THEN 1 ELSE f.failures + 1 END`,
		projectID, pq.Array(subjects), now, now.Add(-window))
	return err
}

// ClearLoginFailures forgets the failures of a subject (after a login
// with the right password).
func (s *Store) ClearLoginFailures(ctx context.Context, projectID, subject string) error {
	_, err := s.DB.ExecContext(ctx, `DELETE FROM `+loginFailures(projectID)+` WHERE project_id = $1 AND subject = $2`, projectID, subject)
	return err
}

// PruneEndUsers deletes what can no longer matter: refresh tokens past
// their expiry, sessions left without tokens, and ended login windows.
func (s *Store) PruneEndUsers(ctx context.Context, now time.Time, loginWindow time.Duration) error {
	stmts := []struct {
		sql  string
		args []any
	}{
		{`DELETE FROM tablesmith.end_user_refresh_tokens WHERE expires_at < $1`, []any{now}},
		{`DELETE FROM tablesmith.end_user_sessions s WHERE NOT EXISTS
			(SELECT 1 FROM tablesmith.end_user_refresh_tokens r WHERE r.session_id = s.id)`, nil},
		{`DELETE FROM tablesmith.end_user_login_failures WHERE window_start <= $1`, []any{now.Add(-loginWindow)}},
		{`DELETE FROM tablesmith.platform_login_failures WHERE window_start <= $1`, []any{now.Add(-loginWindow)}},
	}
	for _, st := range stmts {
		if _, err := s.DB.ExecContext(ctx, st.sql, st.args...); err != nil {
			return err
		}
	}
	return nil
}
