package apihttp_test

import (
	"encoding/json"
	"net/http"
	"net/http/httptest"
	"os"
	"strings"
	"testing"
	"testing/fstest"
	"time"

	"github.com/PuerkitoBio/goquery"
	"github.com/klauspost/compress/zstd"

	"github.com/tablesmith/tablesmith/internal/apihttp"
	"github.com/tablesmith/tablesmith/internal/plans"
	"github.com/tablesmith/tablesmith/internal/swaggerui"
	"github.com/tablesmith/tablesmith/internal/testserver"
)

const docsSchema = `{"tables": [{"name": "books", "columns": [
	{"name": "title", "type": "text", "required": true},
	{"name": "pages", "type": "integer", "min": 1}]}]}`

func TestOpenAPIJSONNeedsNoCredentialAndNamesThisServer(t *testing.T) {
	t.Parallel()
	s := testserver.New(t)
	p := s.NewProject(docsSchema)

	// identity: Go's client would otherwise ask for gzip and hide the
	// Content-Length it decompressed.
	res := s.Do("GET", "/v1/"+p.ID+"/openapi.json", "", nil, "Accept-Encoding", "identity").Must(t, 200)
	if ct := res.Header.Get("Content-Type"); !strings.HasPrefix(ct, "application/json") {
		t.Fatalf("Content-Type = %q", ct)
	}
	var doc struct {
		OpenAPI string `json:"openapi"`
		Servers []struct {
			URL string `json:"url"`
		} `json:"servers"`
		Paths map[string]struct {
			Get, Patch struct {
				OperationID string `json:"operationId"`
			}
		} `json:"paths"`
	}
	if err := json.Unmarshal(res.Raw, &doc); err != nil {
		t.Fatalf("document is not JSON: %v", err)
	}
	if doc.OpenAPI != "3.1.0" {
		t.Fatalf("openapi = %q", doc.OpenAPI)
	}
	if want := s.URL + "/v1/" + p.ID; len(doc.Servers) != 1 || doc.Servers[0].URL != want {
		t.Fatalf("servers = %+v, want one server %s", doc.Servers, want)
	}
	if doc.Paths["/books"].Get.OperationID != "listBooks" || doc.Paths["/books/{id}"].Patch.OperationID != "updateBook" {
		t.Fatalf("operation ids = %+v", doc.Paths)
	}
	if len(res.Raw) != int(mustAtoi(t, res.Header.Get("Content-Length"))) {
		t.Fatalf("Content-Length %s for %d bytes", res.Header.Get("Content-Length"), len(res.Raw))
	}

	// A wrong credential does not matter: the description is public.
	s.Do("GET", "/v1/"+p.ID+"/openapi.json", "not-a-real-token", nil).Must(t, 200)
}

func TestOpenAPIServerFollowsHostAndForwardedProto(t *testing.T) {
	t.Parallel()
	s := testserver.New(t)
	p := s.NewProject(docsSchema)
	s.SetClient("198.51.100.7", true)
	res := s.Do("GET", "/v1/"+p.ID+"/openapi.json", "", nil, "X-Forwarded-Proto", "https").Must(t, 200)
	want := `"url":"https://` + strings.TrimPrefix(s.URL, "http://") + `/v1/` + p.ID + `"` // compact JSON
	if !strings.Contains(string(res.Raw), want) {
		t.Fatalf("document lacks %s", want)
	}
	etag := res.Header.Get("ETag")
	again := s.Do("GET", "/v1/"+p.ID+"/openapi.json", "", nil, "X-Forwarded-Proto", "https", "If-None-Match", etag)
	if again.Status != http.StatusNotModified {
		t.Fatalf("If-None-Match with the ETag: status %d", again.Status)
	}
	other := s.Do("GET", "/v1/"+p.ID+"/openapi.json", "", nil, "If-None-Match", etag).Must(t, 200)
	if other.Header.Get("ETag") == etag {
		t.Fatal("documents naming different servers share an ETag")
	}
	// Anyone can send the header: from a peer that is not a trusted
	// proxy it changes nothing.
	s.SetClient("198.51.100.7", false)
	untrusted := s.Do("GET", "/v1/"+p.ID+"/openapi.json", "", nil, "X-Forwarded-Proto", "https").Must(t, 200)
	if strings.Contains(string(untrusted.Raw), `"url": "https://`) {
		t.Fatal("X-Forwarded-Proto from an untrusted peer was believed")
	}
}

