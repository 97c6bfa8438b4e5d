package authproviders

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"time"

	"github.com/lib/pq"

	"github.com/tablesmith/tablesmith/internal/store"
)

// Store keeps providers, sign-ins under way, one-time codes and linked
// identities in the control schema (migration 015).
type Store struct {
	DB *sql.DB
	// Secret returns the server's secret, which client secrets are sealed
	// under (called per use, so a reload applies at once).
	Secret func(ctx context.Context) (string, error)
}

const providerColumns = `project_id, name, kind, issuer, tenant, client_id, client_secret, scopes, enabled, created_at, updated_at`

func scanProvider(row interface{ Scan(...any) error }) (Provider, error) {
	var p Provider
	err := row.Scan(&p.ProjectID, &p.Name, &p.Kind, &p.Issuer, &p.Tenant, &p.ClientID, &p.Sealed,
		pq.Array(&p.Scopes), &p.Enabled, &p.CreatedAt, &p.UpdatedAt)
	if errors.Is(err, sql.ErrNoRows) {
		return p, store.ErrNotFound
	}
	return p, err
}

// List returns a project's providers by name.
func (s *Store) List(ctx context.Context, projectID string) ([]Provider, error) {
	rows, err := s.DB.QueryContext(ctx, `SELECT `+providerColumns+` FROM tablesmith.auth_providers
		WHERE project_id = $1 ORDER BY name`, projectID)
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	out := []Provider{}
	for rows.Next() {
		p, err := scanProvider(rows)
		if err != nil {
			return nil, err
		}
		out = append(out, p)
	}
	return out, rows.Err()
}

// Get returns one provider; store.ErrNotFound when there is none.
func (s *Store) Get(ctx context.Context, projectID, name string) (Provider, error) {
	return scanProvider(s.DB.QueryRowContext(ctx, `SELECT `+providerColumns+` FROM tablesmith.auth_providers
		WHERE project_id = $1 AND name = $2`, projectID, name))
}

// Put creates or replaces a provider. clientSecret nil keeps the stored
// secret. When the issuer changes, the identities linked through the
// provider are forgotten: a subject is unique only at its issuer.
func (s *Store) Put(ctx context.Context, p Provider, clientSecret *string, now time.Time) (Provider, error) {
	if clientSecret != nil {
		secret, err := s.Secret(ctx)
		if err != nil {
			return p, fmt.Errorf("seal client secret: %w", err)
		}
		p.Sealed = seal(secret, p.ProjectID, p.Name, *clientSecret)
	}
	if p.CreatedAt.IsZero() {
		p.CreatedAt = now
	}
	p.UpdatedAt = now
	tx, err := s.DB.BeginTx(ctx, nil)
	if err != nil {
		return p, err
	}
	defer tx.Rollback()
	if _, err := tx.ExecContext(ctx, `DELETE FROM tablesmith.auth_identities i USING tablesmith.auth_providers p
		WHERE p.project_id = $1 AND p.name = $2 AND p.issuer <> $3
		  AND i.project_id = p.project_id AND i.provider = p.name`, p.ProjectID, p.Name, p.Issuer); err != nil {
		return p, err
	}
	if _, err := tx.ExecContext(ctx, `INSERT INTO tablesmith.auth_providers (`+providerColumns+`)
		VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11)
		ON CONFLICT (project_id, name) DO UPDATE SET kind = $3, issuer = $4, tenant = $5, client_id = $6,
			client_secret = $7, scopes = $8, enabled = $9, updated_at = $11`,
		p.ProjectID, p.Name, p.Kind, p.Issuer, p.Tenant, p.ClientID, p.Sealed, pq.Array(p.Scopes), p.Enabled, p.CreatedAt, p.UpdatedAt); err != nil {
		return p, err
	}
	return p, tx.Commit()
}

// Delete removes a provider with its identities and sign-ins under way;
// store.ErrNotFound when there is none.
func (s *Store) Delete(ctx context.Context, projectID, name string) error {
	tx, err := s.DB.BeginTx(ctx, nil)
	if err != nil {
		return err
	}
	defer tx.Rollback()
	res, err := tx.ExecContext(ctx, `DELETE FROM tablesmith.auth_providers WHERE project_id = $1 AND name = $2`, projectID, name)
	if err != nil {
		return err
	}
	if n, _ := res.RowsAffected(); n == 0 {
		return store.ErrNotFound
	}
	for _, table := range []string{"auth_identities", "auth_provider_states"} {
		if _, err := tx.ExecContext(ctx, `DELETE FROM tablesmith.`+table+` WHERE project_id = $1 AND provider = $2`, projectID, name); err != nil {
			return err
		}
	}
	return tx.Commit()
}

