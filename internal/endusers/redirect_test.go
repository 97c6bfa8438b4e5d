package endusers

import (
	"testing"

	"github.com/tablesmith/tablesmith/internal/cors"
	"github.com/tablesmith/tablesmith/internal/registry"
)

func TestARedirectMustBeOnAnOriginTheProjectListsExplicitly(t *testing.T) {
	listed := &registry.Entry{CORS: cors.Compile([]string{"https://app.example.com", "http://localhost:5173"})}
	anyOrigin := &registry.Entry{CORS: cors.Compile(nil)}
	for _, tc := range []struct {
		entry *registry.Entry
		raw   string
		ok    bool
	}{
		{listed, "", true},
		{listed, "https://app.example.com/reset?x=1", true},
		{listed, "https://APP.example.com/reset", true},
		{listed, "http://localhost:5173/", true},
		{listed, "https://evil.example.com/reset", false},
		{listed, "https://app.example.com.evil.com/", false},
		{listed, "http://app.example.com/reset", false}, // another scheme is another origin
		{listed, "https://user@app.example.com/", false},
		{listed, "https://app.example.com/#frag", false},
		{listed, "//app.example.com/reset", false},
		{listed, "javascript:alert(1)", false},
		{listed, "/reset", false},
		{anyOrigin, "https://app.example.com/reset", false},
	} {
		u, err := RedirectTarget(tc.entry, tc.raw)
		if (err == nil) != tc.ok {
			t.Errorf("RedirectTarget(%q): err %v, want ok=%v", tc.raw, err, tc.ok)
		}
		if err == nil && tc.raw != "" && u == nil {
			t.Errorf("RedirectTarget(%q): no URL", tc.raw)
		}
	}
}