func TestServerURLFallsBackToRelativeForOddHosts(t *testing.T) {
	t.Parallel()
	for host, want := range map[string]string{
		"example.com":          "http://example.com/v1/abc",
		"API.Example.com:8443": "http://api.example.com:8443/v1/abc",
		"[::1]:8080":           "http://[::1]:8080/v1/abc",
		"evil.com/x?":          "/v1/abc",
		"a b":                  "/v1/abc",
		"":                     "/v1/abc",
	} {
		r := httptest.NewRequest("GET", "/v1/abc/openapi.json", nil)
		r.Host = host
		if got := apihttp.ServerURL(r, "abc"); got != want {
			t.Errorf("ServerURL(Host %q) = %q, want %q", host, got, want)
		}
	}
}

func TestOpenAPIYAMLIsTheSameDocument(t *testing.T) {
	t.Parallel()
	s := testserver.New(t)
	p := s.NewProject(docsSchema)
	res := s.Do("GET", "/v1/"+p.ID+"/openapi.yaml", "", nil).Must(t, 200)
	if ct := res.Header.Get("Content-Type"); !strings.HasPrefix(ct, "application/yaml") {
		t.Fatalf("Content-Type = %q", ct)
	}
	body := string(res.Raw)
	for _, want := range []string{"openapi: 3.1.0", `url: "` + s.URL + `/v1/` + p.ID + `"`, "operationId: createBook"} {
		if !strings.Contains(body, want) {
			t.Fatalf("YAML document lacks %q:\n%.600s", want, body)
		}
	}
}

// The 3.0 rendition is served beside the 3.1 document, with this server
// in servers, the credential as an API key in the Authorization header
// (what gateways import) and nullable written the 3.0 way.
func TestOpenAPI30RenditionIsServedBesideTheDocument(t *testing.T) {
	t.Parallel()
	s := testserver.New(t)
	p := s.NewProject(docsSchema)
	res := s.Do("GET", "/v1/"+p.ID+"/openapi-3.0.json", "", nil).Must(t, 200)
	var doc struct {
		OpenAPI string `json:"openapi"`
		Servers []struct {
			URL string `json:"url"`
		} `json:"servers"`
		Components struct {
			Schemas         map[string]map[string]any `json:"schemas"`
			SecuritySchemes map[string]map[string]any `json:"securitySchemes"`
		} `json:"components"`
	}
	if err := json.Unmarshal(res.Raw, &doc); err != nil {
		t.Fatalf("3.0 rendition is not JSON: %v", err)
	}
	if doc.OpenAPI != "3.0.3" || len(doc.Servers) != 1 || doc.Servers[0].URL != s.URL+"/v1/"+p.ID {
		t.Fatalf("openapi %q, servers %+v", doc.OpenAPI, doc.Servers)
	}
	if b := doc.Components.SecuritySchemes["bearerAuth"]; b["type"] != "apiKey" || b["in"] != "header" || b["name"] != "Authorization" {
		t.Fatalf("bearerAuth in 3.0 = %v, want an apiKey in the Authorization header", b)
	}
	pages := doc.Components.Schemas["BookUpdate"]["properties"].(map[string]any)["pages"].(map[string]any)
	if pages["type"] != "integer" || pages["nullable"] != true || pages["anyOf"] != nil {
		t.Fatalf("an optional column in 3.0 = %v, want type integer, nullable", pages)
	}
	yml := s.Do("GET", "/v1/"+p.ID+"/openapi-3.0.yaml", "", nil).Must(t, 200)
	if !strings.HasPrefix(yml.Header.Get("Content-Type"), "application/yaml") || !strings.Contains(string(yml.Raw), "openapi: 3.0.3") {
		t.Fatalf("3.0 YAML: %s %.200s", yml.Header.Get("Content-Type"), yml.Raw)
	}
	// Not the 3.1 document's ETag: each rendition revalidates on its own.
	if res.Header.Get("ETag") == s.Do("GET", "/v1/"+p.ID+"/openapi.json", "", nil).Must(t, 200).Header.Get("ETag") {
		t.Fatal("the 3.0 rendition has the 3.1 document's ETag")
	}
}

