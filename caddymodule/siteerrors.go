package caddymodule

import (
	"bytes"
	"fmt"
	"net/http"

	"github.com/caddyserver/caddy/v2"
	"github.com/caddyserver/caddy/v2/modules/caddyhttp"
)

// siteErrors decides which failures a handler hands to Caddy. By default
// none: the client gets the contract's envelope for every error, as the
// API promises. On a site whose operator wrote a handle_errors block that
// takes a 500, an internal failure (a panic, or an error the service did
// not expect) that nothing was written for yet is returned to Caddy
// instead, so the error routes answer it as they answer any other
// handler's failure, with {err.status_code} and {err.message}. Every other
// answer, 4xx and the 503 that tells a client to retry included, is the
// API's and stays an envelope (docs/deployment.md, "Caddy's
// handle_errors").
type siteErrors struct {
	// srv is the server the handler is in, when it has error routes.
	srv *caddyhttp.Server
}

// siteErrorsOf finds the server being provisioned (Caddy provisions a
// server's routes with it in the context) and keeps it if it has error
// routes.
func siteErrorsOf(ctx caddy.Context) siteErrors {
	srv, _ := ctx.Value(caddyhttp.ServerCtxKey).(*caddyhttp.Server)
	if srv == nil || srv.Errors == nil || len(srv.Errors.Routes) == 0 {
		return siteErrors{}
	}
	return siteErrors{srv: srv}
}

// handles reports whether the request's site has error routes: the
// Caddyfile gives each site's handle_errors a route that matches the
// site's hosts, so a server with several sites is asked per request.
func (e siteErrors) handles(r *http.Request) bool {
	for _, route := range e.srv.Errors.Routes {
		if ok, err := route.MatcherSets.AnyMatchWithError(r); ok && err == nil {
			return true
		}
	}
	return false
}

// serve runs next; on a site with handle_errors it holds back a 500 and
// returns it to Caddy as an error. Without error routes next writes
// straight through, at no cost.
func (e siteErrors) serve(w http.ResponseWriter, r *http.Request, next http.Handler) error {
	if e.srv == nil || !e.handles(r) {
		next.ServeHTTP(w, r)
		return nil
	}
	var held bytes.Buffer
	rec := caddyhttp.NewResponseRecorder(w, &held, func(status int, _ http.Header) bool {
		return status == http.StatusInternalServerError
	})
	next.ServeHTTP(rec, r)
	if !rec.Buffered() || rec.Status() != http.StatusInternalServerError {
		return nil
	}
	err := caddyhttp.Error(http.StatusInternalServerError,
		fmt.Errorf("tablesmith: internal error (request id %s; the cause is in the log)", w.Header().Get("X-Request-Id")))
	if !reaches(e.srv.Errors.Routes, e.srv.Errors.WithError(r, err)) {
		// The site's handle_errors blocks all name other codes (such
		// as handle_errors 404): Caddy would answer an empty 500, so the
		// envelope goes out after all.
		return rec.WriteResponse()
	}
	// The envelope is dropped with the headers that describe it; the
	// request id stays, and the service logged the cause under it.
	h := w.Header()
	for _, k := range []string{"Content-Type", "Content-Length", "Content-Encoding", "Etag", "Last-Modified"} {
		h.Del(k)
	}
	return err
}

// reaches reports whether the error routes, for a request that carries
// its error (HTTPErrorConfig.WithError, which the status-code matchers of
// `handle_errors 404` read), lead through matching routes to a handler
// other than a subroute: one that answers.
func reaches(routes caddyhttp.RouteList, r *http.Request) bool {
	for _, route := range routes {
		if ok, err := route.MatcherSets.AnyMatchWithError(r); !ok || err != nil {
			continue
		}
		for _, h := range route.Handlers {
			sub, ok := h.(*caddyhttp.Subroute)
			if !ok || reaches(sub.Routes, r) {
				return true
			}
		}
	}
	return false
}
