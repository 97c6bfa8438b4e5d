// Package compat_test is the client-compatibility suite (issue 36.3): a
// live project whose schema uses every column type, relation kind and
// table switch, its OpenAPI documents given to the generators, proxies and
// gateway converters users bring, each with its defaults, and each
// generated client run against the server. The Node.js tools are pinned in
// openapi/check's package.json, the Go ones in gomod/go.mod.
package compat_test

import (
	"encoding/json"
	"os"
	"path/filepath"
	"testing"

	"github.com/tablesmith/tablesmith/internal/testpg"
	"github.com/tablesmith/tablesmith/internal/testserver"
	"github.com/tablesmith/tablesmith/schema"
)

func TestMain(m *testing.M) { testpg.Main(m, "compat") }

// fixture is one fresh project of testdata/everything.json on a live
// server, with its documents written to dir as openapi.json (3.1) and
// openapi-3.0.json.
type fixture struct {
	s    *testserver.Server
	p    *testserver.Project
	base string // the generated API's root URL, the documents' server
	dir  string
}

func newFixture(t *testing.T) *fixture {
	t.Helper()
	doc, err := os.ReadFile("testdata/everything.json")
	if err != nil {
		t.Fatal(err)
	}
	s := testserver.New(t)
	p := s.NewProject(string(doc))
	f := &fixture{s: s, p: p, base: s.URL + "/v1/" + p.ID, dir: t.TempDir()}
	for _, name := range []string{"openapi.json", "openapi-3.0.json"} {
		r := s.Do("GET", "/v1/"+p.ID+"/"+name, "", nil).Must(t, 200)
		f.write(t, name, r.Raw)
	}
	return f
}

func (f *fixture) write(t *testing.T, name string, data []byte) {
	t.Helper()
	path := filepath.Join(f.dir, name)
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(path, data, 0o644); err != nil {
		t.Fatal(err)
	}
}

// copyIn copies files from this package's directory into the fixture's.
func (f *fixture) copyIn(t *testing.T, names ...string) {
	t.Helper()
	for _, name := range names {
		data, err := os.ReadFile(name)
		if err != nil {
			t.Fatal(err)
		}
		f.write(t, filepath.Base(name), data)
	}
}

// env is what every driver script reads: the API's root and a read_write key.
func (f *fixture) env() []string {
	return []string{"API_BASE=" + f.base, "API_KEY=" + f.p.Key}
}

// TestTheSchemaUsesEveryColumnType keeps the suite honest: a column type
// added to the registry must appear in testdata/everything.json.
func TestTheSchemaUsesEveryColumnType(t *testing.T) {
	raw, err := os.ReadFile("testdata/everything.json")
	if err != nil {
		t.Fatal(err)
	}
	var doc schema.Document
	if err := json.Unmarshal(raw, &doc); err != nil {
		t.Fatal(err)
	}
	used := map[string]bool{}
	for _, table := range doc.Tables {
		for _, c := range table.Columns {
			used[c.Type] = true
		}
	}
	for _, typ := range schema.Types {
		if !used[typ] {
			t.Errorf("no column of type %q in testdata/everything.json: add one so every client meets it", typ)
		}
	}
}
