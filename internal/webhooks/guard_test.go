package webhooks

import (
	"net/http"
	"net/http/httptest"
	"net/netip"
	"strings"
	"testing"
)

// The dialer checks the address it connects to, after name resolution:
// "localhost" passes a check of the URL's text only if that check is
// fooled (a DNS name that resolves to 127.0.0.1 is the rebinding case);
// the connection is refused all the same.
func TestDeliveriesNeverConnectToAPrivateAddressUnlessAllowed(t *testing.T) {
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {}))
	defer srv.Close()
	byName := strings.Replace(srv.URL, "127.0.0.1", "localhost", 1)
	for _, u := range []string{srv.URL, byName} {
		_, err := newClient(false).Post(u, "application/json", nil)
		if err == nil || !strings.Contains(deliveryError(err), "refused to connect") {
			t.Errorf("%s: %v, want the connection refused", u, err)
		}
		res, err := newClient(true).Post(u, "application/json", nil)
		if err != nil {
			t.Errorf("%s with private targets allowed: %v", u, err)
			continue
		}
		res.Body.Close()
	}
}

func TestRedirectsAreNotFollowed(t *testing.T) {
	target := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) { t.Error("the redirect was followed") }))
	defer target.Close()
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		http.Redirect(w, r, target.URL, http.StatusTemporaryRedirect)
	}))
	defer srv.Close()
	res, err := newClient(true).Post(srv.URL, "application/json", nil)
	if err != nil {
		t.Fatal(err)
	}
	res.Body.Close()
	if res.StatusCode != http.StatusTemporaryRedirect {
		t.Fatalf("status %d, want the redirect itself", res.StatusCode)
	}
}

func TestPublicAddrRefusesEveryPrivateRange(t *testing.T) {
	for _, a := range []string{"127.0.0.1", "10.1.2.3", "172.16.0.1", "192.168.1.1", "169.254.169.254", "100.64.0.1", "0.0.0.0",
		"::1", "fe80::1", "fc00::1", "::ffff:127.0.0.1", "::ffff:10.0.0.1", "64:ff9b::a00:1", "224.0.0.1", "255.255.255.255"} {
		if publicAddr(netip.MustParseAddr(a)) {
			t.Errorf("%s is taken as public", a)
		}
	}
	for _, a := range []string{"93.184.216.34", "8.8.8.8", "2606:4700:4700::1111"} {
		if !publicAddr(netip.MustParseAddr(a)) {
			t.Errorf("%s is taken as private", a)
		}
	}
}

func TestKeepCutsTheAnswerToValidUTF8(t *testing.T) {
	long := strings.Repeat("é", MaxResponseKept) // two bytes each
	got := keep([]byte(long))
	if len(got) > MaxResponseKept+2 || !strings.HasPrefix(got, "éé") {
		t.Errorf("kept %d bytes", len(got))
	}
	if keep([]byte{0xff, 'a'}) != "\uFFFDa" {
		t.Errorf("invalid bytes kept as %q", keep([]byte{0xff, 'a'}))
	}
}
