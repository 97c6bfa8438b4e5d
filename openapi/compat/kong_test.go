package compat_test

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/tablesmith/tablesmith/openapi/check"
)

// TestKongsConverterMakesARouteForEveryOperationOfThe30Rendition:
// openapi-2-kong, with its defaults, turns the OpenAPI 3.0 rendition into a
// declarative config whose service is the project's API, with one route per
// operation and the credential read from the Authorization header
// (docs/openapi.md says what to do with Kong's key-auth).
func TestKongsConverterMakesARouteForEveryOperationOfThe30Rendition(t *testing.T) {
	t.Parallel()
	f := newTSFixture(t, "kong.mjs")
	out := check.Run(t, f.dir, 2*time.Minute, nil, "node", "kong.mjs", "openapi-3.0.json")
	var config struct {
		Services []struct {
			Host   string `json:"host"`
			Path   string `json:"path"`
			Routes []struct {
				Name    string   `json:"name"`
				Methods []string `json:"methods"`
				Plugins []struct {
					Name   string `json:"name"`
					Config struct {
						KeyNames []string `json:"key_names"`
					} `json:"config"`
				} `json:"plugins"`
			} `json:"routes"`
		} `json:"services"`
	}
	if err := json.Unmarshal([]byte(out[strings.Index(out, "{"):]), &config); err != nil {
		t.Fatalf("openapi-2-kong's output is not a config: %v\n%s", err, out)
	}
	if len(config.Services) != 1 {
		t.Fatalf("want one service, the project's API; got %d", len(config.Services))
	}
	svc := config.Services[0]
	if svc.Host != "127.0.0.1" || !strings.HasSuffix(f.base, svc.Path) {
		t.Errorf("service %s%s, want the document's server %s", svc.Host, svc.Path, f.base)
	}

	want := operations(t, filepath.Join(f.dir, "openapi-3.0.json"))
	got := map[string]bool{}
	for _, r := range svc.Routes {
		op := r.Name[strings.LastIndex(r.Name, "-")+1:]
		authOnHeader := false
		for _, p := range r.Plugins {
			authOnHeader = authOnHeader || (p.Name == "key-auth" && len(p.Config.KeyNames) == 1 && p.Config.KeyNames[0] == "Authorization")
		}
		for _, m := range r.Methods {
			key := m + " " + op
			got[key] = true
			if needsCredential, described := want[key]; described && needsCredential && !authOnHeader {
				t.Errorf("route %s does not read the credential from Authorization: %+v", r.Name, r.Plugins)
			}
		}
	}
	for op := range want {
		if !got[op] {
			t.Errorf("no Kong route for %s", op)
		}
	}
	if len(got) != len(want) {
		t.Errorf("%d method routes for %d operations", len(got), len(want))
	}
}

// operations lists a document's operations as "METHOD operationId", each
// with whether it needs a credential (no empty alternative in security).
func operations(t *testing.T, path string) map[string]bool {
	t.Helper()
	raw, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	var doc struct {
		Paths map[string]map[string]json.RawMessage `json:"paths"`
	}
	if err := json.Unmarshal(raw, &doc); err != nil {
		t.Fatal(err)
	}
	ops := map[string]bool{}
	for _, item := range doc.Paths {
		for method, op := range item {
			var o struct {
				OperationID string                `json:"operationId"`
				Security    []map[string][]string `json:"security"`
			}
			if json.Unmarshal(op, &o) != nil || o.OperationID == "" {
				continue
			}
			needsCredential := len(o.Security) > 0
			for _, alternative := range o.Security {
				needsCredential = needsCredential && len(alternative) > 0
			}
			ops[strings.ToUpper(method)+" "+o.OperationID] = needsCredential
		}
	}
	return ops
}
