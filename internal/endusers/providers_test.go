package endusers_test

import (
	"context"
	"io"
	"net/http"
	"net/url"
	"strings"
	"testing"
	"time"

	"github.com/tablesmith/tablesmith/internal/testoidc"
	"github.com/tablesmith/tablesmith/internal/testserver"
)

// The app that end users return to; its origin is the project's allowed
// origin, so RedirectTarget admits it.
const (
	appOrigin    = "http://app.example.test"
	clientSecret = "s3cret-value-of-the-client"
)

// providerEnv is a project with a provider "corp" at a real OpenID
// provider (zitadel's op on 127.0.0.1) whose users are ann (verified
// e-mail) and bob (unverified).
type providerEnv struct {
	*env
	op *testoidc.Provider
}

func newProviderEnv(t *testing.T, schemaDoc string) *providerEnv {
	t.Helper()
	e := &providerEnv{env: newEnv(t, schemaDoc), op: testoidc.Start(t)}
	e.s.Do("PATCH", "/api/projects/"+e.p.ID, e.p.Session, map[string]any{"cors": map[string]any{"allowed_origins": []string{appOrigin}}}).Must(t, 200)
	e.op.AddClient(testoidc.Client{ID: "tablesmith-app", Secret: clientSecret, RedirectURIs: []string{e.callback("corp")}})
	e.op.AddUser(testoidc.User{ID: "u-ann", Username: "ann", Password: "pw-ann", Email: "Ann@Example.com", EmailVerified: true})
	e.op.AddUser(testoidc.User{ID: "u-bob", Username: "bob", Password: "pw-bob", Email: "bob@example.com"})
	v := e.configure("corp", map[string]any{"kind": "oidc", "issuer": e.op.Issuer, "client_id": "tablesmith-app", "client_secret": clientSecret}).Must(t, 200).Data()
	if v["redirect_uri"] != e.callback("corp") || v["client_secret_set"] != true {
		t.Fatalf("provider view = %v", v)
	}
	return e
}

func (e *providerEnv) callback(name string) string {
	return e.s.URL + "/v1/" + e.p.ID + "/auth/providers/" + name + "/callback"
}

func (e *providerEnv) configure(name string, body any) *testserver.Response {
	e.t.Helper()
	return e.s.Do("PUT", "/api/projects/"+e.p.ID+"/auth/providers/"+name, e.p.Session, body)
}

// browser follows redirects like a browser until it reaches the app,
// remembering every URL it was sent to.
type browser struct {
	c    *http.Client
	hops []*url.URL
}

func newBrowser() *browser {
	b := &browser{}
	b.c = &http.Client{Timeout: 30 * time.Second, CheckRedirect: func(req *http.Request, _ []*http.Request) error {
		b.hops = append(b.hops, req.URL)
		if req.URL.Host == "app.example.test" {
			return http.ErrUseLastResponse
		}
		return nil
	}}
	return b
}

// hop returns the first URL the browser was sent to at path u (any
// query).
func (b *browser) hop(t *testing.T, u string) *url.URL {
	t.Helper()
	for _, h := range b.hops {
		if strings.SplitN(h.String(), "?", 2)[0] == u {
			return h
		}
	}
	t.Fatalf("no hop to %s among %v", u, b.hops)
	return nil
}

// get fetches a URL and returns the answer with its body read.
func (b *browser) get(t *testing.T, u string) (*http.Response, string) {
	t.Helper()
	resp, err := b.c.Get(u)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	raw, _ := io.ReadAll(resp.Body)
	return resp, string(raw)
}

func (e *providerEnv) authorizeURL(provider, redirectTo string) string {
	return e.s.URL + "/v1/" + e.p.ID + "/auth/providers/" + provider + "/authorize?redirect_to=" + url.QueryEscape(redirectTo)
}

// signIn runs a sign-in in a browser up to the app and returns where the
// app was sent (with ?code= or ?error=).
func (e *providerEnv) signIn(b *browser, provider, username, password string) *url.URL {
	e.t.Helper()
	page, err := b.c.Get(e.authorizeURL(provider, appOrigin+"/signed-in?from=test"))
	if err != nil {
		e.t.Fatal(err)
	}
	back, err := e.op.Login(b.c, page, username, password)
	if err != nil {
		e.t.Fatal(err)
	}
	defer back.Body.Close()
	if back.StatusCode != http.StatusFound {
		raw, _ := io.ReadAll(back.Body)
		e.t.Fatalf("want a redirect to the app, got %d: %s", back.StatusCode, raw)
	}
	to, err := url.Parse(back.Header.Get("Location"))
	if err != nil || to.Host != "app.example.test" || to.Path != "/signed-in" || to.Query().Get("from") != "test" {
		e.t.Fatalf("redirect to %q, want the app's redirect_to", back.Header.Get("Location"))
	}
	return to
}

