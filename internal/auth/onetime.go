package auth

import (
	"crypto/rand"
	"crypto/sha256"
	"encoding/base64"
	"strings"
)

// One-time tokens mailed to an account (a password reset, an e-mail
// verification): a prefix naming the kind, then 256 random bits in
// base64url. Only their SHA-256 is stored: a slow hash adds nothing to a
// secret this long, and lookup stays one index probe.
const (
	ResetTokenPrefix  = "tsar_"
	VerifyTokenPrefix = "tsav_"
)

// NewOneTimeToken returns a fresh token with prefix and its hash.
func NewOneTimeToken(prefix string) (token string, hash []byte) {
	b := make([]byte, 32)
	if _, err := rand.Read(b); err != nil {
		panic(err) // crypto/rand does not fail on supported platforms
	}
	token = prefix + base64.RawURLEncoding.EncodeToString(b)
	return token, HashToken(token)
}

// HashToken is the stored form of a one-time token or recovery code.
func HashToken(token string) []byte {
	h := sha256.Sum256([]byte(token))
	return h[:]
}

// Recovery codes: 16 characters of a 32-letter alphabet without i, l, o
// and 1 (80 bits, so SHA-256 is enough to store them), shown as
// xxxx-xxxx-xxxx-xxxx and stored without the dashes.
const recoveryAlphabet = "abcdefghjkmnpqrstuvwxyz023456789"

// NewRecoveryCodes returns n fresh recovery codes as shown to the user.
func NewRecoveryCodes(n int) []string {
	out := make([]string, n)
	for i := range out {
		b := make([]byte, 16)
		if _, err := rand.Read(b); err != nil {
			panic(err)
		}
		var sb strings.Builder
		for j, c := range b {
			if j > 0 && j%4 == 0 {
				sb.WriteByte('-')
			}
			sb.WriteByte(recoveryAlphabet[int(c)%32])
		}
		out[i] = sb.String()
	}
	return out
}

// NormalizeRecoveryCode reads a recovery code as typed: any case, with or
// without the dashes and spaces.
func NormalizeRecoveryCode(code string) string {
	code = strings.ToLower(code)
	return strings.Map(func(r rune) rune {
		if r == '-' || r == ' ' {
			return -1
		}
		return r
	}, code)
}
