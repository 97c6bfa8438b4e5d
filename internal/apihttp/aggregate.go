package apihttp

import (
	"context"
	"net/http"

	"github.com/tablesmith/tablesmith/internal/envelope"
	"github.com/tablesmith/tablesmith/internal/pgexec"
	"github.com/tablesmith/tablesmith/translate"
)

// aggregateRecords answers GET /<table>/aggregate: one statement groups
// the rows the caller may read that match the list filters, and computes
// the asked aggregates per group.
func (h *Handler) aggregateRecords(w http.ResponseWriter, r *http.Request, rt *Route, c *tableCall) error {
	q, err := translate.ParseAggregate(c.req.Query)
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
