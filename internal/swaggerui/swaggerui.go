// Package swaggerui serves Swagger UI from files embedded at build time
// (copied from swagger-ui-dist by copy-assets.sh), with a page that loads
// the project's ./openapi.json and keeps the Authorize credential.
package swaggerui

import (
	"bytes"
	"crypto/sha256"
	"embed"
	"encoding/hex"
	"io/fs"
	"mime"
	"net/http"
	"path"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/tablesmith/tablesmith/internal/compress"
)

//go:embed assets
var embedded embed.FS

// Embedded returns the files built into the module (only a README when
// copy-assets.sh did not run before the build).
func Embedded() fs.FS {
	sub, err := fs.Sub(embedded, "assets")
	if err != nil {
		panic(err)
	}
	return sub
}

// required are the files without which the page cannot work.
var required = []string{"swagger-ui-bundle.js", "swagger-ui-standalone-preset.js", "swagger-ui.css"}

// servable are the files the UI serves; everything else in the directory
// (README, LICENSE) stays private.
var servable = map[string]bool{
	"swagger-ui-bundle.js": true, "swagger-ui-standalone-preset.js": true, "swagger-ui.css": true,
	"favicon-16x16.png": true, "favicon-32x32.png": true, initScript: true,
}

const initScript = "init.js"

// MissingMessage is what /docs answers when the assets were not embedded.
const MissingMessage = "Swagger UI is not part of this build: its files were not embedded. " +
	"Run internal/swaggerui/copy-assets.sh (or make swagger-ui; needs Node.js and npm) and rebuild. " +
	"The API description itself is served at ./openapi.json."

// UI serves the page and its assets.
type UI struct {
	files   fs.FS
	missing []string
	version string
	page    []byte
	etags   map[string]string
	// encoded holds each asset compressed, made by its first request for
	// that encoding: the bundle is 1.4 MB, so compressing it per request
	// (as Caddy's encode would) costs more than serving it.
	encoded sync.Map // name + "." + encoding → []byte
}

// New prepares a UI over files (normally Embedded()).
func New(files fs.FS) *UI {
	u := &UI{files: files, etags: map[string]string{}}
	for _, name := range required {
		if _, err := fs.Stat(files, name); err != nil {
			u.missing = append(u.missing, name)
		}
	}
	if v, err := fs.ReadFile(files, "VERSION"); err == nil {
		u.version = strings.TrimSpace(string(v))
	}
	u.page = []byte(strings.ReplaceAll(pageHTML, "{{version}}", u.version))
	for name := range servable {
		if data, err := u.read(name); err == nil {
			sum := sha256.Sum256(data)
			u.etags[name] = `"` + hex.EncodeToString(sum[:8]) + `"`
		}
	}
	return u
}

// Available reports whether every file the page needs is there.
func (u *UI) Available() bool { return len(u.missing) == 0 }

// ServePage writes the HTML page. It is the same for every project: it
// loads ./openapi.json and its assets from docs/, relative to its URL
// /v1/<project_id>/docs.
func (u *UI) ServePage(w http.ResponseWriter, r *http.Request) {
	h := w.Header()
	h.Set("Content-Type", "text/html; charset=utf-8")
	h.Set("Cache-Control", "no-cache")
	setPageSecurity(h)
	http.ServeContent(w, r, "", time.Time{}, bytes.NewReader(u.page))
}

// ServeAsset writes one of the UI's files; it answers false when there is
// no such file, so the caller writes its own 404.
func (u *UI) ServeAsset(w http.ResponseWriter, r *http.Request, name string) bool {
	if !servable[name] {
		return false
	}
	data, err := u.read(name)
	if err != nil {
		return false
	}
	h := w.Header()
	ct := mime.TypeByExtension(path.Ext(name))
	if ct == "" {
		ct = "application/octet-stream"
	}
	h.Set("Content-Type", ct)
	h.Set("Cache-Control", "public, max-age=86400")
	h.Set("ETag", u.etags[name])
	h.Set("X-Content-Type-Options", "nosniff")
	if len(data) >= compress.MinSize {
		h.Add("Vary", "Accept-Encoding")
		// A range request gets the identity bytes it counts in.
		if enc := compress.Negotiate(r.Header.Get("Accept-Encoding")); enc != "" && r.Header.Get("Range") == "" {
			u.serveEncoded(w, r, name, enc, data)
			return true
		}
	}
	http.ServeContent(w, r, name, time.Time{}, bytes.NewReader(data))
	return true
}

