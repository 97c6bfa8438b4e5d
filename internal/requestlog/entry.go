// Package requestlog keeps one row per generated-API request (time,
// method, path and query, status, error, latency, credential, origin,
// request id, rows, bytes) for the dashboard's Logs page. Requests hand
// their entries over without blocking; one goroutine per node writes them
// to PostgreSQL in batches, and a retention pass keeps each project within
// its plan's log retention and a row cap. Entries never hold a secret: no
// credential (an API key only by its public prefix), no request body,
// query values of secret-looking parameters redacted; an error's answer is
// kept, capped at MaxErrorBody bytes.
package requestlog

import (
	"encoding/json"
	"net/url"
	"strings"
	"time"
	"unicode/utf8"
)

// MaxErrorBody caps the error answer an entry keeps.
const MaxErrorBody = 4096

// maxQuery caps the query string an entry keeps (a request line may be
// far longer than anyone reads in a log).
const maxQuery = 2048

// Entry is one generated-API request, as the handler saw it.
type Entry struct {
	ProjectID string
	At        time.Time
	Method    string
	// Path is the path after /v1/<project_id>, e.g. "/posts/7".
	Path string
	// RawQuery is the query string as sent; Redacted is what the log keeps.
	RawQuery  string
	Status    int
	Latency   time.Duration
	Principal string // "key", "user", "dashboard", "none"
	KeyPrefix string // an API key's public prefix
	EndUser   string // an end user's id
	Origin    string
	RequestID string
	// Rows is how many records the request read or wrote; <0 when it does
	// not say (an error, an export, a stream).
	Rows  int64
	Bytes int64
	// ErrorBody is the start of an error's answer (status >= 400), at most
	// MaxErrorBody bytes; nil otherwise.
	ErrorBody []byte
}

// secretParams are query parameter names whose values a log never keeps,
// compared case-insensitively: a client that puts a credential in a URL
// (refused by the API, but sent all the same) must not find it in a log.
var secretParams = []string{"apikey", "api_key", "key", "access_token", "refresh_token", "token",
	"ticket", "password", "secret", "jwt", "authorization", "auth"}

// redactedValue replaces a secret parameter's value.
const redactedValue = "[redacted]"

// Redacted returns the query string with the values of secret-looking
// parameters replaced, capped at maxQuery bytes. Pairs are kept as sent
// otherwise, so the log shows what the client wrote.
func Redacted(raw string) string {
	if raw == "" {
		return ""
	}
	var b strings.Builder
	for i, pair := range strings.Split(raw, "&") {
		if i > 0 {
			b.WriteByte('&')
		}
		name, _, hasValue := strings.Cut(pair, "=")
		if hasValue && isSecret(name) {
			b.WriteString(name)
			b.WriteString("=" + redactedValue)
			continue
		}
		b.WriteString(pair)
	}
	return capString(b.String(), maxQuery)
}

func isSecret(name string) bool {
	if n, err := url.QueryUnescape(name); err == nil {
		name = n
	}
	name = strings.ToLower(strings.TrimSpace(name))
	for _, s := range secretParams {
		if name == s {
			return true
		}
	}
	return false
}

// capString cuts s to at most n bytes on a rune boundary, marking the cut.
func capString(s string, n int) string {
	if len(s) <= n {
		return s
	}
	cut := n - len("…")
	for cut > 0 && !utf8.RuneStart(s[cut]) {
		cut--
	}
	return s[:cut] + "…"
}

// clean makes a client's text storable: PostgreSQL's text holds neither
// NUL nor invalid UTF-8, and one such entry would fail its whole batch.
func clean(s string) string {
	if strings.IndexByte(s, 0) < 0 && utf8.ValidString(s) {
		return s
	}
	return strings.ReplaceAll(strings.ToValidUTF8(s, "\uFFFD"), "\x00", "\uFFFD")
}

// errorOf reads the code and message of an error answer (the contract's
// envelope); empty when the body is not one, or was cut.
func errorOf(body []byte) (code, message string) {
	var env struct {
		Error struct {
			Code    string `json:"code"`
			Message string `json:"message"`
		} `json:"error"`
	}
	if len(body) == 0 || json.Unmarshal(body, &env) != nil {
		return "", ""
	}
	return env.Error.Code, env.Error.Message
}

// errorText is an error body as the log keeps it: valid UTF-8, capped.
func errorText(body []byte) string {
	return capString(strings.ToValidUTF8(string(body), "\uFFFD"), MaxErrorBody)
}
