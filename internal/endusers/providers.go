package endusers

import (
	"net/http"

	"github.com/tablesmith/tablesmith/internal/apihttp"
	"github.com/tablesmith/tablesmith/internal/authproviders"
	"github.com/tablesmith/tablesmith/internal/envelope"
)

// routeKey names the endpoint of an /auth path (Rest starts with "auth"):
// a route of one or two segments by its path ("login",
// "password-reset/confirm", "providers/exchange"), and a provider's step
// as "providers/{name}/<step>". "" matches none.
func routeKey(rest []string) string {
	switch {
	case len(rest) == 2:
		return rest[1]
	case len(rest) == 3:
		return rest[1] + "/" + rest[2]
	case len(rest) == 4 && rest[1] == "providers" && rest[2] != "":
		return "providers/{name}/" + rest[3]
	}
	return ""
}

// providerStore reaches the providers' rows in the control schema.
func (a *Auth) providerStore() *authproviders.Store {
	return &authproviders.Store{DB: a.cfg.Store.DB, Secret: a.cfg.Secret}
}

// listProviders answers the enabled providers, for an app's sign-in page:
// names and kinds, nothing of their configuration.
func (a *Auth) listProviders(h *apihttp.Handler, w http.ResponseWriter, r *http.Request, rt *apihttp.Route, _ *userQueries) error {
	if _, err := h.Admit(w, r, rt, apihttp.Admission{}); err != nil {
		return err
	}
	list, err := a.providerStore().List(r.Context(), rt.ProjectID)
	if err != nil {
		return err
	}
	out := []authproviders.Public{}
	for _, p := range list {
		if p.Enabled {
			out = append(out, authproviders.Public{Name: p.Name, Kind: p.Kind})
		}
	}
	envelope.OK(w, out)
	return nil
}