// exchange trades a one-time code for a session.
func (e *providerEnv) exchange(code string) *testserver.Response {
	e.t.Helper()
	return e.auth("POST", "providers/exchange", "", map[string]any{"code": code})
}

func wantSignInError(t *testing.T, to *url.URL, code, inDescription string) {
	t.Helper()
	q := to.Query()
	if q.Get("error") != code || q.Get("code") != "" || !strings.Contains(q.Get("error_description"), inDescription) {
		t.Fatalf("want error=%s with %q in its description, got %s", code, inDescription, to)
	}
}

func (e *providerEnv) userCount() int {
	e.t.Helper()
	return len(e.s.API(e.p, "GET", "/users", nil).Must(e.t, 200).List())
}

func TestProviderSignInCreatesAUserThenSignsTheSameUserInAgain(t *testing.T) {
	t.Parallel()
	e := newProviderEnv(t, appSchema)
	b := newBrowser()

	to := e.signIn(b, "corp", "ann", "pw-ann")
	code := to.Query().Get("code")
	if !strings.HasPrefix(code, "tsc_") {
		t.Fatalf("redirect = %s, want ?code=tsc_...", to)
	}
	// The authorization carried state, nonce and PKCE (S256).
	authz := b.hop(t, e.op.Issuer+"/authorize").Query()
	if authz.Get("state") == "" || authz.Get("nonce") == "" || authz.Get("code_challenge_method") != "S256" ||
		authz.Get("code_challenge") == "" || authz.Get("redirect_uri") != e.callback("corp") || authz.Get("scope") != "openid email profile" {
		t.Fatalf("authorization request = %v", authz)
	}
	s := e.exchange(code).Must(t, 200)
	ann := tokensOf(t, s)
	if s.Data()["token_type"] != "Bearer" || s.Data()["expires_in"] != float64(3600) || ann.User["email"] != "ann@example.com" {
		t.Fatalf("exchange = %s", s.Raw)
	}
	if _, leaked := ann.User["password_hash"]; leaked {
		t.Fatalf("user carries its password: %v", ann.User)
	}
	// The same tokens as a password login: me, refresh, table access.
	e.auth("GET", "me", ann.Access, nil).Must(t, 200)
	e.api("POST", "/notes", ann.Access, map[string]any{"title": "mine"}).Must(t, 201)
	tokensOf(t, e.auth("POST", "refresh", "", map[string]any{"refresh_token": ann.Refresh}).Must(t, 200))

	// The one-time code works once.
	wantError(t, e.exchange(code), 401, "UNAUTHORIZED")
	// No password signs the created user in.
	for _, pw := range []string{"", "pw-ann", code} {
		if r := e.auth("POST", "login", "", map[string]any{"email": "ann@example.com", "password": pw}); r.Status == 200 {
			t.Fatalf("password %q signed the provider user in", pw)
		}
	}

	// Second sign-in: the same user, even after the e-mail changed at the
	// provider (the identity is linked by subject).
	e.op.AddUser(testoidc.User{ID: "u-ann", Username: "ann", Password: "pw-ann", Email: "ann.new@example.com", EmailVerified: true})
	again := tokensOf(t, e.exchange(e.signIn(newBrowser(), "corp", "ann", "pw-ann").Query().Get("code")).Must(t, 200))
	if again.User["id"] != ann.User["id"] || e.userCount() != 1 {
		t.Fatalf("second sign-in user %v, first %v (%d users)", again.User["id"], ann.User["id"], e.userCount())
	}
}

func TestProviderSignInLinksAnExistingPasswordUserByVerifiedEmail(t *testing.T) {
	t.Parallel()
	e := newProviderEnv(t, appSchema)
	reg := e.register("ann@example.com")
	s := tokensOf(t, e.exchange(e.signIn(newBrowser(), "corp", "ann", "pw-ann").Query().Get("code")).Must(t, 200))
	if s.User["id"] != reg.User["id"] || e.userCount() != 1 {
		t.Fatalf("provider sign-in user %v, registered %v", s.User["id"], reg.User["id"])
	}
	e.login("ann@example.com") // the password still works
}

func TestProviderSignInRefusesAnUnverifiedEmail(t *testing.T) {
	t.Parallel()
	e := newProviderEnv(t, appSchema)
	e.register("bob@example.com")
	wantSignInError(t, e.signIn(newBrowser(), "corp", "bob", "pw-bob"), "email_not_verified", "not verified")
	if n := e.userCount(); n != 1 {
		t.Fatalf("%d users, want only the registered one", n)
	}
}

