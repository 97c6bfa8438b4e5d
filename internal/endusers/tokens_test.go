package endusers_test

import (
	"encoding/base64"
	"encoding/json"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/golang-jwt/jwt/v5"

	"github.com/tablesmith/tablesmith/internal/auth"
	"github.com/tablesmith/tablesmith/internal/service"
)

func TestExpiredAccessTokenIs401AndRefreshGetsANewOne(t *testing.T) {
	t.Parallel()
	e := newEnv(t, appSchema)
	s := e.register("exp@example.com")
	e.auth("GET", "me", s.Access, nil).Must(t, 200)

	e.clock.Advance(time.Hour + time.Second)
	r := e.auth("GET", "me", s.Access, nil)
	wantError(t, r, 401, "UNAUTHORIZED")
	if !strings.Contains(r.Message(), "expired") {
		t.Fatalf("message = %q, want it to say expired", r.Message())
	}
	wantError(t, e.api("GET", "/notes", s.Access, nil), 401, "UNAUTHORIZED")

	next := tokensOf(t, e.auth("POST", "refresh", "", map[string]any{"refresh_token": s.Refresh}).Must(t, 200))
	e.auth("GET", "me", next.Access, nil).Must(t, 200)
}

func TestExpiredRefreshTokenIs401(t *testing.T) {
	t.Parallel()
	e := newEnv(t, appSchema)
	s := e.register("old@example.com")
	e.clock.Advance(30*24*time.Hour + time.Second)
	wantError(t, e.auth("POST", "refresh", "", map[string]any{"refresh_token": s.Refresh}), 401, "UNAUTHORIZED")
}

// sign makes a token with the given claims, method and key.
func sign(t *testing.T, method jwt.SigningMethod, key any, claims jwt.MapClaims) string {
	t.Helper()
	tok, err := jwt.NewWithClaims(method, claims).SignedString(key)
	if err != nil {
		t.Fatal(err)
	}
	return tok
}

func TestTamperedAndForgedAccessTokensAre401(t *testing.T) {
	t.Parallel()
	e := newEnv(t, appSchema)
	victim := e.register("victim@example.com")
	s := e.register("mallory@example.com")
	parts := strings.Split(s.Access, ".")

	// The payload changed to name the victim, the signature kept.
	var payload map[string]any
	raw, _ := base64.RawURLEncoding.DecodeString(parts[1])
	if err := json.Unmarshal(raw, &payload); err != nil {
		t.Fatal(err)
	}
	payload["sub"] = jsonID(victim.User["id"])
	forgedPayload, _ := json.Marshal(payload)
	swapped := parts[0] + "." + base64.RawURLEncoding.EncodeToString(forgedPayload) + "." + parts[2]

	// A character in the middle of the signature changed.
	sig := []byte(parts[2])
	if sig[10] == 'A' {
		sig[10] = 'B'
	} else {
		sig[10] = 'A'
	}
	badSig := parts[0] + "." + parts[1] + "." + string(sig)

	noneHeader := base64.RawURLEncoding.EncodeToString([]byte(`{"alg":"none","typ":"JWT"}`))
	algNone := noneHeader + "." + parts[1] + "."

	// Tokens made with the project's real signing key, each wrong in one way.
	key := auth.DeriveKey("test-secret", "project-jwt:"+e.p.ID)
	now := e.clock.Now()
	good := func() jwt.MapClaims {
		return jwt.MapClaims{"iss": "tablesmith", "aud": "tablesmith-project:" + e.p.ID, "sub": payload["sub"],
			"sid": payload["sid"], "iat": now.Unix(), "exp": now.Add(time.Hour).Unix()}
	}
	with := func(k string, v any) jwt.MapClaims {
		c := good()
		if v == nil {
			delete(c, k)
		} else {
			c[k] = v
		}
		return c
	}
	// The control: the real key with all claims right verifies; so the
	// cases below fail for their one flaw.
	e.auth("GET", "me", sign(t, jwt.SigningMethodHS256, key, with("sub", jsonID(s.User["id"]))), nil).Must(t, 200)

	cases := map[string]string{
		"payload swapped":    swapped,
		"signature changed":  badSig,
		"alg none":           algNone,
		"HS512 with the key": sign(t, jwt.SigningMethodHS512, key, with("sub", jsonID(s.User["id"]))),
		"other audience":     sign(t, jwt.SigningMethodHS256, key, with("aud", "tablesmith-platform")),
		"no audience":        sign(t, jwt.SigningMethodHS256, key, with("aud", nil)),
		"other issuer":       sign(t, jwt.SigningMethodHS256, key, with("iss", "someone")),
		"no expiry":          sign(t, jwt.SigningMethodHS256, key, with("exp", nil)),
		"unknown session":    sign(t, jwt.SigningMethodHS256, key, with("sid", "ses_nope")),
		"no session":         sign(t, jwt.SigningMethodHS256, key, with("sid", nil)),
		// The owner's session with its tsp_ prefix is the dashboard's own
		// credential (ratelimit's owner session test); without it, it is
		// only a JWT for another audience.
		"platform session JWT": strings.TrimPrefix(e.p.Session, auth.SessionPrefix),
		"other secret":         sign(t, jwt.SigningMethodHS256, auth.DeriveKey("other-secret", "project-jwt:"+e.p.ID), with("sub", jsonID(s.User["id"]))),
		"garbage":              "abc.def.ghi",
		"refresh token":        s.Refresh,
		"truncated":            s.Access[:len(s.Access)-5],
		"non-numeric subject":  sign(t, jwt.SigningMethodHS256, key, with("sub", "x")),
		"key-shaped but fake":  "ts_abcdefgh_" + strings.Repeat("x", 32),
		// Even a validly signed token whose user is not its session's.
		"session of another user": sign(t, jwt.SigningMethodHS256, key, with("sub", payload["sub"])),
	}
	for name, tok := range cases {
		for _, path := range []string{"/auth/me", "/notes"} {
			r := e.api("GET", path, tok, nil)
			if r.Status != 401 || r.ErrorCode() != "UNAUTHORIZED" {
				t.Errorf("%s on %s: want 401 UNAUTHORIZED, got %d %s", name, path, r.Status, r.Raw)
			}
		}
	}
	// The real tokens still work.
	e.auth("GET", "me", s.Access, nil).Must(t, 200)
}

