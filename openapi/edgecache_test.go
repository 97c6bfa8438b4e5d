package openapi

import (
	"strings"
	"testing"
)

func TestCachedTablesDescribeTheirSharedCacheHeaders(t *testing.T) {
	t.Parallel()
	m := renderMap(t, compileJSON(t, `{"tables": [
		{"name": "notes", "permissions": {"read": "public"}, "cache": {"max_age": 45}, "columns": [{"name": "body", "type": "text"}]},
		{"name": "drafts", "permissions": {"read": "public"}, "columns": [{"name": "body", "type": "text"}]}]}`))
	for _, path := range []string{"/notes", "/notes/{id}", "/notes/aggregate"} {
		for _, method := range []string{"get", "head"} {
			for _, code := range []string{"200", "304"} {
				cc := at(t, m, "paths", path, method, "responses", code, "headers", "Cache-Control", "description").(string)
				if !strings.Contains(cc, "public, max-age=45") {
					t.Errorf("%s %s %s: Cache-Control says %q", method, path, code, cc)
				}
				if _, ok := at(t, m, "paths", path, method, "responses", code, "headers").(map[string]any)["Surrogate-Key"]; !ok {
					t.Errorf("%s %s %s: no Surrogate-Key header", method, path, code)
				}
			}
		}
	}
	if h := at(t, m, "paths", "/drafts", "get", "responses", "200", "headers").(map[string]any); h["Cache-Control"] != nil || h["Surrogate-Key"] != nil {
		t.Errorf("a table without cache describes shared-cache headers: %v", h)
	}
}