func TestProviderCallbackRefusesUnknownReplayedAndExpiredStates(t *testing.T) {
	t.Parallel()
	e := newProviderEnv(t, appSchema)
	b := newBrowser()
	e.signIn(b, "corp", "ann", "pw-ann")
	cb := b.hop(t, e.callback("corp"))

	// Replayed: the state was used by the first callback.
	resp, body := newBrowser().get(t, cb.String())
	if resp.StatusCode != 400 || !strings.Contains(body, `"state"`) || !strings.Contains(body, "VALIDATION_ERROR") {
		t.Fatalf("replayed state: %d %s", resp.StatusCode, body)
	}
	// Unknown, and missing.
	for _, q := range []string{"?code=x&state=made-up", "?code=x"} {
		if resp, body := newBrowser().get(t, e.callback("corp")+q); resp.StatusCode != 400 || !strings.Contains(body, `"state"`) {
			t.Fatalf("callback%s: %d %s", q, resp.StatusCode, body)
		}
	}
	// Expired: more than 10 minutes at the provider.
	page, err := b.c.Get(e.authorizeURL("corp", appOrigin+"/signed-in"))
	if err != nil {
		t.Fatal(err)
	}
	e.clock.Advance(11 * time.Minute)
	back, err := e.op.Login(b.c, page, "ann", "pw-ann")
	if err != nil {
		t.Fatal(err)
	}
	raw, _ := io.ReadAll(back.Body)
	back.Body.Close()
	if back.StatusCode != 400 || !strings.Contains(string(raw), "has expired") {
		t.Fatalf("expired state: %d %s", back.StatusCode, raw)
	}
}

func TestProviderCallbackAnswersAnErrorForAReplayedProviderCode(t *testing.T) {
	t.Parallel()
	e := newProviderEnv(t, appSchema)
	b := newBrowser()
	e.signIn(b, "corp", "ann", "pw-ann")
	used := b.hop(t, e.callback("corp")).Query().Get("code")

	// A fresh sign-in whose callback carries the code the provider
	// already exchanged: the provider refuses it, the app gets an error.
	fresh := newBrowser()
	page, err := fresh.c.Get(e.authorizeURL("corp", appOrigin+"/signed-in"))
	if err != nil {
		t.Fatal(err)
	}
	page.Body.Close()
	state := fresh.hop(t, e.op.Issuer+"/authorize").Query().Get("state")
	resp, _ := fresh.get(t, e.callback("corp")+"?"+url.Values{"code": {used}, "state": {state}}.Encode())
	to, _ := url.Parse(resp.Header.Get("Location"))
	if resp.StatusCode != 302 || to == nil {
		t.Fatalf("replayed code: %d", resp.StatusCode)
	}
	wantSignInError(t, to, "exchange_failed", "refused")
}

func TestProviderSignInRefusesAnIDTokenForAnotherAudience(t *testing.T) {
	t.Parallel()
	e := newProviderEnv(t, appSchema)
	other := testoidc.Client{ID: "another-app", Secret: "other-secret", RedirectURIs: []string{"http://other.example.test/cb"}}
	e.op.AddClient(other)
	foreign, err := e.op.TokenResponse(other, "ann", "pw-ann")
	if err != nil {
		t.Fatal(err)
	}
	// The provider answers Tablesmith's code exchange with the tokens it
	// issued to another client: signed by the issuer, but not for us.
	e.op.ReplaceNextToken(foreign)
	wantSignInError(t, e.signIn(newBrowser(), "corp", "ann", "pw-ann"), "invalid_id_token", "audience")
	if n := e.userCount(); n != 0 {
		t.Fatalf("%d users after a refused sign-in", n)
	}
}