func TestDocsRoutesAreNotRateLimited(t *testing.T) {
	t.Parallel()
	tiny := plans.Defaults()
	tiny["tiny"] = plans.Plan{Name: "tiny", RatePerHour: 2, Projects: 5}
	s := testserver.New(t, testserver.WithPlans(tiny, "tiny"))
	p := s.NewProject(docsSchema)
	for i := 0; i < 5; i++ {
		for _, path := range []string{"/openapi.json", "/openapi.yaml", "/openapi-3.0.json", "/openapi-3.0.yaml", "/docs"} {
			res := s.Do("GET", "/v1/"+p.ID+path, "", nil)
			if res.Status == http.StatusTooManyRequests || res.Header.Get("X-RateLimit-Limit") != "" {
				t.Fatalf("%s counted against the plan: status %d, X-RateLimit-Limit %q", path, res.Status, res.Header.Get("X-RateLimit-Limit"))
			}
		}
	}
	// The table routes are counted: the plan's third request is refused.
	s.API(p, "GET", "/books", nil).Must(t, 200)
	s.API(p, "GET", "/books", nil).Must(t, 200)
	s.API(p, "GET", "/books", nil).Must(t, 429)
}

func TestDocsServesSwaggerUIFromEmbeddedAssets(t *testing.T) {
	t.Parallel()
	if !swaggerui.New(swaggerui.Embedded()).Available() {
		if os.Getenv("TABLESMITH_TEST_REQUIRE_ALL") == "1" {
			t.Fatal("Swagger UI assets are not embedded: run internal/swaggerui/copy-assets.sh before go test")
		}
		t.Skip("Swagger UI assets not embedded: run internal/swaggerui/copy-assets.sh (make swagger-ui)")
	}
	s := testserver.New(t)
	p := s.NewProject(docsSchema)
	page := s.Do("GET", "/v1/"+p.ID+"/docs", "", nil).Must(t, 200)
	if ct := page.Header.Get("Content-Type"); !strings.HasPrefix(ct, "text/html") {
		t.Fatalf("Content-Type = %q", ct)
	}
	if csp := page.Header.Get("Content-Security-Policy"); !strings.Contains(csp, "script-src 'self'") {
		t.Fatalf("Content-Security-Policy = %q", csp)
	}
	html, err := goquery.NewDocumentFromReader(strings.NewReader(string(page.Raw)))
	if err != nil {
		t.Fatal(err)
	}
	// The page links both renditions of the description, and each link works.
	var links []string
	html.Find("nav a[href]").Each(func(_ int, sel *goquery.Selection) { links = append(links, sel.AttrOr("href", "")) })
	if strings.Join(links, " ") != "openapi.json openapi.yaml openapi-3.0.json openapi-3.0.yaml" {
		t.Fatalf("the page links %v", links)
	}
	for _, l := range links {
		s.Do("GET", "/v1/"+p.ID+"/"+l, "", nil).Must(t, 200)
	}
	var assets []string
	html.Find("script[src], link[rel=stylesheet]").Each(func(_ int, sel *goquery.Selection) {
		if src, ok := sel.Attr("src"); ok {
			assets = append(assets, src)
		} else if href, ok := sel.Attr("href"); ok {
			assets = append(assets, href)
		}
	})
	if len(assets) < 3 {
		t.Fatalf("page loads %v", assets)
	}
	for _, a := range assets {
		if strings.Contains(a, "//") {
			t.Fatalf("page loads %s from another origin", a)
		}
		res := s.Do("GET", "/v1/"+p.ID+"/"+a, "", nil).Must(t, 200)
		if len(res.Raw) == 0 || res.Header.Get("Cache-Control") == "" {
			t.Fatalf("%s: %d bytes, Cache-Control %q", a, len(res.Raw), res.Header.Get("Cache-Control"))
		}
	}
	initJS := s.Do("GET", "/v1/"+p.ID+"/docs/init.js", "", nil).Must(t, 200)
	for _, want := range []string{`url: "./openapi.json"`, "persistAuthorization: true"} {
		if !strings.Contains(string(initJS.Raw), want) {
			t.Fatalf("init.js lacks %s", want)
		}
	}
	// A trailing slash would break the page's relative links.
	noFollow := &http.Client{CheckRedirect: func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse }}
	res, err := noFollow.Get(s.URL + "/v1/" + p.ID + "/docs/")
	if err != nil {
		t.Fatal(err)
	}
	res.Body.Close()
	if res.StatusCode != http.StatusMovedPermanently || res.Header.Get("Location") != "/v1/"+p.ID+"/docs" {
		t.Fatalf("/docs/: %d to %q", res.StatusCode, res.Header.Get("Location"))
	}
	s.Do("GET", "/v1/"+p.ID+"/docs/README.md", "", nil).Must(t, 404)
	s.Do("POST", "/v1/"+p.ID+"/docs", "", map[string]any{}).Must(t, 405)
}

