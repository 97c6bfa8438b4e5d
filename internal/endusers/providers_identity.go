package endusers

import (
	"context"
	"crypto/subtle"
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/coreos/go-oidc/v3/oidc"
	"golang.org/x/oauth2"

	"github.com/tablesmith/tablesmith/internal/apihttp"
	"github.com/tablesmith/tablesmith/internal/auth"
	"github.com/tablesmith/tablesmith/internal/authproviders"
	"github.com/tablesmith/tablesmith/internal/pgexec"
	"github.com/tablesmith/tablesmith/internal/validate"
)

// identity is who the provider says signed in: its subject (unique at
// the provider), the e-mail and whether the provider verified it.
type identity struct {
	Subject  string
	Email    string
	Verified bool
}

// flexBool reads a claim that providers send as a boolean or as the
// string "true" (Apple's email_verified).
type flexBool bool

func (b *flexBool) UnmarshalJSON(data []byte) error {
	var v any
	if err := json.Unmarshal(data, &v); err != nil {
		return err
	}
	switch x := v.(type) {
	case bool:
		*b = flexBool(x)
	case string:
		*b = flexBool(x == "true")
	}
	return nil
}

// emailClaims are the claims sign-in reads beyond the subject.
type emailClaims struct {
	Email         *string  `json:"email"`
	EmailVerified flexBool `json:"email_verified"`
	// Microsoft sends no email_verified; xms_edov (an optional claim the
	// owner adds in Entra) says the e-mail's domain owner verified it.
	DomainOwnerVerified flexBool `json:"xms_edov"`
	TenantID            string   `json:"tid"`
}

// oidcIdentity verifies the ID token of a token response (go-oidc:
// signature by the issuer's keys, issuer, audience = our client id,
// expiry) and its nonce. The e-mail comes from the ID token, or from the
// userinfo endpoint when the token carries none (providers may put it
// only there), whose subject must then be the token's.
func (a *Auth) oidcIdentity(ctx context.Context, op *oidc.Provider, p authproviders.Provider, tok *oauth2.Token, nonce string) (identity, error) {
	raw, _ := tok.Extra("id_token").(string)
	if raw == "" {
		return identity{}, failSignIn("invalid_id_token", "The provider returned no ID token (is openid among the scopes?)")
	}
	idt, err := authproviders.Verifier(op, p, a.cfg.Now).Verify(ctx, raw)
	if err != nil {
		return identity{}, failSignIn("invalid_id_token", "The provider's ID token was refused: "+strings.TrimPrefix(err.Error(), "oidc: "))
	}
	if subtle.ConstantTimeCompare([]byte(idt.Nonce), []byte(nonce)) != 1 {
		return identity{}, failSignIn("invalid_id_token", "The provider's ID token was refused: its nonce is not this sign-in's")
	}
	var c emailClaims
	if err := idt.Claims(&c); err != nil {
		return identity{}, failSignIn("invalid_id_token", "The provider's ID token claims do not parse")
	}
	if err := authproviders.CheckIssuer(p, idt.Issuer, c.TenantID); err != nil {
		return identity{}, failSignIn("invalid_id_token", "The provider's ID token was refused: "+err.Error())
	}
	if c.Email == nil && op.UserInfoEndpoint() != "" {
		info, err := op.UserInfo(ctx, oauth2.StaticTokenSource(tok))
		if err != nil {
			return identity{}, failSignIn("provider_error", "The provider's userinfo endpoint failed")
		}
		if info.Subject != idt.Subject {
			return identity{}, failSignIn("invalid_id_token", "The provider's userinfo names another subject than its ID token")
		}
		c = emailClaims{}
		if err := info.Claims(&c); err != nil {
			return identity{}, failSignIn("provider_error", "The provider's userinfo does not parse")
		}
	}
	id := identity{Subject: idt.Subject, Verified: bool(c.EmailVerified)}
	if c.Email != nil {
		id.Email = *c.Email
	}
	if p.Kind == authproviders.KindMicrosoft {
		id.Verified = bool(c.DomainOwnerVerified)
	}
	return id, nil
}

// GitHub's user API (OAuth 2.0 without OpenID Connect): the account id is
// the subject, the e-mail the primary one if GitHub verified it.
const githubAPI = "https://api.github.com"

func githubIdentity(ctx context.Context, tok *oauth2.Token) (identity, error) {
	var user struct {
		ID int64 `json:"id"`
	}
	if err := githubGet(ctx, tok, "/user", &user); err != nil || user.ID == 0 {
		return identity{}, failSignIn("provider_error", "GitHub's user API did not answer the account")
	}
	var emails []struct {
		Email    string `json:"email"`
		Primary  bool   `json:"primary"`
		Verified bool   `json:"verified"`
	}
	if err := githubGet(ctx, tok, "/user/emails", &emails); err != nil {
		return identity{}, failSignIn("provider_error", "GitHub's e-mail API did not answer (is user:email among the scopes?)")
	}
	id := identity{Subject: strconv.FormatInt(user.ID, 10)}
	for _, e := range emails {
		if e.Primary {
			id.Email, id.Verified = e.Email, e.Verified
		}
	}
	return id, nil
}