func TestProviderAuthorizeChecksRedirectToAndTheProvider(t *testing.T) {
	t.Parallel()
	e := newProviderEnv(t, appSchema)
	b := newBrowser()
	for _, tc := range []struct {
		url    string
		status int
		in     string
	}{
		{e.authorizeURL("corp", "https://evil.example.test/steal"), 400, "redirect_to"},
		{e.authorizeURL("corp", "")[:len(e.authorizeURL("corp", ""))-len("?redirect_to=")], 400, "redirect_to"},
		{e.authorizeURL("corp", appOrigin+"/x") + "&prompt=none", 400, "prompt"},
		{e.authorizeURL("nobody", appOrigin+"/x"), 404, "NOT_FOUND"},
	} {
		resp, body := b.get(t, tc.url)
		if resp.StatusCode != tc.status || !strings.Contains(body, tc.in) {
			t.Errorf("%s: %d %s", tc.url, resp.StatusCode, body)
		}
	}

	list := e.auth("GET", "providers", "", nil).Must(t, 200).List()
	if len(list) != 1 || list[0]["name"] != "corp" || list[0]["kind"] != "oidc" || len(list[0]) != 2 {
		t.Fatalf("public list = %v", list)
	}
	// Disabled: gone from the list, its routes 404; the secret is kept.
	v := e.configure("corp", map[string]any{"kind": "oidc", "issuer": e.op.Issuer, "client_id": "tablesmith-app", "enabled": false}).Must(t, 200).Data()
	if v["enabled"] != false || v["client_secret_set"] != true {
		t.Fatalf("disabled view = %v", v)
	}
	if list := e.auth("GET", "providers", "", nil).Must(t, 200).List(); len(list) != 0 {
		t.Fatalf("public list of a disabled provider = %v", list)
	}
	if resp, body := b.get(t, e.authorizeURL("corp", appOrigin+"/x")); resp.StatusCode != 404 {
		t.Fatalf("disabled authorize: %d %s", resp.StatusCode, body)
	}
	// Enabled again without a secret: the stored one still signs in.
	e.configure("corp", map[string]any{"kind": "oidc", "issuer": e.op.Issuer, "client_id": "tablesmith-app"}).Must(t, 200)
	e.exchange(e.signIn(newBrowser(), "corp", "ann", "pw-ann").Query().Get("code")).Must(t, 200)
	wantError(t, e.auth("POST", "providers", "", nil), 405, "METHOD_NOT_ALLOWED")
	wantError(t, e.auth("GET", "providers/exchange", "", nil), 405, "METHOD_NOT_ALLOWED")
	wantError(t, e.auth("GET", "providers/corp/nothing", "", nil), 404, "NOT_FOUND")
}

func TestProviderSignInFailsAsSignupIncompleteWhenTheAuthTableNeedsMore(t *testing.T) {
	t.Parallel()
	e := newProviderEnv(t, `{"tables": [{"name": "users", "auth": true, "columns": [
		{"name": "email", "type": "email", "required": true, "unique": true},
		{"name": "password_hash", "type": "password", "required": true},
		{"name": "nickname", "type": "text", "required": true}]}]}`)
	wantSignInError(t, e.signIn(newBrowser(), "corp", "ann", "pw-ann"), "signup_incomplete", "nickname")
}

func TestProviderSignInRefusesAnInactiveUser(t *testing.T) {
	t.Parallel()
	e := newProviderEnv(t, `{"tables": [{"name": "users", "auth": true, "columns": [
		{"name": "email", "type": "email", "required": true, "unique": true},
		{"name": "password_hash", "type": "password", "required": true},
		{"name": "is_active", "type": "boolean", "default": false}]}]}`)
	wantSignInError(t, e.signIn(newBrowser(), "corp", "ann", "pw-ann"), "account_inactive", "not active")
	if n := e.userCount(); n != 1 {
		t.Fatalf("%d users, want the created (inactive) one", n)
	}
}

func TestProviderClientSecretIsNeverShownAndStoredSealed(t *testing.T) {
	t.Parallel()
	e := newProviderEnv(t, appSchema)
	b := newBrowser()
	answers := []*testserver.Response{
		e.s.Do("GET", "/api/projects/"+e.p.ID+"/auth/providers", e.p.Session, nil).Must(t, 200),
		e.configure("corp", map[string]any{"kind": "oidc", "issuer": e.op.Issuer, "client_id": "tablesmith-app", "client_secret": clientSecret}).Must(t, 200),
		e.auth("GET", "providers", "", nil).Must(t, 200),
	}
	for _, r := range answers {
		if strings.Contains(string(r.Raw), clientSecret) {
			t.Fatalf("an answer shows the client secret: %s", r.Raw)
		}
	}
	to := e.signIn(b, "corp", "ann", "pw-ann")
	for _, hop := range append(b.hops, to) {
		if strings.Contains(hop.String(), clientSecret) {
			t.Fatalf("a redirect carries the client secret: %s", hop)
		}
	}
	var sealed []byte
	if err := e.s.Svc.DB.QueryRowContext(context.Background(), `SELECT client_secret FROM tablesmith.auth_providers
		WHERE project_id = $1 AND name = 'corp'`, e.p.ID).Scan(&sealed); err != nil {
		t.Fatal(err)
	}
	if len(sealed) <= len(clientSecret) || strings.Contains(string(sealed), clientSecret) {
		t.Fatalf("stored client secret = %q, want it sealed", sealed)
	}
}
