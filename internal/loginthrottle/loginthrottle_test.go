package loginthrottle_test

import (
	"net/http/httptest"
	"testing"

	"github.com/tablesmith/tablesmith/internal/clientaddr"
	"github.com/tablesmith/tablesmith/internal/loginthrottle"
)

func TestClientAddrIsTheDeterminedAddressWithIPv6CountedPerSlash64(t *testing.T) {
	for given, want := range map[string]string{
		"203.0.113.9":              "203.0.113.9",
		"2001:db8:1:2:aaaa::1":     "2001:db8:1:2::/64",
		"2001:db8:1:2:ffff:ffff::": "2001:db8:1:2::/64",
	} {
		r := httptest.NewRequest("POST", "/api/auth/login", nil)
		r.RemoteAddr = "127.0.0.1:9999"
		r = r.WithContext(clientaddr.With(r.Context(), given, true))
		if got := loginthrottle.ClientAddr(r); got != want {
			t.Errorf("%s: %s, want %s", given, got, want)
		}
	}
}
