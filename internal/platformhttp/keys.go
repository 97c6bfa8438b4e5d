package platformhttp

import (
	"errors"
	"net/http"
	"strings"
	"unicode/utf8"

	"github.com/tablesmith/tablesmith/internal/auth"
	"github.com/tablesmith/tablesmith/internal/envelope"
	"github.com/tablesmith/tablesmith/internal/store"
)

func (h *Handler) createKey(w http.ResponseWriter, r *http.Request, _ store.Account, p store.Project) {
	var in struct {
		Name  string `json:"name"`
		Scope string `json:"scope"`
	}
	if err := h.decode(w, r, &in); err != nil {
		h.fail(w, r, err)
		return
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
		h.fail(w, r, envelope.Fields(envelope.CodeValidation, "Validation failed", problems))
		return
	}
	key, prefix := auth.NewAPIKey(store.RandomID)
	k, err := h.d.Store.CreateKey(r.Context(), p.ID, in.Name, in.Scope, prefix, auth.HashAPIKey(key))
	if err != nil {
		h.fail(w, r, err)
		return
	}
	envelope.Write(w, http.StatusCreated, envelope.Success{
		Message: "Copy the key now: it is shown only once",
		Data: map[string]any{"id": k.ID, "name": k.Name, "scope": k.Scope, "prefix": k.Prefix,
			"created_at": k.CreatedAt, "last_used_at": nil, "key": key}})
}

func (h *Handler) listKeys(w http.ResponseWriter, r *http.Request, _ store.Account, p store.Project) {
	ks, err := h.d.Store.Keys(r.Context(), p.ID)
	if err != nil {
		h.fail(w, r, err)
		return
	}
	envelope.OK(w, ks)
}

func (h *Handler) revokeKey(w http.ResponseWriter, r *http.Request, _ store.Account, p store.Project) {
	err := h.d.Store.RevokeKey(r.Context(), p.ID, r.PathValue("key_id"))
	if errors.Is(err, store.ErrNotFound) {
		h.fail(w, r, envelope.New(envelope.CodeNotFound, "API key %q not found", r.PathValue("key_id")))
		return
	}
	if err != nil {
		h.fail(w, r, err)
		return
	}
	ks, _ := h.d.Store.KeyByID(r.Context(), r.PathValue("key_id"))
	h.d.Keys.Forget(ks.Prefix)
	envelope.Write(w, http.StatusOK, envelope.Success{Data: map[string]any{"id": r.PathValue("key_id"), "revoked": true}, Message: "API key revoked"})
}

func (h *Handler) analytics(w http.ResponseWriter, r *http.Request, acc store.Account, p store.Project) {
	if h.d.Analytics == nil {
		h.fail(w, r, envelope.New(envelope.CodeNotFound, "Analytics are not enabled"))
		return
	}
	cfg := h.d.Config()
	h.d.Analytics(w, r, p, cfg.Plans.Get(acc.Plan, cfg.DefaultPlan))
}
