package platformhttp

import (
	"fmt"
	"net/http"
	"time"

	"github.com/tablesmith/tablesmith/apierr"
	"github.com/tablesmith/tablesmith/internal/envelope"
	"github.com/tablesmith/tablesmith/internal/requestlog"
	"github.com/tablesmith/tablesmith/internal/store"
	"github.com/tablesmith/tablesmith/translate"
)

// LogsMeta is the meta object of a Logs page.
type LogsMeta struct {
	// NextCursor is the cursor of the next (older) page; null on the last.
	NextCursor *string `json:"next_cursor"`
	// RetentionHours is how long the project's plan keeps requests.
	RetentionHours float64 `json:"retention_hours"`
}

// logs answers GET /api/projects/{id}/logs: a page of the project's
// request log, newest first (docs/limits-and-analytics.md, "Request log").
func (h *Handler) logs(w http.ResponseWriter, r *http.Request, acc store.Account, p store.Project) error {
	if h.d.Logs == nil {
		return apierr.New(apierr.CodeNotFound, "The request log is turned off on this server (request_log off)")
	}
	// Read whole, like the generated API's: a pair Go's parser would drop
	// must not widen the filter.
	q, err := translate.ParseQueryString(r.URL.RawQuery)
	if err != nil {
		return apierr.New(apierr.CodeInvalidQuery, "%s", err.Error())
	}
	f, problems := requestlog.ParseFilter(q)
	if problems != nil {
		return apierr.Fields(apierr.CodeInvalidQuery, "Invalid request log query", problems)
	}
	rows, next, err := h.d.Logs(r.Context(), p.ID, f)
	if err != nil {
		return fmt.Errorf("request log of %s: %w", p.ID, err)
	}
	plan, _, err := h.projectPlan(r.Context(), acc, p)
	if err != nil {
		return err
	}
	meta := LogsMeta{RetentionHours: plan.LogRetention.Hours()}
	if next != "" {
		meta.NextCursor = &next
	}
	envelope.Write(w, http.StatusOK, envelope.Success{Data: rows, Meta: meta})
	return nil
}

// StreamTicket is the answer of POST /api/projects/{id}/stream-tickets.
type StreamTicket struct {
	Ticket    string    `json:"ticket"`
	ExpiresAt time.Time `json:"expires_at"`
}

// streamTicket answers POST /api/projects/{id}/stream-tickets: a ticket
// that opens the project's realtime stream for a minute, for the owner's
// own dashboard, whose session must not go into the stream's URL
// (docs/realtime.md, "The owner's dashboard").
func (h *Handler) streamTicket(w http.ResponseWriter, r *http.Request, acc store.Account, p store.Project) error {
	ticket, expires, err := h.d.Sessions.IssueTicket(acc.ID, p.ID)
	if err != nil {
		return fmt.Errorf("stream ticket for %s: %w", p.ID, err)
	}
	envelope.Write(w, http.StatusCreated, envelope.Success{Data: StreamTicket{Ticket: ticket, ExpiresAt: expires.UTC()},
		Message: "Stream ticket issued; it opens the realtime stream within a minute"})
	return nil
}
