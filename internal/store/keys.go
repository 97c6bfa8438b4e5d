package store

import (
	"context"
	"database/sql"
	"errors"
	"time"

	"github.com/tablesmith/tablesmith/internal/events"
)

// APIKey is a project API key as listed; the secret is never stored.
type APIKey struct {
	ID         string     `json:"id"`
	ProjectID  string     `json:"project_id"`
	Name       string     `json:"name"`
	Scope      string     `json:"scope"`
	Prefix     string     `json:"prefix"`
	CreatedAt  time.Time  `json:"created_at"`
	LastUsedAt *time.Time `json:"last_used_at"`
	RevokedAt  *time.Time `json:"revoked_at,omitempty"`
	Hash       []byte     `json:"-"`
}

// CreateKey stores a key's prefix and hash, and tells every node that the
// prefix now has a key (nodes remember prefixes they found unknown).
func (s *Store) CreateKey(ctx context.Context, projectID, name, scope, prefix string, hash []byte) (APIKey, error) {
	k := APIKey{ID: "key_" + RandomID(12), ProjectID: projectID, Name: name, Scope: scope, Prefix: prefix, Hash: hash}
	tx, err := s.DB.BeginTx(ctx, nil)
	if err != nil {
		return k, err
	}
	defer tx.Rollback()
	err = tx.QueryRowContext(ctx, `INSERT INTO tablesmith.api_keys (id, project_id, name, scope, prefix, hash)
		VALUES ($1, $2, $3, $4, $5, $6) RETURNING created_at`, k.ID, projectID, name, scope, prefix, hash).Scan(&k.CreatedAt)
	if err != nil {
		return k, err
	}
	if err := events.Notify(ctx, tx, events.KeyCreated{Prefix: prefix}); err != nil {
		return k, err
	}
	return k, tx.Commit()
}

const keyCols = `id, project_id, name, scope, prefix, created_at, last_used_at, revoked_at, hash`

func scanKey(sc interface{ Scan(...any) error }) (APIKey, error) {
	var k APIKey
	err := sc.Scan(&k.ID, &k.ProjectID, &k.Name, &k.Scope, &k.Prefix, &k.CreatedAt, &k.LastUsedAt, &k.RevokedAt, &k.Hash)
	if errors.Is(err, sql.ErrNoRows) {
		return k, ErrNotFound
	}
	return k, err
}

// Keys lists a project's live keys, newest first.
func (s *Store) Keys(ctx context.Context, projectID string) ([]APIKey, error) {
	rows, err := s.DB.QueryContext(ctx, `SELECT `+keyCols+` FROM tablesmith.api_keys
		WHERE project_id = $1 AND revoked_at IS NULL ORDER BY created_at DESC, id`, projectID)
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	out := []APIKey{}
	for rows.Next() {
		k, err := scanKey(rows)
		if err != nil {
			return nil, err
		}
		out = append(out, k)
	}
	return out, rows.Err()
}

// KeyByPrefix finds a key (revoked or not) by its public prefix.
func (s *Store) KeyByPrefix(ctx context.Context, prefix string) (APIKey, error) {
	return scanKey(s.DB.QueryRowContext(ctx, `SELECT `+keyCols+` FROM tablesmith.api_keys WHERE prefix = $1`, prefix))
}

// RevokeKey marks a key revoked and tells every node to forget it.
func (s *Store) RevokeKey(ctx context.Context, projectID, keyID string) error {
	tx, err := s.DB.BeginTx(ctx, nil)
	if err != nil {
		return err
	}
	defer tx.Rollback()
	var prefix string
	err = tx.QueryRowContext(ctx, `UPDATE tablesmith.api_keys SET revoked_at = now()
		WHERE id = $1 AND project_id = $2 AND revoked_at IS NULL RETURNING prefix`, keyID, projectID).Scan(&prefix)
	if errors.Is(err, sql.ErrNoRows) {
		return ErrNotFound
	}
	if err != nil {
		return err
	}
	if err := events.Notify(ctx, tx, events.KeyRevoked{Prefix: prefix}); err != nil {
		return err
	}
	return tx.Commit()
}

// TouchKeys records when keys were last used; called in batches from the
// background, never on the request path.
func (s *Store) TouchKeys(ctx context.Context, used map[string]time.Time) error {
	for prefix, at := range used {
		if _, err := s.DB.ExecContext(ctx, `UPDATE tablesmith.api_keys SET last_used_at = $2
			WHERE prefix = $1 AND (last_used_at IS NULL OR last_used_at < $2)`, prefix, at); err != nil {
			return err
		}
	}
	return nil
}

// KeyByID finds a key by id.
func (s *Store) KeyByID(ctx context.Context, id string) (APIKey, error) {
	return scanKey(s.DB.QueryRowContext(ctx, `SELECT `+keyCols+` FROM tablesmith.api_keys WHERE id = $1`, id))
}
