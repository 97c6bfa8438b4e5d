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
	"sync/atomic"
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

// ServerFunc reads the client address that the server in front keeps in
// the request itself: unlike With, it costs a request no copy. ok is
// false when the request holds none.
type ServerFunc func(r *http.Request) (ip string, trustedProxy bool, ok bool)

// server is the ServerFunc in use, if any. It is read on every From and
// may be set while requests are served (a config reload provisions its
// handlers then), hence atomic.
var server atomic.Pointer[ServerFunc]

// UseServer makes From consult f (nil: no longer consult any). The Caddy
// module calls it when it provisions its handlers.
func UseServer(f ServerFunc) {
	if f == nil {
		server.Store(nil)
		return
	}
	server.Store(&f)
}

// From returns the client's IP and whether the peer is a trusted proxy:
// the values With put in the request's context, or else UseServer's, or
// else the host of RemoteAddr, untrusted.
func From(r *http.Request) (ip string, trustedProxy bool) {
	if a, ok := r.Context().Value(key{}).(addr); ok && a.ip != "" {
		return a.ip, a.trusted
	}
	if f := server.Load(); f != nil {
		if ip, trusted, ok := (*f)(r); ok {
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
