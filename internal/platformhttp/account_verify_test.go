package platformhttp_test

import (
	"strings"
	"testing"
	"time"
)

func TestSignupMailsAVerificationLinkThatVerifiesOnce(t *testing.T) {
	t.Parallel()
	c := newClock()
	s, smtp := mailServer(t, c)
	const email = "verify@example.com"
	tok := s.Signup(email)
	token := waitLink(t, s, smtp, email, "verify-email")
	if !strings.HasPrefix(token, "tsav_") {
		t.Fatalf("verification token = %q", token)
	}
	// Login is not blocked by an unverified address.
	me := s.Do("GET", "/api/account", tok, nil).Must(t, 200).Data()
	if me["email_verified"] != false || me["totp_enabled"] != false {
		t.Fatalf("account before = %v", me)
	}
	s.Do("POST", "/api/auth/login", "", map[string]any{"email": email, "password": testPassword}).Must(t, 200)

	got := s.Do("POST", "/api/auth/verify-email", "", map[string]any{"token": token}).Must(t, 200).Data()
	if got["email"] != email || got["email_verified"] != true {
		t.Fatalf("verify = %v", got)
	}
	if s.Do("GET", "/api/account", tok, nil).Must(t, 200).Data()["email_verified"] != true {
		t.Fatal("not verified after the link")
	}
	if res := s.Do("POST", "/api/auth/verify-email", "", map[string]any{"token": token}).Must(t, 400); res.Details()["token"] == nil {
		t.Fatalf("used link = %s", res.Raw)
	}
	s.Do("POST", "/api/account/verify-email/resend", tok, nil).Must(t, 409)
}

func TestVerificationResendIsThrottledAndOldLinksExpire(t *testing.T) {
	t.Parallel()
	c := newClock()
	s, smtp := mailServer(t, c)
	const email = "resend@example.com"
	tok := s.Signup(email)
	first := waitLink(t, s, smtp, email, "verify-email")
	s.Do("POST", "/api/account/verify-email/resend", "", nil).Must(t, 401)
	// The signup's mail counts: a resend at once waits.
	busy := s.Do("POST", "/api/account/verify-email/resend", tok, nil).Must(t, 429)
	if busy.ErrorCode() != "TOO_MANY_ATTEMPTS" || busy.Header.Get("Retry-After") == "" {
		t.Fatalf("resend at once = %s", busy.Raw)
	}
	c.Add(61 * time.Second)
	s.Do("POST", "/api/account/verify-email/resend", tok, nil).Must(t, 202)
	second := waitLink(t, s, smtp, email, "verify-email")
	if second == first {
		t.Fatal("resend mailed the same token")
	}
	// 24 hours later both links are refused.
	c.Add(24*time.Hour + time.Second)
	s.Do("POST", "/api/auth/verify-email", "", map[string]any{"token": first}).Must(t, 400)
	s.Do("POST", "/api/auth/verify-email", "", map[string]any{"token": second}).Must(t, 400)
	// A new one works.
	s.Do("POST", "/api/account/verify-email/resend", tok, nil).Must(t, 202)
	s.Do("POST", "/api/auth/verify-email", "", map[string]any{"token": waitLink(t, s, smtp, email, "verify-email")}).Must(t, 200)
}
