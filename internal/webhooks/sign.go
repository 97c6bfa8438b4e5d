package webhooks

import (
	"crypto/hmac"
	"crypto/sha256"
	"encoding/base64"
	"strconv"
	"strings"
	"time"
)

// SecretPrefix starts every signing secret, as the Standard Webhooks
// libraries expect: the rest is the key, base64.
const SecretPrefix = "whsec_"

// Secret is a webhook's signing key for one generation, derived from the
// server's webhook key: nothing secret is stored with the webhook, and the
// same server signs with the same secret after a restart. Rotating bumps
// the generation.
func Secret(serverKey []byte, webhookID string, gen int) []byte {
	m := hmac.New(sha256.New, serverKey)
	m.Write([]byte("webhook-secret\x00" + webhookID + "\x00" + strconv.Itoa(gen)))
	return m.Sum(nil)
}

// EncodeSecret is a key as the owner copies it (whsec_<base64>).
func EncodeSecret(key []byte) string {
	return SecretPrefix + base64.StdEncoding.EncodeToString(key)
}

// Signature is the webhook-signature header of a message: one
// "v1,<base64 HMAC-SHA256>" per key, space-separated, over
// "<id>.<unix seconds>.<body>" (the Standard Webhooks convention), so a
// receiver holding either secret during a rotation accepts it.
func Signature(keys [][]byte, id string, at time.Time, body []byte) string {
	parts := make([]string, 0, len(keys))
	for _, k := range keys {
		m := hmac.New(sha256.New, k)
		m.Write([]byte(id + "." + strconv.FormatInt(at.Unix(), 10) + "."))
		m.Write(body)
		parts = append(parts, "v1,"+base64.StdEncoding.EncodeToString(m.Sum(nil)))
	}
	return strings.Join(parts, " ")
}

// MessageID is the webhook-id of a change's delivery by a webhook: the
// same on every retry and replay, so receivers drop duplicates by it.
func MessageID(webhookID string, changeID int64) string {
	return webhookID + "_" + strconv.FormatInt(changeID, 10)
}
