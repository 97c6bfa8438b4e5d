package apihttp

import (
	"bytes"
	"hash/fnv"
	"log/slog"
	"net/http"
	"regexp"
	"strconv"
	"strings"

	"github.com/tablesmith/tablesmith/apierr"
	"github.com/tablesmith/tablesmith/internal/clientaddr"
	"github.com/tablesmith/tablesmith/internal/compress"
	"github.com/tablesmith/tablesmith/internal/swaggerui"
	"github.com/tablesmith/tablesmith/openapi"
)

// Operations of the documentation routes, as analytics names them.
const (
	OpOpenAPI = "openapi"
	OpDocs    = "docs"
)

// DocsRoutes are the routes that describe a project's API: the OpenAPI
// document (openapi.json, openapi.yaml, and the 3.0 rendition
// openapi-3.0.json, openapi-3.0.yaml) and Swagger UI (docs). They take
// no credential, are not counted against the plan (CONTRACT 5, 6) and do
// not appear in analytics: the dashboard fetches them on every visit.
func DocsRoutes(ui *swaggerui.UI, log *slog.Logger) map[string]RouteHandler {
	if log == nil {
		log = slog.Default()
	}
	return map[string]RouteHandler{
		"openapi.json": func(h *Handler, w http.ResponseWriter, r *http.Request, rt *Route) error {
			return serveOpenAPI(w, r, rt, openapi.Format{}, log)
		},
		"openapi.yaml": func(h *Handler, w http.ResponseWriter, r *http.Request, rt *Route) error {
			return serveOpenAPI(w, r, rt, openapi.Format{YAML: true}, log)
		},
		// The 3.0 rendition for the tools that read only 3.0 (Kong's
		// openapi-2-kong, older generators): a file of its own rather than
		// a query on openapi.json, since importers take a URL and some
		// drop its query (docs/openapi.md).
		"openapi-3.0.json": func(h *Handler, w http.ResponseWriter, r *http.Request, rt *Route) error {
			return serveOpenAPI(w, r, rt, openapi.Format{V30: true}, log)
		},
		"openapi-3.0.yaml": func(h *Handler, w http.ResponseWriter, r *http.Request, rt *Route) error {
			return serveOpenAPI(w, r, rt, openapi.Format{YAML: true, V30: true}, log)
		},
		"docs": func(h *Handler, w http.ResponseWriter, r *http.Request, rt *Route) error {
			return serveDocs(ui, w, r, rt)
		},
	}
}

// serveOpenAPI writes the version's document (rendered by the first
// request for it, then kept in the node's byte-bounded cache), with this request's scheme and host spliced
// into servers[0].url so that Try it out and imported clients reach this
// very server.
func serveOpenAPI(w http.ResponseWriter, r *http.Request, rt *Route, f openapi.Format, log *slog.Logger) error {
	rt.Operation, rt.unrecorded = OpOpenAPI, true
	if len(rt.Rest) != 1 {
		return apierr.New(apierr.CodeNotFound, "Not found")
	}
	if err := onlyGet(w, r); err != nil {
		return err
	}
	doc := rt.Entry.OpenAPI
	if doc == nil {
		return apierr.New(apierr.CodeUnavailable, "The API description of this project is not available")
	}
	rendered, err := doc.RenderedAs(f)
	if err != nil {
		log.Error("render OpenAPI document", "project", rt.ProjectID, "version", rt.Entry.Version, "err", err)
		return apierr.New(apierr.CodeUnavailable, "The API description of this project could not be built; the server log says why")
	}
	server := ServerURL(r, rt.ProjectID)
	hd := w.Header()
	if f.YAML {
		hd.Set("Content-Type", "application/yaml; charset=utf-8")
	} else {
		hd.Set("Content-Type", "application/json; charset=utf-8")
	}
	sum := fnv.New32a()
	_, _ = sum.Write([]byte(server))
	// The module compresses the description itself, like its other
	// answers, so that Caddy's encode need not wrap the generated API;
	// each encoding's bytes have an ETag of their own.
	enc := compress.Negotiate(r.Header.Get("Accept-Encoding"))
	suffix := ""
	if enc != "" {
		suffix = "-" + enc
	}
	etag := `"` + rendered.ETag() + "-" + strconv.FormatUint(uint64(sum.Sum32()), 16) + suffix + `"`
	hd.Set("ETag", etag)
	// Revalidate every time: a generate changes the document at once.
	hd.Set("Cache-Control", "no-cache")
	hd["Vary"] = append(hd["Vary"], "X-Forwarded-Proto", "Accept-Encoding")
	// The description is public: tools on any origin may fetch it,
	// whatever the project's cors.allowed_origins.
	hd.Set("Access-Control-Allow-Origin", "*")
	hd.Set("X-Content-Type-Options", "nosniff")
	if matchesETag(r.Header.Get("If-None-Match"), etag) {
		w.WriteHeader(http.StatusNotModified)
		return nil
	}
	if enc == "" {
		hd.Set("Content-Length", strconv.Itoa(rendered.Size(server)))
		w.WriteHeader(http.StatusOK)
		if r.Method != http.MethodHead {
			_ = rendered.Write(w, server)
		}
		return nil
	}
	var buf bytes.Buffer
	buf.Grow(rendered.Size(server))
	_ = rendered.Write(&buf, server)
	body := compress.Encode(enc, make([]byte, 0, buf.Len()/4), buf.Bytes())
	hd.Set("Content-Encoding", enc)
	hd.Set("Content-Length", strconv.Itoa(len(body)))
	w.WriteHeader(http.StatusOK)
	if r.Method != http.MethodHead {
		_, _ = w.Write(body)
	}
	return nil
}

