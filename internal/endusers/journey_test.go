package endusers_test

import (
	"context"
	"strconv"
	"strings"
	"testing"

	"github.com/tablesmith/tablesmith/internal/plans"
	"github.com/tablesmith/tablesmith/internal/testserver"
)

func TestJourneyRegisterLoginCRUDRefreshLogout(t *testing.T) {
	t.Parallel()
	e := newEnv(t, appSchema)

	reg := e.auth("POST", "register", "", map[string]any{"email": " Ann@Example.com ", "password": password, "name": "Ann"}).Must(t, 201)
	d := reg.Data()
	if d["token_type"] != "Bearer" || d["expires_in"] != float64(3600) {
		t.Fatalf("register data = %s", reg.Raw)
	}
	ann := tokensOf(t, reg)
	if ann.User["email"] != "ann@example.com" || ann.User["name"] != "Ann" || ann.User["is_active"] != true {
		t.Fatalf("registered user = %v", ann.User)
	}
	for _, hidden := range []string{"password", "password_hash"} {
		if _, leaked := ann.User[hidden]; leaked {
			t.Fatalf("user carries %s: %v", hidden, ann.User)
		}
	}
	if !strings.HasPrefix(ann.Refresh, "tsr_") || strings.Count(ann.Access, ".") != 2 {
		t.Fatalf("token formats: access %q refresh %q", ann.Access, ann.Refresh)
	}

	// Login answers the same shape with a new pair.
	in := e.login("ann@example.com")
	if in.User["id"] != ann.User["id"] || in.Access == ann.Access || in.Refresh == ann.Refresh {
		t.Fatalf("login = %+v", in)
	}
	me := e.auth("GET", "me", in.Access, nil).Must(t, 200)
	if me.Data()["email"] != "ann@example.com" || me.Data()["id"] != ann.User["id"] {
		t.Fatalf("me = %s", me.Raw)
	}

	// CRUD on an owner table: the create fills the owner column.
	created := e.api("POST", "/notes", in.Access, map[string]any{"title": "first"}).Must(t, 201).Data()
	if created["author_id"] != ann.User["id"] {
		t.Fatalf("author_id = %v, want %v", created["author_id"], ann.User["id"])
	}
	path := "/notes/" + jsonID(created["id"])
	e.api("GET", path, in.Access, nil).Must(t, 200)
	if got := e.api("PATCH", path, in.Access, map[string]any{"title": "edited"}).Must(t, 200).Data(); got["title"] != "edited" {
		t.Fatalf("patch = %v", got)
	}
	if list := e.api("GET", "/notes", in.Access, nil).Must(t, 200).List(); len(list) != 1 {
		t.Fatalf("list = %v", list)
	}

	// Refresh: a new pair; the old refresh token stops working.
	ref := e.auth("POST", "refresh", "", map[string]any{"refresh_token": in.Refresh}).Must(t, 200)
	next := tokensOf(t, ref)
	if next.Refresh == in.Refresh || next.User["email"] != "ann@example.com" || ref.Data()["token_type"] != "Bearer" {
		t.Fatalf("refresh = %s", ref.Raw)
	}
	e.api("DELETE", path, next.Access, nil).Must(t, 200)

	// Logout revokes the session: its refresh and access tokens are refused.
	e.auth("POST", "logout", "", map[string]any{"refresh_token": next.Refresh}).Must(t, 200)
	wantError(t, e.auth("POST", "refresh", "", map[string]any{"refresh_token": next.Refresh}), 401, "UNAUTHORIZED")
	wantError(t, e.api("GET", "/notes", next.Access, nil), 401, "UNAUTHORIZED")
	wantError(t, e.auth("GET", "me", in.Access, nil), 401, "UNAUTHORIZED")
	wantError(t, e.auth("POST", "refresh", "", map[string]any{"refresh_token": in.Refresh}), 401, "UNAUTHORIZED")

	// The registration's own session is another sign-in and still works.
	e.auth("GET", "me", ann.Access, nil).Must(t, 200)
}

