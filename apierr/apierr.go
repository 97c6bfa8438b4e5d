// Package apierr holds the errors of the contract (CONTRACT section 2):
// their codes, the Error type that carries one to the edge, and As, the
// one place where any other error becomes a contract error. It knows
// nothing of HTTP: internal/envelope maps codes to statuses and writes
// them, so packages below the handlers can say what went wrong without
// depending on the HTTP writer.
package apierr

import (
	"errors"
	"fmt"
	"time"
)

// Error codes of the contract. Their HTTP statuses are in internal/envelope.
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
	// CodeEmailNotVerified is a sign-in with the right password to an
	// account whose e-mail address the project requires verified first.
	CodeEmailNotVerified  = "EMAIL_NOT_VERIFIED"
	CodeInvalidConnection = "INVALID_CONNECTION"
	// CodePreconditionFailed is a write whose If-Match (or If-None-Match)
	// does not hold: nothing was changed.
	CodePreconditionFailed = "PRECONDITION_FAILED"
)

// Error is an error that the edge turns into the error envelope. Details
// map a field (or parameter, or schema path) to a message.
type Error struct {
	Code    string
	Message string
	Details map[string]string
	// Extra is an optional object placed beside details (e.g. what a
	// destructive change would lose); it must be JSON-marshalable.
	Extra any
	// RetryAfter, when set, is how long the client should wait before
	// trying again (the Retry-After header); zero leaves the code's default.
	RetryAfter time.Duration
	// Allow, on a METHOD_NOT_ALLOWED, lists the methods the route takes
	// (the Allow header).
	Allow string
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

// New makes an Error with a formatted message.
func New(code, format string, args ...any) *Error {
	return &Error{Code: code, Message: fmt.Sprintf(format, args...)}
}

// Fields makes an Error whose details name problems per field.
func Fields(code, message string, details map[string]string) *Error {
	return &Error{Code: code, Message: message, Details: details}
}

// As returns the contract error that err is: the *Error inside it,
// SERVICE_UNAVAILABLE for a deadline or a lost connection (Unavailable),
// or an INTERNAL_ERROR that hides err's text: internals never reach the
// client.
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
