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
	// MFAKey signs the tokens that stand between a right password and the
	// second factor (IssueMFA), apart from sessions.
	MFAKey []byte
	TTL    time.Duration
	Now    func() time.Time
}

// Session is what a session token names: the account, and the account's
// session generation when it was issued. A password change or reset
// bumps the account's generation, which ends every session issued
// before it; tokens from before generations carry none (0).
type Session struct {
	AccountID  int64
	Generation int64
}

// sessionClaims are a session token's claims: sub is the account id,
// gen its session generation.
type sessionClaims struct {
	jwt.RegisteredClaims
	Generation int64 `json:"gen,omitempty"`
}

const sessionAudience = "tablesmith-platform"

// SessionPrefix starts every platform session token, so that the generated
// API tells a session (the owner's dashboard) from an end-user access
// token by its first bytes, without parsing or verifying anything.
const SessionPrefix = "tsp_"

// LooksLikeSession reports whether a credential has the session shape.
func LooksLikeSession(s string) bool { return strings.HasPrefix(s, SessionPrefix) }

// Issue returns a session token for an account at its session generation.
func (s *Sessions) Issue(accountID, generation int64) (string, error) {
	signed, err := s.sign(s.Key, sessionAudience, s.TTL, Session{accountID, generation})
	return SessionPrefix + signed, err
}

// Verify returns the account id of a valid session token; callers that
// load the account compare its generation too (VerifySession).
func (s *Sessions) Verify(token string) (int64, error) {
	sess, err := s.VerifySession(token)
	return sess.AccountID, err
}

// VerifySession returns the session of a valid session token. Sessions
// issued before SessionPrefix existed, plain JWTs, still verify.
func (s *Sessions) VerifySession(token string) (Session, error) {
	return s.parse(s.Key, sessionAudience, strings.TrimPrefix(token, SessionPrefix))
}

func (s *Sessions) sign(key []byte, audience string, ttl time.Duration, sess Session) (string, error) {
	now := s.Now()
	claims := sessionClaims{RegisteredClaims: jwt.RegisteredClaims{
		Subject:   strconv.FormatInt(sess.AccountID, 10),
		Audience:  jwt.ClaimStrings{audience},
		Issuer:    "tablesmith",
		IssuedAt:  jwt.NewNumericDate(now),
		ExpiresAt: jwt.NewNumericDate(now.Add(ttl)),
	}, Generation: sess.Generation}
	return jwt.NewWithClaims(jwt.SigningMethodHS256, claims).SignedString(key)
}

func (s *Sessions) parse(key []byte, audience, token string) (Session, error) {
	if len(key) == 0 {
		return Session{}, ErrInvalidToken
	}
	var claims sessionClaims
	_, err := jwt.ParseWithClaims(token, &claims, func(*jwt.Token) (any, error) { return key, nil },
		jwt.WithValidMethods([]string{"HS256"}), jwt.WithAudience(audience), jwt.WithIssuer("tablesmith"),
		jwt.WithExpirationRequired(), jwt.WithTimeFunc(s.Now))
	if err != nil {
		return Session{}, ErrInvalidToken
	}
	id, err := strconv.ParseInt(claims.Subject, 10, 64)
	if err != nil {
		return Session{}, ErrInvalidToken
	}
	return Session{AccountID: id, Generation: claims.Generation}, nil
}

// MFAPrefix starts every MFA token: proof of a right password, good only
// for the second step of a login (IssueMFA).
const MFAPrefix = "tsm_"

// MFATTL is how long an MFA token waits for the code.
const MFATTL = 5 * time.Minute

const mfaAudience = "tablesmith-mfa"

// IssueMFA returns the token a login with the right password answers
// when the account has two-factor on: it names the account and its
// session generation (a reset meanwhile voids it), signed with MFAKey.
func (s *Sessions) IssueMFA(accountID, generation int64) (string, error) {
	signed, err := s.sign(s.MFAKey, mfaAudience, MFATTL, Session{accountID, generation})
	return MFAPrefix + signed, err
}

// VerifyMFA returns the session an MFA token names.
func (s *Sessions) VerifyMFA(token string) (Session, error) {
	body, ok := strings.CutPrefix(token, MFAPrefix)
	if !ok {
		return Session{}, ErrInvalidToken
	}
	return s.parse(s.MFAKey, mfaAudience, body)
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
