package platformhttp

import (
	"context"
	"net/http"
	"net/url"
	"strconv"

	"github.com/tablesmith/tablesmith/internal/envelope"
	"github.com/tablesmith/tablesmith/internal/store"
	"github.com/tablesmith/tablesmith/internal/webhooks"
)

// auditEntry is the audit log's entry of a change acc makes to p, for a
// store method that writes it in the change's own transaction.
func (h *Handler) auditEntry(acc store.Account, p store.Project, action, target string, details map[string]any) store.AuditEntry {
	id := acc.ID
	return store.AuditEntry{ProjectID: p.ID, ActorID: &id, ActorEmail: acc.Email, Action: action, Target: target, Details: details}
}

// audit writes the audit log's entry of a change acc just made to p,
// right after the store committed it (docs/teams.md, "Audit log").
// details must hold no secret. The change happened either way: a failed
// write is logged, not answered.
func (h *Handler) audit(ctx context.Context, acc store.Account, p store.Project, action, target string, details map[string]any) {
	if err := h.d.Store.Audit(ctx, h.auditEntry(acc, p, action, target, details)); err != nil {
		h.d.Logger.Error("audit log: entry not written", "project", p.ID, "action", action, "target", target, "err", err)
	}
}

// AuditMeta is the meta object of an audit log page.
type AuditMeta struct {
	// NextCursor is the before of the next (older) page; null on the last.
	NextCursor *string `json:"next_cursor"`
}

// getAudit answers GET /api/projects/{id}/audit: a page of the project's
// audit log, newest first (limit 1–200, default 50; before=<cursor>).
func (h *Handler) getAudit(w http.ResponseWriter, r *http.Request, _ store.Account, p store.Project) error {
	page, err := readNewestFirst(r, "the audit log", 200)
	if err != nil {
		return err
	}
	entries, err := h.d.Store.AuditLog(r.Context(), p.ID, page.Before, page.Ask())
	if err != nil {
		return err
	}
	var meta AuditMeta
	entries, more := cutPage(page, entries)
	if more {
		next := strconv.FormatInt(entries[len(entries)-1].ID, 10)
		meta.NextCursor = &next
	}
	envelope.Write(w, http.StatusOK, envelope.Success{Data: entries, Meta: meta})
	return nil
}

// webhookDetails are the fields a webhook change set, for its audit
// entry; the URL without its query, which may carry a token.
func webhookDetails(spec webhooks.Spec) map[string]any {
	d := map[string]any{}
	if spec.URL != nil {
		if u, err := url.Parse(*spec.URL); err == nil {
			u.RawQuery, u.Fragment, u.User = "", "", nil
			d["url"] = u.String()
		}
	}
	if spec.Tables != nil {
		d["tables"] = *spec.Tables
	}
	if spec.Events != nil {
		d["events"] = *spec.Events
	}
	if spec.Enabled != nil {
		d["enabled"] = *spec.Enabled
	}
	return d
}
