package platformhttp_test

import (
	"bytes"
	"net/http"
	"testing"
	"time"

	"github.com/tablesmith/tablesmith/internal/testserver"
)

// The account security routes answer as the platform document says.
func TestAccountSecurityAnswersMatchTheDocument(t *testing.T) {
	t.Parallel()
	_, v := platformDocument(t)
	c := newClock()
	s := testserver.New(t, testserver.WithNow(c.Now))
	s.SetClient("192.0.2.66", false)
	check := func(method, path, token, body string, status int) *testserver.Response {
		t.Helper()
		var send any
		if body != "" {
			send = body
		}
		res := s.Do(method, path, token, send).Must(t, status)
		req, _ := http.NewRequest(method, "http://localhost"+path, nil)
		if body != "" {
			req, _ = http.NewRequest(method, "http://localhost"+path, bytes.NewReader([]byte(body)))
			req.Header.Set("Content-Type", "application/json")
		}
		if token != "" {
			req.Header.Set("Authorization", "Bearer "+token)
		}
		resp := &http.Response{StatusCode: res.Status, Header: res.Header, Body: nopCloser{bytes.NewReader(res.Raw)}, Request: req}
		if ok, errs := v.ValidateHttpRequestResponse(req, resp); !ok {
			for _, e := range errs {
				t.Errorf("%s %s: %s: %s", method, path, e.Message, e.Reason)
				for _, f := range e.SchemaValidationErrors {
					t.Errorf("  %s at %s", f.Reason, f.FieldPath)
				}
			}
		}
		return res
	}
	email, secret, codes := enrol(t, s, c)
	check("POST", "/api/auth/password-reset", "", `{"email":"`+email+`"}`, 202)
	check("POST", "/api/auth/password-reset/confirm", "", `{"token":"tsar_nope","password":"long enough"}`, 400)
	check("POST", "/api/auth/verify-email", "", `{"token":"tsav_nope"}`, 400)
	mfa := check("POST", "/api/auth/login", "", `{"email":"`+email+`","password":"`+testPassword+`"}`, 200).Data()["mfa_token"].(string)
	c.Add(30 * time.Second)
	tok := check("POST", "/api/auth/login/mfa", "", `{"mfa_token":"`+mfa+`","code":"`+c.code(t, secret)+`"}`, 200).Data()["token"].(string)
	check("POST", "/api/auth/login/mfa", "", `{"mfa_token":"`+mfa+`","recovery_code":"nope"}`, 401)
	check("GET", "/api/account", tok, "", 200)
	check("POST", "/api/account/verify-email/resend", tok, "", 429) // the signup's mail was a moment ago
	check("POST", "/api/account/totp/recovery-codes", tok, `{"code":"`+codes[0]+`"}`, 200)
	check("POST", "/api/account/totp", tok, "", 409)
	check("DELETE", "/api/account/totp", tok, `{"password":"`+testPassword+`","code":"`+codes[1]+`"}`, 400) // replaced by the new set
	c.Add(30 * time.Second)
	check("DELETE", "/api/account/totp", tok, `{"password":"`+testPassword+`","code":"`+c.code(t, secret)+`"}`, 200)
	check("POST", "/api/account/totp", tok, "", 200)
	check("POST", "/api/account/totp/confirm", tok, `{"code":"000000"}`, 400)
	tok = check("POST", "/api/account/password", tok, `{"current_password":"`+testPassword+`","new_password":"another long one"}`, 200).Data()["token"].(string)
	check("GET", "/api/account", tok, "", 200)
}
