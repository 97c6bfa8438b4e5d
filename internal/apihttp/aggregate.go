package apihttp

import (
	"context"
	"net/http"

	"github.com/tablesmith/tablesmith/access"
	"github.com/tablesmith/tablesmith/apierr"
	"github.com/tablesmith/tablesmith/internal/envelope"
	"github.com/tablesmith/tablesmith/internal/pgexec"
	"github.com/tablesmith/tablesmith/translate"
)

// OpAggregate is GET /<table>/aggregate as permissions (read) and
// analytics name it.
const OpAggregate = "aggregate"

// aggregateSegment is the path segment of the aggregate route. Integer and
// UUID keys never spell it, so it cannot hide a record; a table with a
// text key keeps its record "aggregate" for writes, and GET goes to the
// aggregate route.
const aggregateSegment = "aggregate"

// isAggregateRoute reports whether a request on /<table>/<rest> is for
// the aggregate route.
func isAggregateRoute(c *tableCall, method string, rest []string) bool {
	if len(rest) != 2 || rest[1] != aggregateSegment {
		return false
	}
	if method == http.MethodGet || method == http.MethodHead {
		return true
	}
	_, isKey := parseID(c.t, aggregateSegment)
	return !isKey
}

// aggregateRecords answers GET /<table>/aggregate: one statement groups
// the rows the caller may read that match the list filters, and computes
// the asked aggregates per group.
func (h *Handler) aggregateRecords(w http.ResponseWriter, r *http.Request, rt *Route, c *tableCall) error {
	rt.Operation = OpAggregate
	if r.Method != http.MethodGet && r.Method != http.MethodHead {
		w.Header().Set("Allow", "GET, HEAD")
		return apierr.New(apierr.CodeMethodNotAllowed, "Method %s is not allowed on aggregate; use GET", r.Method)
	}
	var err error
	if c.grant, err = h.admit(w, r, rt, c.t, access.Read); err != nil {
		return err
	}
	q, err := translate.ParseAggregate(r.URL.Query())
	if err != nil {
		return PlannerError(err)
	}
	q.List.Caller, q.List.Rows = rt.Principal, c.grant.Rows
	as, err := translate.BuildAggregate(c.pub, c.t, q)
	if err != nil {
		return PlannerError(err)
	}
	markShared(rt, c.ts)
	var data []byte
	err = h.statements(w, r, rt, func(ctx context.Context) error {
		return h.read(ctx, rt, func(ctx context.Context, q pgexec.Querier) error {
			data, err = pgexec.ReadJSON(ctx, q, as.SQL, as.Args...)
			return pgexec.MapError(err, c.t, pgexec.OpRead)
		})
	})
	if err != nil {
		return err
	}
	shareRead(w.Header(), rt, c.ts, as.Reads)
	envelope.Write(w, http.StatusOK, envelope.Success{RawData: data, Meta: as.Meta})
	return nil
}
