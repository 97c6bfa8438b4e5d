package endusers

import (
	"context"
	"crypto/rand"
	"crypto/sha256"
	"encoding/base64"
	"errors"
	"net/http"
	"net/url"
	"time"

	"github.com/coreos/go-oidc/v3/oidc"
	"golang.org/x/oauth2"

	"github.com/tablesmith/tablesmith/apierr"
	"github.com/tablesmith/tablesmith/internal/apihttp"
	"github.com/tablesmith/tablesmith/internal/authproviders"
	"github.com/tablesmith/tablesmith/internal/clientaddr"
	"github.com/tablesmith/tablesmith/internal/store"
	"github.com/tablesmith/tablesmith/openapi"
	"github.com/tablesmith/tablesmith/translate"
)

// Sign in with a provider (docs/end-user-auth.md, "Sign in with
// providers"): authorize sends the end user to the provider with state,
// nonce and PKCE kept here; the callback checks them, finds or creates the
// user and sends the browser back to the app with a one-time code; the
// app exchanges the code for the same session as /auth/login.
const (
	// stateTTL is how long an end user may take at the provider.
	stateTTL = 10 * time.Minute
	// codeTTL is how long the app has to exchange the one-time code.
	codeTTL    = 60 * time.Second
	codePrefix = "tsc_"
)

// providerNamed returns a project's enabled provider of the route's name:
// an unknown or disabled one is not found.
func (a *Auth) providerNamed(ctx context.Context, rt *apihttp.Route) (authproviders.Provider, error) {
	name := rt.Rest[2]
	p, err := a.providerStore().Get(ctx, rt.ProjectID, name)
	if errors.Is(err, store.ErrNotFound) || err == nil && !p.Enabled {
		return p, apierr.New(apierr.CodeNotFound, "Provider %q not found (or not enabled) in this project", name)
	}
	return p, err
}

// callbackURL is the redirect_uri of the provider on this server, as the
// platform API shows it to the owner.
func callbackURL(r *http.Request, rt *apihttp.Route, name string) string {
	return authproviders.CallbackURL(clientaddr.Scheme(r)+"://"+r.Host+openapi.BasePath(rt.ProjectID), name)
}

// oauthConfig is the OAuth 2.0 client of a provider; the endpoint comes
// from discovery for OpenID Connect kinds.
func (a *Auth) oauthConfig(ctx context.Context, r *http.Request, rt *apihttp.Route, p authproviders.Provider) (*oauth2.Config, *oidc.Provider, error) {
	conf := &oauth2.Config{ClientID: p.ClientID, RedirectURL: callbackURL(r, rt, p.Name), Scopes: p.Scopes}
	if !authproviders.IsOIDC(p.Kind) {
		conf.Endpoint = authproviders.Endpoint(p.Kind)
		return conf, nil, nil
	}
	op, err := a.discovery.Provider(ctx, p, a.cfg.Now())
	if err != nil {
		return nil, nil, err
	}
	conf.Endpoint = op.Endpoint()
	return conf, op, nil
}

// authorizeParams are what authorize takes. The callback takes whatever
// the provider adds (Google adds scope, authuser and prompt; RFC 9207 iss).
var authorizeParams = translate.NewParams("redirect_to")

// authorizeProvider starts a sign-in: 302 to the provider's authorization
// endpoint. redirect_to, where the browser returns, is required and must
// be an origin the project lists (RedirectTarget).
func (a *Auth) authorizeProvider(h *apihttp.Handler, w http.ResponseWriter, r *http.Request, rt *apihttp.Route, _ *userQueries) error {
	if _, err := h.Admit(w, r, rt, apihttp.Admission{}); err != nil {
		return err
	}
	query, err := translate.ParseQueryString(r.URL.RawQuery)
	if err == nil {
		err = translate.CheckParams(query, authorizeParams, nil)
	}
	if err != nil {
		return apihttp.PlannerError(err)
	}
	raw := query.Get("redirect_to")
	if raw == "" {
		return apierr.Fields(apierr.CodeValidation, "Validation failed", map[string]string{
			"redirect_to": "is required: the page of your app that receives ?code= (or ?error=) after the sign-in"})
	}
	target, err := RedirectTarget(rt.Entry, raw)
	if err != nil {
		return err
	}
	ctx := r.Context()
	p, err := a.providerNamed(ctx, rt)
	if err != nil {
		return err
	}
	conf, _, err := a.oauthConfig(ctx, r, rt, p)
	if err != nil {
		a.cfg.Logger.Warn("provider discovery", "project", rt.ProjectID, "provider", p.Name, "err", err)
		return apierr.New(apierr.CodeUnavailable, "The provider %q cannot be reached now: %v", p.Name, err)
	}
	state, nonce, verifier := randomToken(""), randomToken(""), oauth2.GenerateVerifier()
	err = a.providerStore().SaveState(ctx, hashToken(state), authproviders.State{ProjectID: rt.ProjectID, Provider: p.Name,
		Nonce: nonce, Verifier: verifier, RedirectTo: target.String(), ExpiresAt: a.cfg.Now().Add(stateTTL)})
	if err != nil {
		return err
	}
	opts := []oauth2.AuthCodeOption{oauth2.S256ChallengeOption(verifier)}
	if authproviders.IsOIDC(p.Kind) {
		opts = append(opts, oidc.Nonce(nonce))
	}
	if authproviders.FormPost(p.Kind) {
		opts = append(opts, oauth2.SetAuthURLParam("response_mode", "form_post"))
	}
	redirect(w, conf.AuthCodeURL(state, opts...))
	return nil
}

