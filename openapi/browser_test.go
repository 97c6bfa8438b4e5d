package openapi_test

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/tablesmith/tablesmith/internal/swaggerui"
	"github.com/tablesmith/tablesmith/internal/testserver"
	"github.com/tablesmith/tablesmith/openapi/check"
)

// TestSwaggerUITryItOutCreatesAndLists opens a live project's /docs in
// Debian's Chromium (playwright-core, check/swagger-ui.mjs), authorizes
// with an API key, runs Try it out → Execute on create and list and
// checks the 201 and 200 Swagger UI shows, that no request leaves the
// server and that the credential survives a reload.
func TestSwaggerUITryItOutCreatesAndLists(t *testing.T) {
	t.Parallel()
	if !swaggerui.New(swaggerui.Embedded()).Available() {
		if os.Getenv("TABLESMITH_TEST_REQUIRE_ALL") == "1" {
			t.Fatal("Swagger UI assets are not embedded: run internal/swaggerui/copy-assets.sh before go test")
		}
		t.Skip("Swagger UI assets are not embedded: run internal/swaggerui/copy-assets.sh (make swagger-ui)")
	}
	check.Node(t)
	chromium := check.Chromium(t)
	s := testserver.New(t)
	books, err := os.ReadFile("testdata/books.json")
	if err != nil {
		t.Fatal(err)
	}
	p := s.NewProject(string(books))
	shot := filepath.Join(t.TempDir(), "swagger-ui.png")
	if dir := os.Getenv("TABLESMITH_TEST_ARTIFACTS"); dir != "" {
		shot = filepath.Join(dir, "swagger-ui.png")
	}
	out := check.Run(t, check.Dir(), 4*time.Minute, []string{
		"DOCS_URL=" + s.URL + "/v1/" + p.ID + "/docs", "API_KEY=" + p.Key, "CHROMIUM=" + chromium, "SCREENSHOT=" + shot,
	}, "node", "swagger-ui.mjs")
	if !strings.Contains(out, "SWAGGER UI OK") {
		t.Fatalf("the browser run did not finish:\n%s", out)
	}
}
