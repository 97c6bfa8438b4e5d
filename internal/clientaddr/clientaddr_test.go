package clientaddr_test

import (
	"crypto/tls"
	"net/http"
	"net/http/httptest"
	"testing"

	"github.com/tablesmith/tablesmith/internal/clientaddr"
)

func TestFromPrefersTheAddressTheServerDeterminedAndFallsBackToThePeer(t *testing.T) {
	r := httptest.NewRequest("GET", "/", nil)
	r.RemoteAddr = "192.0.2.7:5555"
	if ip, trusted := clientaddr.From(r); ip != "192.0.2.7" || trusted {
		t.Fatalf("without context: %s %v", ip, trusted)
	}
	r = r.WithContext(clientaddr.With(r.Context(), "203.0.113.9", true))
	if ip, trusted := clientaddr.From(r); ip != "203.0.113.9" || !trusted {
		t.Fatalf("with context: %s %v", ip, trusted)
	}
}

func TestSchemeBelievesXForwardedProtoOnlyFromATrustedProxy(t *testing.T) {
	for _, tc := range []struct {
		trusted bool
		tls     bool
		header  string
		want    string
	}{
		{trusted: false, header: "https", want: "http"},
		{trusted: true, header: "https", want: "https"},
		{trusted: true, header: "HTTP", tls: true, want: "http"},
		{trusted: true, header: "gopher", want: "http"},
		{trusted: false, tls: true, header: "http", want: "https"},
	} {
		r := httptest.NewRequest("GET", "/", nil)
		r.Header.Set("X-Forwarded-Proto", tc.header)
		if tc.tls {
			r.TLS = &tls.ConnectionState{}
		}
		r = r.WithContext(clientaddr.With(r.Context(), "198.51.100.1", tc.trusted))
		if got := clientaddr.Scheme(r); got != tc.want {
			t.Errorf("%+v: scheme %s, want %s", tc, got, tc.want)
		}
	}
}

func TestFromConsultsTheServersReaderOnlyWhileOneIsInUse(t *testing.T) {
	t.Cleanup(func() { clientaddr.UseServer(nil) })
	r := httptest.NewRequest("GET", "/", nil)
	r.RemoteAddr = "192.0.2.7:5555"
	clientaddr.UseServer(func(*http.Request) (string, bool, bool) { return "198.51.100.4", true, true })
	if ip, trusted := clientaddr.From(r); ip != "198.51.100.4" || !trusted {
		t.Fatalf("with a reader in use: %s %v", ip, trusted)
	}
	clientaddr.UseServer(func(*http.Request) (string, bool, bool) { return "", false, false })
	if ip, trusted := clientaddr.From(r); ip != "192.0.2.7" || trusted {
		t.Fatalf("with a reader that finds nothing: %s %v, want the peer", ip, trusted)
	}
	clientaddr.UseServer(nil)
	if ip, _ := clientaddr.From(r); ip != "192.0.2.7" {
		t.Fatalf("with no reader: %s, want the peer", ip)
	}
}
