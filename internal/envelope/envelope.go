// Package envelope writes the JSON envelopes of CONTRACT section 2 and maps
// the error codes of apierr to HTTP statuses, for the platform API
// and generated APIs alike: the HTTP side of the contract's errors.
package envelope

import (
	"encoding/json"
	"errors"
	"log/slog"
	"net/http"
	"runtime/debug"
	"strconv"
	"sync"
	"time"

	"github.com/tablesmith/tablesmith/apierr"
)

// RetryAfterUnavailable is the Retry-After (seconds) of a 503 that does
// not set its own.
const RetryAfterUnavailable = "5"

var statusOf = map[string]int{
	apierr.CodeValidation:         http.StatusBadRequest,
	apierr.CodeInvalidJSON:        http.StatusBadRequest,
	apierr.CodeInvalidQuery:       http.StatusBadRequest,
	apierr.CodeInvalidConnection:  http.StatusBadRequest,
	apierr.CodeUnauthorized:       http.StatusUnauthorized,
	apierr.CodeInvalidCreds:       http.StatusUnauthorized,
	apierr.CodeForbidden:          http.StatusForbidden,
	apierr.CodeEmailNotVerified:   http.StatusForbidden,
	apierr.CodePlanLimit:          http.StatusForbidden,
	apierr.CodeNotFound:           http.StatusNotFound,
	apierr.CodeMethodNotAllowed:   http.StatusMethodNotAllowed,
	apierr.CodeConflict:           http.StatusConflict,
	apierr.CodeDestructive:        http.StatusConflict,
	apierr.CodeIdempotencyReused:  http.StatusUnprocessableEntity,
	apierr.CodePreconditionFailed: http.StatusPreconditionFailed,
	apierr.CodePayloadTooLarge:    http.StatusRequestEntityTooLarge,
	apierr.CodeUnsupportedMedia:   http.StatusUnsupportedMediaType,
	apierr.CodeRateLimited:        http.StatusTooManyRequests,
	apierr.CodeTooManyAttempts:    http.StatusTooManyRequests,
	apierr.CodeInternal:           http.StatusInternalServerError,
	apierr.CodeUnavailable:        http.StatusServiceUnavailable,
}

// Status is the HTTP status of an error code (500 for a code it does not
// know).
func Status(code string) int {
	if s, ok := statusOf[code]; ok {
		return s
	}
	return http.StatusInternalServerError
}

type errorBody struct {
	Code    string            `json:"code"`
	Message string            `json:"message"`
	Details map[string]string `json:"details,omitempty"`
	Extra   any               `json:"info,omitempty"`
}

// WriteError writes err as the error envelope with its status; apierr.As
// says which contract error err is.
func WriteError(w http.ResponseWriter, err error) {
	e := apierr.As(err)
	if e.RetryAfter > 0 && w.Header().Get("Retry-After") == "" {
		secs := (e.RetryAfter + time.Second - 1) / time.Second // whole seconds, rounded up
		w.Header().Set("Retry-After", strconv.FormatInt(int64(secs), 10))
	}
	if e.Allow != "" {
		w.Header().Set("Allow", e.Allow)
	}
	if e.Code == apierr.CodeRateLimited && w.Header().Get("Retry-After") == "" {
		w.Header().Set("Retry-After", "60")
	}
	if e.Code == apierr.CodeUnavailable && w.Header().Get("Retry-After") == "" {
		w.Header().Set("Retry-After", RetryAfterUnavailable)
	}
	body, _ := json.Marshal(struct {
		Success bool      `json:"success"`
		Error   errorBody `json:"error"`
	}{false, errorBody{e.Code, e.Message, e.Details, e.Extra}})
	writeJSON(w, Status(e.Code), body)
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
	// Room for the wrapper, the message, a meta object and the final
	// newline, so the page is copied once, not again by a growing append.
	// The buffer is reused: a ResponseWriter copies what it is given.
	need := len(s.RawData) + len(s.Message) + envelopeRoom
	bp := answerBuffers.Get().(*[]byte)
	defer putAnswerBuffer(bp)
	if cap(*bp) < need {
		*bp = make([]byte, 0, need)
	}
	buf, err := appendSuccess((*bp)[:0], s)
	if err != nil {
		WriteError(w, err)
		return
	}
	writeJSON(w, status, buf)
}

