package platformhttp

import (
	"errors"
	"net/http"

	"github.com/tablesmith/tablesmith/apierr"
	"github.com/tablesmith/tablesmith/internal/authproviders"
	"github.com/tablesmith/tablesmith/internal/envelope"
	"github.com/tablesmith/tablesmith/internal/store"
)

// The sign-in providers of a project's end users (docs/end-user-auth.md,
// "Sign in with providers"). The client secret is write-only: answers say
// only whether one is set.

func (h *Handler) providerBase(r *http.Request, p store.Project) string {
	return baseURL(r) + "/v1/" + p.ID
}

func (h *Handler) listProviders(w http.ResponseWriter, r *http.Request, _ store.Account, p store.Project) error {
	list, err := h.d.Providers.List(r.Context(), p.ID)
	if err != nil {
		return err
	}
	views := make([]authproviders.View, len(list))
	for i, pr := range list {
		views[i] = pr.View(h.providerBase(r, p))
	}
	envelope.OK(w, views)
	return nil
}

// putProvider creates or replaces a provider. An oidc issuer's discovery
// document must be reachable now, so a typo shows here and not at the
// first end user's sign-in.
func (h *Handler) putProvider(w http.ResponseWriter, r *http.Request, _ store.Account, p store.Project) error {
	var spec authproviders.Spec
	if err := h.decode(w, r, &spec); err != nil {
		return err
	}
	name, ctx := r.PathValue("name"), r.Context()
	var old *authproviders.Provider
	if msg := authproviders.CheckName(name); msg == "" {
		stored, err := h.d.Providers.Get(ctx, p.ID, name)
		switch {
		case err == nil:
			old = &stored
		case !errors.Is(err, store.ErrNotFound):
			return err
		}
	}
	pr, problems := spec.Check(old, p.ID, name)
	if problems != nil {
		return apierr.Fields(apierr.CodeValidation, "Validation failed", problems)
	}
	if pr.Kind == authproviders.KindOIDC {
		if err := authproviders.Discover(ctx, pr.Issuer); err != nil {
			return apierr.Fields(apierr.CodeValidation, "Validation failed: the issuer's discovery document could not be used",
				map[string]string{"issuer": err.Error()})
		}
	}
	saved, err := h.d.Providers.Put(ctx, pr, spec.ClientSecret, h.d.Now())
	if err != nil {
		return err
	}
	msg := "Provider updated"
	if old == nil {
		msg = "Provider created; register its redirect_uri at the provider"
	}
	envelope.Write(w, http.StatusOK, envelope.Success{Data: saved.View(h.providerBase(r, p)), Message: msg})
	return nil
}

func (h *Handler) deleteProvider(w http.ResponseWriter, r *http.Request, _ store.Account, p store.Project) error {
	name := r.PathValue("name")
	err := h.d.Providers.Delete(r.Context(), p.ID, name)
	if errors.Is(err, store.ErrNotFound) {
		return apierr.New(apierr.CodeNotFound, "Provider %q not found", name)
	}
	if err != nil {
		return err
	}
	envelope.Write(w, http.StatusOK, envelope.Success{Data: map[string]any{"name": name, "deleted": true},
		Message: "Provider deleted; the identities linked through it are forgotten, their users stay"})
	return nil
}
