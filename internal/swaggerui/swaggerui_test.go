package swaggerui

import (
	"bytes"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"testing/fstest"

	"github.com/klauspost/compress/gzip"
	"github.com/klauspost/compress/zstd"
)

func testUI() (*UI, []byte) {
	bundle := []byte(strings.Repeat("window.SwaggerUIBundle = function () { return 42; };\n", 400))
	return New(fstest.MapFS{
		"swagger-ui-bundle.js":            {Data: bundle},
		"swagger-ui-standalone-preset.js": {Data: []byte("x")},
		"swagger-ui.css":                  {Data: []byte("body{}")},
	}), bundle
}

func serve(u *UI, header http.Header) *http.Response {
	r := httptest.NewRequest("GET", "/v1/p/docs/swagger-ui-bundle.js", nil)
	r.Header = header
	w := httptest.NewRecorder()
	if !u.ServeAsset(w, r, "swagger-ui-bundle.js") {
		panic("not served")
	}
	return w.Result()
}

func TestAssetsGoOutCompressedWithAnETagOfTheirOwn(t *testing.T) {
	u, bundle := testUI()
	plain := serve(u, http.Header{})
	body, _ := io.ReadAll(plain.Body)
	if plain.StatusCode != 200 || plain.Header.Get("Content-Encoding") != "" || !bytes.Equal(body, bundle) {
		t.Fatalf("identity: %d %q, %d bytes", plain.StatusCode, plain.Header.Get("Content-Encoding"), len(body))
	}
	seen := map[string]bool{plain.Header.Get("ETag"): true}
	for _, enc := range []string{"zstd", "gzip"} {
		res := serve(u, http.Header{"Accept-Encoding": {enc}})
		raw, _ := io.ReadAll(res.Body)
		if res.StatusCode != 200 || res.Header.Get("Content-Encoding") != enc || len(raw) >= len(bundle) ||
			res.Header.Get("Vary") != "Accept-Encoding" || res.Header.Get("Content-Length") == "" {
			t.Fatalf("%s: %d %v, %d bytes", enc, res.StatusCode, res.Header, len(raw))
		}
		var got []byte
		if enc == "zstd" {
			d, _ := zstd.NewReader(nil)
			got, _ = d.DecodeAll(raw, nil)
		} else {
			zr, err := gzip.NewReader(bytes.NewReader(raw))
			if err != nil {
				t.Fatal(err)
			}
			got, _ = io.ReadAll(zr)
		}
		if !bytes.Equal(got, bundle) {
			t.Fatalf("%s: decoded %d bytes, want the %d of the asset", enc, len(got), len(bundle))
		}
		etag := res.Header.Get("ETag")
		if seen[etag] {
			t.Fatalf("%s: ETag %s is another encoding's", enc, etag)
		}
		seen[etag] = true
		again := serve(u, http.Header{"Accept-Encoding": {enc}, "If-None-Match": {etag}})
		if again.StatusCode != http.StatusNotModified {
			t.Fatalf("%s: revalidation answered %d", enc, again.StatusCode)
		}
	}
	// A range request counts identity bytes.
	part := serve(u, http.Header{"Accept-Encoding": {"zstd"}, "Range": {"bytes=0-9"}})
	raw, _ := io.ReadAll(part.Body)
	if part.StatusCode != http.StatusPartialContent || part.Header.Get("Content-Encoding") != "" || !bytes.Equal(raw, bundle[:10]) {
		t.Fatalf("range: %d %q %q", part.StatusCode, part.Header.Get("Content-Encoding"), raw)
	}
}