// Bytes is the body Write sends for s, final newline included: what an
// answer's ETag is computed from.
func Bytes(s Success) ([]byte, error) {
	buf, err := appendSuccess(make([]byte, 0, len(s.RawData)+len(s.Message)+envelopeRoom), s)
	return append(buf, '\n'), err
}

func appendSuccess(buf []byte, s Success) ([]byte, error) {
	buf = append(buf, `{"success":true,"data":`...)
	switch {
	case s.RawData != nil:
		buf = append(buf, s.RawData...)
	default:
		data, err := json.Marshal(s.Data)
		if err != nil {
			return nil, err
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
			return nil, err
		}
		buf = append(buf, `,"meta":`...)
		buf = append(buf, meta...)
	}
	return append(buf, '}'), nil
}

// answerBuffers keeps the buffers answers are built in, so that a
// request does not allocate (and the collector sweep) one per answer.
var answerBuffers = sync.Pool{New: func() any { b := make([]byte, 0, 2048); return &b }}

// maxKeptBuffer is the biggest buffer kept for reuse: a rare big page
// should not stay in memory for every later small answer.
const maxKeptBuffer = 64 << 10

func putAnswerBuffer(bp *[]byte) {
	if cap(*bp) <= maxKeptBuffer {
		*bp = (*bp)[:0]
		answerBuffers.Put(bp)
	}
}

// envelopeRoom is what an answer adds to its data, with a meta object
// and a next_cursor of a few keys.
const envelopeRoom = 512

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

// BodyWriter is a ResponseWriter that takes a whole body at once, with
// its status, and may compress it (the generated API's writer does).
type BodyWriter interface {
	WriteBody(status int, body []byte)
}

func writeJSON(w http.ResponseWriter, status int, body []byte) {
	h := w.Header()
	h["Content-Type"] = jsonContentType
	h["X-Content-Type-Options"] = nosniff
	// A trailing newline, like json.Encoder's, keeps terminals tidy.
	body = append(body, '\n')
	if bw, ok := w.(BodyWriter); ok {
		bw.WriteBody(status, body)
		return
	}
	w.WriteHeader(status)
	_, _ = w.Write(body)
}

// Header values every answer carries, shared: net/http only reads them.
var (
	jsonContentType = []string{"application/json; charset=utf-8"}
	nosniff         = []string{"nosniff"}
)

// Fail writes a handler's error as the error envelope: the one place where
// both APIs turn a request's error into a contract error (apierr.As) and
// log what the client is not told (an internal error in full, an outage as
// a warning), with the request id when the answer carries one.
func Fail(w http.ResponseWriter, r *http.Request, log *slog.Logger, api string, err error) {
	e := apierr.As(err)
	switch e.Code {
	case apierr.CodeInternal:
		log.Error(api+" request failed", "err", err, "method", r.Method, "path", r.URL.Path, "request_id", w.Header().Get("X-Request-Id"))
	case apierr.CodeUnavailable:
		log.Warn(api+" request unavailable", "err", err, "method", r.Method, "path", r.URL.Path, "request_id", w.Header().Get("X-Request-Id"))
	}
	WriteError(w, e)
}

// Recover, deferred by both APIs' ServeHTTP, turns a handler's panic into
// a logged 500 envelope, when nothing of the answer went out yet (written
// reports it). http.ErrAbortHandler, a stream broken off on purpose, goes
// on up to net/http, which drops the connection.
func Recover(w http.ResponseWriter, r *http.Request, log *slog.Logger, api string, written func() bool) {
	p := recover()
	if p == nil {
		return
	}
	if p == http.ErrAbortHandler {
		panic(p)
	}
	log.Error("panic in "+api, "panic", p, "stack", string(debug.Stack()), "method", r.Method, "path", r.URL.Path)
	if written == nil || !written() {
		WriteError(w, errors.New("panic"))
	}
}
