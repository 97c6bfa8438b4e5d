// Package envelope writes the JSON envelopes of CONTRACT section 2 and maps
// error codes to HTTP statuses, for the platform API and generated APIs alike.
package envelope

import (
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
)

// Error codes of the contract. The HTTP status of each is in statusOf.
const (
	CodeValidation        = "VALIDATION_ERROR"
	CodeInvalidJSON       = "INVALID_JSON"
	CodeInvalidQuery      = "INVALID_QUERY"
	CodeUnauthorized      = "UNAUTHORIZED"
	CodeInvalidCreds      = "INVALID_CREDENTIALS"
	CodeForbidden         = "FORBIDDEN"
	CodePlanLimit         = "PLAN_LIMIT"
	CodeNotFound          = "NOT_FOUND"
	CodeMethodNotAllowed  = "METHOD_NOT_ALLOWED"
	CodeConflict          = "CONFLICT"
	CodeIdempotencyReused = "IDEMPOTENCY_KEY_REUSED"
	CodeDestructive       = "DESTRUCTIVE_CHANGE"
	CodePayloadTooLarge   = "PAYLOAD_TOO_LARGE"
	CodeUnsupportedMedia  = "UNSUPPORTED_MEDIA_TYPE"
	CodeRateLimited       = "RATE_LIMITED"
	CodeInternal          = "INTERNAL_ERROR"
	CodeUnavailable       = "SERVICE_UNAVAILABLE"
	CodeTooManyAttempts   = "TOO_MANY_ATTEMPTS"
	CodeInvalidConnection = "INVALID_CONNECTION"
)

var statusOf = map[string]int{
	CodeValidation:        http.StatusBadRequest,
	CodeInvalidJSON:       http.StatusBadRequest,
	CodeInvalidQuery:      http.StatusBadRequest,
	CodeInvalidConnection: http.StatusBadRequest,
	CodeUnauthorized:      http.StatusUnauthorized,
	CodeInvalidCreds:      http.StatusUnauthorized,
	CodeForbidden:         http.StatusForbidden,
	CodePlanLimit:         http.StatusForbidden,
	CodeNotFound:          http.StatusNotFound,
	CodeMethodNotAllowed:  http.StatusMethodNotAllowed,
	CodeConflict:          http.StatusConflict,
	CodeDestructive:       http.StatusConflict,
	CodeIdempotencyReused: http.StatusUnprocessableEntity,
	CodePayloadTooLarge:   http.StatusRequestEntityTooLarge,
	CodeUnsupportedMedia:  http.StatusUnsupportedMediaType,
	CodeRateLimited:       http.StatusTooManyRequests,
	CodeTooManyAttempts:   http.StatusTooManyRequests,
	CodeInternal:          http.StatusInternalServerError,
	CodeUnavailable:       http.StatusServiceUnavailable,
}

// Error is an error that the edge turns into the error envelope. Details
// map a field (or parameter, or schema path) to a message.
type Error struct {
	Code    string
	Message string
	Details map[string]string
	// Extra is an optional object placed beside details (e.g. what a
	// destructive change would lose); it must be JSON-marshalable.
	Extra any
	// Cause is the underlying error, for logs only: never sent.
	Cause error
}

func (e *Error) Error() string {
	if e.Cause != nil {
		return e.Code + ": " + e.Message + ": " + e.Cause.Error()
	}
	return e.Code + ": " + e.Message
}

// Unwrap returns the cause.
func (e *Error) Unwrap() error { return e.Cause }

// Status is the HTTP status of the error's code.
func (e *Error) Status() int {
	if s, ok := statusOf[e.Code]; ok {
		return s
	}
	return http.StatusInternalServerError
}

// New makes an Error with a formatted message.
func New(code, format string, args ...any) *Error {
	return &Error{Code: code, Message: fmt.Sprintf(format, args...)}
}

// Fields makes an Error whose details name problems per field.
func Fields(code, message string, details map[string]string) *Error {
	return &Error{Code: code, Message: message, Details: details}
}

