package authproviders

import (
	"time"
)

// Provider is one configured provider of a project. The client secret
// stays sealed (Sealed) until sign-in opens it.
type Provider struct {
	ProjectID string
	Name      string
	Kind      string
	Issuer    string
	Tenant    string
	ClientID  string
	Sealed    []byte
	Scopes    []string
	Enabled   bool
	CreatedAt time.Time
	UpdatedAt time.Time
}

// View is a provider as the platform API shows it: never the secret,
// only whether one is set, and the callback URL the owner registers at
// the provider.
type View struct {
	Name            string    `json:"name"`
	Kind            string    `json:"kind"`
	Issuer          string    `json:"issuer"`
	Tenant          string    `json:"tenant,omitempty"`
	ClientID        string    `json:"client_id"`
	ClientSecretSet bool      `json:"client_secret_set"`
	Scopes          []string  `json:"scopes"`
	Enabled         bool      `json:"enabled"`
	RedirectURI     string    `json:"redirect_uri"`
	CreatedAt       time.Time `json:"created_at"`
	UpdatedAt       time.Time `json:"updated_at"`
}

// View returns the provider as the platform API shows it; apiBase is the
// project's generated-API base URL (https://host/v1/<project>).
func (p Provider) View(apiBase string) View {
	return View{Name: p.Name, Kind: p.Kind, Issuer: p.Issuer, Tenant: p.Tenant, ClientID: p.ClientID,
		ClientSecretSet: len(p.Sealed) > 0, Scopes: p.Scopes, Enabled: p.Enabled,
		RedirectURI: CallbackURL(apiBase, p.Name), CreatedAt: p.CreatedAt, UpdatedAt: p.UpdatedAt}
}

// CallbackURL is where a provider sends the end user back: the one URL
// the owner registers at the provider, and the redirect_uri of every
// authorization and code exchange.
func CallbackURL(apiBase, name string) string {
	return apiBase + "/auth/providers/" + name + "/callback"
}

// Public is a provider as the generated API lists it to anyone.
type Public struct {
	Name string `json:"name"`
	Kind string `json:"kind"`
}
