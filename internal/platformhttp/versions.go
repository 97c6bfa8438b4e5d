package platformhttp

import (
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"strconv"

	"github.com/tablesmith/tablesmith/internal/envelope"
	"github.com/tablesmith/tablesmith/internal/store"
	"github.com/tablesmith/tablesmith/schema"
)

// version reads a published version by the number in the path or query;
// an unknown or malformed number is 404.
func (h *Handler) version(r *http.Request, p store.Project, raw string) (store.Version, error) {
	n, err := strconv.Atoi(raw)
	if err != nil || n < 1 {
		return store.Version{}, envelope.New(envelope.CodeNotFound, "Version %q not found", raw)
	}
	v, err := h.d.Store.VersionByNumber(r.Context(), p.ID, n)
	if errors.Is(err, store.ErrNotFound) {
		return v, envelope.New(envelope.CodeNotFound, "Version %d not found", n)
	}
	return v, err
}

// getVersion answers GET /api/projects/{id}/schema/versions/{version}.
func (h *Handler) getVersion(w http.ResponseWriter, r *http.Request, _ store.Account, p store.Project) {
	v, err := h.version(r, p, r.PathValue("version"))
	if err != nil {
		h.fail(w, r, err)
		return
	}
	envelope.OK(w, v)
}

// resetSchema answers POST /api/projects/{id}/schema/reset {version}: the
// draft becomes that published version's document. Nothing is generated;
// generating it afterwards migrates the database back to that shape (its
// own plan, prechecks and confirmations apply).
func (h *Handler) resetSchema(w http.ResponseWriter, r *http.Request, _ store.Account, p store.Project) {
	var in struct {
		Version *int `json:"version"`
	}
	if err := h.decode(w, r, &in); err != nil {
		h.fail(w, r, err)
		return
	}
	if in.Version == nil {
		h.fail(w, r, envelope.Fields(envelope.CodeValidation, "Validation failed", map[string]string{"version": "is required"}))
		return
	}
	v, err := h.version(r, p, strconv.Itoa(*in.Version))
	if err != nil {
		h.fail(w, r, err)
		return
	}
	doc, err := schema.Parse(v.Document)
	if err != nil {
		h.fail(w, r, fmt.Errorf("version %d of %s: %w", v.Version, p.ID, err))
		return
	}
	h.saveDraft(w, r, p, doc, fmt.Sprintf("Draft reset to version %d", v.Version))
}

// exportSchema answers GET /api/projects/{id}/schema/export: the draft
// (or ?version=N, a published version) as a downloadable schema.json,
// without an envelope, so that PUT /api/projects/{id}/schema and
// `caddy tablesmith schema apply` take the file back as it is.
func (h *Handler) exportSchema(w http.ResponseWriter, r *http.Request, _ store.Account, p store.Project) {
	var doc schema.Document
	name := p.ID + "-schema.json"
	if raw := r.URL.Query().Get("version"); raw != "" {
		v, err := h.version(r, p, raw)
		if err != nil {
			h.fail(w, r, err)
			return
		}
		if doc, err = schema.Parse(v.Document); err != nil {
			h.fail(w, r, err)
			return
		}
		name = fmt.Sprintf("%s-schema-v%d.json", p.ID, v.Version)
	} else {
		var err error
		if doc, _, err = h.draft(r.Context(), p); err != nil {
			h.fail(w, r, err)
			return
		}
	}
	body, err := json.MarshalIndent(doc, "", "  ")
	if err != nil {
		h.fail(w, r, err)
		return
	}
	w.Header().Set("Content-Type", "application/json; charset=utf-8")
	w.Header().Set("Content-Disposition", `attachment; filename="`+name+`"`)
	w.Header().Set("X-Content-Type-Options", "nosniff")
	w.WriteHeader(http.StatusOK)
	_, _ = w.Write(append(body, '\n'))
}
