package platformhttp

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"strconv"
	"time"

	"github.com/tablesmith/tablesmith/apierr"
	"github.com/tablesmith/tablesmith/internal/envelope"
	"github.com/tablesmith/tablesmith/internal/plans"
	"github.com/tablesmith/tablesmith/internal/realtime"
	"github.com/tablesmith/tablesmith/internal/registry"
	"github.com/tablesmith/tablesmith/internal/store"
	"github.com/tablesmith/tablesmith/internal/webhooks"
)

// WebhookCreated is a new webhook with its signing secret, shown once.
type WebhookCreated struct {
	webhooks.Webhook
	Secret string `json:"secret"`
}

// published is the project's published version, which a webhook's
// tables and conditions are checked against.
func (h *Handler) publishedEntry(ctx context.Context, p store.Project) (*registry.Entry, error) {
	e, err := h.d.Registry.Get(ctx, p.ID)
	if errors.Is(err, registry.ErrNotPublished) {
		return nil, apierr.New(apierr.CodeConflict, "Project %s has no published API yet; generate it before adding webhooks", p.ID)
	}
	return e, err
}

func (h *Handler) createWebhook(w http.ResponseWriter, r *http.Request, acc store.Account, p store.Project) error {
	var spec webhooks.Spec
	if err := h.decode(w, r, &spec); err != nil {
		return err
	}
	entry, err := h.publishedEntry(r.Context(), p)
	if err != nil {
		return err
	}
	tables := webhooks.PublishedTables{Published: entry.Published}
	if problems := spec.Check(nil, tables, h.d.WebhookAllowPrivate); problems != nil {
		return apierr.Fields(apierr.CodeValidation, "Validation failed", problems)
	}
	if problems := cannotCapture(tables, *spec.Tables); problems != nil {
		return apierr.Fields(apierr.CodeValidation, "Validation failed", problems)
	}
	plan, planName, err := h.projectPlan(r.Context(), acc, p)
	if err != nil {
		return err
	}
	limit := plan.Webhooks
	if limit != plans.Unlimited {
		n, err := h.d.Webhooks.Count(r.Context(), p.ID)
		if err != nil {
			return err
		}
		if n >= limit {
			return apierr.New(apierr.CodePlanLimit, "The %s plan of the project's owner allows %d webhooks per project; delete one or upgrade", planName, limit)
		}
	}
	start, err := startCursor(r.Context(), entry)
	if err != nil {
		return fmt.Errorf("webhook of %s: %w", p.ID, err)
	}
	hook, err := h.d.Webhooks.Create(r.Context(), "wh_"+store.RandomID(16), p.ID, spec, start)
	if err != nil {
		return err
	}
	tables.Await(&hook)
	h.audit(r.Context(), acc, p, "webhook.created", hook.ID, webhookDetails(spec))
	envelope.Write(w, http.StatusCreated, envelope.Success{Message: "Copy the signing secret now: it is shown only once",
		Data: WebhookCreated{Webhook: hook, Secret: webhooks.EncodeSecret(webhooks.Secret(h.d.WebhookKey(), hook.ID, 1))}})
	return nil
}

// startCursor is where a new webhook starts: the change log's head, so
// that it delivers what commits from now on; 0 while the project has no
// log (the generate that switches capture on creates it, and everything
// in it is then new).
func startCursor(ctx context.Context, entry *registry.Entry) (int64, error) {
	db, ns := entry.Tables.DB(), entry.Published.Schema
	if ok, err := realtime.HasLog(ctx, db, ns); err != nil || !ok {
		return 0, err
	}
	return realtime.LogHead(ctx, db, ns)
}

// cannotCapture names a table whose changes no generate can capture: a
// fronted database's. A table of ours without capture is taken: the next
// generate switches realtime on for it (publish.KeepCapture).
func cannotCapture(tables webhooks.PublishedTables, names []string) map[string]string {
	for _, t := range names {
		if tables.Fronted(t) {
			return map[string]string{"tables": fmt.Sprintf("%q is a table of a fronted database, whose changes cannot be captured (Tablesmith adds no triggers there)", t)}
		}
	}
	return nil
}

