package envelope

import (
	"context"
	"database/sql/driver"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http/httptest"
	"os"
	"syscall"
	"testing"
)

type sqlStateError string

func (e sqlStateError) Error() string    { return "pq: " + string(e) }
func (e sqlStateError) SQLState() string { return string(e) }

func TestLostConnectionsAndDeadlinesAnswer503WithRetryAfter(t *testing.T) {
	unavailable := map[string]error{
		"EOF mid-request":      fmt.Errorf("scan: %w", io.EOF),
		"unexpected EOF":       io.ErrUnexpectedEOF,
		"bad connection":       driver.ErrBadConn,
		"refused":              &net.OpError{Op: "dial", Net: "tcp", Err: os.NewSyscallError("connect", syscall.ECONNREFUSED)},
		"reset":                &net.OpError{Op: "read", Net: "tcp", Err: os.NewSyscallError("read", syscall.ECONNRESET)},
		"socket deadline":      &net.OpError{Op: "read", Net: "tcp", Err: os.ErrDeadlineExceeded},
		"request deadline":     fmt.Errorf("load: %w", context.DeadlineExceeded),
		"statement timeout":    sqlStateError("57014"),
		"admin shutdown":       sqlStateError("57P01"),
		"crash shutdown":       sqlStateError("57P02"),
		"cannot connect now":   sqlStateError("57P03"),
		"connection failure":   sqlStateError("08006"),
		"too many connections": sqlStateError("53300"),
	}
	for name, err := range unavailable {
		w := httptest.NewRecorder()
		WriteError(w, err)
		if w.Code != 503 || As(err).Code != CodeUnavailable || w.Header().Get("Retry-After") != RetryAfterUnavailable {
			t.Errorf("%s: %d %s Retry-After %q, want 503 SERVICE_UNAVAILABLE with Retry-After", name, w.Code, w.Body, w.Header().Get("Retry-After"))
		}
	}
	for name, err := range map[string]error{"plain": errors.New("boom"), "syntax error": sqlStateError("42601")} {
		if c := As(err).Code; c != CodeInternal {
			t.Errorf("%s: %s, want INTERNAL_ERROR", name, c)
		}
	}
	w := httptest.NewRecorder()
	w.Header().Set("Retry-After", "1")
	WriteError(w, New(CodeUnavailable, "x"))
	if w.Header().Get("Retry-After") != "1" {
		t.Errorf("a Retry-After set by the handler was replaced: %q", w.Header().Get("Retry-After"))
	}
}