func TestAccessAndRefreshTokensOfAnotherProjectAre401(t *testing.T) {
	t.Parallel()
	e := newEnv(t, appSchema)
	other := e.s.NewProject(appSchema)
	s := e.register("a@example.com")
	// The same e-mail registered on the other project: same user id there.
	e.s.Do("POST", "/v1/"+other.ID+"/auth/register", "", map[string]any{"email": "a@example.com", "password": password}).Must(t, 201)

	for _, path := range []string{"/auth/me", "/notes"} {
		wantError(t, e.s.Do("GET", "/v1/"+other.ID+path, s.Access, nil), 401, "UNAUTHORIZED")
	}
	wantError(t, e.s.Do("POST", "/v1/"+other.ID+"/auth/refresh", "", map[string]any{"refresh_token": s.Refresh}), 401, "UNAUTHORIZED")
	wantError(t, e.s.Do("POST", "/v1/"+other.ID+"/auth/logout", "", map[string]any{"refresh_token": s.Refresh}), 401, "UNAUTHORIZED")
	// Nothing done on the other project touched the session.
	e.auth("GET", "me", s.Access, nil).Must(t, 200)
	e.auth("POST", "refresh", "", map[string]any{"refresh_token": s.Refresh}).Must(t, 200)
}

func TestRevokedTamperedAndForeignAPIKeysAre401(t *testing.T) {
	t.Parallel()
	e := newEnv(t, appSchema)
	other := e.s.NewProject(appSchema)
	e.api("GET", "/notes", e.p.Key, nil).Must(t, 200)

	last := e.p.Key[len(e.p.Key)-1]
	swap := byte('a')
	if last == 'a' {
		swap = 'b'
	}
	tampered := e.p.Key[:len(e.p.Key)-1] + string(swap)
	wantError(t, e.api("GET", "/notes", tampered, nil), 401, "UNAUTHORIZED")
	wantError(t, e.api("GET", "/notes", other.Key, nil), 401, "UNAUTHORIZED")

	keys := e.s.Do("GET", "/api/projects/"+e.p.ID+"/keys", e.p.Session, nil).Must(t, 200)
	arr, _ := keys.Body["data"].([]any)
	if len(arr) != 1 {
		t.Fatalf("keys = %s", keys.Raw)
	}
	id := arr[0].(map[string]any)["id"].(string)
	e.s.Do("DELETE", "/api/projects/"+e.p.ID+"/keys/"+id, e.p.Session, nil).Must(t, 200)
	wantError(t, e.api("GET", "/notes", e.p.Key, nil), 401, "UNAUTHORIZED")
	wantError(t, e.auth("GET", "me", e.p.Key, nil), 401, "UNAUTHORIZED")
}

