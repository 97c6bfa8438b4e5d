package cachehandler_test

import (
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/caddyserver/caddy/v2"
	"github.com/caddyserver/caddy/v2/caddyconfig"
)

// exampleCaddyfiles lists the Caddyfiles the repository ships as
// examples: the two at its root and any under docs/ or scripts/.
func exampleCaddyfiles(t *testing.T, root string) []string {
	t.Helper()
	files := []string{filepath.Join(root, "Caddyfile.example"), filepath.Join(root, "Caddyfile.edge.example"),
		filepath.Join(root, "Caddyfile.cachehandler.example"),
		filepath.Join(root, "Caddyfile.balancer.example")}
	for _, dir := range []string{"docs", "scripts"} {
		err := filepath.WalkDir(filepath.Join(root, dir), func(path string, d fs.DirEntry, err error) error {
			if err != nil {
				return err
			}
			if d.IsDir() && d.Name() == "node_modules" {
				return filepath.SkipDir
			}
			if !d.IsDir() && strings.HasPrefix(d.Name(), "Caddyfile") {
				files = append(files, path)
			}
			return nil
		})
		if err != nil && !os.IsNotExist(err) {
			t.Fatal(err)
		}
	}
	return files
}

// Every example Caddyfile adapts and provisions, as `caddy validate` does
// (caddy.Validate provisions every app and handler, then cleans up), in
// this package, whose binary has both Tablesmith and cache-handler in it,
// so the edge example's cache directive is known. Provisioning needs no
// database: the app connects in Start.
func TestEveryExampleCaddyfileValidates(t *testing.T) {
	t.Setenv("TABLESMITH_CADDY_ADMIN", "off")
	t.Setenv("TABLESMITH_DATABASE_URL", "postgres://tablesmith@127.0.0.1:1/none?sslmode=disable")
	t.Setenv("TABLESMITH_SECRET", "example-secret")
	t.Setenv("TABLESMITH_DASHBOARD_DIR", t.TempDir())
	t.Setenv("XDG_CONFIG_HOME", t.TempDir())
	t.Setenv("XDG_DATA_HOME", t.TempDir())
	files := exampleCaddyfiles(t, filepath.Join("..", ".."))
	for _, path := range files {
		raw, err := os.ReadFile(path)
		if err != nil {
			t.Fatal(err)
		}
		cfg, warnings, err := caddyconfig.GetAdapter("caddyfile").Adapt(raw, map[string]any{"filename": path})
		if err != nil {
			t.Errorf("%s does not adapt: %v", path, err)
			continue
		}
		for _, w := range warnings {
			t.Errorf("%s: adapt warning at line %d: %s", path, w.Line, w.Message)
		}
		if err := caddy.Validate(mustConfig(t, cfg)); err != nil {
			t.Errorf("%s does not validate: %v", path, err)
		}
	}
	if len(files) < 3 {
		t.Fatalf("found %v", files)
	}
}

func mustConfig(t *testing.T, raw []byte) *caddy.Config {
	t.Helper()
	var cfg caddy.Config
	if err := caddy.StrictUnmarshalJSON(raw, &cfg); err != nil {
		t.Fatal(err)
	}
	return &cfg
}

// The check above can fail: a config whose tablesmith app cannot
// provision is refused by the same steps.
func TestValidationRefusesABadTablesmithConfig(t *testing.T) {
	bad := []byte("{\n\tadmin off\n\ttablesmith {\n\t\tdatabase_url postgres://127.0.0.1:1/none\n\t\tdefault_plan gold\n\t}\n}\n:0 {\n\ttablesmith_api\n}\n")
	cfg, _, err := caddyconfig.GetAdapter("caddyfile").Adapt(bad, map[string]any{"filename": "bad"})
	if err == nil {
		err = caddy.Validate(mustConfig(t, cfg))
	}
	if err == nil || !strings.Contains(err.Error(), "gold") {
		t.Fatalf("a default_plan no plan defines: %v, want an error naming it", err)
	}
}
