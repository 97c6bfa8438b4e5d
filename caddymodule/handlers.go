package caddymodule

import (
	"errors"
	"fmt"
	"net/http"

	"github.com/caddyserver/caddy/v2"
	"github.com/caddyserver/caddy/v2/caddyconfig/caddyfile"
	"github.com/caddyserver/caddy/v2/caddyconfig/httpcaddyfile"
	"github.com/caddyserver/caddy/v2/modules/caddyhttp"

	"github.com/tablesmith/tablesmith/internal/clientaddr"
)

func init() {
	caddy.RegisterModule(&APIHandler{})
	caddy.RegisterModule(&PlatformHandler{})
	caddy.RegisterModule(&CacheHandler{})
	httpcaddyfile.RegisterHandlerDirective("tablesmith_api", parseAPIHandler)
	httpcaddyfile.RegisterHandlerDirective("tablesmith_platform", parsePlatformHandler)
	httpcaddyfile.RegisterHandlerDirective("tablesmith_cache", parseCacheHandler)
	// The edge cache answers before the API it keeps answers of; each
	// order is inserted just before handle, so the cache's goes first.
	httpcaddyfile.RegisterDirectiveOrder("tablesmith_cache", httpcaddyfile.Before, "handle")
	// Before handle: `tablesmith_api /v1/*` at the top of a site answers
	// the generated APIs ahead of the site's handle blocks, without the
	// subroute a handle block adds to every request (Caddyfile.example).
	httpcaddyfile.RegisterDirectiveOrder("tablesmith_api", httpcaddyfile.Before, "handle")
	httpcaddyfile.RegisterDirectiveOrder("tablesmith_platform", httpcaddyfile.Before, "file_server")
}

// APIHandler serves the generated APIs (/v1/...). Syntax: tablesmith_api
type APIHandler struct {
	app    *App
	errors siteErrors
}

// PlatformHandler serves the platform API (/api/...). Syntax: tablesmith_platform
type PlatformHandler struct {
	app    *App
	errors siteErrors
}

// CaddyModule returns the module information.
func (*APIHandler) CaddyModule() caddy.ModuleInfo {
	return caddy.ModuleInfo{ID: "http.handlers.tablesmith_api", New: func() caddy.Module { return new(APIHandler) }}
}

// CaddyModule returns the module information.
func (*PlatformHandler) CaddyModule() caddy.ModuleInfo {
	return caddy.ModuleInfo{ID: "http.handlers.tablesmith_platform", New: func() caddy.Module { return new(PlatformHandler) }}
}

func appOf(ctx caddy.Context) (*App, error) {
	a, err := ctx.AppIfConfigured("tablesmith")
	if errors.Is(err, caddy.ErrNotConfigured) {
		return nil, fmt.Errorf("the tablesmith global option is missing from the Caddyfile (add a `tablesmith { database_url ... }` block): %w", err)
	}
	if err != nil {
		// The option is there but failed to load: its own error says why.
		return nil, err
	}
	return a.(*App), nil
}

// provisionHandler finds the tablesmith app and the server's error
// routes, and tells the handlers, which do not import Caddy, how to read
// the client address Caddy determined.
func provisionHandler(ctx caddy.Context) (*App, siteErrors, error) {
	clientaddr.UseServer(caddyClientAddr)
	app, err := appOf(ctx)
	return app, siteErrorsOf(ctx), err
}

// Provision finds the tablesmith app.
func (h *APIHandler) Provision(ctx caddy.Context) (err error) {
	h.app, h.errors, err = provisionHandler(ctx)
	return err
}

// Provision finds the tablesmith app.
func (h *PlatformHandler) Provision(ctx caddy.Context) (err error) {
	h.app, h.errors, err = provisionHandler(ctx)
	return err
}

// ServeHTTP answers every request itself, errors included as envelopes,
// except that on a site with handle_errors an internal failure that
// nothing was written for yet is returned to Caddy (siteErrors).
func (h *APIHandler) ServeHTTP(w http.ResponseWriter, r *http.Request, _ caddyhttp.Handler) error {
	return h.errors.serve(w, r, h.app.Service().API())
}

// ServeHTTP answers every request itself, errors included as envelopes,
// except that on a site with handle_errors an internal failure that
// nothing was written for yet is returned to Caddy (siteErrors).
func (h *PlatformHandler) ServeHTTP(w http.ResponseWriter, r *http.Request, _ caddyhttp.Handler) error {
	return h.errors.serve(w, r, h.app.Service().Platform())
}

// caddyClientAddr hands the handlers, which do not import Caddy, the
// client address Caddy determined (client_ip, honouring the server's
// trusted_proxies) and whether the peer is a trusted proxy, read from
// the request's variables when a handler asks (clientaddr.UseServer).
func caddyClientAddr(r *http.Request) (ip string, trusted bool, ok bool) {
	ip, _ = caddyhttp.GetVar(r.Context(), caddyhttp.ClientIPVarKey).(string)
	if ip == "" {
		return "", false, false
	}
	trusted, _ = caddyhttp.GetVar(r.Context(), caddyhttp.TrustedProxyVarKey).(bool)
	return ip, trusted, true
}

// UnmarshalCaddyfile parses the directive, which takes no arguments.
func (h *APIHandler) UnmarshalCaddyfile(d *caddyfile.Dispenser) error { return noArgs(d) }

// UnmarshalCaddyfile parses the directive, which takes no arguments.
func (h *PlatformHandler) UnmarshalCaddyfile(d *caddyfile.Dispenser) error { return noArgs(d) }

func noArgs(d *caddyfile.Dispenser) error {
	d.Next()
	if d.NextArg() {
		return d.Errf("%s takes no arguments (configure Tablesmith in the global tablesmith block)", d.Val())
	}
	if d.NextBlock(0) {
		return d.Errf("%s takes no block (configure Tablesmith in the global tablesmith block)", d.Val())
	}
	return nil
}

func parseAPIHandler(h httpcaddyfile.Helper) (caddyhttp.MiddlewareHandler, error) {
	m := new(APIHandler)
	return m, m.UnmarshalCaddyfile(h.Dispenser)
}

func parsePlatformHandler(h httpcaddyfile.Helper) (caddyhttp.MiddlewareHandler, error) {
	m := new(PlatformHandler)
	return m, m.UnmarshalCaddyfile(h.Dispenser)
}

// Interface guards.
var (
	_ caddyhttp.MiddlewareHandler = (*APIHandler)(nil)
	_ caddyhttp.MiddlewareHandler = (*PlatformHandler)(nil)
	_ caddy.Provisioner           = (*APIHandler)(nil)
	_ caddy.Provisioner           = (*PlatformHandler)(nil)
	_ caddyfile.Unmarshaler       = (*APIHandler)(nil)
	_ caddyfile.Unmarshaler       = (*PlatformHandler)(nil)
)