// redirect answers 302 to a URL that must not be cached (it carries a
// state or a code).
func redirect(w http.ResponseWriter, to string) {
	w.Header().Set("Location", to)
	w.Header().Set("Cache-Control", "no-store")
	w.WriteHeader(http.StatusFound)
}

// signInError is a failure after a valid state: the browser goes back to
// the app with ?error=<code>&error_description=<text>.
type signInError struct {
	code, description string
}

func (e *signInError) Error() string { return e.code + ": " + e.description }

func failSignIn(code, description string) error { return &signInError{code, description} }

// providerCallback finishes a sign-in. Before the state is known to be
// valid the answer is an error envelope (there is nowhere safe to send
// the browser); after, it is a redirect to the app's redirect_to.
func (a *Auth) providerCallback(h *apihttp.Handler, w http.ResponseWriter, r *http.Request, rt *apihttp.Route, q *userQueries) error {
	if _, err := h.Admit(w, r, rt, apihttp.Admission{}); err != nil {
		return err
	}
	ctx, now := r.Context(), a.cfg.Now()
	p, err := a.providerNamed(ctx, rt)
	if err != nil {
		return err
	}
	// Apple returns with a form POST; ParseForm reads the query as well.
	r.Body = http.MaxBytesReader(w, r.Body, 64<<10)
	if err := r.ParseForm(); err != nil {
		return apierr.Fields(apierr.CodeInvalidQuery, "The callback's parameters do not parse", map[string]string{"query": err.Error()})
	}
	state := r.Form.Get("state")
	if state == "" {
		return apierr.Fields(apierr.CodeValidation, "Validation failed", map[string]string{"state": "is required: the provider returns it"})
	}
	st, err := a.providerStore().TakeState(ctx, rt.ProjectID, p.Name, hashToken(state))
	if errors.Is(err, store.ErrNotFound) {
		return apierr.Fields(apierr.CodeValidation, "This sign-in is unknown or was already finished; start it again",
			map[string]string{"state": "is unknown or already used"})
	}
	if err != nil {
		return err
	}
	if !now.Before(st.ExpiresAt) {
		return apierr.Fields(apierr.CodeValidation, "This sign-in took longer than 10 minutes; start it again",
			map[string]string{"state": "has expired"})
	}
	back, err := url.Parse(st.RedirectTo)
	if err != nil {
		return err
	}
	code, err := a.finishSignIn(ctx, r, rt, q, p, st, now)
	values := back.Query()
	var failed *signInError
	switch {
	case errors.As(err, &failed):
		values.Set("error", failed.code)
		values.Set("error_description", failed.description)
	case err != nil:
		a.cfg.Logger.Error("provider sign-in", "project", rt.ProjectID, "provider", p.Name, "err", err)
		values.Set("error", "server_error")
		values.Set("error_description", "The sign-in failed on the server; try again")
	default:
		values.Set("code", code)
	}
	back.RawQuery = values.Encode()
	redirect(w, back.String())
	return nil
}