// serveDocs writes the Swagger UI page (/docs) or one of its files
// (/docs/<file>).
func serveDocs(ui *swaggerui.UI, w http.ResponseWriter, r *http.Request, rt *Route) error {
	rt.Operation, rt.unrecorded = OpDocs, true
	if err := onlyGet(w, r); err != nil {
		return err
	}
	if !ui.Available() {
		return apierr.New(apierr.CodeUnavailable, "%s", swaggerui.MissingMessage)
	}
	switch len(rt.Rest) {
	case 1:
		if strings.HasSuffix(r.URL.Path, "/") {
			// The page's links are relative to .../docs, not .../docs/.
			http.Redirect(w, r, strings.TrimRight(r.URL.Path, "/"), http.StatusMovedPermanently)
			return nil
		}
		ui.ServePage(w, r)
		return nil
	case 2:
		if ui.ServeAsset(w, r, rt.Rest[1]) {
			return nil
		}
	}
	return apierr.New(apierr.CodeNotFound, "Not found")
}

func onlyGet(w http.ResponseWriter, r *http.Request) error {
	if r.Method == http.MethodGet || r.Method == http.MethodHead {
		return nil
	}
	w.Header().Set("Allow", "GET, HEAD")
	return apierr.New(apierr.CodeMethodNotAllowed, "Method %s is not allowed here; use GET", r.Method)
}

// hostRe accepts the Host values a server URL may carry: a name or IPv4
// address, or a bracketed IPv6 address, with an optional port.
var hostRe = regexp.MustCompile(`^([A-Za-z0-9]([A-Za-z0-9.-]*[A-Za-z0-9])?|\[[0-9A-Fa-f:.]+\])(:[0-9]{1,5})?$`)

// ServerURL is the base URL of a project's API as this request reached
// it: scheme (X-Forwarded-Proto from a trusted proxy in front, else TLS
// or not),
// host and /v1/<project_id>. A Host that is not a plain host name gives
// the relative /v1/<project_id>, which clients resolve against the
// document's own URL.
func ServerURL(r *http.Request, projectID string) string {
	if !hostRe.MatchString(r.Host) {
		return openapi.BasePath(projectID)
	}
	return clientaddr.Scheme(r) + "://" + strings.ToLower(r.Host) + openapi.BasePath(projectID)
}

func matchesETag(header, etag string) bool {
	for _, t := range strings.Split(header, ",") {
		t = strings.TrimSpace(t)
		if t == etag || t == "W/"+etag || t == "*" {
			return true
		}
	}
	return false
}
