package apihttp

import (
	"crypto/rand"
	"encoding/binary"
	"encoding/hex"
	"net/http"
	"sync/atomic"
)

// setRequestID echoes a sane incoming X-Request-Id or makes one, so a
// client can quote it and an operator can find the log line.
func setRequestID(w http.ResponseWriter, r *http.Request) {
	id := r.Header.Get("X-Request-Id")
	if len(id) == 0 || len(id) > 64 || !printable(id) {
		id = newRequestID()
	}
	w.Header()["X-Request-Id"] = []string{id}
}

// Request ids are this process's random prefix and a counter: unique
// across nodes and restarts without reading the system's random source
// on every request (ids identify requests; they are not secrets).
var (
	requestIDPrefix [6]byte
	requestIDCount  atomic.Uint64
)

func init() { _, _ = rand.Read(requestIDPrefix[:]) }

// newRequestID returns 24 hex digits: the prefix, then the counter's low
// 48 bits.
func newRequestID() string {
	var raw [12]byte
	copy(raw[:6], requestIDPrefix[:])
	var n [8]byte
	binary.BigEndian.PutUint64(n[:], requestIDCount.Add(1))
	copy(raw[6:], n[2:])
	var out [24]byte
	hex.Encode(out[:], raw[:])
	return string(out[:])
}

func printable(s string) bool {
	for i := 0; i < len(s); i++ {
		if s[i] < 0x21 || s[i] > 0x7e {
			return false
		}
	}
	return true
}