func jsonID(v any) string {
	switch x := v.(type) {
	case float64:
		return strconv.FormatFloat(x, 'f', -1, 64)
	case string:
		return x
	}
	return ""
}

func TestAuthRoutesAre404WithoutAnAuthTable(t *testing.T) {
	t.Parallel()
	s := testserver.New(t)
	p := s.NewProject(`{"tables": [{"name": "items", "columns": [{"name": "title", "type": "text"}]}]}`)
	for _, route := range []string{"register", "login", "refresh", "logout", "me"} {
		method := "POST"
		if route == "me" {
			method = "GET"
		}
		r := s.Do(method, "/v1/"+p.ID+"/auth/"+route, "", map[string]any{"email": "a@example.com", "password": password})
		wantError(t, r, 404, "NOT_FOUND")
	}
}

func TestAuthRoutesAnswer404ForUnknownPathsAnd405ForWrongMethods(t *testing.T) {
	t.Parallel()
	e := newEnv(t, appSchema)
	wantError(t, e.auth("POST", "nope", "", map[string]any{}), 404, "NOT_FOUND")
	wantError(t, e.s.Do("GET", "/v1/"+e.p.ID+"/auth", "", nil), 404, "NOT_FOUND")
	wantError(t, e.auth("GET", "login/extra", "", nil), 404, "NOT_FOUND")
	r := e.auth("GET", "login", "", nil)
	wantError(t, r, 405, "METHOD_NOT_ALLOWED")
	if r.Header.Get("Allow") != "POST" {
		t.Fatalf("Allow = %q", r.Header.Get("Allow"))
	}
	if r := e.auth("POST", "me", "", nil); r.Status != 405 || r.Header.Get("Allow") != "GET" {
		t.Fatalf("POST me = %d %s (Allow %q)", r.Status, r.Raw, r.Header.Get("Allow"))
	}
}

func TestRegisterValidatesLikeACreateOnTheAuthTable(t *testing.T) {
	t.Parallel()
	e := newEnv(t, appSchema)
	cases := []struct {
		name  string
		body  any
		field string
		want  string
	}{
		{"missing password", map[string]any{"email": "a@example.com"}, "password", "is required"},
		{"bad e-mail", map[string]any{"email": "nope", "password": password}, "email", "invalid e-mail format"},
		{"short password", map[string]any{"email": "a@example.com", "password": "short"}, "password", "must be at least 8 characters"},
		{"unknown field", map[string]any{"email": "a@example.com", "password": password, "role": "admin"}, "role", "unknown field"},
		{"hash column by name", map[string]any{"email": "a@example.com", "password_hash": password}, "password_hash", "unknown field"},
		{"negative age", map[string]any{"email": "a@example.com", "password": password, "age": -1}, "age", "must be at least 0"},
	}
	for _, c := range cases {
		r := e.auth("POST", "register", "", c.body)
		wantError(t, r, 400, "VALIDATION_ERROR")
		if r.Details()[c.field] != c.want {
			t.Errorf("%s: details = %v, want %s: %s", c.name, r.Details(), c.field, c.want)
		}
	}
	wantError(t, e.auth("POST", "register", "", "[1]"), 400, "INVALID_JSON")
	wantError(t, e.s.Do("POST", "/v1/"+e.p.ID+"/auth/register", "", "email=a", "Content-Type", "text/plain"), 415, "UNSUPPORTED_MEDIA_TYPE")

	// Text is sanitized as on a create; the password is stored hashed.
	ok := e.auth("POST", "register", "", map[string]any{"email": "a@example.com", "password": password, "name": "<b>Al</b>"}).Must(t, 201)
	if ok.Data()["user"].(map[string]any)["name"] != "Al" {
		t.Fatalf("name not sanitized: %s", ok.Raw)
	}
	var stored string
	if err := e.s.Svc.DB.QueryRowContext(context.Background(), `SELECT password_hash FROM p_`+e.p.ID+`.users WHERE email = 'a@example.com'`).Scan(&stored); err != nil {
		t.Fatal(err)
	}
	if !strings.HasPrefix(stored, "$argon2id$") || strings.Contains(stored, password) {
		t.Fatalf("stored password = %q", stored)
	}

	dup := e.auth("POST", "register", "", map[string]any{"email": "A@example.com", "password": password})
	wantError(t, dup, 409, "CONFLICT")
	if dup.Details()["email"] != "already exists" {
		t.Fatalf("duplicate details = %v", dup.Details())
	}
}