// As returns the *Error inside err, SERVICE_UNAVAILABLE for a deadline or
// a lost connection (Unavailable), or an INTERNAL_ERROR that hides err's
// text: internals never reach the client.
func As(err error) *Error {
	var e *Error
	if errors.As(err, &e) {
		return e
	}
	if u := Unavailable(err); u != nil {
		return u
	}
	return &Error{Code: CodeInternal, Message: "An internal error occurred"}
}

type errorBody struct {
	Code    string            `json:"code"`
	Message string            `json:"message"`
	Details map[string]string `json:"details,omitempty"`
	Extra   any               `json:"info,omitempty"`
}

// WriteError writes err as the error envelope with its status.
func WriteError(w http.ResponseWriter, err error) {
	e := As(err)
	if e.Code == CodeRateLimited && w.Header().Get("Retry-After") == "" {
		w.Header().Set("Retry-After", "60")
	}
	if e.Code == CodeUnavailable && w.Header().Get("Retry-After") == "" {
		w.Header().Set("Retry-After", RetryAfterUnavailable)
	}
	body, _ := json.Marshal(struct {
		Success bool      `json:"success"`
		Error   errorBody `json:"error"`
	}{false, errorBody{e.Code, e.Message, e.Details, e.Extra}})
	writeJSON(w, e.Status(), body)
}

// Success is the success envelope. Data is any JSON-marshalable value;
// RawData, when set, is written verbatim instead (JSON built by PostgreSQL).
type Success struct {
	Data    any
	RawData []byte
	Message string
	Meta    any
}

// Write writes the success envelope with the given status. It builds the
// bytes by hand around RawData so PostgreSQL's JSON is never re-parsed.
func Write(w http.ResponseWriter, status int, s Success) {
	buf := make([]byte, 0, len(s.RawData)+128)
	buf = append(buf, `{"success":true,"data":`...)
	switch {
	case s.RawData != nil:
		buf = append(buf, s.RawData...)
	default:
		data, err := json.Marshal(s.Data)
		if err != nil {
			WriteError(w, err)
			return
		}
		buf = append(buf, data...)
	}
	if s.Message != "" {
		buf = append(buf, `,"message":`...)
		buf = appendString(buf, s.Message)
	}
	if m, ok := s.Meta.(jsonAppender); ok {
		buf = append(buf, `,"meta":`...)
		buf = m.AppendJSON(buf)
	} else if s.Meta != nil {
		meta, err := json.Marshal(s.Meta)
		if err != nil {
			WriteError(w, err)
			return
		}
		buf = append(buf, `,"meta":`...)
		buf = append(buf, meta...)
	}
	buf = append(buf, '}')
	writeJSON(w, status, buf)
}

// jsonAppender is a value that writes its own JSON, so the envelope of
// every answer is built without reflection (translate.Meta is one).
type jsonAppender interface{ AppendJSON(b []byte) []byte }

// appendString appends s as a JSON string. The messages of the hot path are
// plain ASCII and go in as they are; anything else takes encoding/json, so
// the bytes are always what json.Marshal writes.
func appendString(b []byte, s string) []byte {
	for i := 0; i < len(s); i++ {
		if c := s[i]; c < 0x20 || c > 0x7e || c == '"' || c == '\\' || c == '<' || c == '>' || c == '&' {
			q, _ := json.Marshal(s)
			return append(b, q...)
		}
	}
	b = append(b, '"')
	b = append(b, s...)
	return append(b, '"')
}

// OK writes data with status 200.
func OK(w http.ResponseWriter, data any) { Write(w, http.StatusOK, Success{Data: data}) }

func writeJSON(w http.ResponseWriter, status int, body []byte) {
	h := w.Header()
	h.Set("Content-Type", "application/json; charset=utf-8")
	h.Set("X-Content-Type-Options", "nosniff")
	w.WriteHeader(status)
	// A trailing newline, like json.Encoder's, keeps terminals tidy.
	_, _ = w.Write(append(body, '\n'))
}
