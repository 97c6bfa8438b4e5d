package endusers_test

import (
	"bytes"
	"context"
	"fmt"
	"testing"
	"time"

	"github.com/tablesmith/tablesmith/internal/service"
	"github.com/tablesmith/tablesmith/internal/testpg"
	"github.com/tablesmith/tablesmith/internal/testserver"
)

func (e *env) loginWith(email, pw string) *testserver.Response {
	e.t.Helper()
	return e.auth("POST", "login", "", map[string]any{"email": email, "password": pw})
}

func TestWrongPasswordAndUnknownEmailGetTheSameAnswer(t *testing.T) {
	t.Parallel()
	e := newEnv(t, appSchema)
	e.register("known@example.com")
	wrong := e.loginWith("known@example.com", "not the password")
	unknown := e.loginWith("nobody@example.com", "not the password")
	wantError(t, wrong, 401, "INVALID_CREDENTIALS")
	wantError(t, unknown, 401, "INVALID_CREDENTIALS")
	if !bytes.Equal(wrong.Raw, unknown.Raw) {
		t.Fatalf("answers differ:\n%s\n%s", wrong.Raw, unknown.Raw)
	}
	// The e-mail is normalized as on register.
	e.loginWith("  KNOWN@example.com ", password).Must(t, 200)

	r := e.auth("POST", "login", "", map[string]any{"email": "known@example.com"})
	wantError(t, r, 400, "VALIDATION_ERROR")
	if r.Details()["password"] != "is required" {
		t.Fatalf("details = %v", r.Details())
	}
	r = e.auth("POST", "login", "", map[string]any{"email": "known@example.com", "password": 5, "remember": true})
	if r.Details()["password"] != "must be a string" || r.Details()["remember"] != "unknown field" {
		t.Fatalf("details = %v", r.Details())
	}
}

func TestRepeatedFailedLoginsForOneEmailAreThrottled(t *testing.T) {
	t.Parallel()
	e := newEnv(t, appSchema)
	e.register("target@example.com")
	for i := range 5 {
		wantError(t, e.loginWith("target@example.com", fmt.Sprintf("guess %d!", i)), 401, "INVALID_CREDENTIALS")
		e.clock.Advance(time.Minute)
	}
	// Locked: even the right password waits, until the window that began
	// with the first failure (5 minutes ago) ends.
	r := e.loginWith("target@example.com", password)
	wantError(t, r, 429, "TOO_MANY_ATTEMPTS")
	if got := r.Header.Get("Retry-After"); got != "600" {
		t.Fatalf("Retry-After = %q, want 600", got)
	}
	wantError(t, e.loginWith("TARGET@example.com", "guess again"), 429, "TOO_MANY_ATTEMPTS")

	// Other accounts are not affected.
	e.register("other@example.com")
	e.login("other@example.com")

	e.clock.Advance(10 * time.Minute)
	e.login("target@example.com")
}

func TestFailedLoginsForAnUnknownEmailAreThrottledAlike(t *testing.T) {
	t.Parallel()
	e := newEnv(t, appSchema)
	for range 5 {
		wantError(t, e.loginWith("ghost@example.com", "whatever123"), 401, "INVALID_CREDENTIALS")
	}
	r := e.loginWith("ghost@example.com", "whatever123")
	wantError(t, r, 429, "TOO_MANY_ATTEMPTS")
	if r.Header.Get("Retry-After") != "900" {
		t.Fatalf("Retry-After = %q", r.Header.Get("Retry-After"))
	}
}

func TestASuccessfulLoginClearsTheEmailFailures(t *testing.T) {
	t.Parallel()
	e := newEnv(t, appSchema)
	e.register("forgetful@example.com")
	for range 4 {
		wantError(t, e.loginWith("forgetful@example.com", "wrong password"), 401, "INVALID_CREDENTIALS")
	}
	e.login("forgetful@example.com")
	for range 4 {
		wantError(t, e.loginWith("forgetful@example.com", "wrong password"), 401, "INVALID_CREDENTIALS")
	}
	e.login("forgetful@example.com")
}

func TestManyFailedLoginsFromOneAddressAreThrottled(t *testing.T) {
	t.Parallel()
	e := newEnv(t, appSchema)
	e.register("real@example.com")
	// One guess each at 30 accounts: no e-mail reaches its limit, the
	// client address does.
	for i := range 30 {
		wantError(t, e.loginWith(fmt.Sprintf("user%d@example.com", i), "password1"), 401, "INVALID_CREDENTIALS")
	}
	r := e.loginWith("real@example.com", password)
	wantError(t, r, 429, "TOO_MANY_ATTEMPTS")
	if r.Header.Get("Retry-After") != "900" {
		t.Fatalf("Retry-After = %q", r.Header.Get("Retry-After"))
	}
	e.clock.Advance(15 * time.Minute)
	e.login("real@example.com")
}

