// Package testoidc runs a real OpenID Connect provider for tests: zitadel's
// op (discovery, keys, authorization code with PKCE, ID tokens, userinfo)
// over the in-memory storage of its example server, with users and
// clients the test gives and a login step a plain HTTP client can drive.
package testoidc

import (
	"context"
	"crypto/rand"
	"crypto/sha256"
	"crypto/subtle"
	"encoding/base64"
	"fmt"
	"html/template"
	"io"
	"net/http"
	"net/http/httptest"
	"net/url"
	"strings"
	"sync"
	"sync/atomic"
	"testing"

	"github.com/zitadel/oidc/v3/example/server/storage"
	"github.com/zitadel/oidc/v3/pkg/op"
)

// User is an account at the provider.
type User struct {
	ID, Username, Password, Email string
	EmailVerified                 bool
}

// Client is a registered application: a confidential web client
// (client_secret_basic).
type Client struct {
	ID, Secret   string
	RedirectURIs []string
}

// Provider is a running provider.
type Provider struct {
	// Issuer is its issuer URL (also its base URL).
	Issuer  string
	Handler http.Handler
	store   *opStorage
	users   *users
	// nextToken, when set, replaces the next token endpoint answer (after
	// the real one ran): a provider handing out another client's tokens.
	nextToken atomic.Pointer[[]byte]
}

// Start serves a provider on 127.0.0.1 for the test's duration.
func Start(t testing.TB) *Provider {
	t.Helper()
	var p *Provider
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) { p.Handler.ServeHTTP(w, r) }))
	t.Cleanup(srv.Close)
	p, err := New(srv.URL)
	if err != nil {
		t.Fatal(err)
	}
	return p
}

// New builds a provider with the given issuer; serve p.Handler there.
func New(issuer string) (*Provider, error) {
	us := &users{m: map[string]*storage.User{}}
	st := &opStorage{Storage: storage.NewStorageWithClients(us, map[string]*storage.Client{}), clients: map[string]registered{}}
	var key [32]byte
	if _, err := rand.Read(key[:]); err != nil {
		return nil, err
	}
	provider, err := op.NewProvider(&op.Config{CryptoKey: key, CodeMethodS256: true, AuthMethodPost: true},
		st, op.StaticIssuer(issuer), op.WithAllowInsecure())
	if err != nil {
		return nil, err
	}
	p := &Provider{Issuer: issuer, store: st, users: us}
	mux := http.NewServeMux()
	login := op.NewIssuerInterceptor(provider.IssuerFromRequest)
	callback := op.AuthCallbackURL(provider)
	mux.HandleFunc("GET /login/username", func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "text/html; charset=utf-8")
		_ = loginPage.Execute(w, r.URL.Query().Get("authRequestID"))
	})
	mux.HandleFunc("POST /login/username", login.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		id := r.FormValue("id")
		if err := st.CheckUsernamePassword(r.FormValue("username"), r.FormValue("password"), id); err != nil {
			http.Error(w, err.Error(), http.StatusUnauthorized)
			return
		}
		http.Redirect(w, r, callback(r.Context(), id), http.StatusFound)
	}))
	mux.Handle("/", provider)
	p.Handler = http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.URL.Path == "/oauth/token" {
			if body := p.nextToken.Swap(nil); body != nil {
				mux.ServeHTTP(httptest.NewRecorder(), r)
				w.Header().Set("Content-Type", "application/json")
				_, _ = w.Write(*body)
				return
			}
		}
		mux.ServeHTTP(w, r)
	})
	return p, nil
}

var loginPage = template.Must(template.New("login").Parse(`<!doctype html>
<title>Test provider: sign in</title>
<form method="post" action="/login/username">
<input type="hidden" name="id" value="{{.}}">
<label>Username <input name="username" autofocus></label>
<label>Password <input name="password" type="password"></label>
<button type="submit">Sign in</button>
</form>`))

// AddUser adds (or replaces) an account.
func (p *Provider) AddUser(u User) {
	p.users.mu.Lock()
	defer p.users.mu.Unlock()
	p.users.m[u.ID] = &storage.User{ID: u.ID, Username: u.Username, Password: u.Password,
		Email: u.Email, EmailVerified: u.EmailVerified, FirstName: u.Username}
}

// AddClient registers (or replaces) an application.
func (p *Provider) AddClient(c Client) {
	p.store.mu.Lock()
	defer p.store.mu.Unlock()
	p.store.clients[c.ID] = registered{storage.WebClient(c.ID, c.Secret, c.RedirectURIs...), c.Secret}
}