// finishSignIn turns the provider's answer into a one-time code for the
// user it signs in; a *signInError says why not.
func (a *Auth) finishSignIn(ctx context.Context, r *http.Request, rt *apihttp.Route, q *userQueries, p authproviders.Provider, st authproviders.State, now time.Time) (string, error) {
	if e := r.Form.Get("error"); e != "" {
		desc := r.Form.Get("error_description")
		if desc == "" {
			desc = "The provider did not sign the user in"
		}
		return "", failSignIn(providerErrorCode(e), desc)
	}
	code := r.Form.Get("code")
	if code == "" {
		return "", failSignIn("invalid_request", "The provider returned neither a code nor an error")
	}
	conf, op, err := a.oauthConfig(ctx, r, rt, p)
	if err != nil {
		return "", failSignIn("provider_unavailable", err.Error())
	}
	secret, err := a.providerStore().ClientSecret(ctx, p)
	if errors.Is(err, authproviders.ErrSealed) {
		a.cfg.Logger.Error("provider client secret", "project", rt.ProjectID, "provider", p.Name, "err", err)
		return "", failSignIn("server_error", "The provider's configuration is incomplete; the project's owner must enter its client secret again")
	}
	if err != nil {
		return "", err
	}
	conf.ClientSecret = secret
	xctx := context.WithValue(ctx, oauth2.HTTPClient, authproviders.Client)
	tok, err := conf.Exchange(xctx, code, oauth2.VerifierOption(st.Verifier))
	if err != nil {
		return "", failSignIn("exchange_failed", "The provider refused the sign-in code"+retrieveReason(err))
	}
	var id identity
	if op != nil {
		id, err = a.oidcIdentity(oidc.ClientContext(ctx, authproviders.Client), op, p, tok, st.Nonce)
	} else {
		id, err = githubIdentity(xctx, tok)
	}
	if err != nil {
		return "", err
	}
	u, err := a.signInUser(ctx, rt, q, p, id, now)
	if err != nil {
		return "", err
	}
	oneTime := randomToken(codePrefix)
	if err := a.providerStore().SaveCode(ctx, hashToken(oneTime), rt.ProjectID, u.ID, now.Add(codeTTL)); err != nil {
		return "", err
	}
	return oneTime, nil
}

// providerErrorCode passes on a provider's own error code (access_denied
// when the user cancelled) when it is a plain OAuth code.
func providerErrorCode(e string) string {
	if len(e) > 64 {
		return "provider_error"
	}
	for _, c := range e {
		if (c < 'a' || c > 'z') && c != '_' {
			return "provider_error"
		}
	}
	return e
}

// retrieveReason is the provider's OAuth error code of a failed exchange,
// without its body.
func retrieveReason(err error) string {
	var re *oauth2.RetrieveError
	if errors.As(err, &re) && re.ErrorCode != "" {
		return " (" + re.ErrorCode + ")"
	}
	return ""
}

// exchangeProviderCode trades a one-time code for a session, exactly as
// /auth/login answers.
func (a *Auth) exchangeProviderCode(h *apihttp.Handler, w http.ResponseWriter, r *http.Request, rt *apihttp.Route, q *userQueries) error {
	if _, err := h.Admit(w, r, rt, apihttp.Admission{}); err != nil {
		return err
	}
	in, err := readStrings(h, w, r, "code")
	if err != nil {
		return err
	}
	ctx, now := r.Context(), a.cfg.Now()
	userText, err := a.providerStore().TakeCode(ctx, rt.ProjectID, hashToken(in["code"]), now)
	if errors.Is(err, store.ErrNotFound) {
		return apierr.New(apierr.CodeUnauthorized, "Invalid sign-in code: it is unknown, was already used or is older than 60 seconds")
	}
	if err != nil {
		return err
	}
	uid, ok := userIDValue(q.table, userText)
	if !ok {
		return errors.New("provider sign-in code names an id the auth table cannot hold")
	}
	u, err := a.userByID(ctx, q, uid)
	if err != nil {
		return err
	}
	if !u.Existing {
		return apierr.New(apierr.CodeUnauthorized, "The user of this sign-in code no longer exists")
	}
	if !u.Active {
		return apierr.New(apierr.CodeForbidden, "This account is not active")
	}
	return a.answerSession(w, r, rt, q, u, http.StatusOK, "Signed in")
}

// randomToken is 256 random bits in base64url after a prefix: states,
// nonces and one-time codes.
func randomToken(prefix string) string {
	b := make([]byte, 32)
	if _, err := rand.Read(b); err != nil {
		panic(err) // crypto/rand does not fail on supported platforms
	}
	return prefix + base64.RawURLEncoding.EncodeToString(b)
}

// hashToken is what is stored of a state or code: a fast hash is enough
// for 256 random bits, and lookup stays one index probe.
func hashToken(s string) []byte {
	h := sha256.Sum256([]byte(s))
	return h[:]
}
