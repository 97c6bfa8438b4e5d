package caddymodule

import (
	"net/http"
	"strings"
	"testing"

	"github.com/caddyserver/caddy/v2"

	"github.com/tablesmith/tablesmith/internal/testpg"
)

// send makes one request through the real Caddy with the given headers.
func send(t *testing.T, method, url string, headers map[string]string) *http.Response {
	t.Helper()
	req, _ := http.NewRequest(method, url, nil)
	for k, v := range headers {
		req.Header.Set(k, v)
	}
	res, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	res.Body.Close()
	return res
}

func TestCORSPreflightAndAnswersThroughCaddyFollowTheProjectSetting(t *testing.T) {
	base := caddyEnv(t, testpg.NewDatabase(t))
	loadExample(t, nil)
	t.Cleanup(func() {
		if err := caddy.Stop(); err != nil {
			t.Errorf("stop caddy: %v", err)
		}
	})
	c := client{t, base}
	session, project, key := setUpUsers(c)
	users := base + "/v1/" + project + "/users"
	const app = "https://app.example.com"
	preflight := map[string]string{"Origin": app, "Access-Control-Request-Method": "POST",
		"Access-Control-Request-Headers": "authorization, content-type, idempotency-key"}

	// The default allows any origin; a preflight is answered before auth.
	res := send(t, "OPTIONS", users, preflight)
	if res.StatusCode != 204 || res.Header.Get("Access-Control-Allow-Origin") != "*" ||
		!strings.Contains(res.Header.Get("Access-Control-Allow-Methods"), "PATCH") ||
		res.Header.Get("Access-Control-Allow-Headers") != "authorization, content-type, idempotency-key" ||
		res.Header.Get("Access-Control-Max-Age") == "" || res.Header.Get("Access-Control-Allow-Credentials") != "" {
		t.Fatalf("default preflight: %d %v", res.StatusCode, res.Header)
	}
	exposed := []string{"X-RateLimit-Limit", "X-RateLimit-Remaining", "X-RateLimit-Reset", "Retry-After", "Location", "X-Request-Id", "ETag"}
	checkAllowed := func(what string, res *http.Response, allowOrigin string) {
		t.Helper()
		if got := res.Header.Get("Access-Control-Allow-Origin"); got != allowOrigin {
			t.Errorf("%s: Access-Control-Allow-Origin %q, want %q", what, got, allowOrigin)
		}
		for _, h := range exposed {
			if !strings.Contains(res.Header.Get("Access-Control-Expose-Headers"), h) {
				t.Errorf("%s: Access-Control-Expose-Headers %q lacks %s", what, res.Header.Get("Access-Control-Expose-Headers"), h)
			}
		}
		if !strings.Contains(strings.Join(res.Header.Values("Vary"), ","), "Origin") {
			t.Errorf("%s: Vary %v lacks Origin", what, res.Header.Values("Vary"))
		}
		if res.Header.Get("Access-Control-Allow-Credentials") != "" {
			t.Errorf("%s: Access-Control-Allow-Credentials is set", what)
		}
	}
	checkAllowed("200", send(t, "GET", users, map[string]string{"Origin": app, "Authorization": "Bearer " + key}), "*")
	checkAllowed("401", send(t, "GET", users, map[string]string{"Origin": app, "Authorization": "Bearer ts_wrong"}), "*")
	checkAllowed("404 project", send(t, "GET", base+"/v1/nosuchproject/users", map[string]string{"Origin": app}), "*")

	// Restricted to one origin: that origin is echoed, on errors too;
	// another gets no Allow-Origin and its preflight is refused.
	c.must(200, "PATCH", "/api/projects/"+project, session, map[string]any{"cors": map[string]any{"allowed_origins": []string{app}}})
	res = send(t, "OPTIONS", users, preflight)
	if res.StatusCode != 204 || res.Header.Get("Access-Control-Allow-Origin") != app {
		t.Fatalf("listed origin's preflight: %d %v", res.StatusCode, res.Header)
	}
	checkAllowed("listed 200", send(t, "GET", users, map[string]string{"Origin": app, "Authorization": "Bearer " + key}), app)
	checkAllowed("listed 401", send(t, "GET", users, map[string]string{"Origin": app}), app)
	other := map[string]string{"Origin": "https://evil.example.org", "Access-Control-Request-Method": "GET"}
	res = send(t, "OPTIONS", users, other)
	if res.StatusCode != 403 || res.Header.Get("Access-Control-Allow-Origin") != "" || res.Header.Get("Access-Control-Allow-Methods") != "" {
		t.Fatalf("unlisted origin's preflight: %d %v", res.StatusCode, res.Header)
	}
	res = send(t, "GET", users, map[string]string{"Origin": "https://evil.example.org", "Authorization": "Bearer " + key})
	if res.StatusCode != 200 || res.Header.Get("Access-Control-Allow-Origin") != "" || res.Header.Get("Vary") == "" {
		t.Fatalf("unlisted origin's GET: %d %v", res.StatusCode, res.Header)
	}

	// Preflights never count against the plan.
	allowed := activeService(t).LimitStats().Allowed
	for range 5 {
		send(t, "OPTIONS", users, preflight)
	}
	send(t, "GET", users, map[string]string{"Authorization": "Bearer " + key})
	if got := activeService(t).LimitStats().Allowed; got != allowed+1 {
		t.Fatalf("limiter allowed %d more requests after 5 preflights and 1 GET, want 1", got-allowed)
	}

	// The setting is shown, validated, and back to any origin with "*".
	if got := c.must(200, "GET", "/api/projects/"+project, session, nil)["cors"]; !strings.Contains(strings.Join(anyStrings(got), ","), app) {
		t.Fatalf("project cors = %v", got)
	}
	status, body, _ := c.do("PATCH", "/api/projects/"+project, session, map[string]any{"cors": map[string]any{"allowed_origins": []string{"https://app.example.com/path"}}})
	if status != 400 || body["error"].(map[string]any)["code"] != "VALIDATION_ERROR" ||
		body["error"].(map[string]any)["details"].(map[string]any)["cors.allowed_origins[0]"] == nil {
		t.Fatalf("an origin with a path: %d %v", status, body)
	}
	c.must(200, "PATCH", "/api/projects/"+project, session, map[string]any{"cors": map[string]any{"allowed_origins": []string{"*"}}})
	checkAllowed("back to any", send(t, "GET", users, map[string]string{"Origin": "https://evil.example.org", "Authorization": "Bearer " + key}), "*")

	// An empty project id is a JSON 404 on both APIs, not a redirect.
	for _, path := range []string{"/api/projects//schema/plan", "/v1//users"} {
		status, body, hdr := c.do("GET", path, session, nil)
		if status != 404 || body == nil || body["error"].(map[string]any)["code"] != "NOT_FOUND" || !strings.HasPrefix(hdr.Get("Content-Type"), "application/json") {
			t.Errorf("GET %s: %d %v %v", path, status, body, hdr)
		}
	}
}

// anyStrings reads {"allowed_origins": [...]} as decoded JSON.
func anyStrings(v any) []string {
	m, _ := v.(map[string]any)
	list, _ := m["allowed_origins"].([]any)
	out := make([]string, 0, len(list))
	for _, x := range list {
		s, _ := x.(string)
		out = append(out, s)
	}
	return out
}
