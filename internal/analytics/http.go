package analytics

import (
	"context"
	"database/sql"
	"fmt"
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
// string; usage supplies plan_usage (the limiter knows it). An error is
// the caller's to answer (the platform API writes every envelope).
func (a *API) Serve(w http.ResponseWriter, r *http.Request, projectID string, usage func(context.Context) PlanUsage) error {
	win, problems := ParseWindow(r.URL.Query(), a.Now())
	if problems != nil {
		return envelope.Fields(envelope.CodeInvalidQuery, "Invalid analytics range", problems)
	}
	rep, err := Query(r.Context(), a.DB, projectID, win)
	if err != nil {
		return fmt.Errorf("analytics of %s: %w", projectID, err)
	}
	rep.PlanUsage = usage(r.Context())
	envelope.OK(w, rep)
	return nil
}
