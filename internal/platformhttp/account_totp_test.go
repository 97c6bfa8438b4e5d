package platformhttp_test

import (
	"fmt"
	"net/url"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/pquerna/otp/totp"

	"github.com/tablesmith/tablesmith/internal/store"
	"github.com/tablesmith/tablesmith/internal/testserver"
)

// clock is a test clock that moves only when told.
type clock struct {
	mu  sync.Mutex
	now time.Time
}

func newClock() *clock { return &clock{now: time.Now().Truncate(time.Second)} }

func (c *clock) Now() time.Time {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.now
}

func (c *clock) Add(d time.Duration) {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.now = c.now.Add(d)
}

// code is the authenticator app's code for secret at the clock's time.
func (c *clock) code(t *testing.T, secret string) string {
	t.Helper()
	code, err := totp.GenerateCode(secret, c.Now())
	if err != nil {
		t.Fatal(err)
	}
	return code
}

const testPassword = "correct horse battery"

// enrol signs up a fresh account, turns two-factor on and returns its
// e-mail, its TOTP secret and its recovery codes.
func enrol(t *testing.T, s *testserver.Server, c *clock) (email, secret string, codes []string) {
	t.Helper()
	email = "totp-" + store.RandomID(8) + "@example.com"
	tok := s.Signup(email)
	start := s.Do("POST", "/api/account/totp", tok, nil).Must(t, 200).Data()
	secret, _ = start["secret"].(string)
	u, err := url.Parse(start["otpauth_url"].(string))
	if err != nil || u.Scheme != "otpauth" || u.Query().Get("secret") != secret || u.Query().Get("issuer") != "Tablesmith" {
		t.Fatalf("enrolment = %v", start)
	}
	// Not on before a code confirms it.
	if s.Do("GET", "/api/account", tok, nil).Must(t, 200).Data()["totp_enabled"] != false {
		t.Fatal("two-factor on before confirmation")
	}
	s.Do("POST", "/api/account/totp/confirm", tok, map[string]any{"code": "000000"}).Must(t, 400)
	done := s.Do("POST", "/api/account/totp/confirm", tok, map[string]any{"code": c.code(t, secret)}).Must(t, 200).Data()
	for _, v := range done["recovery_codes"].([]any) {
		codes = append(codes, v.(string))
	}
	if len(codes) != 10 || done["totp_enabled"] != true {
		t.Fatalf("confirm = %v", done)
	}
	if s.Do("GET", "/api/account", tok, nil).Must(t, 200).Data()["totp_enabled"] != true {
		t.Fatal("two-factor not on after confirmation")
	}
	s.Do("POST", "/api/account/totp", tok, nil).Must(t, 409) // one device at a time
	return email, secret, codes
}

// loginStep logs in with the password and returns the MFA token.
func loginStep(t *testing.T, s *testserver.Server, email string) string {
	t.Helper()
	res := s.Do("POST", "/api/auth/login", "", map[string]any{"email": email, "password": testPassword}).Must(t, 200)
	d := res.Data()
	if d["mfa_required"] != true || d["token"] != nil || !strings.HasPrefix(fmt.Sprint(d["mfa_token"]), "tsm_") {
		t.Fatalf("login with two-factor on = %s", res.Raw)
	}
	return d["mfa_token"].(string)
}

