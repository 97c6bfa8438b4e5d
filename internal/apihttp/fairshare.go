package apihttp

import (
	"context"
	"errors"
	"net/http"
	"time"

	"github.com/tablesmith/tablesmith/apierr"
	"github.com/tablesmith/tablesmith/internal/fairshare"
)

// statements runs f, a table route's data statement(s), in one of the
// project's slots of the fair-share gate (Deps.Gate) and within its plan's
// statement timeout (Quota.StatementTimeout, kept on the route). The timeout is a deadline on
// the context f runs its statements with, so lib/pq cancels the query in
// PostgreSQL; it counts from when the slot is taken, not from the request's
// start, and any earlier deadline of the request still applies.
//
// Both outcomes are answered here, before the generic error mapping: a
// project whose slots stayed taken gets 503 with Retry-After, a statement
// cut by its plan's timeout 503 saying so.
func (h *Handler) statements(w http.ResponseWriter, r *http.Request, rt *Route, f func(ctx context.Context) error) error {
	return h.inSlot(r.Context(), rt, false, f)
}

// inSlot runs f in one of the project's slots, within its plan's statement
// timeout, under ctx (statements). A statement that may wait for its turn
// as long as ctx allows (an export's batches after the first) passes
// until; the others wait up to the gate's wait and then answer 503.
func (h *Handler) inSlot(ctx context.Context, rt *Route, until bool, f func(ctx context.Context) error) error {
	var slot fairshare.Slot
	var err error
	if until {
		slot, err = h.d.Gate.AcquireUntil(ctx, rt.ProjectID, time.Now())
	} else {
		slot, err = h.d.Gate.Acquire(ctx, rt.ProjectID, rt.Start)
	}
	if err != nil {
		if errors.Is(err, fairshare.ErrBusy) {
			e := apierr.New(apierr.CodeUnavailable,
				"Project %s has too many slow requests running; retry shortly, or make its slow queries faster (an index on the filtered or sorted column, a smaller page)", rt.ProjectID)
			e.RetryAfter = time.Second
			return e
		}
		return err // the client went away
	}
	defer slot.Release()
	limit := rt.statementTimeout
	if limit <= 0 {
		return f(ctx)
	}
	if dl, ok := ctx.Deadline(); ok && !dl.After(time.Now().Add(limit)) {
		// The request's own deadline comes first: a context and timer of
		// our own (~0.8 µs) would change nothing.
		return f(ctx)
	}
	cut := time.Now().Add(limit)
	sctx, cancel := context.WithDeadline(ctx, cut)
	defer cancel()
	err = f(sctx)
	if err != nil && ctx.Err() == nil && (sctx.Err() != nil || !time.Now().Before(cut)) {
		// Cut by the plan's timeout, not by the request's own deadline or
		// a client that went away. The clock decides too: PostgreSQL's
		// statement_timeout, when it is the plan's (an export's), may end
		// the statement before the context's timer has run.
		h.timeouts.Add(1)
		return apierr.New(apierr.CodeUnavailable,
			"The query took longer than the %s its plan allows and was cancelled; narrow it (a filter on an indexed column, a smaller page) or move the project to a larger plan", limit)
	}
	return err
}

// StatementTimeouts is how many statements their plan's timeout cut.
func (h *Handler) StatementTimeouts() uint64 { return h.timeouts.Load() }
