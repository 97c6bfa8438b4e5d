package caddymodule

import (
	"bytes"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/tablesmith/tablesmith/internal/testpg"
	"github.com/tablesmith/tablesmith/internal/testserver"
)

// runSchemaCommand runs `schema <args>` and returns its output, errors
// and error.
func runSchemaCommand(t *testing.T, args ...string) (string, string, error) {
	t.Helper()
	cmd := schemaApplyCommand()
	var out, errOut bytes.Buffer
	cmd.SetOut(&out)
	cmd.SetErr(&errOut)
	cmd.SetArgs(args)
	err := cmd.Execute()
	return out.String(), errOut.String(), err
}

func TestSchemaApplyGeneratesAFileLikeThePlatformAPI(t *testing.T) {
	s := testserver.New(t)
	p := s.NewProject(`{"tables": [{"name": "notes", "columns": [{"name": "body", "type": "text"}, {"name": "tmp", "type": "text"}]}]}`)
	s.API(p, "POST", "/notes", map[string]any{"body": "kept", "tmp": "x"}).Must(t, 201)
	dir := t.TempDir()
	file := filepath.Join(dir, "schema.json")
	next := `{"tables": [{"name": "notes", "columns": [{"name": "body", "type": "text", "required": true}, {"name": "stars", "type": "integer", "default": 0}]}]}`
	if err := os.WriteFile(file, []byte(next), 0o600); err != nil {
		t.Fatal(err)
	}
	db := testpg.URL(t)

	// A dry run shows the plan and changes nothing.
	out, _, err := runSchemaCommand(t, "apply", "--project", p.ID, "--database-url", db, "--dry-run", file)
	if err != nil || !strings.Contains(out, "drop_column: drop column notes.tmp") || !strings.Contains(out, "[destructive]") || !strings.Contains(out, `ADD COLUMN "stars" bigint DEFAULT 0`) {
		t.Fatalf("dry run = %v\n%s", err, out)
	}
	if v := s.Do("GET", "/api/projects/"+p.ID, p.Session, nil).Must(t, 200).Data()["published_version"]; v != float64(1) {
		t.Fatalf("a dry run published version %v", v)
	}

	// Dropping tmp needs the flag, as generate needs confirm_destructive.
	_, errOut, err := runSchemaCommand(t, "apply", "--project", p.ID, "--database-url", db, file)
	if err == nil || !strings.Contains(errOut, "DESTRUCTIVE_CHANGE") || !strings.Contains(errOut, "notes.tmp:") {
		t.Fatalf("unconfirmed apply = %v\n%s", err, errOut)
	}
	out, _, err = runSchemaCommand(t, "apply", "--project", p.ID, "--database-url", db, "--confirm-destructive", file)
	if err != nil || !strings.Contains(out, "published version 2") {
		t.Fatalf("apply = %v\n%s", err, out)
	}
	got := s.API(p, "GET", "/notes/1", nil).Must(t, 200).Data()
	if got["body"] != "kept" || got["stars"] != float64(0) || got["tmp"] != nil {
		t.Fatalf("record after apply = %v", got)
	}
	// The file became the draft, so the dashboard shows what CI applied.
	meta := s.Do("GET", "/api/projects/"+p.ID+"/schema", p.Session, nil).Must(t, 200).Body["meta"].(map[string]any)
	if meta["has_unpublished_changes"] != false || meta["published_version"] != float64(2) {
		t.Fatalf("draft meta = %v", meta)
	}

	// Rows that break the file's rules are reported, and nothing changes.
	s.API(p, "POST", "/notes", map[string]any{"body": "x"}).Must(t, 201)
	s.API(p, "POST", "/notes", map[string]any{"body": "x"}).Must(t, 201)
	if err := os.WriteFile(file, []byte(strings.Replace(next, `"required": true}`, `"required": true, "unique": true}`, 1)), 0o600); err != nil {
		t.Fatal(err)
	}
	_, errOut, err = runSchemaCommand(t, "apply", "--project", p.ID, "--database-url", db, file)
	if err == nil || !strings.Contains(errOut, "notes.body: 2 existing rows break this: no two rows share a value") {
		t.Fatalf("blocked apply = %v\n%s", err, errOut)
	}
	if _, _, err := runSchemaCommand(t, "apply", "--project", "nosuchproject", "--database-url", db, file); err == nil {
		t.Fatal("an unknown project was accepted")
	}
	if _, _, err := runSchemaCommand(t, "apply", "--database-url", db, file); err == nil {
		t.Fatal("--project is required")
	}
}
