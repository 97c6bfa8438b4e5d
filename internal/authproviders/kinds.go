// Package authproviders keeps the sign-in providers (OAuth 2.0 and OpenID
// Connect) that projects configure for their end users: the kinds and
// their presets, the checks of a configuration, the client secrets sealed
// at rest, and the rows of sign-ins under way and of linked identities.
package authproviders

import (
	"strings"

	"golang.org/x/oauth2"
	"golang.org/x/oauth2/github"
)

// Kinds of provider.
const (
	KindOIDC      = "oidc"
	KindGoogle    = "google"
	KindMicrosoft = "microsoft"
	KindApple     = "apple"
	KindGitHub    = "github"
)

// kind is everything Tablesmith knows about one kind of provider: the
// one entry that checks, sign-in and the dashboard's presets consult.
type kind struct {
	// issuer is the preset issuer (from the tenant for Microsoft); nil:
	// the owner gives it (oidc) or there is none (github).
	issuer func(tenant string) string
	// oidc: ID tokens, verified by go-oidc; otherwise plain OAuth 2.0
	// with the endpoint below and the provider's user API.
	oidc     bool
	endpoint oauth2.Endpoint
	scopes   []string
	// tenant: the kind takes a tenant (Microsoft's directory).
	tenant bool
	// formPost: the provider returns to the callback with a form POST
	// (Apple does when scopes are asked for).
	formPost bool
}

// DefaultTenant is Microsoft's tenant when none is given: work, school
// and personal accounts alike.
const DefaultTenant = "common"

var kinds = map[string]kind{
	KindOIDC:   {oidc: true, scopes: []string{"openid", "email", "profile"}},
	KindGoogle: {oidc: true, scopes: []string{"openid", "email", "profile"}, issuer: func(string) string { return "https://accounts.google.com" }},
	KindMicrosoft: {oidc: true, scopes: []string{"openid", "email", "profile"}, tenant: true,
		issuer: func(tenant string) string { return "https://login.microsoftonline.com/" + tenant + "/v2.0" }},
	KindApple: {oidc: true, scopes: []string{"openid", "email", "name"}, formPost: true,
		issuer: func(string) string { return "https://appleid.apple.com" }},
	KindGitHub: {endpoint: github.Endpoint, scopes: []string{"read:user", "user:email"}},
}

// KindNames lists the kinds in the order the dashboard offers them.
var KindNames = []string{KindOIDC, KindGoogle, KindMicrosoft, KindApple, KindGitHub}

// IsOIDC reports whether providers of the kind issue ID tokens.
func IsOIDC(k string) bool { return kinds[k].oidc }

// FormPost reports whether the kind returns to the callback with a form
// POST (response_mode=form_post).
func FormPost(k string) bool { return kinds[k].formPost }

// Endpoint is the OAuth 2.0 endpoint of a kind without discovery
// (github).
func Endpoint(k string) oauth2.Endpoint { return kinds[k].endpoint }

// multiTenant reports whether a Microsoft tenant is one of the shared
// ones, whose discovery document names a placeholder issuer and whose ID
// tokens name the user's own directory ("https://login.microsoftonline.com/<tid>/v2.0").
func multiTenant(tenant string) bool {
	switch strings.ToLower(tenant) {
	case "common", "organizations", "consumers":
		return true
	}
	return false
}
