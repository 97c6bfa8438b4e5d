package platformhttp

import (
	"errors"
	"fmt"
	"net/http"
	"strings"
	"unicode/utf8"

	"github.com/tablesmith/tablesmith/apierr"
	"github.com/tablesmith/tablesmith/internal/analytics"
	"github.com/tablesmith/tablesmith/internal/auth"
	"github.com/tablesmith/tablesmith/internal/envelope"
	"github.com/tablesmith/tablesmith/internal/store"
)

func (h *Handler) createKey(w http.ResponseWriter, r *http.Request, acc store.Account, p store.Project) error {
	var in struct {
		Name  string `json:"name"`
		Scope string `json:"scope"`
	}
	if err := h.decode(w, r, &in); err != nil {
		return err
	}
	problems := map[string]string{}
	in.Name = strings.TrimSpace(in.Name)
	if in.Name == "" {
		in.Name = "API key"
	}
	if utf8.RuneCountInString(in.Name) > 100 {
		problems["name"] = "must be at most 100 characters"
	}
	if in.Scope == "" {
		in.Scope = auth.ScopeReadWrite
	}
	if in.Scope != auth.ScopeRead && in.Scope != auth.ScopeReadWrite {
		problems["scope"] = "must be read or read_write"
	}
	if len(problems) > 0 {
		return apierr.Fields(apierr.CodeValidation, "Validation failed", problems)
	}
	key, prefix := auth.NewAPIKey(store.RandomID)
	k, err := h.d.Store.CreateKey(r.Context(), p.ID, in.Name, in.Scope, prefix, auth.HashAPIKey(key))
	if err != nil {
		return err
	}
	// This node forgets the prefix if it was unknown before answering;
	// the others when the creation's notification reaches them.
	h.d.Keys.Forget(prefix)
	h.audit(r.Context(), acc, p, "key.created", k.ID, map[string]any{"name": k.Name, "scope": k.Scope, "prefix": k.Prefix})
	envelope.Write(w, http.StatusCreated, envelope.Success{
		Message: "Copy the key now: it is shown only once",
		Data: map[string]any{"id": k.ID, "name": k.Name, "scope": k.Scope, "prefix": k.Prefix,
			"created_at": k.CreatedAt, "last_used_at": nil, "key": key}})
	return nil
}

func (h *Handler) listKeys(w http.ResponseWriter, r *http.Request, _ store.Account, p store.Project) error {
	ks, err := h.d.Store.Keys(r.Context(), p.ID)
	if err != nil {
		return err
	}
	envelope.OK(w, ks)
	return nil
}

func (h *Handler) revokeKey(w http.ResponseWriter, r *http.Request, acc store.Account, p store.Project) error {
	err := h.d.Store.RevokeKey(r.Context(), p.ID, r.PathValue("key_id"))
	if errors.Is(err, store.ErrNotFound) {
		return apierr.New(apierr.CodeNotFound, "API key %q not found", r.PathValue("key_id"))
	}
	if err != nil {
		return err
	}
	ks, _ := h.d.Store.KeyByID(r.Context(), r.PathValue("key_id"))
	h.d.Keys.Forget(ks.Prefix)
	h.audit(r.Context(), acc, p, "key.revoked", ks.ID, map[string]any{"name": ks.Name, "prefix": ks.Prefix})
	envelope.Write(w, http.StatusOK, envelope.Success{Data: map[string]any{"id": r.PathValue("key_id"), "revoked": true}, Message: "API key revoked"})
	return nil
}

// analytics answers the report of a project for the window in the query
// string (range, or from/to/interval).
func (h *Handler) analytics(w http.ResponseWriter, r *http.Request, acc store.Account, p store.Project) error {
	if h.d.Analytics == nil {
		return apierr.New(apierr.CodeNotFound, "Analytics are not enabled")
	}
	win, problems := analytics.ParseWindow(r.URL.Query(), h.d.Now())
	if problems != nil {
		return apierr.Fields(apierr.CodeInvalidQuery, "Invalid analytics range", problems)
	}
	plan, _, err := h.projectPlan(r.Context(), acc, p)
	if err != nil {
		return err
	}
	rep, err := h.d.Analytics(r.Context(), p.ID, win, plan)
	if err != nil {
		return fmt.Errorf("analytics of %s: %w", p.ID, err)
	}
	if h.d.FileUsage != nil {
		used, err := h.d.FileUsage(r.Context(), p.ID)
		if err != nil {
			return fmt.Errorf("file storage of %s: %w", p.ID, err)
		}
		rep.FileStorage = &analytics.FileStorage{UsedBytes: used, LimitBytes: plan.FileStorage}
	}
	envelope.OK(w, rep)
	return nil
}
