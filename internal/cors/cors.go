// Package cors decides which browser origins may call a project's
// generated API and writes the Access-Control headers that say so
// (docs/api.md, "CORS"). The API authenticates with bearer credentials,
// never cookies, so no answer allows credentials.
package cors

import (
	"fmt"
	"net/http"
	"net/url"
	"slices"
	"strings"
)

// Any is the allowed-origins entry that admits every origin.
const Any = "*"

// MaxOrigins bounds a project's list: a few front ends, not a directory.
const MaxOrigins = 50

// Policy is a project's compiled origin list. The zero value (and nil)
// allows any origin, the default.
type Policy struct {
	restricted bool
	origins    map[string]struct{}
}

// Compile builds the policy of a stored list; an empty list or one
// holding "*" allows any origin. Entries are expected to have passed
// Normalize.
func Compile(origins []string) *Policy {
	if len(origins) == 0 || slices.Contains(origins, Any) {
		return &Policy{}
	}
	p := &Policy{restricted: true, origins: make(map[string]struct{}, len(origins))}
	for _, o := range origins {
		p.origins[o] = struct{}{}
	}
	return p
}

// Restricted reports whether only listed origins are allowed.
func (p *Policy) Restricted() bool { return p != nil && p.restricted }

// Allows reports whether a request's Origin header value may read answers.
func (p *Policy) Allows(origin string) bool {
	if !p.Restricted() {
		return true
	}
	_, ok := p.origins[origin]
	return ok
}

// Normalize checks a list as PATCH /api/projects/{id} receives it and
// returns it in stored form (origins lower-cased, duplicates dropped, in
// the given order), or a problem per entry keyed by its index.
func Normalize(list []string) ([]string, map[string]string) {
	problems := map[string]string{}
	if len(list) > MaxOrigins {
		problems[""] = fmt.Sprintf("at most %d origins", MaxOrigins)
		return nil, problems
	}
	if len(list) == 0 {
		problems[""] = `give at least one origin, or ["*"] for any origin`
		return nil, problems
	}
	out := make([]string, 0, len(list))
	for i, raw := range list {
		o, msg := normalizeOrigin(strings.TrimSpace(raw))
		if msg != "" {
			problems[fmt.Sprintf("[%d]", i)] = msg
			continue
		}
		if !slices.Contains(out, o) {
			out = append(out, o)
		}
	}
	if slices.Contains(out, Any) && len(out) > 1 {
		problems[""] = `"*" allows every origin; give it alone or list exact origins`
	}
	if len(problems) > 0 {
		return nil, problems
	}
	return out, nil
}

// normalizeOrigin accepts "*" or scheme://host[:port] exactly as a browser
// sends it in Origin: http or https, no user, path, query or fragment.
func normalizeOrigin(s string) (string, string) {
	const shape = "must be an origin such as https://app.example.com or http://localhost:5173 (scheme, host and optional port; no path), or *"
	if s == Any {
		return s, ""
	}
	u, err := url.Parse(s)
	if err != nil || u.Host == "" || u.Opaque != "" {
		return "", shape
	}
	scheme := strings.ToLower(u.Scheme)
	if scheme != "http" && scheme != "https" {
		return "", "the scheme must be http or https"
	}
	if u.User != nil || (u.Path != "" && u.Path != "/") || u.RawQuery != "" || u.Fragment != "" || strings.HasSuffix(s, "?") || strings.HasSuffix(s, "#") {
		return "", shape
	}
	if strings.HasSuffix(s, "/") {
		return "", "an origin has no trailing slash (browsers send " + scheme + "://" + strings.ToLower(u.Host) + ")"
	}
	if strings.Contains(u.Host, "*") {
		return "", "wildcards inside an origin are not supported; list each origin, or give * alone"
	}
	if port := u.Port(); port != "" {
		if len(port) > 5 || strings.TrimLeft(port, "0123456789") != "" {
			return "", "the port must be a number"
		}
	}
	return scheme + "://" + strings.ToLower(u.Host), ""
}

