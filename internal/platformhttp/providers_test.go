package platformhttp_test

import (
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"

	"github.com/tablesmith/tablesmith/internal/testoidc"
	"github.com/tablesmith/tablesmith/internal/testserver"
)

const providersSchema = `{"tables": [{"name": "users", "auth": true, "columns": [
	{"name": "email", "type": "email", "required": true, "unique": true},
	{"name": "password_hash", "type": "password", "required": true}]}]}`

func TestProviderConfigurationIsValidatedNamingTheFields(t *testing.T) {
	t.Parallel()
	s := testserver.New(t)
	p := s.NewProject(providersSchema)
	op := testoidc.Start(t)
	// A server that answers, but is no OpenID provider.
	notOP := httptest.NewServer(http.NotFoundHandler())
	t.Cleanup(notOP.Close)
	put := func(name string, body any) *testserver.Response {
		return s.Do("PUT", "/api/projects/"+p.ID+"/auth/providers/"+name, p.Session, body)
	}
	for _, tc := range []struct {
		name  string
		body  string
		field string
		in    string
	}{
		{"corp", `{"client_id": "a", "client_secret": "b"}`, "kind", "required"},
		{"corp", `{"kind": "facebook", "client_id": "a", "client_secret": "b"}`, "kind", "not a kind"},
		{"corp", `{"kind": "oidc", "client_id": "a", "client_secret": "b"}`, "issuer", "required"},
		{"corp", `{"kind": "oidc", "issuer": "ftp://x", "client_id": "a", "client_secret": "b"}`, "issuer", "https"},
		{"corp", `{"kind": "oidc", "issuer": "http://login.example.com", "client_id": "a", "client_secret": "b"}`, "issuer", "https"},
		{"corp", `{"kind": "oidc", "issuer": "https://login.example.com?x=1", "client_id": "a", "client_secret": "b"}`, "issuer", "query"},
		{"corp", `{"kind": "google", "issuer": "https://accounts.google.com", "client_id": "a", "client_secret": "b"}`, "issuer", "leave it out"},
		{"corp", `{"kind": "google", "tenant": "x", "client_id": "a", "client_secret": "b"}`, "tenant", "microsoft"},
		{"corp", `{"kind": "microsoft", "tenant": "a/b", "client_id": "a", "client_secret": "b"}`, "tenant", "directory"},
		{"corp", `{"kind": "google", "client_secret": "b"}`, "client_id", "required"},
		{"corp", `{"kind": "google", "client_id": "a"}`, "client_secret", "required"},
		{"corp", `{"kind": "google", "client_id": "a", "client_secret": ""}`, "client_secret", "empty"},
		{"corp", `{"kind": "google", "client_id": "a", "client_secret": "b", "scopes": ["email"]}`, "scopes", "openid"},
		{"corp", `{"kind": "google", "client_id": "a", "client_secret": "b", "scopes": ["open id"]}`, "scopes", "not a scope"},
		{"corp", `{"kind": "google", "client_id": "a", "client_secret": "b", "colour": "red"}`, "colour", ""},
		{"Corp", `{"kind": "google", "client_id": "a", "client_secret": "b"}`, "name", "slug"},
		{"corp", `{"kind": "oidc", "issuer": "` + notOP.URL + `", "client_id": "a", "client_secret": "b"}`, "issuer", "404"},
		{"corp", `{"kind": "oidc", "issuer": "` + op.Issuer + `/", "client_id": "a", "client_secret": "b"}`, "issuer", "names the issuer"},
	} {
		r := put(tc.name, tc.body)
		d := r.Details()
		if r.Status != 400 || d[tc.field] == nil || !strings.Contains(d[tc.field].(string), tc.in) {
			t.Errorf("PUT %s %s: want 400 naming %s (%q), got %d %s", tc.name, tc.body, tc.field, tc.in, r.Status, r.Raw)
		}
	}
	if list := s.Do("GET", "/api/projects/"+p.ID+"/auth/providers", p.Session, nil).Must(t, 200).List(); len(list) != 0 {
		t.Fatalf("refused configurations were saved: %v", list)
	}

	// Presets fill the issuer; the view never shows the secret.
	ms := put("work", map[string]any{"kind": "microsoft", "tenant": "contoso.onmicrosoft.com", "client_id": "abc", "client_secret": "shh-do-not-show"}).Must(t, 200)
	v := ms.Data()
	if v["issuer"] != "https://login.microsoftonline.com/contoso.onmicrosoft.com/v2.0" || v["tenant"] != "contoso.onmicrosoft.com" ||
		v["client_secret_set"] != true || v["enabled"] != true || v["redirect_uri"] != s.URL+"/v1/"+p.ID+"/auth/providers/work/callback" ||
		strings.Join(toStrings(v["scopes"]), " ") != "openid email profile" || strings.Contains(string(ms.Raw), "shh-do-not-show") {
		t.Fatalf("microsoft view = %s", ms.Raw)
	}
	g := put("google", map[string]any{"kind": "google", "client_id": "g", "client_secret": "x", "enabled": false}).Must(t, 200).Data()
	if g["issuer"] != "https://accounts.google.com" || g["enabled"] != false {
		t.Fatalf("google view = %v", g)
	}
	put("corp", map[string]any{"kind": "oidc", "issuer": op.Issuer, "client_id": "c", "client_secret": "x"}).Must(t, 200)
	list := s.Do("GET", "/api/projects/"+p.ID+"/auth/providers", p.Session, nil).Must(t, 200)
	if l := list.List(); len(l) != 3 || l[0]["name"] != "corp" || l[2]["name"] != "work" || strings.Contains(string(list.Raw), "shh-do-not-show") {
		t.Fatalf("list = %s", list.Raw)
	}

	// Delete; then it is gone.
	s.Do("DELETE", "/api/projects/"+p.ID+"/auth/providers/work", p.Session, nil).Must(t, 200)
	s.Do("DELETE", "/api/projects/"+p.ID+"/auth/providers/work", p.Session, nil).Must(t, 404)
	// Another account's project is not found; no session is 401.
	other := s.Signup("someone-else@example.com")
	s.Do("GET", "/api/projects/"+p.ID+"/auth/providers", other, nil).Must(t, 404)
	s.Do("PUT", "/api/projects/"+p.ID+"/auth/providers/x", other, map[string]any{"kind": "google", "client_id": "a", "client_secret": "b"}).Must(t, 404)
	s.Do("GET", "/api/projects/"+p.ID+"/auth/providers", "", nil).Must(t, 401)
	s.Do("POST", "/api/projects/"+p.ID+"/auth/providers/x", p.Session, nil).Must(t, 405)
}

func toStrings(v any) []string {
	arr, _ := v.([]any)
	out := make([]string, len(arr))
	for i, x := range arr {
		out[i], _ = x.(string)
	}
	return out
}
