package cors

import (
	"net/http"
	"net/http/httptest"
	"slices"
	"testing"
)

func TestNormalizeAcceptsExactOriginsAndStar(t *testing.T) {
	got, problems := Normalize([]string{"https://App.Example.com", "http://localhost:5173", "https://app.example.com", " http://[::1]:8080 "})
	if problems != nil {
		t.Fatalf("problems %v", problems)
	}
	want := []string{"https://app.example.com", "http://localhost:5173", "http://[::1]:8080"}
	if !slices.Equal(got, want) {
		t.Fatalf("got %v, want %v", got, want)
	}
	if got, problems := Normalize([]string{"*"}); problems != nil || !slices.Equal(got, []string{"*"}) {
		t.Fatalf("* gave %v %v", got, problems)
	}
}

func TestNormalizeRefusesWhatIsNotAnOrigin(t *testing.T) {
	for _, bad := range []string{"app.example.com", "https://app.example.com/", "https://app.example.com/path", "ftp://x.org",
		"https://user@x.org", "https://x.org?q=1", "https://*.x.org", "", "null", "https://x.org:abc"} {
		if _, problems := Normalize([]string{bad}); problems["[0]"] == "" {
			t.Errorf("%q was accepted", bad)
		}
	}
	if _, problems := Normalize([]string{"*", "https://x.org"}); problems[""] == "" {
		t.Error("* beside an origin was accepted")
	}
}

func TestPolicyEchoesAListedOriginAndAnswersStarOtherwise(t *testing.T) {
	h := http.Header{}
	if !Compile(nil).Annotate(h, "https://a.org") || h.Get("Access-Control-Allow-Origin") != "*" || h.Get("Vary") != "Origin" {
		t.Fatalf("default policy headers %v", h)
	}
	p := Compile([]string{"https://a.org"})
	h = http.Header{}
	if !p.Annotate(h, "https://a.org") || h.Get("Access-Control-Allow-Origin") != "https://a.org" || h.Get("Access-Control-Expose-Headers") == "" {
		t.Fatalf("listed origin headers %v", h)
	}
	h = http.Header{}
	if p.Annotate(h, "https://b.org") || h.Get("Access-Control-Allow-Origin") != "" || h.Get("Vary") != "Origin" {
		t.Fatalf("unlisted origin headers %v", h)
	}
	h = http.Header{}
	if !Compile(nil).Annotate(h, "") || h.Get("Access-Control-Allow-Origin") != "*" || h.Get("Vary") != "" {
		t.Fatalf("default policy without Origin: %v", h)
	}
	h = http.Header{"Vary": {"Accept-Encoding"}}
	p.Annotate(h, "")
	if got := h.Values("Vary"); !slices.Equal(got, []string{"Accept-Encoding", "Origin"}) {
		t.Fatalf("Vary %v", got)
	}
}

func TestPreflightEchoesOnlyHeaderNames(t *testing.T) {
	r := httptest.NewRequest(http.MethodOptions, "/v1/p/t", nil)
	r.Header.Set("Origin", "https://a.org")
	r.Header.Set("Access-Control-Request-Method", "POST")
	r.Header.Set("Access-Control-Request-Headers", "authorization, x-client-info")
	h := http.Header{}
	if !Preflight(r) || !Compile(nil).AnswerPreflight(h, r) || h.Get("Access-Control-Allow-Headers") != "authorization, x-client-info" {
		t.Fatalf("preflight headers %v", h)
	}
	r.Header.Set("Access-Control-Request-Headers", "x\r\nSet-Cookie: a=b")
	h = http.Header{}
	Compile(nil).AnswerPreflight(h, r)
	if h.Get("Access-Control-Allow-Headers") != allowedHeaders {
		t.Fatalf("a bad header list was echoed: %q", h.Get("Access-Control-Allow-Headers"))
	}
}