func githubGet(ctx context.Context, tok *oauth2.Token, path string, v any) error {
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, githubAPI+path, nil)
	if err != nil {
		return err
	}
	req.Header.Set("Accept", "application/vnd.github+json")
	tok.SetAuthHeader(req)
	resp, err := authproviders.Client.Do(req)
	if err != nil {
		return err
	}
	defer resp.Body.Close()
	if resp.StatusCode != http.StatusOK {
		return fmt.Errorf("GitHub %s: %s", path, resp.Status)
	}
	return json.NewDecoder(http.MaxBytesReader(nil, resp.Body, 1<<20)).Decode(v)
}

// signInUser finds the user an identity signs in as: the one it is linked
// to; else, with an e-mail the provider verified, the user of that e-mail
// (then linked) or a new one. A user that is not active is refused.
func (a *Auth) signInUser(ctx context.Context, rt *apihttp.Route, q *userQueries, p authproviders.Provider, id identity, now time.Time) (user, error) {
	ps := a.providerStore()
	email := strings.ToLower(strings.TrimSpace(id.Email))
	var u user
	linked, found, err := ps.Identity(ctx, rt.ProjectID, p.Name, id.Subject)
	if err != nil {
		return u, err
	}
	if found {
		if uid, ok := userIDValue(q.table, linked); ok {
			if u, err = a.userByID(ctx, q, uid); err != nil {
				return u, err
			}
		}
	}
	if !u.Existing {
		// Not linked, or its user was deleted: only a verified e-mail may
		// pick (or create) the account, or anyone who can set an address
		// at the provider could take over another's.
		switch {
		case email == "":
			return u, failSignIn("email_missing", "The provider did not share an e-mail address (is email among the scopes?)")
		case !id.Verified:
			return u, failSignIn("email_not_verified", "The provider has not verified this e-mail address; verify it there and sign in again")
		}
		if u, err = a.userByEmail(ctx, q, email); err != nil {
			return u, err
		}
		if !u.Existing {
			if u, err = a.createProviderUser(ctx, q, email); err != nil {
				return u, err
			}
		}
	}
	if !u.Active {
		return u, failSignIn("account_inactive", "This account is not active")
	}
	if id.Verified && email != "" && strings.EqualFold(u.Email, email) {
		// The provider proved the address: a project that requires
		// verification takes its word, as it would a mailed link's.
		if err := a.cfg.Store.MarkEmailVerified(ctx, a.cfg.Store.DB, rt.ProjectID, u.ID, u.Email, now); err != nil {
			return u, err
		}
	}
	return u, ps.Link(ctx, rt.ProjectID, p.Name, id.Subject, u.ID, email, now)
}

// createProviderUser inserts the auth-table row of a new user: the
// e-mail, and as password the hash of 32 random bytes, which no password
// matches (the user may set one later through the API). Required columns
// the provider cannot fill fail as signup_incomplete, naming them.
func (a *Auth) createProviderUser(ctx context.Context, q *userQueries, email string) (user, error) {
	t := q.table
	body := map[string]any{q.email.Input: email, q.password.Input: randomToken("")}
	res, problems := validate.Record(t, body, validate.Create)
	if problems != nil {
		names := make([]string, 0, len(problems))
		for f, msg := range problems {
			names = append(names, f+" ("+msg+")")
		}
		slices.Sort(names)
		return user{}, failSignIn("signup_incomplete", "A new account needs fields the provider does not give: "+strings.Join(names, ", "))
	}
	for i, c := range res.Columns {
		if s, ok := res.Values[i].(string); ok && c.Kind.Traits.Secret {
			h, err := auth.HashPassword(s)
			if err != nil {
				return user{}, err
			}
			res.Values[i] = h
		}
	}
	st := q.sql.InsertRecord(res.Columns, res.Values)
	rec, err := pgexec.JSON(ctx, q.db, st.SQL, st.Args...)
	if err != nil {
		// Another sign-in (or a register) may have created the e-mail
		// since it was looked up.
		if u, lerr := a.userByEmail(ctx, q, email); lerr == nil && u.Existing {
			return u, nil
		}
		return user{}, fmt.Errorf("create user from provider: %w", err)
	}
	uid, ok := recordID(t, rec)
	if !ok {
		return user{}, errors.New("create user from provider: the created user has no id")
	}
	return user{ID: uid, Email: email, Record: rec, Active: recordActive(rec), Existing: true}, nil
}