// What every answer to an allowed origin exposes to the page's script,
// and what a preflight allows.
const (
	exposedHeaders = "X-RateLimit-Limit, X-RateLimit-Remaining, X-RateLimit-Reset, Retry-After, Location, X-Request-Id, ETag, Preference-Applied"
	allowedMethods = "GET, HEAD, POST, PUT, PATCH, DELETE"
	allowedHeaders = "Authorization, Content-Type, Accept, Idempotency-Key, Prefer, If-None-Match, If-Match, X-Request-Id"
	// MaxAge is Chromium's own cap (2 h): a browser keeps a preflight's
	// answer this long, so a restricted list applies within it.
	MaxAge = "7200"
)

// Header values shared by every answer. A header is assigned a slice of
// one of them with its capacity cut, so that another writer's append
// (Vary: Accept-Encoding) copies instead of writing into the shared array.
var (
	keyAllowOrigin   = http.CanonicalHeaderKey("Access-Control-Allow-Origin")
	keyExposeHeaders = http.CanonicalHeaderKey("Access-Control-Expose-Headers")
	keyVary          = http.CanonicalHeaderKey("Vary")
	valAny           = []string{Any}
	valExposed       = []string{exposedHeaders}
	valVaryOrigin    = []string{"Origin"}
)

// Preflight reports whether r is a CORS preflight: OPTIONS with Origin and
// Access-Control-Request-Method.
func Preflight(r *http.Request) bool {
	return r.Method == http.MethodOptions && r.Header.Get("Origin") != "" && r.Header.Get("Access-Control-Request-Method") != ""
}

// Annotate sets the headers of an actual (non-preflight) answer and
// reports whether the origin is allowed. Any origin allowed: "*" and the
// exposed headers on every answer, Origin or not, so an answer is the
// same for every origin and a cache may share it. A restricted list:
// Vary: Origin on every answer, and the origin itself (with the exposed
// headers) for a listed one.
func (p *Policy) Annotate(h http.Header, origin string) bool {
	if !p.Restricted() {
		if origin != "" {
			vary(h)
		}
		h[keyAllowOrigin] = valAny[:1:1]
		h[keyExposeHeaders] = valExposed[:1:1]
		return true
	}
	vary(h)
	if origin == "" {
		return true
	}
	if !p.Allows(origin) {
		return false
	}
	h[keyAllowOrigin] = []string{origin}
	h[keyExposeHeaders] = valExposed[:1:1]
	return true
}

// vary adds Origin to Vary without allocating when it is the first entry.
func vary(h http.Header) {
	if len(h[keyVary]) == 0 {
		h[keyVary] = valVaryOrigin[:1:1]
	} else {
		h[keyVary] = append(h[keyVary], valVaryOrigin...)
	}
}

// AnswerPreflight sets the headers of a preflight's answer to an allowed
// origin (the caller writes 204); for a disallowed one it sets only Vary
// and reports false. The request headers allowed are the ones the
// preflight asks for (client libraries add their own, such as
// X-Client-Info; with bearer credentials and no cookies no header is
// dangerous to allow), or the API's own list when it asks for none.
func (p *Policy) AnswerPreflight(h http.Header, r *http.Request) bool {
	if !p.Annotate(h, r.Header.Get("Origin")) {
		return false
	}
	h.Set("Access-Control-Allow-Methods", allowedMethods)
	allow := allowedHeaders
	if asked := r.Header.Get("Access-Control-Request-Headers"); asked != "" && headerList(asked) {
		allow = asked
	}
	h.Set("Access-Control-Allow-Headers", allow)
	h.Set("Access-Control-Max-Age", MaxAge)
	return true
}

// headerList reports whether s is a comma list of header names (RFC 9110
// tokens), so that echoing it cannot split or inject a header.
func headerList(s string) bool {
	if len(s) > 1024 {
		return false
	}
	for i := 0; i < len(s); i++ {
		c := s[i]
		switch {
		case c >= 'a' && c <= 'z', c >= 'A' && c <= 'Z', c >= '0' && c <= '9':
		case strings.IndexByte("!#$%&'*+-.^_`|~, ", c) >= 0:
		default:
			return false
		}
	}
	return true
}