// serveEncoded writes the asset compressed with enc, under an ETag of its
// own (the bytes differ from the identity form's); ServeContent answers
// If-None-Match and HEAD as it does for the identity form.
func (u *UI) serveEncoded(w http.ResponseWriter, r *http.Request, name, enc string, data []byte) {
	key := name + "." + enc
	body, ok := u.encoded.Load(key)
	if !ok {
		body, _ = u.encoded.LoadOrStore(key, compress.Encode(enc, nil, data))
	}
	b := body.([]byte)
	h := w.Header()
	h.Set("ETag", strings.TrimSuffix(u.etags[name], `"`)+"-"+enc+`"`)
	h.Set("Content-Encoding", enc)
	// ServeContent leaves the length of an encoded body to the caller.
	h.Set("Content-Length", strconv.Itoa(len(b)))
	http.ServeContent(w, r, name, time.Time{}, bytes.NewReader(b))
}

func (u *UI) read(name string) ([]byte, error) {
	if name == initScript {
		return []byte(initJS), nil
	}
	return fs.ReadFile(u.files, name)
}

// setPageSecurity keeps the page to its own origin: scripts and styles
// from the module, requests to this server only (Try it out).
func setPageSecurity(h http.Header) {
	h.Set("Content-Security-Policy", "default-src 'none'; script-src 'self'; style-src 'self' 'unsafe-inline'; "+
		"img-src 'self' data:; font-src 'self' data:; connect-src 'self'; base-uri 'none'; form-action 'none'; frame-ancestors 'self'")
	h.Set("X-Content-Type-Options", "nosniff")
	h.Set("Referrer-Policy", "no-referrer")
}

// pageHTML is the page; every URL in it is relative to /v1/<project_id>/docs.
const pageHTML = `<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<meta name="generator" content="Tablesmith, swagger-ui-dist {{version}}">
<title>API documentation</title>
<link rel="icon" type="image/png" sizes="32x32" href="docs/favicon-32x32.png">
<link rel="icon" type="image/png" sizes="16x16" href="docs/favicon-16x16.png">
<link rel="stylesheet" href="docs/swagger-ui.css">
</head>
<body>
<nav class="ts-descriptions" aria-label="API description files" style="font:14px sans-serif;padding:8px 20px;border-bottom:1px solid #ddd">
The description: OpenAPI 3.1 <a href="openapi.json">openapi.json</a> · <a href="openapi.yaml">openapi.yaml</a>;
OpenAPI 3.0 for tools that read only 3.0 (Kong, older generators) <a href="openapi-3.0.json">openapi-3.0.json</a> · <a href="openapi-3.0.yaml">openapi-3.0.yaml</a>
</nav>
<div id="swagger-ui"></div>
<script src="docs/swagger-ui-bundle.js"></script>
<script src="docs/swagger-ui-standalone-preset.js"></script>
<script src="docs/init.js"></script>
</body>
</html>
`

// initJS starts Swagger UI. It lives in a file of its own so the page's
// Content-Security-Policy needs no inline script. The standalone layout
// is kept without its top bar: the page documents one API, not any URL.
const initJS = `"use strict";
window.addEventListener("load", function () {
  var hideTopbar = function () { return { components: { Topbar: function () { return null; } } }; };
  // Swagger UI looks up an input per type and format for the items of an
  // array parameter (filter[id][in]: int64) and warns in the console for
  // each it lacks; these formats take the plain text input it falls back to.
  var formatInputs = function (system) {
    var plain = function (props) { return system.React.createElement(props.getComponent("JsonSchema_string"), props); };
    var components = {};
    ["integer_int64", "integer_int32", "number_double", "number_float", "string_date", "string_date-time",
      "string_uuid", "string_email", "string_uri"].forEach(function (format) { components["JsonSchema_" + format] = plain; });
    return { components: components };
  };
  window.ui = SwaggerUIBundle({
    url: "./openapi.json",
    dom_id: "#swagger-ui",
    deepLinking: true,
    persistAuthorization: true,
    displayRequestDuration: true,
    filter: true,
    showExtensions: true,
    showCommonExtensions: true,
    validatorUrl: null,
    presets: [SwaggerUIBundle.presets.apis, SwaggerUIStandalonePreset],
    plugins: [SwaggerUIBundle.plugins.DownloadUrl, hideTopbar, formatInputs],
    layout: "StandaloneLayout"
  });
});
`