func TestDocsWithoutAssetsSaysHowToAddThem(t *testing.T) {
	t.Parallel()
	ui := swaggerui.New(fstest.MapFS{"README.md": {Data: []byte("placeholder")}})
	if ui.Available() {
		t.Fatal("a directory with only the placeholder counts as available")
	}
	route := apihttp.DocsRoutes(ui, nil)["docs"]
	rec := httptest.NewRecorder()
	err := route(nil, rec, httptest.NewRequest("GET", "/v1/abc/docs", nil), &apihttp.Route{ProjectID: "abc", Rest: []string{"docs"}})
	if err == nil || !strings.Contains(err.Error(), "copy-assets.sh") {
		t.Fatalf("missing assets: err = %v", err)
	}
	if !strings.Contains(err.Error(), "SERVICE_UNAVAILABLE") {
		t.Fatalf("missing assets should be 503 SERVICE_UNAVAILABLE: %v", err)
	}
}

func TestDocsRoutesOfUnknownProjectAre404(t *testing.T) {
	t.Parallel()
	s := testserver.New(t)
	for _, path := range []string{"/openapi.json", "/openapi.yaml", "/docs"} {
		res := s.Do("GET", "/v1/zzzzzzzzzzzz"+path, "", nil).Must(t, 404)
		if res.ErrorCode() != "NOT_FOUND" {
			t.Fatalf("%s: %s", path, res.Raw)
		}
	}
}

func mustAtoi(t *testing.T, s string) int64 {
	t.Helper()
	var n int64
	if err := json.Unmarshal([]byte(s), &n); err != nil {
		t.Fatalf("not a number: %q", s)
	}
	return n
}

// The API document is titled with the project's name, and a rename
// reaches it (the loaded version is dropped and loaded again).
func TestOpenAPITitleIsTheProjectsName(t *testing.T) {
	t.Parallel()
	s := testserver.New(t)
	p := s.NewProject(`{"tables": [{"name": "notes", "columns": [{"name": "body", "type": "text"}]}]}`)
	title := func() any {
		t.Helper()
		r := s.Do("GET", "/v1/"+p.ID+"/openapi.json", "", nil).Must(t, 200)
		info, _ := r.Body["info"].(map[string]any)
		return info["title"]
	}
	if got := title(); got != "Test project" {
		t.Fatalf("title %v, want the project's name", got)
	}
	s.Do("PATCH", "/api/projects/"+p.ID, p.Session, map[string]any{"name": "Corner shop"}).Must(t, 200)
	deadline := time.Now().Add(5 * time.Second)
	for title() != "Corner shop" {
		if time.Now().After(deadline) {
			t.Fatalf("after a rename the title is still %v", title())
		}
		time.Sleep(20 * time.Millisecond)
	}
}

func TestOpenAPIDocumentGoesOutCompressedWithAnETagPerEncoding(t *testing.T) {
	t.Parallel()
	s := testserver.New(t)
	p := s.NewProject(docsSchema)
	plain := s.Do("GET", "/v1/"+p.ID+"/openapi.json", "", nil, "Accept-Encoding", "identity").Must(t, 200)
	if plain.Header.Get("Content-Encoding") != "" {
		t.Fatalf("identity asked for, yet Content-Encoding %q", plain.Header.Get("Content-Encoding"))
	}
	packed := s.Do("GET", "/v1/"+p.ID+"/openapi.json", "", nil, "Accept-Encoding", "gzip;q=0.5, zstd").Must(t, 200)
	if packed.Header.Get("Content-Encoding") != "zstd" || len(packed.Raw) >= len(plain.Raw) {
		t.Fatalf("Content-Encoding %q, %d bytes against %d", packed.Header.Get("Content-Encoding"), len(packed.Raw), len(plain.Raw))
	}
	d, _ := zstd.NewReader(nil)
	doc, err := d.DecodeAll(packed.Raw, nil)
	if err != nil || string(doc) != string(plain.Raw) {
		t.Fatalf("decoded document differs from the identity one (%v)", err)
	}
	if !strings.Contains(strings.Join(packed.Header.Values("Vary"), ","), "Accept-Encoding") {
		t.Fatalf("Vary = %v", packed.Header.Values("Vary"))
	}
	etag := packed.Header.Get("ETag")
	if etag == plain.Header.Get("ETag") {
		t.Fatal("the zstd and identity documents share an ETag")
	}
	if again := s.Do("GET", "/v1/"+p.ID+"/openapi.json", "", nil, "Accept-Encoding", "zstd", "If-None-Match", etag); again.Status != http.StatusNotModified {
		t.Fatalf("revalidating the zstd document: %d", again.Status)
	}
}
