package extdb

import (
	"context"
	"crypto/aes"
	"crypto/cipher"
	"crypto/rand"
	"encoding/base64"
	"errors"
	"strings"

	"github.com/tablesmith/tablesmith/apierr"
	"github.com/tablesmith/tablesmith/internal/auth"
	"github.com/tablesmith/tablesmith/schema/introspect"
)

// sealPrefix marks the format of a sealed value, so that a later format
// (another cipher, a rotated key) can be told apart.
const sealPrefix = "v1."

// sealAAD binds a sealed value to its use: a value sealed for something
// else with the same key does not open as a connection URL.
var sealAAD = []byte("tablesmith connection url")

// ErrUnseal is returned when a sealed connection cannot be opened: the
// master secret changed since it was sealed, or the value was altered.
var ErrUnseal = errors.New("the stored connection cannot be decrypted (was the master secret changed?)")

// SealKey derives the connection-encryption key from the master secret.
func SealKey(secret string) []byte { return auth.DeriveKey(secret, "connection-encryption") }

// Seal encrypts a connection URL with AES-256-GCM under key (32 bytes):
// v1.<base64url of nonce and ciphertext>.
func Seal(key []byte, plaintext string) (string, error) {
	gcm, err := newGCM(key)
	if err != nil {
		return "", err
	}
	nonce := make([]byte, gcm.NonceSize())
	if _, err := rand.Read(nonce); err != nil {
		return "", err
	}
	out := gcm.Seal(nonce, nonce, []byte(plaintext), sealAAD)
	return sealPrefix + base64.RawURLEncoding.EncodeToString(out), nil
}

// Unseal decrypts what Seal produced.
func Unseal(key []byte, sealed string) (string, error) {
	body, ok := strings.CutPrefix(sealed, sealPrefix)
	if !ok {
		return "", ErrUnseal
	}
	raw, err := base64.RawURLEncoding.DecodeString(body)
	if err != nil {
		return "", ErrUnseal
	}
	gcm, err := newGCM(key)
	if err != nil {
		return "", err
	}
	if len(raw) < gcm.NonceSize() {
		return "", ErrUnseal
	}
	plain, err := gcm.Open(nil, raw[:gcm.NonceSize()], raw[gcm.NonceSize():], sealAAD)
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

// Connections turns the sealed connection URLs that projects store into
// the shared pools of their databases, and seals new ones.
type Connections struct {
	Pools *Pools
	// Key returns the connection-encryption key (SealKey of the master
	// secret as it is now).
	Key func(ctx context.Context) ([]byte, error)
}

// Seal encrypts a connection URL for storage.
func (c *Connections) Seal(ctx context.Context, raw string) (string, error) {
	key, err := c.Key(ctx)
	if err != nil {
		return "", err
	}
	return Seal(key, raw)
}

// Unseal decrypts a stored connection URL.
func (c *Connections) Unseal(ctx context.Context, sealed string) (string, error) {
	key, err := c.Key(ctx)
	if err != nil {
		return "", err
	}
	return Unseal(key, sealed)
}

// Pool returns the shared pool of a stored connection. A connection that
// cannot be decrypted is 503 SERVICE_UNAVAILABLE: the API cannot reach
// the database until its owner enters the connection again.
func (c *Connections) Pool(ctx context.Context, sealed string) (*Pool, error) {
	raw, err := c.Unseal(ctx, sealed)
	if err != nil {
		return nil, &apierr.Error{Code: apierr.CodeUnavailable,
			Message: "The project's database connection cannot be read; its owner must enter it again", Cause: err}
	}
	return c.Pools.Get(raw)
}

// Inspect checks a connection and reads a schema's catalog with the
// pools' connection limits.
func (c *Connections) Inspect(ctx context.Context, raw, schemaName string) (introspect.Catalog, error) {
	return Inspect(ctx, raw, schemaName, c.Pools.Options)
}
