package apierr

import (
	"context"
	"database/sql/driver"
	"errors"
	"fmt"
	"io"
	"net"
	"os"
	"syscall"
	"testing"
)

type sqlStateError string

func (e sqlStateError) Error() string    { return "pq: " + string(e) }
func (e sqlStateError) SQLState() string { return string(e) }

func TestLostConnectionsAndDeadlinesAreServiceUnavailable(t *testing.T) {
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
		if e := As(err); e.Code != CodeUnavailable || !errors.Is(e, err) {
			t.Errorf("%s: As = %v, want SERVICE_UNAVAILABLE caused by the error", name, e)
		}
	}
	for name, err := range map[string]error{"plain": errors.New("boom"), "syntax error": sqlStateError("42601")} {
		if c := As(err).Code; c != CodeInternal {
			t.Errorf("%s: %s, want INTERNAL_ERROR", name, c)
		}
	}
	if e := New(CodeNotFound, "Record not found"); As(fmt.Errorf("get: %w", e)) != e {
		t.Errorf("As did not return the contract error inside a wrapped error")
	}
}
