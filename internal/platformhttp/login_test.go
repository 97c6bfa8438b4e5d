package platformhttp_test

import (
	"fmt"
	"strings"
	"testing"

	"github.com/tablesmith/tablesmith/internal/testserver"
)

func TestPlatformLoginIsThrottledAfterRepeatedWrongPasswords(t *testing.T) {
	t.Parallel()
	s := testserver.New(t)
	// Its own client address: the package's tests share one database.
	s.SetClient("192.0.2.44", false)
	s.Do("POST", "/api/auth/signup", "", map[string]any{"email": "ada@example.com", "password": "longpassword"}).Must(t, 201)
	for i := range 12 {
		res := s.Do("POST", "/api/auth/login", "", map[string]any{"email": "ada@example.com", "password": fmt.Sprintf("guess %d", i)})
		if res.Status != 401 && res.Status != 429 {
			t.Fatalf("guess %d: %d %s", i, res.Status, res.Raw)
		}
	}
	res := s.Do("POST", "/api/auth/login", "", map[string]any{"email": "ADA@example.com", "password": "longpassword"}).Must(t, 429)
	if res.ErrorCode() != "TOO_MANY_ATTEMPTS" || res.Header.Get("Retry-After") == "" {
		t.Fatalf("locked login = %s (Retry-After %q)", res.Raw, res.Header.Get("Retry-After"))
	}
	// Another account from the same client is not locked by ada's e-mail.
	s.Do("POST", "/api/auth/signup", "", map[string]any{"email": "bob@example.com", "password": "longpassword"}).Must(t, 201)
	s.Do("POST", "/api/auth/login", "", map[string]any{"email": "bob@example.com", "password": "longpassword"}).Must(t, 200)
}

func TestPlatformLoginThrottleKeysOnTheClientAddressCaddyDetermined(t *testing.T) {
	t.Parallel()
	s := testserver.New(t)
	s.Do("POST", "/api/auth/signup", "", map[string]any{"email": "eve@example.com", "password": "longpassword"}).Must(t, 201)
	// Every request reaches the handler from 127.0.0.1; the client
	// addresses differ only as the proxy in front determined them.
	s.SetClient("203.0.113.10", false)
	for i := range 30 {
		s.Do("POST", "/api/auth/login", "", map[string]any{"email": fmt.Sprintf("user%d@example.com", i), "password": "longpassword"}).Must(t, 401)
	}
	s.Do("POST", "/api/auth/login", "", map[string]any{"email": "eve@example.com", "password": "longpassword"}).Must(t, 429)
	s.SetClient("203.0.113.11", false)
	s.Do("POST", "/api/auth/login", "", map[string]any{"email": "eve@example.com", "password": "longpassword"}).Must(t, 200)
}

func TestProjectURLsBelieveXForwardedProtoOnlyFromATrustedProxy(t *testing.T) {
	t.Parallel()
	s := testserver.New(t)
	tok := s.Signup("url@example.com")
	s.SetClient("198.51.100.3", false)
	p := s.Do("POST", "/api/projects", tok, map[string]any{"name": "Shop"}, "X-Forwarded-Proto", "https").Must(t, 201).Data()
	if !strings.HasPrefix(p["api_base_url"].(string), "http://") {
		t.Fatalf("untrusted peer: api_base_url = %v", p["api_base_url"])
	}
	s.SetClient("198.51.100.3", true)
	got := s.Do("GET", "/api/projects/"+p["id"].(string), tok, nil, "X-Forwarded-Proto", "https").Must(t, 200).Data()
	if !strings.HasPrefix(got["api_base_url"].(string), "https://") {
		t.Fatalf("trusted proxy: api_base_url = %v", got["api_base_url"])
	}
}