func TestRegisterRefusesADuplicateEmailEvenWithoutAUniqueColumn(t *testing.T) {
	t.Parallel()
	e := newEnv(t, `{"tables": [{"name": "members", "auth": true, "columns": [
		{"name": "email", "type": "email", "required": true},
		{"name": "password", "type": "password", "required": true}]}]}`)
	e.register("m@example.com")
	r := e.auth("POST", "register", "", map[string]any{"email": "m@example.com", "password": password})
	wantError(t, r, 409, "CONFLICT")
	if r.Details()["email"] != "already exists" {
		t.Fatalf("details = %v", r.Details())
	}
	// The password column named "password" takes "password".
	e.login("m@example.com")
}

func TestRegisterOfAnInactiveByDefaultUserIssuesNoTokens(t *testing.T) {
	t.Parallel()
	e := newEnv(t, `{"tables": [{"name": "users", "auth": true, "columns": [
		{"name": "email", "type": "email", "required": true, "unique": true},
		{"name": "password_hash", "type": "password", "required": true},
		{"name": "is_active", "type": "boolean", "default": false}]}]}`)
	r := e.auth("POST", "register", "", map[string]any{"email": "new@example.com", "password": password}).Must(t, 201)
	d := r.Data()
	if u, _ := d["user"].(map[string]any); u["is_active"] != false || d["access_token"] != nil || d["refresh_token"] != nil {
		t.Fatalf("register of an inactive user = %s", r.Raw)
	}
	wantError(t, e.auth("POST", "login", "", map[string]any{"email": "new@example.com", "password": password}), 403, "FORBIDDEN")
}

func TestMeNeedsAnAccessToken(t *testing.T) {
	t.Parallel()
	e := newEnv(t, appSchema)
	wantError(t, e.auth("GET", "me", "", nil), 401, "UNAUTHORIZED")
	wantError(t, e.auth("GET", "me", e.p.Key, nil), 403, "FORBIDDEN")
	wantError(t, e.auth("GET", "me", "not-a-token", nil), 401, "UNAUTHORIZED")
	wantError(t, e.s.Do("GET", "/v1/"+e.p.ID+"/auth/me", "", nil, "Authorization", "Basic abc"), 401, "UNAUTHORIZED")
}

func TestLogoutWithTheAccessTokenAloneEndsItsSession(t *testing.T) {
	t.Parallel()
	e := newEnv(t, appSchema)
	e.register("bo@example.com")
	s := e.login("bo@example.com")
	e.auth("POST", "logout", s.Access, nil).Must(t, 200)
	wantError(t, e.auth("GET", "me", s.Access, nil), 401, "UNAUTHORIZED")
	wantError(t, e.auth("POST", "refresh", "", map[string]any{"refresh_token": s.Refresh}), 401, "UNAUTHORIZED")

	wantError(t, e.auth("POST", "logout", "", nil), 401, "UNAUTHORIZED")
	wantError(t, e.auth("POST", "logout", e.p.Key, nil), 403, "FORBIDDEN")
	wantError(t, e.auth("POST", "logout", "", map[string]any{"refresh_token": "tsr_unknown"}), 401, "UNAUTHORIZED")
	wantError(t, e.auth("POST", "logout", "", map[string]any{}), 400, "VALIDATION_ERROR")
}

