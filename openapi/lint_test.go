package openapi_test

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/tablesmith/tablesmith/openapi"
	"github.com/tablesmith/tablesmith/openapi/check"
	"github.com/tablesmith/tablesmith/schema"
)

// TestDocumentPassesRedoclyLint runs the external validator
// (scripts/openapi-check.sh: Redocly CLI's recommended rules) on the JSON
// and YAML documents of a schema that uses every type and constraint, in
// OpenAPI 3.1 and in the 3.0 rendition (Redocly lints each by its version).
func TestDocumentPassesRedoclyLint(t *testing.T) {
	t.Parallel()
	check.Node(t)
	d, err := schema.Parse([]byte(allTypesSchema(t)))
	if err != nil {
		t.Fatal(err)
	}
	c, err := schema.Compile(d)
	if err != nil {
		t.Fatal(err)
	}
	doc, err := openapi.Render(c, openapi.Options{ProjectID: "abc123def456", Version: 1})
	if err != nil {
		t.Fatal(err)
	}
	dir := t.TempDir()
	for name, body := range map[string][]byte{"openapi.json": doc.JSON(), "openapi.yaml": doc.YAML(),
		"openapi-3.0.json": doc.As(openapi.Format{V30: true}), "openapi-3.0.yaml": doc.As(openapi.Format{YAML: true, V30: true})} {
		path := filepath.Join(dir, name)
		if err := os.WriteFile(path, body, 0o644); err != nil {
			t.Fatal(err)
		}
		out := check.Run(t, check.RepoRoot(), 3*time.Minute, nil, filepath.Join(check.RepoRoot(), "scripts", "openapi-check.sh"), path)
		t.Logf("%s: %s", name, lastLine(out))
	}
}

func lastLine(s string) string {
	lines := strings.Split(strings.TrimSpace(s), "\n")
	return lines[len(lines)-1]
}