func TestTOTPLoginTakesACodeOnceAndRecoveryCodesOnce(t *testing.T) {
	t.Parallel()
	c := newClock()
	s := testserver.New(t, testserver.WithNow(c.Now))
	s.SetClient("192.0.2.61", false)
	email, secret, codes := enrol(t, s, c)

	// The code that confirmed the enrolment is used; the next step's works.
	mfa := loginStep(t, s, email)
	used := s.Do("POST", "/api/auth/login/mfa", "", map[string]any{"mfa_token": mfa, "code": c.code(t, secret)}).Must(t, 401)
	if used.ErrorCode() != "INVALID_CREDENTIALS" {
		t.Fatalf("the confirming code again = %s", used.Raw)
	}
	c.Add(30 * time.Second)
	code := c.code(t, secret)
	sess := s.Do("POST", "/api/auth/login/mfa", "", map[string]any{"mfa_token": mfa, "code": code}).Must(t, 200).Data()
	s.Do("GET", "/api/account", sess["token"].(string), nil).Must(t, 200)
	// Replayed within its window, through a fresh login: refused.
	s.Do("POST", "/api/auth/login/mfa", "", map[string]any{"mfa_token": loginStep(t, s, email), "code": code}).Must(t, 401)
	// One step of skew either way.
	c.Add(30 * time.Second)
	late := c.code(t, secret)
	c.Add(30 * time.Second)
	s.Do("POST", "/api/auth/login/mfa", "", map[string]any{"mfa_token": loginStep(t, s, email), "code": late}).Must(t, 200)

	// A recovery code works once, typed any way.
	rc := strings.ToUpper(strings.ReplaceAll(codes[0], "-", ""))
	s.Do("POST", "/api/auth/login/mfa", "", map[string]any{"mfa_token": loginStep(t, s, email), "recovery_code": rc}).Must(t, 200)
	s.Do("POST", "/api/auth/login/mfa", "", map[string]any{"mfa_token": loginStep(t, s, email), "recovery_code": codes[0]}).Must(t, 401)

	// Neither or both factors: a 400 naming code.
	s.Do("POST", "/api/auth/login/mfa", "", map[string]any{"mfa_token": loginStep(t, s, email)}).Must(t, 400)
	// A wrong password says nothing about two-factor.
	wrong := s.Do("POST", "/api/auth/login", "", map[string]any{"email": email, "password": "wrong password"}).Must(t, 401)
	unknown := s.Do("POST", "/api/auth/login", "", map[string]any{"email": "nobody-" + email, "password": "wrong password"}).Must(t, 401)
	if wrong.Message() != unknown.Message() || strings.Contains(string(wrong.Raw), "mfa") {
		t.Fatalf("wrong password = %s, unknown = %s", wrong.Raw, unknown.Raw)
	}
}

func TestMFATokenIsOnlyForTheSecondStep(t *testing.T) {
	t.Parallel()
	c := newClock()
	s := testserver.New(t, testserver.WithNow(c.Now))
	s.SetClient("192.0.2.62", false)
	email, secret, _ := enrol(t, s, c)
	mfa := loginStep(t, s, email)
	c.Add(30 * time.Second)
	// Not a session.
	s.Do("GET", "/api/account", mfa, nil).Must(t, 401)
	// Wrong, altered, or a session in its place: 401 UNAUTHORIZED.
	for _, bad := range []string{"tsm_nonsense", mfa + "x", s.Signup("other-" + email)} {
		res := s.Do("POST", "/api/auth/login/mfa", "", map[string]any{"mfa_token": bad, "code": c.code(t, secret)}).Must(t, 401)
		if res.ErrorCode() != "UNAUTHORIZED" {
			t.Fatalf("mfa_token %q = %s", bad, res.Raw)
		}
	}
	// Expired after five minutes.
	c.Add(5 * time.Minute)
	s.Do("POST", "/api/auth/login/mfa", "", map[string]any{"mfa_token": mfa, "code": c.code(t, secret)}).Must(t, 401)
	s.Do("POST", "/api/auth/login/mfa", "", map[string]any{"mfa_token": loginStep(t, s, email), "code": c.code(t, secret)}).Must(t, 200)
}

func TestWrongSecondFactorsAreThrottledPerAccount(t *testing.T) {
	t.Parallel()
	c := newClock()
	s := testserver.New(t, testserver.WithNow(c.Now))
	s.SetClient("192.0.2.63", false)
	email, secret, _ := enrol(t, s, c)
	c.Add(30 * time.Second)
	for i := range 5 {
		// A right password in between does not clear the count.
		mfa := loginStep(t, s, email)
		s.Do("POST", "/api/auth/login/mfa", "", map[string]any{"mfa_token": mfa, "code": fmt.Sprintf("%06d", i)}).Must(t, 401)
	}
	locked := s.Do("POST", "/api/auth/login/mfa", "", map[string]any{"mfa_token": loginStep(t, s, email), "code": c.code(t, secret)}).Must(t, 429)
	if locked.ErrorCode() != "TOO_MANY_ATTEMPTS" || locked.Header.Get("Retry-After") == "" {
		t.Fatalf("locked = %s", locked.Raw)
	}
	c.Add(16 * time.Minute)
	s.Do("POST", "/api/auth/login/mfa", "", map[string]any{"mfa_token": loginStep(t, s, email), "code": c.code(t, secret)}).Must(t, 200)
}

