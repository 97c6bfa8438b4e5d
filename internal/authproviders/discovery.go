package authproviders

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"sync"
	"time"

	"github.com/coreos/go-oidc/v3/oidc"
)

// Client is the HTTP client that talks to providers: discovery, key
// sets, code exchanges and user APIs. A provider that does not answer
// within its timeout fails the one sign-in, not the server.
var Client = &http.Client{Timeout: 10 * time.Second}

// Discover fetches an issuer's discovery document, as the platform API
// does when an owner saves an oidc provider, and says in plain words why
// it could not be used.
func Discover(ctx context.Context, issuer string) error {
	_, err := oidc.NewProvider(oidc.ClientContext(ctx, Client), issuer)
	return describe(issuer, err)
}

func describe(issuer string, err error) error {
	var mismatch *oidc.IssuerMismatchError
	switch {
	case err == nil:
		return nil
	case errors.As(err, &mismatch):
		return fmt.Errorf("its discovery document names the issuer %q, not %q: give the issuer exactly as the provider names it", mismatch.Discovered, mismatch.Provided)
	default:
		return fmt.Errorf("fetching %s/.well-known/openid-configuration failed: %v", trimSlash(issuer), err)
	}
}

func trimSlash(s string) string {
	for len(s) > 0 && s[len(s)-1] == '/' {
		s = s[:len(s)-1]
	}
	return s
}

// Discovery keeps each issuer's discovered provider (its endpoints and the
// key set go-oidc caches inside it) for an hour, so a sign-in does not
// fetch the discovery document and the keys every time. It is safe for
// concurrent use.
type Discovery struct {
	mu sync.Mutex
	m  map[string]discovered
}

type discovered struct {
	p       *oidc.Provider
	fetched time.Time
}

// discoveryTTL bounds how long endpoints are trusted; keys rotate inside
// go-oidc's key set, which fetches them again for an unknown key id.
const discoveryTTL = time.Hour

// Provider returns the discovered provider of a configuration.
func (d *Discovery) Provider(ctx context.Context, p Provider, now time.Time) (*oidc.Provider, error) {
	key := p.Issuer
	d.mu.Lock()
	c, ok := d.m[key]
	d.mu.Unlock()
	if ok && now.Sub(c.fetched) < discoveryTTL {
		return c.p, nil
	}
	// Cached beyond this request: its own context, with the client.
	fctx := oidc.ClientContext(context.WithoutCancel(ctx), Client)
	if p.Kind == KindMicrosoft && multiTenant(p.Tenant) {
		// The shared tenants' document names "{tenantid}" in its issuer;
		// VerifyIssuer checks the real one per token.
		fctx = oidc.InsecureIssuerURLContext(fctx, p.Issuer)
	}
	fctx, cancel := context.WithTimeout(fctx, Client.Timeout)
	defer cancel()
	op, err := oidc.NewProvider(fctx, p.Issuer)
	if err != nil {
		return nil, describe(p.Issuer, err)
	}
	d.mu.Lock()
	if d.m == nil {
		d.m = map[string]discovered{}
	}
	d.m[key] = discovered{p: op, fetched: now}
	d.mu.Unlock()
	return op, nil
}

// Verifier returns the ID-token verifier of a provider: signature by the
// issuer's keys, audience = the client id, expiry, and the issuer unless
// it is one of Microsoft's shared tenants (then CheckIssuer decides).
func Verifier(op *oidc.Provider, p Provider, now func() time.Time) *oidc.IDTokenVerifier {
	return op.Verifier(&oidc.Config{ClientID: p.ClientID, Now: now,
		SkipIssuerCheck: p.Kind == KindMicrosoft && multiTenant(p.Tenant)})
}

// CheckIssuer checks the issuer of a verified ID token where Verifier
// could not: for Microsoft's shared tenants it must be the directory the
// token names (claim tid).
func CheckIssuer(p Provider, issuer, tid string) error {
	if p.Kind != KindMicrosoft || !multiTenant(p.Tenant) {
		return nil
	}
	if tid == "" || issuer != "https://login.microsoftonline.com/"+tid+"/v2.0" {
		return fmt.Errorf("issuer %q is not the token's own directory", issuer)
	}
	return nil
}
