package caddymodule

import (
	"context"
	"net/http/httptest"
	"testing"

	"github.com/caddyserver/caddy/v2/modules/caddyhttp"

	"github.com/tablesmith/tablesmith/internal/clientaddr"
)

func TestHandlersPassOnTheClientAddressCaddyDetermined(t *testing.T) {
	for _, trusted := range []bool{true, false} {
		r := httptest.NewRequest("GET", "/api/account", nil)
		r.RemoteAddr = "10.0.0.2:40000"
		r.Header.Set("X-Forwarded-Proto", "https")
		vars := map[string]any{caddyhttp.ClientIPVarKey: "203.0.113.5", caddyhttp.TrustedProxyVarKey: trusted}
		r = r.WithContext(context.WithValue(r.Context(), caddyhttp.VarsCtxKey, vars))
		got := r // the handlers get Caddy's request as it is (clientaddr.Server reads its vars)
		ip, isTrusted := clientaddr.From(got)
		if ip != "203.0.113.5" || isTrusted != trusted {
			t.Fatalf("trusted=%v: handlers see %s, trusted %v", trusted, ip, isTrusted)
		}
		want := map[bool]string{true: "https", false: "http"}[trusted]
		if s := clientaddr.Scheme(got); s != want {
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