func TestRecoveryCodesRegenerateAndTwoFactorTurnsOff(t *testing.T) {
	t.Parallel()
	c := newClock()
	s := testserver.New(t, testserver.WithNow(c.Now))
	s.SetClient("192.0.2.64", false)
	email, secret, codes := enrol(t, s, c)
	c.Add(30 * time.Second)
	tok := s.Do("POST", "/api/auth/login/mfa", "", map[string]any{"mfa_token": loginStep(t, s, email), "code": c.code(t, secret)}).Must(t, 200).Data()["token"].(string)

	// Regenerating takes a code (the one just used is spent) and voids the old set.
	bad := s.Do("POST", "/api/account/totp/recovery-codes", tok, map[string]any{"code": c.code(t, secret)}).Must(t, 400)
	if bad.Details()["code"] == nil {
		t.Fatalf("spent code = %s", bad.Raw)
	}
	c.Add(30 * time.Second)
	fresh := s.Do("POST", "/api/account/totp/recovery-codes", tok, map[string]any{"code": c.code(t, secret)}).Must(t, 200).Data()["recovery_codes"].([]any)
	if len(fresh) != 10 {
		t.Fatalf("fresh codes = %v", fresh)
	}
	s.Do("POST", "/api/auth/login/mfa", "", map[string]any{"mfa_token": loginStep(t, s, email), "recovery_code": codes[1]}).Must(t, 401)

	// Turning off takes the password and a code, which may be a recovery code.
	s.Do("DELETE", "/api/account/totp", tok, map[string]any{"password": "wrong password", "code": fresh[0]}).Must(t, 400)
	s.Do("DELETE", "/api/account/totp", tok, map[string]any{"password": testPassword, "code": "123456"}).Must(t, 400)
	s.Do("DELETE", "/api/account/totp", tok, map[string]any{"password": testPassword, "code": fresh[0]}).Must(t, 200)
	me := s.Do("GET", "/api/account", tok, nil).Must(t, 200).Data()
	if me["totp_enabled"] != false {
		t.Fatalf("account after disable = %v", me)
	}
	s.Do("DELETE", "/api/account/totp", tok, map[string]any{"password": testPassword, "code": fresh[1]}).Must(t, 409)
	login := s.Do("POST", "/api/auth/login", "", map[string]any{"email": email, "password": testPassword}).Must(t, 200).Data()
	if login["token"] == nil || login["mfa_required"] != nil {
		t.Fatalf("login after disable = %v", login)
	}
}

func TestChangingThePasswordEndsTheOtherSessions(t *testing.T) {
	t.Parallel()
	s := testserver.New(t)
	s.SetClient("192.0.2.65", false)
	email := "change-" + store.RandomID(8) + "@example.com"
	first := s.Signup(email)
	second := s.Do("POST", "/api/auth/login", "", map[string]any{"email": email, "password": testPassword}).Must(t, 200).Data()["token"].(string)

	wrong := s.Do("POST", "/api/account/password", first, map[string]any{"current_password": "nope nope", "new_password": "a brand new password"}).Must(t, 400)
	if wrong.Details()["current_password"] == nil {
		t.Fatalf("wrong current password = %s", wrong.Raw)
	}
	s.Do("POST", "/api/account/password", first, map[string]any{"current_password": testPassword, "new_password": "short"}).Must(t, 400)
	res := s.Do("POST", "/api/account/password", first, map[string]any{"current_password": testPassword, "new_password": "a brand new password"}).Must(t, 200).Data()
	fresh := res["token"].(string)
	s.Do("GET", "/api/account", fresh, nil).Must(t, 200)
	for _, old := range []string{first, second} {
		if r := s.Do("GET", "/api/account", old, nil).Must(t, 401); r.ErrorCode() != "UNAUTHORIZED" {
			t.Fatalf("old session = %s", r.Raw)
		}
	}
	s.Do("POST", "/api/auth/login", "", map[string]any{"email": email, "password": testPassword}).Must(t, 401)
	s.Do("POST", "/api/auth/login", "", map[string]any{"email": email, "password": "a brand new password"}).Must(t, 200)
}
