package openapi

import (
	"bytes"
	"encoding/json"
	"net/http"
	"testing"

	"github.com/pb33f/libopenapi"
	validator "github.com/pb33f/libopenapi-validator"

	"github.com/tablesmith/tablesmith/internal/validate"
)

// The two ways to validate a request body, measured on the same create of
// the all-types posts table: the compiled per-table validator the server
// runs (internal/validate), and libopenapi-validator over this document
// (built once, synchronous). docs/openapi.md records the numbers.

var benchPost = map[string]any{"title": "A title", "featured": true, "slug": "a-slug", "status": "published",
	"rating": 4.5, "price": "19.99", "published_at": "2026-01-31T12:00:00Z", "publish_on": "2026-02-01",
	"contact": "Someone@Example.com", "website": "https://example.com/", "external_ref": "3f2504e0-4f89-11d3-9a0c-0305e82c3301",
	"metadata": map[string]any{"a": 1}, "views": 3}

func BenchmarkValidateBodyCompiled(b *testing.B) {
	c := compileFile(b, "alltypes.json")
	t, _ := c.Table("posts")
	raw, _ := json.Marshal(benchPost)
	b.ReportAllocs()
	for i := 0; i < b.N; i++ {
		dec := json.NewDecoder(bytes.NewReader(raw))
		dec.UseNumber()
		var body map[string]any
		if err := dec.Decode(&body); err != nil {
			b.Fatal(err)
		}
		if _, problems := validate.Record(t, body, validate.Create); problems != nil {
			b.Fatal(problems)
		}
	}
}

func BenchmarkValidateBodyLibopenapiValidator(b *testing.B) {
	doc, err := Render(compileFile(b, "alltypes.json"), Options{ProjectID: "abc123def456", Version: 1})
	if err != nil {
		b.Fatal(err)
	}
	parsed, err := libopenapi.NewDocument(doc.JSON())
	if err != nil {
		b.Fatal(err)
	}
	v, errs := validator.NewValidator(parsed)
	if len(errs) > 0 {
		b.Fatal(errs)
	}
	raw, _ := json.Marshal(benchPost)
	b.ReportAllocs()
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		r, _ := http.NewRequest("POST", "http://localhost/v1/abc123def456/posts", bytes.NewReader(raw))
		r.Header.Set("Content-Type", "application/json")
		r.Header.Set("Authorization", "Bearer ts_key")
		if ok, errs := v.ValidateHttpRequestSync(r); !ok {
			b.Fatal(errs)
		}
	}
}