// ReplaceNextToken makes the token endpoint answer body instead of its
// own answer, once.
func (p *Provider) ReplaceNextToken(body []byte) { p.nextToken.Store(&body) }

// Login does the provider's login step, as a browser would: page is the
// login page the authorization redirected to; the answer is the redirect
// back to the client's redirect URI (not followed when c stops there).
func (p *Provider) Login(c *http.Client, page *http.Response, username, password string) (*http.Response, error) {
	_, _ = io.Copy(io.Discard, page.Body)
	page.Body.Close()
	id := page.Request.URL.Query().Get("authRequestID")
	if id == "" {
		return nil, fmt.Errorf("not the login page: %s (%s)", page.Request.URL, page.Status)
	}
	return c.PostForm(p.Issuer+"/login/username", url.Values{"id": {id}, "username": {username}, "password": {password}})
}

// TokenResponse runs a whole authorization-code sign-in of a user at a
// client directly (no relying party in between) and returns the token
// endpoint's answer: an ID token for that client's audience.
func (p *Provider) TokenResponse(c Client, username, password string) ([]byte, error) {
	stop := &http.Client{CheckRedirect: func(req *http.Request, _ []*http.Request) error {
		if strings.HasPrefix(req.URL.String(), p.Issuer) {
			return nil
		}
		return http.ErrUseLastResponse
	}}
	verifier := "v" + strings.Repeat("0", 50)
	challenge := sha256.Sum256([]byte(verifier))
	q := url.Values{"client_id": {c.ID}, "redirect_uri": {c.RedirectURIs[0]}, "response_type": {"code"},
		"scope": {"openid email"}, "state": {"s"}, "nonce": {"n"},
		"code_challenge": {base64.RawURLEncoding.EncodeToString(challenge[:])}, "code_challenge_method": {"S256"}}
	page, err := stop.Get(p.Issuer + "/authorize?" + q.Encode())
	if err != nil {
		return nil, err
	}
	back, err := p.Login(stop, page, username, password)
	if err != nil {
		return nil, err
	}
	back.Body.Close()
	loc, err := url.Parse(back.Header.Get("Location"))
	if err != nil || loc.Query().Get("code") == "" {
		return nil, fmt.Errorf("no code in %q (%s)", back.Header.Get("Location"), back.Status)
	}
	req, _ := http.NewRequest(http.MethodPost, p.Issuer+"/oauth/token", strings.NewReader(url.Values{
		"grant_type": {"authorization_code"}, "code": {loc.Query().Get("code")},
		"redirect_uri": {c.RedirectURIs[0]}, "code_verifier": {verifier}}.Encode()))
	req.Header.Set("Content-Type", "application/x-www-form-urlencoded")
	req.SetBasicAuth(url.QueryEscape(c.ID), url.QueryEscape(c.Secret))
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		return nil, err
	}
	defer resp.Body.Close()
	body, err := io.ReadAll(resp.Body)
	if err != nil || resp.StatusCode != http.StatusOK {
		return nil, fmt.Errorf("token endpoint: %s %s %v", resp.Status, body, err)
	}
	return body, nil
}

// opStorage is the example storage with clients that tests add while it
// serves (the example's map is fixed at construction).
type opStorage struct {
	*storage.Storage
	mu      sync.Mutex
	clients map[string]registered
}

type registered struct {
	*storage.Client
	secret string
}

func (s *opStorage) client(id string) (registered, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	c, ok := s.clients[id]
	if !ok {
		return c, fmt.Errorf("client %q not found", id)
	}
	return c, nil
}

func (s *opStorage) GetClientByClientID(_ context.Context, id string) (op.Client, error) {
	c, err := s.client(id)
	if err != nil {
		return nil, err
	}
	return storage.RedirectGlobsClient(c.Client), nil
}

func (s *opStorage) AuthorizeClientIDSecret(_ context.Context, id, secret string) error {
	c, err := s.client(id)
	if err != nil {
		return err
	}
	if subtle.ConstantTimeCompare([]byte(c.secret), []byte(secret)) != 1 {
		return fmt.Errorf("invalid client secret")
	}
	return nil
}

// users is the provider's accounts.
type users struct {
	mu sync.Mutex
	m  map[string]*storage.User
}

func (u *users) GetUserByID(id string) *storage.User {
	u.mu.Lock()
	defer u.mu.Unlock()
	return u.m[id]
}

func (u *users) GetUserByUsername(name string) *storage.User {
	u.mu.Lock()
	defer u.mu.Unlock()
	for _, x := range u.m {
		if x.Username == name {
			return x
		}
	}
	return nil
}

func (u *users) ExampleClientID() string { return "" }
