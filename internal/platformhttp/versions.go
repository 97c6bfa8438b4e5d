package platformhttp

import (
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"strconv"

	"github.com/tablesmith/tablesmith/apierr"
	"github.com/tablesmith/tablesmith/internal/envelope"
	"github.com/tablesmith/tablesmith/internal/store"
	"github.com/tablesmith/tablesmith/schema"
)

// version reads a published version by the number in the path or query;
// an unknown or malformed number is 404.
func (h *Handler) version(r *http.Request, p store.Project, raw string) (store.Version, error) {
	n, err := strconv.Atoi(raw)
	if err != nil || n < 1 {
		return store.Version{}, apierr.New(apierr.CodeNotFound, "Version %q not found", raw)
	}
	v, err := h.d.Store.VersionByNumber(r.Context(), p.ID, n)
	if errors.Is(err, store.ErrNotFound) {
		return v, apierr.New(apierr.CodeNotFound, "Version %d not found", n)
	}
	return v, err
}

// getVersion answers GET /api/projects/{id}/schema/versions/{version}.
func (h *Handler) getVersion(w http.ResponseWriter, r *http.Request, _ store.Account, p store.Project) error {
	v, err := h.version(r, p, r.PathValue("version"))
	if err != nil {
		return err
	}
	envelope.OK(w, v)
	return nil
}

// resetSchema answers POST /api/projects/{id}/schema/reset {version}: the
// draft becomes that published version's document. Nothing is generated;
// generating it afterwards migrates the database back to that shape (its
// own plan, prechecks and confirmations apply).
func (h *Handler) resetSchema(w http.ResponseWriter, r *http.Request, acc store.Account, p store.Project) error {
	var in struct {
		Version *int `json:"version"`
	}
	if err := h.decode(w, r, &in); err != nil {
		return err
	}
	if in.Version == nil {
		return apierr.Fields(apierr.CodeValidation, "Validation failed", map[string]string{"version": "is required"})
	}
	v, err := h.version(r, p, strconv.Itoa(*in.Version))
	if err != nil {
		return err
	}
	doc, err := schema.Parse(v.Document)
	if err != nil {
		return fmt.Errorf("version %d of %s: %w", v.Version, p.ID, err)
	}
	return h.saveDraft(w, r, p, doc, fmt.Sprintf("Draft reset to version %d", v.Version), func() {
		h.audit(r.Context(), acc, p, "schema.reset", "", map[string]any{"version": v.Version})
	})
}

// exportSchema answers GET /api/projects/{id}/schema/export: the draft
// (or ?version=N, a published version) as a downloadable schema.json,
// without an envelope, so that PUT /api/projects/{id}/schema and
// `caddy tablesmith schema apply` take the file back as it is.
func (h *Handler) exportSchema(w http.ResponseWriter, r *http.Request, _ store.Account, p store.Project) error {
	var doc schema.Document
	name := p.ID + "-schema.json"
	if raw := r.URL.Query().Get("version"); raw != "" {
		v, err := h.version(r, p, raw)
		if err != nil {
			return err
		}
		if doc, err = schema.Parse(v.Document); err != nil {
			return err
		}
		name = fmt.Sprintf("%s-schema-v%d.json", p.ID, v.Version)
	} else {
		var err error
		if doc, _, err = h.draft(r.Context(), p); err != nil {
			return err
		}
	}
	body, err := json.MarshalIndent(doc, "", "  ")
	if err != nil {
		return err
	}
	w.Header().Set("Content-Type", "application/json; charset=utf-8")
	w.Header().Set("Content-Disposition", `attachment; filename="`+name+`"`)
	w.Header().Set("X-Content-Type-Options", "nosniff")
	w.WriteHeader(http.StatusOK)
	_, _ = w.Write(append(body, '\n'))
	return nil
}