func TestReusedRefreshTokenRevokesItsWholeFamily(t *testing.T) {
	t.Parallel()
	e := newEnv(t, appSchema)
	first := e.register("reuse@example.com")
	s := e.login("reuse@example.com")
	next := tokensOf(t, e.auth("POST", "refresh", "", map[string]any{"refresh_token": s.Refresh}).Must(t, 200))
	e.auth("GET", "me", next.Access, nil).Must(t, 200)

	// The rotated token comes back: someone copied it.
	r := e.auth("POST", "refresh", "", map[string]any{"refresh_token": s.Refresh})
	wantError(t, r, 401, "UNAUTHORIZED")
	if !strings.Contains(r.Message(), "already used") {
		t.Fatalf("message = %q", r.Message())
	}
	wantError(t, e.auth("POST", "refresh", "", map[string]any{"refresh_token": next.Refresh}), 401, "UNAUTHORIZED")
	wantError(t, e.auth("GET", "me", next.Access, nil), 401, "UNAUTHORIZED")
	wantError(t, e.auth("GET", "me", s.Access, nil), 401, "UNAUTHORIZED")

	// Another sign-in of the same user is another family.
	e.auth("GET", "me", first.Access, nil).Must(t, 200)
	e.auth("POST", "refresh", "", map[string]any{"refresh_token": first.Refresh}).Must(t, 200)
}

func TestConcurrentRefreshesOfOneTokenRotateItAtMostOnce(t *testing.T) {
	t.Parallel()
	e := newEnv(t, appSchema)
	s := e.register("race@example.com")
	const n = 6
	statuses := make([]int, n)
	var wg sync.WaitGroup
	for i := range n {
		wg.Add(1)
		go func() {
			defer wg.Done()
			statuses[i] = e.auth("POST", "refresh", "", map[string]any{"refresh_token": s.Refresh}).Status
		}()
	}
	wg.Wait()
	ok := 0
	for _, st := range statuses {
		switch st {
		case 200:
			ok++
		case 401:
		default:
			t.Fatalf("statuses = %v", statuses)
		}
	}
	if ok > 1 {
		t.Fatalf("%d refreshes of one token succeeded: %v", ok, statuses)
	}
}

func TestChangedSecretRefusesOldAccessTokensButRefreshStillWorks(t *testing.T) {
	t.Parallel()
	e := newEnv(t, appSchema)
	s := e.register("rot@example.com")
	if err := e.s.Svc.Configure(service.Settings{Secret: "a-new-secret", DefaultPlan: "unlimited"}); err != nil {
		t.Fatal(err)
	}
	wantError(t, e.auth("GET", "me", s.Access, nil), 401, "UNAUTHORIZED")
	next := tokensOf(t, e.auth("POST", "refresh", "", map[string]any{"refresh_token": s.Refresh}).Must(t, 200))
	e.auth("GET", "me", next.Access, nil).Must(t, 200)
}

func TestUUIDKeyedAuthTableSignsInAndOwnsRows(t *testing.T) {
	t.Parallel()
	e := newEnv(t, `{"tables": [
		{"name": "people", "auth": true, "id_type": "uuid", "columns": [
			{"name": "email", "type": "email", "required": true, "unique": true},
			{"name": "password_hash", "type": "password", "required": true}]},
		{"name": "todos", "owner_column": "owner_id", "permissions": {"read": "owner", "create": "owner", "update": "owner", "delete": "owner"},
		 "columns": [
			{"name": "title", "type": "text", "required": true},
			{"name": "owner_id", "type": "uuid", "references": {"table": "people"}}]}]}`)
	s := e.register("u@example.com")
	id, _ := s.User["id"].(string)
	if len(id) != 36 {
		t.Fatalf("user id = %v", s.User["id"])
	}
	todo := e.api("POST", "/todos", s.Access, map[string]any{"title": "x"}).Must(t, 201).Data()
	if todo["owner_id"] != id {
		t.Fatalf("owner_id = %v, want %s", todo["owner_id"], id)
	}
	e.api("GET", "/todos/"+jsonID(todo["id"]), s.Access, nil).Must(t, 200)
	e.auth("GET", "me", s.Access, nil).Must(t, 200)
	e.auth("POST", "refresh", "", map[string]any{"refresh_token": s.Refresh}).Must(t, 200)
	other := e.register("v@example.com")
	wantError(t, e.api("GET", "/todos/"+jsonID(todo["id"]), other.Access, nil), 404, "NOT_FOUND")
}
