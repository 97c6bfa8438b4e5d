package platformhttp_test

import (
	"bytes"
	"encoding/json"
	"go/ast"
	"go/parser"
	"go/token"
	"net/http"
	"net/http/httptest"
	"regexp"
	"slices"
	"sort"
	"strconv"
	"strings"
	"testing"

	"github.com/pb33f/libopenapi"
	validator "github.com/pb33f/libopenapi-validator"

	"github.com/tablesmith/tablesmith/internal/mail"
	"github.com/tablesmith/tablesmith/internal/platformhttp"
	"github.com/tablesmith/tablesmith/internal/testserver"
)

// platformDocument loads the served document into libopenapi-validator.
func platformDocument(t *testing.T) (libopenapi.Document, validator.Validator) {
	t.Helper()
	raw, err := platformhttp.PlatformOpenAPIJSON()
	if err != nil {
		t.Fatal(err)
	}
	doc, err := libopenapi.NewDocument(raw)
	if err != nil {
		t.Fatal(err)
	}
	v, errs := validator.NewValidator(doc)
	if len(errs) > 0 {
		t.Fatalf("the platform document does not load: %v", errs)
	}
	return doc, v
}

func TestThePlatformDocumentIsValidOpenAPI31(t *testing.T) {
	doc, v := platformDocument(t)
	if doc.GetVersion() != "3.1.0" {
		t.Errorf("version = %q, want 3.1.0", doc.GetVersion())
	}
	if ok, errs := v.ValidateDocument(); !ok {
		for _, e := range errs {
			t.Errorf("%s: %s", e.Message, e.Reason)
			for _, f := range e.SchemaValidationErrors {
				t.Errorf("  %s at %s", f.Reason, f.FieldPath)
			}
		}
	}
}

// registeredRoutes reads the patterns that routes() gives the mux from
// handler.go's source, so a route added there is seen without a list kept
// by hand.
func registeredRoutes(t *testing.T) []string {
	t.Helper()
	f, err := parser.ParseFile(token.NewFileSet(), "handler.go", nil, 0)
	if err != nil {
		t.Fatal(err)
	}
	var out []string
	ast.Inspect(f, func(n ast.Node) bool {
		fn, ok := n.(*ast.FuncDecl)
		if !ok || fn.Name.Name != "routes" {
			return true
		}
		ast.Inspect(fn.Body, func(n ast.Node) bool {
			call, ok := n.(*ast.CallExpr)
			if !ok || len(call.Args) == 0 {
				return true
			}
			sel, ok := call.Fun.(*ast.SelectorExpr)
			if !ok || (sel.Sel.Name != "HandleFunc" && sel.Sel.Name != "Handle") {
				return true
			}
			lit, ok := call.Args[0].(*ast.BasicLit)
			if !ok || lit.Kind != token.STRING {
				t.Errorf("a route pattern that is not a literal: %#v", call.Args[0])
				return true
			}
			pattern, _ := strconv.Unquote(lit.Value)
			if pattern != "/" { // the catch-all that answers 404 and 405
				out = append(out, pattern)
			}
			return true
		})
		return false
	})
	if len(out) < 20 {
		t.Fatalf("found only %d routes in routes(): %v", len(out), out)
	}
	sort.Strings(out)
	return out
}

func TestThePlatformDocumentNamesEveryRouteAndNoOther(t *testing.T) {
	doc, _ := platformDocument(t)
	model, err := doc.BuildV3Model()
	if err != nil {
		t.Fatal(err)
	}
	var documented []string
	for path, item := range model.Model.Paths.PathItems.FromOldest() {
		for method := range item.GetOperations().FromOldest() {
			documented = append(documented, strings.ToUpper(method)+" "+path)
		}
	}
	sort.Strings(documented)
	registered := registeredRoutes(t)
	in := func(list []string, s string) bool {
		i := sort.SearchStrings(list, s)
		return i < len(list) && list[i] == s
	}
	for _, r := range registered {
		if !in(documented, r) {
			t.Errorf("route %q is served but not in internal/platformhttp/openapi/platform.yaml", r)
		}
	}
	for _, d := range documented {
		if !in(registered, d) {
			t.Errorf("%q is documented but routes() does not serve it", d)
		}
	}
}

func TestThePlatformDocumentIsServedWithoutAuth(t *testing.T) {
	h := platformhttp.New(platformhttp.Deps{})
	rec := httptest.NewRecorder()
	h.ServeHTTP(rec, httptest.NewRequest("GET", "/api/openapi.json", nil))
	if rec.Code != 200 {
		t.Fatalf("status %d: %s", rec.Code, rec.Body)
	}
	if ct := rec.Header().Get("Content-Type"); ct != "application/json" {
		t.Errorf("Content-Type = %q", ct)
	}
	if cc := rec.Header().Get("Cache-Control"); !strings.Contains(cc, "max-age=") {
		t.Errorf("Cache-Control = %q", cc)
	}
	want, _ := platformhttp.PlatformOpenAPIJSON()
	if !bytes.Equal(rec.Body.Bytes(), want) {
		t.Error("the served document is not the embedded one")
	}
}

// projectPath turns a concrete project id back into the template in the
// error messages; the validator matches paths itself.
var projectPath = regexp.MustCompile(`/api/projects/[a-z0-9]+`)