func TestInactiveUserCannotLoginAndItsLiveTokensAreRefused(t *testing.T) {
	t.Parallel()
	e := newEnv(t, appSchema)
	s := e.register("gone@example.com")
	id := jsonID(s.User["id"])
	e.api("POST", "/notes", s.Access, map[string]any{"title": "mine"}).Must(t, 201)

	e.api("PATCH", "/users/"+id, e.p.Key, map[string]any{"is_active": false}).Must(t, 200)
	r := e.loginWith("gone@example.com", password)
	wantError(t, r, 403, "FORBIDDEN")
	// A wrong password still says only that the pair is wrong.
	wantError(t, e.loginWith("gone@example.com", "wrong password"), 401, "INVALID_CREDENTIALS")
	wantError(t, e.auth("POST", "refresh", "", map[string]any{"refresh_token": s.Refresh}), 403, "FORBIDDEN")

	// Live access tokens are refused once this node reads the status again
	// (at most StatusTTL, 5 s, after the change).
	e.clock.Advance(6 * time.Second)
	wantError(t, e.auth("GET", "me", s.Access, nil), 401, "UNAUTHORIZED")
	wantError(t, e.api("GET", "/notes", s.Access, nil), 401, "UNAUTHORIZED")

	// Active again: the same tokens work again, and login does.
	e.api("PATCH", "/users/"+id, e.p.Key, map[string]any{"is_active": true}).Must(t, 200)
	e.clock.Advance(6 * time.Second)
	e.auth("GET", "me", s.Access, nil).Must(t, 200)
	e.login("gone@example.com")
}

func TestDeletedUserTokensAreRefused(t *testing.T) {
	t.Parallel()
	e := newEnv(t, appSchema)
	s := e.register("deleted@example.com")
	e.api("DELETE", "/users/"+jsonID(s.User["id"]), e.p.Key, nil).Must(t, 200)
	e.clock.Advance(6 * time.Second)
	wantError(t, e.auth("GET", "me", s.Access, nil), 401, "UNAUTHORIZED")
	wantError(t, e.auth("POST", "refresh", "", map[string]any{"refresh_token": s.Refresh}), 401, "UNAUTHORIZED")
	wantError(t, e.loginWith("deleted@example.com", password), 401, "INVALID_CREDENTIALS")
}

func TestPruneDeletesOnlyWhatCanNoLongerMatter(t *testing.T) {
	t.Parallel()
	// A database of its own: pruning is global and this clock runs ahead.
	c := newClock()
	s := testserver.New(t, testserver.WithNow(c.Now), testserver.WithConfig(func(cfg *service.Config) {
		cfg.DatabaseURL = testpg.NewDatabase(t)
	}))
	e := &env{t: t, s: s, p: s.NewProject(appSchema), clock: c}
	old := e.register("old@example.com")
	wantError(t, e.loginWith("old@example.com", "wrong password"), 401, "INVALID_CREDENTIALS")
	c.Advance(30*24*time.Hour + time.Minute)
	fresh := e.register("fresh@example.com")
	wantError(t, e.loginWith("fresh@example.com", "wrong password"), 401, "INVALID_CREDENTIALS")

	ctx := context.Background()
	if err := s.Svc.Store.PruneEndUsers(ctx, c.Now(), 15*time.Minute); err != nil {
		t.Fatal(err)
	}
	count := func(q string) int {
		var n int
		if err := s.Svc.DB.QueryRowContext(ctx, q).Scan(&n); err != nil {
			t.Fatal(err)
		}
		return n
	}
	if n := count(`SELECT count(*) FROM tablesmith.end_user_sessions`); n != 1 {
		t.Fatalf("%d sessions left, want the fresh one", n)
	}
	if n := count(`SELECT count(*) FROM tablesmith.end_user_login_failures`); n != 2 {
		t.Fatalf("%d failure windows left, want the fresh e-mail's and the address's", n)
	}
	wantError(t, e.auth("POST", "refresh", "", map[string]any{"refresh_token": old.Refresh}), 401, "UNAUTHORIZED")
	e.auth("POST", "refresh", "", map[string]any{"refresh_token": fresh.Refresh}).Must(t, 200)
}

func TestTheLoginThrottleKeysOnTheClientAddressCaddyDetermined(t *testing.T) {
	t.Parallel()
	e := newEnv(t, appSchema)
	e.register("real@example.com")
	// Every request reaches the handler from 127.0.0.1; only the address
	// the proxy in front determined differs.
	e.s.SetClient("203.0.113.20", true)
	for i := range 30 {
		wantError(t, e.loginWith(fmt.Sprintf("user%d@example.com", i), "password1"), 401, "INVALID_CREDENTIALS")
	}
	wantError(t, e.loginWith("real@example.com", password), 429, "TOO_MANY_ATTEMPTS")
	e.s.SetClient("203.0.113.21", true)
	e.login("real@example.com")
}

func TestALoginEmailWithANULCharacterIsAValidationError(t *testing.T) {
	t.Parallel()
	e := newEnv(t, appSchema)
	r := e.auth("POST", "login", "", `{"email":"a\u0000@example.com","password":"longpassword"}`)
	wantError(t, r, 400, "VALIDATION_ERROR")
	if r.Details()["email"] != "must not contain NUL characters" {
		t.Fatalf("details = %v", r.Details())
	}
}
