package endusers

import (
	"context"
	"crypto/rand"
	"crypto/sha256"
	"encoding/base64"
	"errors"
	"fmt"
	"time"

	"github.com/golang-jwt/jwt/v5"

	"github.com/tablesmith/tablesmith/internal/auth"
)

// Access tokens are HS256 JWTs signed with a key derived from the master
// secret and the project id, with the project in the audience too: a
// token of project A fails both checks on project B.
const (
	accessIssuer     = "tablesmith"
	accessAudiencePx = "tablesmith-project:"
	signingPurposePx = "project-jwt:"
)

// accessClaims are an access token's claims: sub is the user's id as
// text, sid the session (refresh-token family) it was issued for.
type accessClaims struct {
	SessionID string `json:"sid"`
	jwt.RegisteredClaims
}

func (a *Auth) signingKey(ctx context.Context, projectID string) ([]byte, error) {
	secret, err := a.cfg.Secret(ctx)
	if err != nil {
		return nil, fmt.Errorf("end-user signing key: %w", err)
	}
	return auth.DeriveKey(secret, signingPurposePx+projectID), nil
}

// issueAccess signs an access token for a user's session.
func (a *Auth) issueAccess(ctx context.Context, projectID, userID, sessionID string, now time.Time) (string, error) {
	key, err := a.signingKey(ctx, projectID)
	if err != nil {
		return "", err
	}
	claims := accessClaims{SessionID: sessionID, RegisteredClaims: jwt.RegisteredClaims{
		Issuer:    accessIssuer,
		Subject:   userID,
		Audience:  jwt.ClaimStrings{accessAudiencePx + projectID},
		IssuedAt:  jwt.NewNumericDate(now),
		ExpiresAt: jwt.NewNumericDate(now.Add(a.cfg.AccessTTL)),
	}}
	return jwt.NewWithClaims(jwt.SigningMethodHS256, claims).SignedString(key)
}

// parseAccess verifies an access token of a project: HS256 only (no
// "none", no algorithm confusion), this project's audience, our issuer,
// an expiry that is required and not passed by the injected clock.
func (a *Auth) parseAccess(ctx context.Context, projectID, token string) (*accessClaims, error) {
	key, err := a.signingKey(ctx, projectID)
	if err != nil {
		return nil, err
	}
	parser := jwt.NewParser(
		jwt.WithValidMethods([]string{jwt.SigningMethodHS256.Alg()}),
		jwt.WithAudience(accessAudiencePx+projectID),
		jwt.WithIssuer(accessIssuer),
		jwt.WithExpirationRequired(),
		jwt.WithTimeFunc(a.cfg.Now),
	)
	var claims accessClaims
	if _, err := parser.ParseWithClaims(token, &claims, func(*jwt.Token) (any, error) { return key, nil }); err != nil {
		if errors.Is(err, jwt.ErrTokenExpired) {
			return nil, errExpiredAccess
		}
		return nil, errBadAccess
	}
	if claims.Subject == "" || claims.SessionID == "" {
		return nil, errBadAccess
	}
	return &claims, nil
}

// Refresh tokens are opaque: "tsr_" and 43 characters of base64url, 256
// random bits, stored only as SHA-256 (a slow hash adds nothing to a
// secret this long, and lookup by hash stays one index probe).
const refreshPrefix = "tsr_"

func newRefreshToken() (token string, hash []byte) {
	b := make([]byte, 32)
	if _, err := rand.Read(b); err != nil {
		panic(err) // crypto/rand does not fail on supported platforms
	}
	token = refreshPrefix + base64.RawURLEncoding.EncodeToString(b)
	return token, hashRefresh(token)
}

func hashRefresh(token string) []byte {
	h := sha256.Sum256([]byte(token))
	return h[:]
}
