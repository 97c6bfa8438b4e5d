package apihttp

import (
	"crypto/rand"
	"encoding/hex"
	"net/http"
)

// setRequestID echoes a sane incoming X-Request-Id or makes one, so a
// client can quote it and an operator can find the log line.
func setRequestID(w http.ResponseWriter, r *http.Request) {
	id := r.Header.Get("X-Request-Id")
	if len(id) == 0 || len(id) > 64 || !printable(id) {
		b := make([]byte, 12)
		_, _ = rand.Read(b)
		id = hex.EncodeToString(b)
	}
	w.Header().Set("X-Request-Id", id)
}

func printable(s string) bool {
	for i := 0; i < len(s); i++ {
		if s[i] < 0x21 || s[i] > 0x7e {
			return false
		}
	}
	return true
}
