package caddymodule

import (
	"context"
	"encoding/json"
	"net/http"
	"net/http/httptest"
	"testing"

	"github.com/caddyserver/caddy/v2"
	"github.com/caddyserver/caddy/v2/modules/caddyhttp"

	"github.com/tablesmith/tablesmith/internal/clientaddr"
)

// TestProvisionedHandlersPassOnTheClientAddressCaddyDetermined: the
// handlers read Caddy's client_ip (and whether the peer is a trusted
// proxy) once a config with them has been provisioned, not because the
// module was imported.
func TestProvisionedHandlersPassOnTheClientAddressCaddyDetermined(t *testing.T) {
	clientaddr.UseServer(nil)
	t.Cleanup(func() { clientaddr.UseServer(caddyClientAddr) })
	caddyRequest := func(trusted bool) *http.Request {
		r := httptest.NewRequest("GET", "/api/account", nil)
		r.RemoteAddr = "10.0.0.2:40000"
		r.Header.Set("X-Forwarded-Proto", "https")
		vars := map[string]any{caddyhttp.ClientIPVarKey: "203.0.113.5", caddyhttp.TrustedProxyVarKey: trusted}
		return r.WithContext(context.WithValue(r.Context(), caddyhttp.VarsCtxKey, vars))
	}
	if ip, _ := clientaddr.From(caddyRequest(true)); ip != "10.0.0.2" {
		t.Fatalf("before any provisioning the handlers see %s, want the peer 10.0.0.2", ip)
	}
	var cfg caddy.Config
	if err := json.Unmarshal([]byte(`{"admin": {"disabled": true}, "apps": {
		"tablesmith": {"database_url": "postgres://nobody@127.0.0.1:1/none?sslmode=disable"},
		"http": {"servers": {"s": {"listen": ["127.0.0.1:0"], "routes": [{"handle": [{"handler": "tablesmith_api"}]}]}}}}}`), &cfg); err != nil {
		t.Fatal(err)
	}
	if err := caddy.Validate(&cfg); err != nil {
		t.Fatal(err)
	}
	for _, trusted := range []bool{true, false} {
		r := caddyRequest(trusted)
		ip, isTrusted := clientaddr.From(r)
		if ip != "203.0.113.5" || isTrusted != trusted {
			t.Fatalf("trusted=%v: handlers see %s, trusted %v", trusted, ip, isTrusted)
		}
		want := map[bool]string{true: "https", false: "http"}[trusted]
		if s := clientaddr.Scheme(r); s != want {
			t.Fatalf("trusted=%v: scheme %s, want %s", trusted, s, want)
		}
	}
	// Without Caddy's vars the peer is the client.
	r := httptest.NewRequest("GET", "/", nil)
	r.RemoteAddr = "192.0.2.1:1234"
	if ip, trusted := clientaddr.From(r); ip != "192.0.2.1" || trusted {
		t.Fatalf("without vars: %s %v", ip, trusted)
	}
}
