package apierr

import (
	"context"
	"database/sql"
	"database/sql/driver"
	"errors"
	"io"
	"net"
	"os"
	"strings"
	"syscall"
	"time"
)

// MovedSQLState is raised by the old copy of a project that moved to
// another data server, for a write that still reached it (move-project).
const MovedSQLState = "TSMOV"

// Unavailable maps an error that says a dependency could not answer in
// time (the request's deadline, a statement timeout) or went away (a
// refused, reset or dropped connection, a server shutting down) to
// SERVICE_UNAVAILABLE; nil for any other error. As applies it to every
// error that is not already an *Error, so both APIs answer a database
// outage alike, wherever in a request it is met; it is the only place
// that classifies such errors. SQLSTATEs are read through the driver's
// SQLState method, so this package imports no driver.
func Unavailable(err error) *Error {
	if err == nil {
		return nil
	}
	var st interface{ SQLState() string }
	if errors.As(err, &st) {
		code := st.SQLState()
		switch {
		case code == MovedSQLState:
			return &Error{Code: CodeUnavailable, Message: "The project is moving to another database server; writes resume within seconds", Cause: err, RetryAfter: 2 * time.Second}
		case code == "57014": // query_canceled: statement_timeout or our deadline
			return &Error{Code: CodeUnavailable, Message: "The request took too long; try again shortly", Cause: err}
		case strings.HasPrefix(code, "08"), code == "57P01", code == "57P02", code == "57P03", code == "53300":
			// connection exceptions, shutdown, cannot connect now, too many connections
			return &Error{Code: CodeUnavailable, Message: "The database is unavailable; try again shortly", Cause: err}
		}
		return nil
	}
	if errors.Is(err, context.DeadlineExceeded) || errors.Is(err, os.ErrDeadlineExceeded) || errors.Is(err, context.Canceled) {
		return &Error{Code: CodeUnavailable, Message: "The request took too long; try again shortly", Cause: err}
	}
	var ne net.Error
	if errors.Is(err, io.EOF) || errors.Is(err, io.ErrUnexpectedEOF) || errors.Is(err, driver.ErrBadConn) ||
		errors.Is(err, sql.ErrConnDone) || errors.Is(err, syscall.ECONNREFUSED) || errors.Is(err, syscall.ECONNRESET) ||
		errors.Is(err, syscall.EPIPE) || errors.As(err, &ne) {
		return &Error{Code: CodeUnavailable, Message: "The database is unavailable; try again shortly", Cause: err}
	}
	return nil
}
