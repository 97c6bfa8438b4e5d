package analytics

import (
	"context"
	"database/sql"
	"log/slog"
	"net/http"
	"time"

	"github.com/tablesmith/tablesmith/internal/envelope"
)

// API serves GET /api/projects/{id}/analytics once the platform API
// has checked that the caller owns the project.
type API struct {
	DB     *sql.DB
	Now    func() time.Time
	Logger *slog.Logger
}

// Serve writes the report of projectID for the window in the query
// string; usage supplies plan_usage (the limiter knows it).
func (a *API) Serve(w http.ResponseWriter, r *http.Request, projectID string, usage func(context.Context) PlanUsage) {
	win, problems := ParseWindow(r.URL.Query(), a.Now())
	if problems != nil {
		envelope.WriteError(w, envelope.Fields(envelope.CodeInvalidQuery, "Invalid analytics range", problems))
		return
	}
	rep, err := Query(r.Context(), a.DB, projectID, win)
	if err != nil {
		a.Logger.Error("analytics query failed", "project", projectID, "err", err)
		envelope.WriteError(w, err)
		return
	}
	rep.PlanUsage = usage(r.Context())
	envelope.OK(w, rep)
}