// ClientSecret opens a provider's sealed client secret.
func (s *Store) ClientSecret(ctx context.Context, p Provider) (string, error) {
	secret, err := s.Secret(ctx)
	if err != nil {
		return "", err
	}
	return open(secret, p.ProjectID, p.Name, p.Sealed)
}

// State is a sign-in under way, kept under the hash of its state value.
type State struct {
	ProjectID  string
	Provider   string
	Nonce      string
	Verifier   string
	RedirectTo string
	ExpiresAt  time.Time
}

// SaveState records a sign-in under way.
func (s *Store) SaveState(ctx context.Context, hash []byte, st State) error {
	_, err := s.DB.ExecContext(ctx, `INSERT INTO tablesmith.auth_provider_states
		(hash, project_id, provider, nonce, verifier, redirect_to, expires_at) VALUES ($1, $2, $3, $4, $5, $6, $7)`,
		hash, st.ProjectID, st.Provider, st.Nonce, st.Verifier, st.RedirectTo, st.ExpiresAt)
	return err
}

// TakeState removes and returns the sign-in of a state of a project's
// provider, expired or not (the caller tells); store.ErrNotFound when it
// was never issued or was already used. The DELETE makes it single use
// even when two callbacks race.
func (s *Store) TakeState(ctx context.Context, projectID, provider string, hash []byte) (State, error) {
	st := State{ProjectID: projectID, Provider: provider}
	err := s.DB.QueryRowContext(ctx, `DELETE FROM tablesmith.auth_provider_states
		WHERE hash = $1 AND project_id = $2 AND provider = $3
		RETURNING nonce, verifier, redirect_to, expires_at`, hash, projectID, provider).
		Scan(&st.Nonce, &st.Verifier, &st.RedirectTo, &st.ExpiresAt)
	if errors.Is(err, sql.ErrNoRows) {
		return st, store.ErrNotFound
	}
	return st, err
}

// SaveCode records a finished sign-in under the hash of its one-time code.
func (s *Store) SaveCode(ctx context.Context, hash []byte, projectID, userID string, expires time.Time) error {
	_, err := s.DB.ExecContext(ctx, `INSERT INTO tablesmith.auth_provider_codes (hash, project_id, user_id, expires_at)
		VALUES ($1, $2, $3, $4)`, hash, projectID, userID, expires)
	return err
}

// TakeCode removes a one-time code of a project and returns its user
// while it is unexpired; store.ErrNotFound otherwise (unknown, used,
// expired or another project's).
func (s *Store) TakeCode(ctx context.Context, projectID string, hash []byte, now time.Time) (string, error) {
	var userID string
	var expires time.Time
	err := s.DB.QueryRowContext(ctx, `DELETE FROM tablesmith.auth_provider_codes WHERE hash = $1 AND project_id = $2
		RETURNING user_id, expires_at`, hash, projectID).Scan(&userID, &expires)
	if errors.Is(err, sql.ErrNoRows) || err == nil && !now.Before(expires) {
		return "", store.ErrNotFound
	}
	return userID, err
}

// Identity returns the user an identity of a project's provider signs in
// as; found is false when it is not linked.
func (s *Store) Identity(ctx context.Context, projectID, provider, subject string) (userID string, found bool, err error) {
	err = s.DB.QueryRowContext(ctx, `SELECT user_id FROM tablesmith.auth_identities
		WHERE project_id = $1 AND provider = $2 AND subject = $3`, projectID, provider, subject).Scan(&userID)
	if errors.Is(err, sql.ErrNoRows) {
		return "", false, nil
	}
	return userID, err == nil, err
}

// Link records (or moves) an identity to a user, with the e-mail the
// provider gave this time.
func (s *Store) Link(ctx context.Context, projectID, provider, subject, userID, email string, now time.Time) error {
	_, err := s.DB.ExecContext(ctx, `INSERT INTO tablesmith.auth_identities
		(project_id, provider, subject, user_id, email, created_at, last_sign_in) VALUES ($1, $2, $3, $4, $5, $6, $6)
		ON CONFLICT (project_id, provider, subject) DO UPDATE SET
			created_at = CASE WHEN auth_identities.user_id = $4 THEN auth_identities.created_at ELSE $6 END,
			user_id = $4, email = $5, last_sign_in = $6`, projectID, provider, subject, userID, email, now)
	return err
}

// Prune deletes sign-ins and codes past their expiry.
func (s *Store) Prune(ctx context.Context, now time.Time) error {
	for _, table := range []string{"auth_provider_states", "auth_provider_codes"} {
		if _, err := s.DB.ExecContext(ctx, `DELETE FROM tablesmith.`+table+` WHERE expires_at < $1`, now); err != nil {
			return err
		}
	}
	return nil
}
