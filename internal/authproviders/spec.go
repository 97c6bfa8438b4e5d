package authproviders

import (
	"fmt"
	"net"
	"net/url"
	"regexp"
	"slices"
	"strings"
)

// Spec is the body of PUT /api/projects/{id}/auth/providers/{name}: the
// whole configuration, except that an omitted client_secret keeps the
// stored one.
type Spec struct {
	Kind         *string   `json:"kind"`
	Issuer       *string   `json:"issuer"`
	Tenant       *string   `json:"tenant"`
	ClientID     *string   `json:"client_id"`
	ClientSecret *string   `json:"client_secret"`
	Scopes       *[]string `json:"scopes"`
	Enabled      *bool     `json:"enabled"`
}

// Limits of a configuration.
const (
	MaxNameLength     = 40
	MaxClientIDLength = 512
	// MaxSecretLength leaves room for Apple's client secret, a signed JWT.
	MaxSecretLength = 4096
	MaxScopes       = 20
	MaxURLLength    = 512
)

var (
	nameRe   = regexp.MustCompile(`^[a-z][a-z0-9-]*$`)
	tenantRe = regexp.MustCompile(`^[A-Za-z0-9][A-Za-z0-9.-]{0,99}$`)
	// A scope token (RFC 6749 3.3): printable ASCII but space, '"' and '\'.
	scopeRe = regexp.MustCompile(`^[\x21\x23-\x5b\x5d-\x7e]{1,100}$`)
)

// CheckName says what is wrong with a provider name (a lower-case slug,
// since it is a segment of the callback URL), or "".
func CheckName(name string) string {
	if len(name) > MaxNameLength || !nameRe.MatchString(name) {
		return fmt.Sprintf("must be a lower-case slug: a letter, then letters, digits or '-', at most %d characters (such as google or company-sso)", MaxNameLength)
	}
	return ""
}

// Check turns a spec into the provider it configures. old is the stored
// provider of that name (nil for a new one, which then needs a client
// secret). The problems name the body's fields (nil when none).
func (s Spec) Check(old *Provider, projectID, name string) (Provider, map[string]string) {
	problems := map[string]string{}
	p := Provider{ProjectID: projectID, Name: name, Enabled: true}
	if msg := CheckName(name); msg != "" {
		problems["name"] = msg
	}
	k := s.checkKind(&p, problems)
	s.checkClient(old, &p, problems)
	p.Scopes = k.scopes
	if s.Scopes != nil {
		if msg := checkScopes(*s.Scopes, k.oidc); msg != "" {
			problems["scopes"] = msg
		} else {
			p.Scopes = *s.Scopes
		}
	}
	if s.Enabled != nil {
		p.Enabled = *s.Enabled
	}
	if old != nil {
		p.Sealed, p.CreatedAt = old.Sealed, old.CreatedAt
	}
	if len(problems) == 0 {
		return p, nil
	}
	return p, problems
}

// checkKind reads kind, tenant and issuer into p: the provider's kind and
// where its issuer is.
func (s Spec) checkKind(p *Provider, problems map[string]string) kind {
	var k kind
	switch {
	case s.Kind == nil:
		problems["kind"] = "is required: one of " + strings.Join(KindNames, ", ")
	case !slices.Contains(KindNames, *s.Kind):
		problems["kind"] = fmt.Sprintf("%q is not a kind; use one of %s", *s.Kind, strings.Join(KindNames, ", "))
	default:
		p.Kind, k = *s.Kind, kinds[*s.Kind]
	}
	if s.Tenant != nil && p.Kind != "" && !k.tenant {
		problems["tenant"] = "is only for kind microsoft"
	}
	if k.tenant {
		p.Tenant = DefaultTenant
		if s.Tenant != nil {
			if !tenantRe.MatchString(*s.Tenant) {
				problems["tenant"] = "must be a directory (tenant) id or domain, or common, organizations or consumers"
			} else {
				p.Tenant = *s.Tenant
			}
		}
	}
	switch {
	case p.Kind == "":
	case p.Kind == KindOIDC:
		if s.Issuer == nil || *s.Issuer == "" {
			problems["issuer"] = "is required for kind oidc: the provider's issuer URL, such as https://login.example.com"
		} else if msg := checkIssuer(*s.Issuer); msg != "" {
			problems["issuer"] = msg
		} else {
			p.Issuer = *s.Issuer
		}
	case s.Issuer != nil && *s.Issuer != "":
		problems["issuer"] = fmt.Sprintf("is set by kind %s; leave it out", p.Kind)
	case k.issuer != nil:
		p.Issuer = k.issuer(p.Tenant)
	}
	return k
}

// checkClient reads the client id and secret (the secret only checked:
// the caller seals it).
func (s Spec) checkClient(old, p *Provider, problems map[string]string) {
	switch {
	case s.ClientID == nil || *s.ClientID == "":
		problems["client_id"] = "is required: the client (application) id the provider gave you"
	case len(*s.ClientID) > MaxClientIDLength || hasControl(*s.ClientID):
		problems["client_id"] = fmt.Sprintf("must be at most %d printable characters", MaxClientIDLength)
	default:
		p.ClientID = *s.ClientID
	}
	switch {
	case s.ClientSecret == nil:
		if old == nil {
			problems["client_secret"] = "is required: the client secret the provider gave you"
		}
	case *s.ClientSecret == "":
		problems["client_secret"] = "must not be empty (leave it out to keep the stored one)"
	case len(*s.ClientSecret) > MaxSecretLength || hasControl(*s.ClientSecret):
		problems["client_secret"] = fmt.Sprintf("must be at most %d printable characters", MaxSecretLength)
	}
}

// checkIssuer says what is wrong with an oidc issuer, or "": https (http
// only on this machine, for development), no query, fragment or user.
func checkIssuer(raw string) string {
	if len(raw) > MaxURLLength {
		return fmt.Sprintf("must be at most %d characters", MaxURLLength)
	}
	u, err := url.Parse(raw)
	if err != nil || u.Host == "" || u.Opaque != "" || (u.Scheme != "https" && u.Scheme != "http") {
		return "must be an absolute https URL, such as https://login.example.com"
	}
	if u.Scheme == "http" && !loopback(u.Hostname()) {
		return "must use https (http only for localhost, in development)"
	}
	if u.User != nil || u.RawQuery != "" || u.Fragment != "" || strings.ContainsAny(raw, "?#") {
		return "must not carry user info, a query or a fragment"
	}
	return ""
}

func loopback(host string) bool {
	if host == "localhost" {
		return true
	}
	ip := net.ParseIP(host)
	return ip != nil && ip.IsLoopback()
}

func checkScopes(scopes []string, oidc bool) string {
	if len(scopes) == 0 || len(scopes) > MaxScopes {
		return fmt.Sprintf("give 1 to %d scopes, or leave it out for the kind's defaults", MaxScopes)
	}
	seen := map[string]bool{}
	for _, sc := range scopes {
		if !scopeRe.MatchString(sc) {
			return fmt.Sprintf("%q is not a scope (printable characters without spaces or quotes)", sc)
		}
		if seen[sc] {
			return fmt.Sprintf("%q is given twice", sc)
		}
		seen[sc] = true
	}
	if oidc && !seen["openid"] {
		return "must include openid (the provider issues an ID token only for it)"
	}
	return ""
}

func hasControl(s string) bool {
	return strings.ContainsFunc(s, func(r rune) bool { return r < 0x20 || r == 0x7f })
}
