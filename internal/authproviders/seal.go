package authproviders

import (
	"crypto/aes"
	"crypto/cipher"
	"crypto/rand"
	"errors"

	"github.com/tablesmith/tablesmith/internal/auth"
)

// The client secret is sent to the provider at every sign-in, so it is
// kept usable: sealed with AES-256-GCM under a key derived from the
// server's secret and the project, with the project and provider name as
// additional data, so a sealed value copied to another row or project
// does not open. A copy of the table without the server's secret opens
// nothing; a new server secret makes the stored ones unreadable (the
// owner enters them again).
const sealPurposePx = "provider-secret:"

func sealKey(secret, projectID string) cipher.AEAD {
	block, err := aes.NewCipher(auth.DeriveKey(secret, sealPurposePx+projectID))
	if err != nil {
		panic(err) // a 32-byte key is always valid
	}
	aead, err := cipher.NewGCM(block)
	if err != nil {
		panic(err)
	}
	return aead
}

func sealData(projectID, name string) []byte {
	return []byte(sealPurposePx + projectID + "/" + name)
}

// seal encrypts a client secret: the nonce, then the ciphertext.
func seal(secret, projectID, name, plain string) []byte {
	aead := sealKey(secret, projectID)
	nonce := make([]byte, aead.NonceSize())
	if _, err := rand.Read(nonce); err != nil {
		panic(err) // crypto/rand does not fail on supported platforms
	}
	return aead.Seal(nonce, nonce, []byte(plain), sealData(projectID, name))
}

// ErrSealed says a stored client secret cannot be opened: the server's
// secret changed since it was saved.
var ErrSealed = errors.New("the stored client secret cannot be decrypted (the server's secret changed since it was saved); enter it again in Settings → Sign-in providers")

// open decrypts a sealed client secret.
func open(secret, projectID, name string, sealed []byte) (string, error) {
	aead := sealKey(secret, projectID)
	if len(sealed) < aead.NonceSize() {
		return "", ErrSealed
	}
	plain, err := aead.Open(nil, sealed[:aead.NonceSize()], sealed[aead.NonceSize():], sealData(projectID, name))
	if err != nil {
		return "", ErrSealed
	}
	return string(plain), nil
}
