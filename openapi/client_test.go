package openapi_test

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/tablesmith/tablesmith/internal/testserver"
	"github.com/tablesmith/tablesmith/openapi/check"
)

// TestGeneratedTypeScriptClientDoesACRUDRoundTrip generates TypeScript
// types from a live project's document with openapi-typescript, compiles
// check/client/crud.ts against them with tsc (strict, with
// @ts-expect-error lines that need the types to be exact) and runs it
// against the server: create, get, list with a filter, patch, put, an
// invalid body, delete.
func TestGeneratedTypeScriptClientDoesACRUDRoundTrip(t *testing.T) {
	t.Parallel()
	check.Node(t)
	s := testserver.New(t)
	books, err := os.ReadFile("testdata/books.json")
	if err != nil {
		t.Fatal(err)
	}
	p := s.NewProject(string(books))
	docURL := s.URL + "/v1/" + p.ID + "/openapi.json"
	doc := s.Do("GET", "/v1/"+p.ID+"/openapi.json", "", nil).Must(t, 200)

	dir := t.TempDir()
	write := func(name string, data []byte) {
		if err := os.WriteFile(filepath.Join(dir, name), data, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	write("openapi.json", doc.Raw)
	write("package.json", []byte(`{"type": "module"}`))
	for _, name := range []string{"crud.ts", "tsconfig.json"} {
		src, err := os.ReadFile(filepath.Join(check.Dir(), "client", name))
		if err != nil {
			t.Fatal(err)
		}
		write(name, src)
	}
	check.Run(t, dir, 2*time.Minute, nil, check.Bin("openapi-typescript"), "openapi.json", "-o", "schema.ts")
	check.Run(t, dir, 3*time.Minute, nil, check.Bin("tsc"), "-p", "tsconfig.json")
	out := check.Run(t, dir, time.Minute, []string{"OPENAPI_URL=" + docURL, "API_KEY=" + p.Key}, "node", filepath.Join("out", "crud.js"))
	if !strings.Contains(out, "CRUD OK") {
		t.Fatalf("the client's round trip did not finish:\n%s", out)
	}
}
