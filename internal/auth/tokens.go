package auth

import (
	"crypto/hmac"
	"crypto/sha256"
	"crypto/subtle"
	"errors"
	"strconv"
	"strings"
	"time"

	"github.com/golang-jwt/jwt/v5"
)

// ErrInvalidToken covers every reason a credential is refused; callers
// answer 401 without saying which.
var ErrInvalidToken = errors.New("invalid token")

// DeriveKey derives a purpose-specific signing key from the master secret,
// so a token of one kind (or one project) never verifies as another.
func DeriveKey(secret, purpose string) []byte {
	m := hmac.New(sha256.New, []byte(secret))
	m.Write([]byte(purpose))
	return m.Sum(nil)
}

// Sessions issues and checks platform session tokens (HS256 JWTs).
type Sessions struct {
	Key []byte
	// TicketKey signs stream tickets (IssueTicket), apart from sessions.
	TicketKey []byte
	TTL       time.Duration
	Now       func() time.Time
}

const sessionAudience = "tablesmith-platform"

// SessionPrefix starts every platform session token, so that the generated
// API tells a session (the owner's dashboard) from an end-user access
// token by its first bytes, without parsing or verifying anything.
const SessionPrefix = "tsp_"

// LooksLikeSession reports whether a credential has the session shape.
func LooksLikeSession(s string) bool { return strings.HasPrefix(s, SessionPrefix) }

// Issue returns a session token for an account.
func (s *Sessions) Issue(accountID int64) (string, error) {
	now := s.Now()
	claims := jwt.RegisteredClaims{
		Subject:   strconv.FormatInt(accountID, 10),
		Audience:  jwt.ClaimStrings{sessionAudience},
		Issuer:    "tablesmith",
		IssuedAt:  jwt.NewNumericDate(now),
		ExpiresAt: jwt.NewNumericDate(now.Add(s.TTL)),
	}
	signed, err := jwt.NewWithClaims(jwt.SigningMethodHS256, claims).SignedString(s.Key)
	return SessionPrefix + signed, err
}

// Verify returns the account id of a valid session token.
// Sessions issued before SessionPrefix existed, plain JWTs, still verify.
func (s *Sessions) Verify(token string) (int64, error) {
	token = strings.TrimPrefix(token, SessionPrefix)
	var claims jwt.RegisteredClaims
	_, err := jwt.ParseWithClaims(token, &claims, func(*jwt.Token) (any, error) { return s.Key, nil },
		jwt.WithValidMethods([]string{"HS256"}), jwt.WithAudience(sessionAudience), jwt.WithIssuer("tablesmith"),
		jwt.WithExpirationRequired(), jwt.WithTimeFunc(s.Now))
	if err != nil {
		return 0, ErrInvalidToken
	}
	id, err := strconv.ParseInt(claims.Subject, 10, 64)
	if err != nil {
		return 0, ErrInvalidToken
	}
	return id, nil
}

// BearerToken extracts the credential of an Authorization: Bearer header.
func BearerToken(header string) (string, bool) {
	const p = "bearer "
	if len(header) <= len(p) || !strings.EqualFold(header[:len(p)], p) {
		return "", false
	}
	tok := strings.TrimSpace(header[len(p):])
	return tok, tok != ""
}

// API keys look like ts_<8 prefix chars>_<32 secret chars>. The prefix is
// stored in clear for lookup and listing, the whole key only as a SHA-256
// hash: keys are long random strings, so a fast hash is safe for them.
const keyPrefixLen = 3 + 8

// APIKeyPrefix starts every API key: a credential with it is meant as a
// key, even when it is cut short or mistyped.
const APIKeyPrefix = "ts_"

// NewAPIKey returns a fresh key and its public prefix.
func NewAPIKey(random func(int) string) (key, prefix string) {
	prefix = APIKeyPrefix + random(8)
	return prefix + "_" + random(32), prefix
}

// LooksLikeAPIKey reports whether a credential has the API key shape.
func LooksLikeAPIKey(s string) bool {
	return len(s) == keyPrefixLen+1+32 && strings.HasPrefix(s, APIKeyPrefix) && s[keyPrefixLen] == '_'
}

// KeyPrefix returns the public prefix of a key-shaped credential.
func KeyPrefix(key string) string { return key[:keyPrefixLen] }

// HashAPIKey hashes a key for storage.
func HashAPIKey(key string) []byte {
	h := sha256.Sum256([]byte(key))
	return h[:]
}

// KeyMatches compares a presented key with a stored hash in constant time.
func KeyMatches(key string, hash []byte) bool {
	// Copied into a stack buffer, not a heap []byte: this runs on every
	// request with a key.
	var buf [64]byte
	sum := sha256.Sum256(append(buf[:0], key...))
	return subtle.ConstantTimeCompare(sum[:], hash) == 1
}

// TicketPrefix starts every stream ticket: a short-lived credential that
// opens one project's realtime stream for the owner's dashboard, so that
// the 7-day session never travels in a URL (EventSource sends no
// headers). It is a JWT signed with TicketKey, naming the account and
// the project.
const TicketPrefix = "tsk_"

// TicketTTL is how long a stream ticket may open a stream. A stream it
// opened lives on while the account owns the project.
const TicketTTL = time.Minute

const ticketAudience = "tablesmith-stream"

// LooksLikeTicket reports whether a credential has the stream ticket shape.
func LooksLikeTicket(s string) bool { return strings.HasPrefix(s, TicketPrefix) }

type ticketClaims struct {
	jwt.RegisteredClaims
	Project string `json:"prj"`
}

// IssueTicket returns a stream ticket of an account for a project, and
// when it stops opening streams.
func (s *Sessions) IssueTicket(accountID int64, projectID string) (string, time.Time, error) {
	now := s.Now()
	expires := now.Add(TicketTTL)
	claims := ticketClaims{RegisteredClaims: jwt.RegisteredClaims{
		Subject:   strconv.FormatInt(accountID, 10),
		Audience:  jwt.ClaimStrings{ticketAudience},
		Issuer:    "tablesmith",
		IssuedAt:  jwt.NewNumericDate(now),
		ExpiresAt: jwt.NewNumericDate(expires),
	}, Project: projectID}
	signed, err := jwt.NewWithClaims(jwt.SigningMethodHS256, claims).SignedString(s.TicketKey)
	return TicketPrefix + signed, expires, err
}

// VerifyTicket returns the account of a stream ticket for projectID.
// With opening false (a stream's periodic re-check) an expired ticket
// still verifies: it admitted the stream, and expiry bounds only opening.
func (s *Sessions) VerifyTicket(token, projectID string, opening bool) (int64, error) {
	if !LooksLikeTicket(token) || len(s.TicketKey) == 0 {
		return 0, ErrInvalidToken
	}
	opts := []jwt.ParserOption{jwt.WithValidMethods([]string{"HS256"}), jwt.WithAudience(ticketAudience),
		jwt.WithIssuer("tablesmith"), jwt.WithExpirationRequired(), jwt.WithTimeFunc(s.Now)}
	if !opening {
		opts = append(opts, jwt.WithTimeFunc(func() time.Time { return time.Time{} })) // any expiry is in its future
	}
	var claims ticketClaims
	_, err := jwt.ParseWithClaims(strings.TrimPrefix(token, TicketPrefix), &claims,
		func(*jwt.Token) (any, error) { return s.TicketKey, nil }, opts...)
	if err != nil || claims.Project != projectID {
		return 0, ErrInvalidToken
	}
	id, err := strconv.ParseInt(claims.Subject, 10, 64)
	if err != nil {
		return 0, ErrInvalidToken
	}
	return id, nil
}