// awaiting fills the webhooks' awaiting_generate from the published
// version.
func (h *Handler) awaiting(ctx context.Context, p store.Project, hooks ...*webhooks.Webhook) error {
	if len(hooks) == 0 {
		return nil
	}
	entry, err := h.publishedEntry(ctx, p)
	if err != nil {
		return err
	}
	tables := webhooks.PublishedTables{Published: entry.Published}
	for _, w := range hooks {
		tables.Await(w)
	}
	return nil
}

func (h *Handler) listWebhooks(w http.ResponseWriter, r *http.Request, _ store.Account, p store.Project) error {
	hooks, err := h.d.Webhooks.List(r.Context(), p.ID)
	if err != nil {
		return err
	}
	shown := make([]*webhooks.Webhook, len(hooks))
	for i := range hooks {
		shown[i] = &hooks[i]
	}
	if err := h.awaiting(r.Context(), p, shown...); err != nil {
		return err
	}
	envelope.OK(w, hooks)
	return nil
}

// webhook is the webhook the path names, or its 404.
func (h *Handler) webhook(r *http.Request, p store.Project) (webhooks.Webhook, error) {
	hook, err := h.d.Webhooks.Get(r.Context(), p.ID, r.PathValue("wid"))
	if errors.Is(err, webhooks.ErrNotFound) {
		return hook, apierr.New(apierr.CodeNotFound, "Webhook %q not found", r.PathValue("wid"))
	}
	return hook, err
}

func (h *Handler) getWebhook(w http.ResponseWriter, r *http.Request, _ store.Account, p store.Project) error {
	hook, err := h.webhook(r, p)
	if err != nil {
		return err
	}
	if err := h.awaiting(r.Context(), p, &hook); err != nil {
		return err
	}
	envelope.OK(w, hook)
	return nil
}

func (h *Handler) updateWebhook(w http.ResponseWriter, r *http.Request, acc store.Account, p store.Project) error {
	var spec webhooks.Spec
	if err := h.decode(w, r, &spec); err != nil {
		return err
	}
	old, err := h.webhook(r, p)
	if err != nil {
		return err
	}
	entry, err := h.publishedEntry(r.Context(), p)
	if err != nil {
		return err
	}
	tables := webhooks.PublishedTables{Published: entry.Published}
	if problems := spec.Check(&old, tables, h.d.WebhookAllowPrivate); problems != nil {
		return apierr.Fields(apierr.CodeValidation, "Validation failed", problems)
	}
	if problems := cannotCapture(tables, *spec.Tables); problems != nil {
		return apierr.Fields(apierr.CodeValidation, "Validation failed", problems)
	}
	hook, err := h.d.Webhooks.Update(r.Context(), p.ID, old.ID, spec)
	if err != nil {
		return err
	}
	tables.Await(&hook)
	h.audit(r.Context(), acc, p, "webhook.updated", hook.ID, webhookDetails(spec))
	envelope.OK(w, hook)
	return nil
}

func (h *Handler) deleteWebhook(w http.ResponseWriter, r *http.Request, acc store.Account, p store.Project) error {
	err := h.d.Webhooks.Delete(r.Context(), p.ID, r.PathValue("wid"))
	if errors.Is(err, webhooks.ErrNotFound) {
		return apierr.New(apierr.CodeNotFound, "Webhook %q not found", r.PathValue("wid"))
	}
	if err != nil {
		return err
	}
	h.audit(r.Context(), acc, p, "webhook.deleted", r.PathValue("wid"), nil)
	envelope.Write(w, http.StatusOK, envelope.Success{Data: map[string]any{"id": r.PathValue("wid"), "deleted": true}, Message: "Webhook deleted"})
	return nil
}

