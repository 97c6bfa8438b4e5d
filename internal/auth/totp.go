package auth

import (
	"crypto/aes"
	"crypto/cipher"
	"crypto/rand"
	"crypto/subtle"
	"errors"
	"strconv"
	"strings"
	"time"

	"github.com/pquerna/otp"
	"github.com/pquerna/otp/hotp"
	"github.com/pquerna/otp/totp"
)

// TOTP (RFC 6238) as every authenticator app reads it: SHA-1, six
// digits, 30-second steps, a 160-bit secret.
const (
	totpPeriod = 30
	totpIssuer = "Tablesmith"
)

// NewTOTP returns a fresh TOTP secret (base32) for an account and the
// otpauth:// URL an authenticator app scans.
func NewTOTP(accountName string) (secret, url string, err error) {
	key, err := totp.Generate(totp.GenerateOpts{Issuer: totpIssuer, AccountName: accountName, Period: totpPeriod})
	if err != nil {
		return "", "", err
	}
	return key.Secret(), key.URL(), nil
}

// TOTPStep returns the time step of now.
func TOTPStep(now time.Time) int64 { return now.Unix() / totpPeriod }

// MatchTOTP returns the time step whose code code is, within one step of
// now either way (clock skew); ok is false when none is. The caller
// accepts a step only once (after the last one it accepted).
func MatchTOTP(secret, code string, now time.Time) (step int64, ok bool) {
	code = strings.TrimSpace(code)
	if len(code) != 6 {
		return 0, false
	}
	if _, err := strconv.Atoi(code); err != nil {
		return 0, false
	}
	cur := TOTPStep(now)
	for _, s := range []int64{cur - 1, cur, cur + 1} {
		want, err := hotp.GenerateCodeCustom(secret, uint64(s), hotp.ValidateOpts{Digits: otp.DigitsSix, Algorithm: otp.AlgorithmSHA1})
		if err == nil && subtle.ConstantTimeCompare([]byte(want), []byte(code)) == 1 {
			step, ok = s, true // no early return: every step costs the same
		}
	}
	return step, ok
}

// ErrUnseal is returned when a sealed value does not open: another key
// (the master secret changed) or altered bytes.
var ErrUnseal = errors.New("the sealed value cannot be decrypted (was the master secret changed?)")

// Seal encrypts plaintext with AES-256-GCM under key (32 bytes), bound to
// aad (what it is and whose), as nonce || ciphertext.
func Seal(key []byte, plaintext, aad string) ([]byte, error) {
	gcm, err := newGCM(key)
	if err != nil {
		return nil, err
	}
	nonce := make([]byte, gcm.NonceSize())
	if _, err := rand.Read(nonce); err != nil {
		return nil, err
	}
	return gcm.Seal(nonce, nonce, []byte(plaintext), []byte(aad)), nil
}

// Open decrypts what Seal produced with the same key and aad.
func Open(key, sealed []byte, aad string) (string, error) {
	gcm, err := newGCM(key)
	if err != nil {
		return "", err
	}
	if len(sealed) < gcm.NonceSize() {
		return "", ErrUnseal
	}
	plain, err := gcm.Open(nil, sealed[:gcm.NonceSize()], sealed[gcm.NonceSize():], []byte(aad))
	if err != nil {
		return "", ErrUnseal
	}
	return string(plain), nil
}

func newGCM(key []byte) (cipher.AEAD, error) {
	block, err := aes.NewCipher(key)
	if err != nil {
		return nil, err
	}
	return cipher.NewGCM(block)
}