func TestLogoutWithAnEmptyJSONBodyEndsTheAccessTokensSession(t *testing.T) {
	t.Parallel()
	e := newEnv(t, appSchema)
	e.register("cy@example.com")
	s := e.login("cy@example.com")
	res := e.s.Do("POST", "/v1/"+e.p.ID+"/auth/logout", s.Access, "")
	if res.Status != 200 {
		t.Fatalf("logout with Content-Type: application/json and no body = %d %s", res.Status, res.Raw)
	}
	wantError(t, e.auth("GET", "me", s.Access, nil), 401, "UNAUTHORIZED")
}

func TestAuthRequestsCountAgainstThePlan(t *testing.T) {
	t.Parallel()
	s := testserver.New(t, testserver.WithPlans(plans.Defaults(), "free"))
	p := s.NewProject(appSchema)
	base := "/v1/" + p.ID + "/auth/"
	r := s.Do("POST", base+"register", "", map[string]any{"email": "a@example.com", "password": password}).Must(t, 201)
	if r.Header.Get("X-RateLimit-Limit") != "100" || r.Header.Get("X-RateLimit-Remaining") != "99" {
		t.Fatalf("rate headers on register: %v", r.Header)
	}
	// 404 and 405 are answered before counting.
	s.Do("GET", base+"nope", "", nil).Must(t, 404)
	s.Do("GET", base+"login", "", nil).Must(t, 405)
	for i := 2; i <= 100; i++ {
		s.Do("POST", base+"refresh", "", map[string]any{"refresh_token": "tsr_nope"}).Must(t, 401)
	}
	r = s.Do("POST", base+"login", "", map[string]any{"email": "a@example.com", "password": password})
	wantError(t, r, 429, "RATE_LIMITED")
	if r.Header.Get("Retry-After") == "" {
		t.Fatalf("no Retry-After: %v", r.Header)
	}
}

func TestSwaggerAuthorizeTakesAnAPIKeyOrAnAccessToken(t *testing.T) {
	t.Parallel()
	e := newEnv(t, appSchema)
	doc := e.s.Do("GET", "/v1/"+e.p.ID+"/openapi.json", "", nil).Must(t, 200)
	comps, _ := doc.Body["components"].(map[string]any)
	schemes, _ := comps["securitySchemes"].(map[string]any)
	bearer := 0
	for _, v := range schemes {
		if s, _ := v.(map[string]any); s["type"] == "http" && s["scheme"] == "bearer" {
			bearer++
		}
	}
	if bearer != 1 || len(schemes) != 1 {
		t.Fatalf("want one HTTP bearer scheme for both credentials, got %v", schemes)
	}
	// What Swagger's Authorize sends for either credential.
	s := e.register("swagger@example.com")
	for _, cred := range []string{e.p.Key, s.Access} {
		e.s.Do("GET", "/v1/"+e.p.ID+"/notes", "", nil, "Authorization", "Bearer "+cred).Must(t, 200)
	}
}

func TestRegisterNeedsEmailAndPasswordEvenWhenTheSchemaLeavesThemOptional(t *testing.T) {
	t.Parallel()
	e := newEnv(t, `{"tables": [{"name": "members", "auth": true, "columns": [
		{"name": "email", "type": "email"},
		{"name": "secret_hash", "type": "password"},
		{"name": "nick", "type": "text"}]}]}`)
	r := e.auth("POST", "register", "", map[string]any{"nick": "x", "email": nil})
	wantError(t, r, 400, "VALIDATION_ERROR")
	if d := r.Details(); d["email"] != "is required" || d["secret"] != "is required" || len(d) != 2 {
		t.Fatalf("details = %v", d)
	}
	tokensOf(t, e.auth("POST", "register", "", map[string]any{"email": "m@example.com", "secret": password}).Must(t, 201))
	// Login takes the password as "password" or under register's name.
	e.login("m@example.com")
	e.auth("POST", "login", "", map[string]any{"email": "m@example.com", "secret": password}).Must(t, 200)
}
