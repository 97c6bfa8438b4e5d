// Package clientaddr carries the client address that the server in front
// determined (Caddy's client_ip, which honours its trusted_proxies) and
// whether the peer is a trusted proxy, so that handlers need not import
// Caddy. Without them (tests under httptest) the peer is the client and
// is not trusted.
package clientaddr

import (
	"context"
	"net"
	"net/http"
	"strings"
)

type key struct{}

type addr struct {
	ip      string
	trusted bool
}

// With returns ctx carrying the client's IP and whether the request came
// through a trusted proxy.
func With(ctx context.Context, ip string, trustedProxy bool) context.Context {
	return context.WithValue(ctx, key{}, addr{ip, trustedProxy})
}

// Server, when set, reads the client address that the server in front
// keeps in the request itself (the Caddy module sets it at init): unlike
// With, it costs a request no copy. ok is false when the request holds
// none.
var Server func(r *http.Request) (ip string, trustedProxy bool, ok bool)

// From returns the client's IP and whether the peer is a trusted proxy:
// the values With put in the request's context, or else Server's, or
// else the host of RemoteAddr, untrusted.
func From(r *http.Request) (ip string, trustedProxy bool) {
	if a, ok := r.Context().Value(key{}).(addr); ok && a.ip != "" {
		return a.ip, a.trusted
	}
	if Server != nil {
		if ip, trusted, ok := Server(r); ok {
			return ip, trusted
		}
	}
	host, _, err := net.SplitHostPort(r.RemoteAddr)
	if err != nil {
		return r.RemoteAddr, false
	}
	return host, false
}

// Scheme is the scheme the client used: X-Forwarded-Proto (http or
// https) when a trusted proxy sent the request, else https over TLS and
// http without. Anyone can send the header; only a proxy we trust is
// believed.
func Scheme(r *http.Request) string {
	if _, trusted := From(r); trusted {
		switch p := strings.ToLower(r.Header.Get("X-Forwarded-Proto")); p {
		case "http", "https":
			return p
		}
	}
	if r.TLS != nil {
		return "https"
	}
	return "http"
}