func (h *Handler) rotateWebhookSecret(w http.ResponseWriter, r *http.Request, acc store.Account, p store.Project) error {
	if _, err := h.webhook(r, p); err != nil {
		return err
	}
	hook, err := h.d.Webhooks.Rotate(r.Context(), p.ID, r.PathValue("wid"))
	if err != nil {
		return err
	}
	if err := h.awaiting(r.Context(), p, &hook); err != nil {
		return err
	}
	h.audit(r.Context(), acc, p, "webhook.secret_rotated", hook.ID, nil)
	envelope.Write(w, http.StatusOK, envelope.Success{
		Message: "Copy the new signing secret now: it is shown only once. Deliveries carry both signatures until previous_secret_until",
		Data:    WebhookCreated{Webhook: hook, Secret: webhooks.EncodeSecret(webhooks.Secret(h.d.WebhookKey(), hook.ID, hook.SecretGen()))}})
	return nil
}

// replayWebhook sets a webhook's cursor back to a change id or a time:
// it delivers again every change after it that the log still holds.
func (h *Handler) replayWebhook(w http.ResponseWriter, r *http.Request, acc store.Account, p store.Project) error {
	var in struct {
		FromChangeID *int64     `json:"from_change_id"`
		Since        *time.Time `json:"since"`
	}
	if err := h.decode(w, r, &in); err != nil {
		return err
	}
	if (in.FromChangeID == nil) == (in.Since == nil) {
		return apierr.Fields(apierr.CodeValidation, "Give from_change_id or since, not both", map[string]string{
			"from_change_id": "the first change to deliver again", "since": "or the time (RFC 3339) from which to deliver again"})
	}
	if in.FromChangeID != nil && *in.FromChangeID < 1 {
		return apierr.Fields(apierr.CodeValidation, "Validation failed", map[string]string{"from_change_id": "must be a change id, 1 or more"})
	}
	if _, err := h.webhook(r, p); err != nil {
		return err
	}
	entry, err := h.publishedEntry(r.Context(), p)
	if err != nil {
		return err
	}
	db, ns := entry.Tables.DB(), entry.Published.Schema
	hasLog, err := realtime.HasLog(r.Context(), db, ns)
	if err != nil {
		return err
	}
	if !hasLog {
		return apierr.New(apierr.CodeConflict, "The project has no change log yet: the next generate switches capture on for the webhook's tables")
	}
	if _, err := realtime.NumberChanges(r.Context(), db, ns, p.ID); err != nil {
		return err
	}
	state, err := realtime.ReadLogState(r.Context(), db, ns)
	if err != nil {
		return err
	}
	var from int64
	if in.FromChangeID != nil {
		from = *in.FromChangeID - 1
	} else {
		before, found, err := realtime.ChangeBefore(r.Context(), db, ns, *in.Since)
		if err != nil {
			return err
		}
		// Nothing older is kept: from the oldest change kept, unless the
		// cleanup removed some after since.
		from = before
		if !found {
			from = state.Pruned
			if state.Pruned > 0 {
				from = -1
			}
		}
	}
	if from < state.Pruned {
		return apierr.New(apierr.CodeConflict, "The change log no longer holds the changes after %d (it keeps them from %d); replay from a later change", from, state.Pruned+1)
	}
	hook, err := h.d.Webhooks.Replay(r.Context(), p.ID, r.PathValue("wid"), min(from, state.Head))
	if err != nil {
		return err
	}
	webhooks.PublishedTables{Published: entry.Published}.Await(&hook)
	h.audit(r.Context(), acc, p, "webhook.replayed", hook.ID, map[string]any{"from_change_id": hook.Cursor + 1})
	envelope.Write(w, http.StatusOK, envelope.Success{Data: hook, Message: "The webhook delivers again every change after " + strconv.FormatInt(hook.Cursor, 10)})
	return nil
}

func (h *Handler) webhookDeliveries(w http.ResponseWriter, r *http.Request, _ store.Account, p store.Project) error {
	page, err := readNewestFirst(r, "deliveries", 200)
	if err != nil {
		return err
	}
	hook, err := h.webhook(r, p)
	if err != nil {
		return err
	}
	ds, err := h.d.Webhooks.Deliveries(r.Context(), hook.ID, page.Before, page.Ask())
	if err != nil {
		return err
	}
	ds, meta := pageByID(page, ds, func(d webhooks.Delivery) int64 { return d.ID })
	envelope.Write(w, http.StatusOK, envelope.Success{Data: ds, Meta: meta})
	return nil
}