// TestRealPlatformAnswersMatchTheDocument sends a journey through the
// platform API and checks every request and answer against the document.
func TestRealPlatformAnswersMatchTheDocument(t *testing.T) {
	_, v := platformDocument(t)
	s := testserver.New(t)
	check := func(method, path, token string, body any, status int) *testserver.Response {
		t.Helper()
		res := s.Do(method, path, token, body).Must(t, status)
		var rdr *bytes.Reader
		if raw, ok := body.(string); ok {
			rdr = bytes.NewReader([]byte(raw))
		} else if body != nil {
			t.Fatalf("send bodies as JSON text in this test")
		}
		req, _ := http.NewRequest(method, "http://localhost"+path, nil)
		if rdr != nil {
			req, _ = http.NewRequest(method, "http://localhost"+path, rdr)
			req.Header.Set("Content-Type", "application/json")
		}
		if token != "" {
			req.Header.Set("Authorization", "Bearer "+token)
		}
		resp := &http.Response{StatusCode: res.Status, Header: res.Header, Body: nopCloser{bytes.NewReader(res.Raw)}, Request: req}
		if ok, errs := v.ValidateHttpRequestResponse(req, resp); !ok {
			for _, e := range errs {
				t.Errorf("%s %s: %s: %s", method, projectPath.ReplaceAllString(path, "/api/projects/{id}"), e.Message, e.Reason)
				for _, f := range e.SchemaValidationErrors {
					t.Errorf("  %s at %s", f.Reason, f.FieldPath)
				}
			}
		}
		return res
	}
	tok := check("POST", "/api/auth/signup", "", `{"email":"doc@example.com","password":"correct horse battery","name":"Doc"}`, 201).Data()["token"].(string)
	check("POST", "/api/auth/login", "", `{"email":"doc@example.com","password":"correct horse battery"}`, 200)
	check("POST", "/api/auth/login", "", `{"email":"doc@example.com","password":"wrong password"}`, 401)
	check("GET", "/api/account", tok, nil, 200)
	check("GET", "/api/engines", "", nil, 200)
	check("GET", "/api/openapi.json", "", nil, 200)
	id := check("POST", "/api/projects", tok, `{"name":"Docs","engine":"postgres"}`, 201).Data()["id"].(string)
	check("GET", "/api/projects", tok, nil, 200)
	check("GET", "/api/projects/"+id, tok, nil, 200)
	check("PATCH", "/api/projects/"+id, tok, `{"name":"Docs 2"}`, 200)
	p := "/api/projects/" + id
	schemaDoc := `{"tables":[{"name":"users","auth":true,"columns":[{"name":"email","type":"email","required":true,"unique":true},{"name":"password","type":"password","required":true}]},` +
		`{"name":"posts","columns":[{"name":"title","type":"text","required":true},{"name":"price","type":"decimal"},{"name":"author_id","type":"integer","references":{"table":"users","on_delete":"cascade"}}]}]}`
	check("GET", p+"/schema", tok, nil, 200)
	check("PUT", p+"/schema", tok, schemaDoc, 200)
	check("POST", p+"/schema/validate", tok, schemaDoc, 200)
	check("POST", p+"/schema/validate", tok, `{"tables":[{"name":"Bad","columns":[]}]}`, 400)
	check("GET", p+"/schema/plan", tok, nil, 200)
	check("GET", p+"/schema/plan?check=true", tok, nil, 200)
	check("POST", p+"/generate", tok, `{}`, 200)
	check("GET", p+"/schema/versions", tok, nil, 200)
	check("GET", p+"/schema/versions/1", tok, nil, 200)
	check("POST", p+"/schema/reset", tok, `{"version":1}`, 200)
	check("GET", p+"/schema/export", tok, nil, 200)
	keyID := check("POST", p+"/keys", tok, `{"name":"ci","scope":"read"}`, 201).Data()["id"].(string)
	check("GET", p+"/keys", tok, nil, 200)
	check("DELETE", p+"/keys/"+keyID, tok, nil, 200)
	check("GET", p+"/analytics?range=24h", tok, nil, 200)
	check("GET", "/api/projects/nosuchproject", tok, nil, 404)
	check("DELETE", p, tok, nil, 200)
}

type nopCloser struct{ *bytes.Reader }

func (nopCloser) Close() error { return nil }

// TestTheDocumentsMailKindsAreTheServicesOwn: the enums a typed client
// (the dashboard's labels among them) is generated from list exactly the
// kinds the service sends, so a new kind cannot go undescribed.
func TestTheDocumentsMailKindsAreTheServicesOwn(t *testing.T) {
	raw, err := platformhttp.PlatformOpenAPIJSON()
	if err != nil {
		t.Fatal(err)
	}
	var doc struct {
		Components struct {
			Schemas map[string]struct {
				Enum []string `json:"enum"`
			} `json:"schemas"`
		} `json:"components"`
	}
	if err := json.Unmarshal(raw, &doc); err != nil {
		t.Fatal(err)
	}
	for schema, kinds := range map[string][]mail.Kind{"MailTemplateKind": mail.ProjectKinds, "OutboxKind": mail.OutboxKinds} {
		var want []string
		for _, k := range kinds {
			want = append(want, string(k))
		}
		if got := doc.Components.Schemas[schema].Enum; !slices.Equal(got, want) {
			t.Errorf("%s lists %v; the service sends %v", schema, got, want)
		}
	}
}
