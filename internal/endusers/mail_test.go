package endusers_test

import (
	"net/url"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/tablesmith/tablesmith/internal/testserver"
	"github.com/tablesmith/tablesmith/internal/testsmtp"
)

// mailEnv is an env whose service delivers its mail over SMTP to a
// server the test reads.
type mailEnv struct {
	*env
	smtp *testsmtp.Server
}

func newMailEnv(t *testing.T, schemaDoc string) *mailEnv {
	t.Helper()
	c := newClock()
	srv := testsmtp.Start(t)
	s := testserver.New(t, testserver.WithNow(c.Now), testserver.WithSMTP(srv))
	return &mailEnv{env: &env{t: t, s: s, p: s.NewProject(schemaDoc), clock: c}, smtp: srv}
}

// link waits for the next message to an address and returns the link it
// carries (the first that holds a token) and that token.
func (e *mailEnv) link(to string) (*url.URL, string) {
	e.t.Helper()
	m := e.smtp.Wait(e.t, to)
	for _, l := range m.Links {
		u, err := url.Parse(l)
		if err == nil && u.Query().Get("token") != "" {
			return u, u.Query().Get("token")
		}
	}
	e.t.Fatalf("no link with a token in %q: %s", m.Subject, m.Text)
	return nil, ""
}

// allowOrigins lists the project's allowed origins (Settings → CORS).
func (e *mailEnv) allowOrigins(origins ...string) {
	e.t.Helper()
	e.s.Do("PATCH", "/api/projects/"+e.p.ID, e.p.Session, map[string]any{"cors": map[string]any{"allowed_origins": origins}}).Must(e.t, 200)
}

const newPassword = "a much better passphrase"

func TestPasswordResetSignsInWithTheNewPasswordAndEndsEverySession(t *testing.T) {
	t.Parallel()
	e := newMailEnv(t, appSchema)
	first := e.register("ann@example.com")
	second := e.login("ann@example.com")

	r := e.auth("POST", "password-reset", "", map[string]any{"email": " Ann@Example.com "}).Must(t, 202)
	if r.Data() != nil || !strings.Contains(r.Message(), "If an account uses this address") {
		t.Fatalf("reset answer = %s", r.Raw)
	}
	link, token := e.link("ann@example.com")
	host := strings.TrimPrefix(e.s.URL, "http://")
	if link.Scheme != "http" || link.Host != host || link.Path != "/auth/reset-password" ||
		link.Query().Get("project") != e.p.ID || !strings.HasPrefix(token, "tspr_") {
		t.Fatalf("link = %s", link)
	}

	// A password the column's rules refuse leaves the token usable.
	short := e.auth("POST", "password-reset/confirm", "", map[string]any{"token": token, "password": "short"})
	wantError(t, short, 400, "VALIDATION_ERROR")
	if short.Details()["password"] == nil {
		t.Fatalf("short password: %s", short.Raw)
	}
	ok := e.auth("POST", "password-reset/confirm", "", map[string]any{"token": token, "password": newPassword}).Must(t, 200)
	fresh := tokensOf(t, ok)
	if ok.Data()["email_verified"] != true || fresh.User["email"] != "ann@example.com" {
		t.Fatalf("confirm = %s", ok.Raw)
	}
	e.auth("GET", "me", fresh.Access, nil).Must(t, 200)

	wantError(t, e.auth("POST", "login", "", map[string]any{"email": "ann@example.com", "password": password}), 401, "INVALID_CREDENTIALS")
	e.auth("POST", "login", "", map[string]any{"email": "ann@example.com", "password": newPassword}).Must(t, 200)
	// Every earlier session ended: refresh and access tokens of both.
	for _, old := range []tokens{first, second} {
		wantError(t, e.auth("POST", "refresh", "", map[string]any{"refresh_token": old.Refresh}), 401, "UNAUTHORIZED")
		wantError(t, e.auth("GET", "me", old.Access, nil), 401, "UNAUTHORIZED")
	}
	// The token worked once.
	again := e.auth("POST", "password-reset/confirm", "", map[string]any{"token": token, "password": newPassword})
	wantError(t, again, 400, "VALIDATION_ERROR")
	if again.Details()["token"] != "was already used" {
		t.Fatalf("second use: %s", again.Raw)
	}
}

func TestPasswordResetAnswersAnUnknownAddressTheSame(t *testing.T) {
	t.Parallel()
	e := newMailEnv(t, appSchema)
	e.register("ann@example.com")
	known := e.auth("POST", "password-reset", "", map[string]any{"email": "ann@example.com"}).Must(t, 202)
	unknown := e.auth("POST", "password-reset", "", map[string]any{"email": "nobody@example.com"}).Must(t, 202)
	if string(known.Raw) != string(unknown.Raw) {
		t.Fatalf("answers differ:\n%s\n%s", known.Raw, unknown.Raw)
	}
	e.link("ann@example.com")
	// Send stores the message before the answer: none was queued for the
	// unknown address.
	var queued int
	if err := e.s.Svc.DB.QueryRow(`SELECT count(*) FROM tablesmith.mail_outbox WHERE to_address = $1`, "nobody@example.com").Scan(&queued); err != nil || queued != 0 {
		t.Fatalf("messages to the unknown address: %d (%v)", queued, err)
	}
	// An invalid address is a validation error, which tells nothing about accounts.
	wantError(t, e.auth("POST", "password-reset", "", map[string]any{"email": "not-an-address"}), 400, "VALIDATION_ERROR")
	wantError(t, e.auth("POST", "password-reset", "", map[string]any{"email": "ann@example.com", "extra": 1}), 400, "VALIDATION_ERROR")
}

func TestPasswordResetMailIsThrottledPerAddress(t *testing.T) {
	t.Parallel()
	e := newMailEnv(t, appSchema)
	e.register("ann@example.com")
	e.allowOrigins("https://app.example.com")
	// Each request names itself in redirect_to, so the links that arrive
	// tell which requests sent mail.
	ask := func(n string) {
		e.auth("POST", "password-reset", "", map[string]any{"email": "ann@example.com",
			"redirect_to": "https://app.example.com/reset?n=" + n}).Must(t, 202)
	}
	ask("1")
	ask("2") // within the minute: no mail
	for _, n := range []string{"3", "4", "5", "6", "7"} {
		e.clock.Advance(61 * time.Second)
		ask(n) // 7 is the sixth in the hour: no mail
	}
	e.clock.Advance(time.Hour)
	ask("8")
	// One node's deliverer sends what it claims in the order it was
	// queued (mail.Deliverer.DeliverDue sorts a claim by id).
	var got []string
	for range 6 {
		link, _ := e.link("ann@example.com")
		got = append(got, link.Query().Get("n"))
	}
	if want := []string{"1", "3", "4", "5", "6", "8"}; !slices.Equal(got, want) {
		t.Fatalf("the messages came from requests %v, want %v in that order", got, want)
	}
}

func TestPasswordResetTokenWorksOnceUnderConcurrentConfirms(t *testing.T) {
	t.Parallel()
	e := newMailEnv(t, appSchema)
	e.register("ann@example.com")
	e.auth("POST", "password-reset", "", map[string]any{"email": "ann@example.com"}).Must(t, 202)
	_, token := e.link("ann@example.com")
	const n = 3
	statuses := make([]int, n)
	var wg sync.WaitGroup
	for i := range n {
		wg.Add(1)
		go func() {
			defer wg.Done()
			statuses[i] = e.s.Do("POST", "/v1/"+e.p.ID+"/auth/password-reset/confirm", "",
				map[string]any{"token": token, "password": newPassword}).Status
		}()
	}
	wg.Wait()
	ok := 0
	for _, s := range statuses {
		switch s {
		case 200:
			ok++
		case 400:
		default:
			t.Fatalf("statuses = %v", statuses)
		}
	}
	if ok != 1 {
		t.Fatalf("%d confirms succeeded (statuses %v), want exactly 1", ok, statuses)
	}
}

func TestPasswordResetTokenExpiresAfterAnHourAndStaysInItsProject(t *testing.T) {
	t.Parallel()
	e := newMailEnv(t, appSchema)
	e.register("ann@example.com")
	other := e.s.NewProject(appSchema)
	e.auth("POST", "password-reset", "", map[string]any{"email": "ann@example.com"}).Must(t, 202)
	_, token := e.link("ann@example.com")

	foreign := e.s.Do("POST", "/v1/"+other.ID+"/auth/password-reset/confirm", "", map[string]any{"token": token, "password": newPassword})
	wantError(t, foreign, 400, "VALIDATION_ERROR")
	if foreign.Details()["token"] != "is not a valid token of this project" {
		t.Fatalf("foreign: %s", foreign.Raw)
	}
	bogus := e.auth("POST", "password-reset/confirm", "", map[string]any{"token": "tspr_nothing", "password": newPassword})
	if bogus.Status != 400 || bogus.Details()["token"] != "is not a valid token of this project" {
		t.Fatalf("bogus: %s", bogus.Raw)
	}

	e.clock.Advance(time.Hour + time.Second)
	expired := e.auth("POST", "password-reset/confirm", "", map[string]any{"token": token, "password": newPassword})
	wantError(t, expired, 400, "VALIDATION_ERROR")
	if expired.Details()["token"] != "has expired" {
		t.Fatalf("expired: %s", expired.Raw)
	}
	e.login("ann@example.com") // the password did not change
}

func TestPasswordResetRedirectMustBeAnAllowedOrigin(t *testing.T) {
	t.Parallel()
	e := newMailEnv(t, appSchema)
	e.register("ann@example.com")
	// "Any origin" (the default) allows no redirect.
	r := e.auth("POST", "password-reset", "", map[string]any{"email": "ann@example.com", "redirect_to": "https://app.example.com/reset"})
	wantError(t, r, 400, "VALIDATION_ERROR")
	if r.Details()["redirect_to"] == nil {
		t.Fatalf("redirect_to: %s", r.Raw)
	}
	e.allowOrigins("https://app.example.com")
	wantError(t, e.auth("POST", "password-reset", "", map[string]any{"email": "ann@example.com", "redirect_to": "https://evil.example.com/"}), 400, "VALIDATION_ERROR")
	e.auth("POST", "password-reset", "", map[string]any{"email": "ann@example.com", "redirect_to": "https://app.example.com/reset?lang=en"}).Must(t, 202)
	link, token := e.link("ann@example.com")
	if link.Scheme+"://"+link.Host+link.Path != "https://app.example.com/reset" || link.Query().Get("lang") != "en" ||
		link.Query().Get("type") != "password_reset" || token == "" {
		t.Fatalf("link = %s", link)
	}
	e.auth("POST", "password-reset/confirm", "", map[string]any{"token": token, "password": newPassword}).Must(t, 200)
}

// verifySchema is appSchema's auth table with e-mail verification set.
func verifySchema(setting string) string {
	return strings.Replace(appSchema, `"auth": true,`, `"auth": true, "email_verification": "`+setting+`",`, 1)
}

func TestEmailVerificationOptionalSignsInAndVerifiesLater(t *testing.T) {
	t.Parallel()
	e := newMailEnv(t, verifySchema("optional"))
	reg := e.auth("POST", "register", "", map[string]any{"email": "ann@example.com", "password": password}).Must(t, 201)
	tokensOf(t, reg)
	if reg.Data()["email_verified"] != false {
		t.Fatalf("register = %s", reg.Raw)
	}
	link, token := e.link("ann@example.com")
	if link.Path != "/auth/verify-email" || !strings.HasPrefix(token, "tsv_") {
		t.Fatalf("link = %s", link)
	}
	v := e.auth("POST", "verify-email", "", map[string]any{"token": token}).Must(t, 200)
	if v.Data()["email"] != "ann@example.com" || v.Data()["email_verified"] != true {
		t.Fatalf("verify = %s", v.Raw)
	}
	in := e.auth("POST", "login", "", map[string]any{"email": "ann@example.com", "password": password}).Must(t, 200)
	if in.Data()["email_verified"] != true {
		t.Fatalf("login = %s", in.Raw)
	}
	ref := e.auth("POST", "refresh", "", map[string]any{"refresh_token": tokensOf(t, in).Refresh}).Must(t, 200)
	if ref.Data()["email_verified"] != true {
		t.Fatalf("refresh = %s", ref.Raw)
	}
	wantError(t, e.auth("POST", "verify-email", "", map[string]any{"token": token}), 400, "VALIDATION_ERROR")
	// A reset token is not a verification token.
	wantError(t, e.auth("POST", "verify-email", "", map[string]any{"token": "tsp_x"}), 400, "VALIDATION_ERROR")

	// Register takes redirect_to beside the columns.
	e.allowOrigins("https://app.example.com")
	e.auth("POST", "register", "", map[string]any{"email": "bob@example.com", "password": password,
		"redirect_to": "https://app.example.com/verified"}).Must(t, 201)
	link, token = e.link("bob@example.com")
	if link.Host != "app.example.com" || link.Path != "/verified" || link.Query().Get("type") != "verify_email" {
		t.Fatalf("link = %s", link)
	}
	e.auth("POST", "verify-email", "", map[string]any{"token": token}).Must(t, 200)
}

func TestEmailVerificationRequiredHoldsBackTheSession(t *testing.T) {
	t.Parallel()
	e := newMailEnv(t, verifySchema("required"))
	reg := e.auth("POST", "register", "", map[string]any{"email": "ann@example.com", "password": password}).Must(t, 201)
	d := reg.Data()
	if d["user"] == nil || d["access_token"] != nil || d["email_verified"] != false || !strings.Contains(reg.Message(), "confirm the e-mail address") {
		t.Fatalf("register = %s", reg.Raw)
	}
	e.link("ann@example.com") // the registration's link: lost, say

	wantError(t, e.auth("POST", "login", "", map[string]any{"email": "ann@example.com", "password": password}), 403, "EMAIL_NOT_VERIFIED")
	wantError(t, e.auth("POST", "login", "", map[string]any{"email": "ann@example.com", "password": "wrong password"}), 401, "INVALID_CREDENTIALS")

	// A resend right after registering is within the minute: no mail.
	resend := map[string]any{"email": "ann@example.com"}
	first := e.auth("POST", "verify-email/resend", "", resend).Must(t, 202)
	unknown := e.auth("POST", "verify-email/resend", "", map[string]any{"email": "nobody@example.com"}).Must(t, 202)
	if string(first.Raw) != string(unknown.Raw) {
		t.Fatalf("resend answers differ:\n%s\n%s", first.Raw, unknown.Raw)
	}
	e.clock.Advance(61 * time.Second)
	e.auth("POST", "verify-email/resend", "", resend).Must(t, 202)
	_, token := e.link("ann@example.com")
	e.auth("POST", "verify-email", "", map[string]any{"token": token}).Must(t, 200)
	in := e.login("ann@example.com")

	// An address changed outside /auth (a key's PATCH) is unverified again.
	e.api("PATCH", "/users/"+jsonID(in.User["id"]), e.p.Key, map[string]any{"email": "ann@elsewhere.example"}).Must(t, 200)
	wantError(t, e.auth("POST", "login", "", map[string]any{"email": "ann@elsewhere.example", "password": password}), 403, "EMAIL_NOT_VERIFIED")
	wantError(t, e.auth("POST", "refresh", "", map[string]any{"refresh_token": in.Refresh}), 403, "EMAIL_NOT_VERIFIED")
}

func TestEmailChangeMovesTheUserToAConfirmedAddress(t *testing.T) {
	t.Parallel()
	e := newMailEnv(t, appSchema)
	ann := e.register("ann@example.com")
	e.register("bob@example.com")
	change := func(token string, body map[string]any) *testserver.Response {
		return e.auth("POST", "email-change", token, body)
	}
	wantError(t, change("", map[string]any{"new_email": "ann@new.example"}), 401, "UNAUTHORIZED")
	wantError(t, change(e.p.Key, map[string]any{"new_email": "ann@new.example"}), 403, "FORBIDDEN")
	taken := change(ann.Access, map[string]any{"new_email": "Bob@example.com"})
	wantError(t, taken, 409, "CONFLICT")
	if taken.Details()["new_email"] == nil {
		t.Fatalf("taken: %s", taken.Raw)
	}
	wantError(t, change(ann.Access, map[string]any{"new_email": "no address"}), 400, "VALIDATION_ERROR")

	change(ann.Access, map[string]any{"new_email": "ann@new.example"}).Must(t, 202)
	link, token := e.link("ann@new.example")
	if link.Path != "/auth/confirm-email-change" || !strings.HasPrefix(token, "tse_") {
		t.Fatalf("link = %s", link)
	}
	// Until confirmed, nothing changed.
	e.login("ann@example.com")
	got := e.auth("POST", "email-change/confirm", "", map[string]any{"token": token}).Must(t, 200)
	if got.Data()["email"] != "ann@new.example" || got.Data()["id"] != ann.User["id"] {
		t.Fatalf("confirm = %s", got.Raw)
	}
	in := e.auth("POST", "login", "", map[string]any{"email": "ann@new.example", "password": password}).Must(t, 200)
	if in.Data()["email_verified"] != true {
		t.Fatalf("login after change = %s", in.Raw)
	}
	wantError(t, e.auth("POST", "login", "", map[string]any{"email": "ann@example.com", "password": password}), 401, "INVALID_CREDENTIALS")
	wantError(t, e.auth("POST", "email-change/confirm", "", map[string]any{"token": token}), 400, "VALIDATION_ERROR")
	// The old address is told, once the change is made, with no link to follow.
	notice := e.smtp.WaitSubject(t, "ann@example.com", "The e-mail of your")
	if !strings.Contains(notice.Text, "ann@new.example") || len(notice.Links) != 0 {
		t.Fatalf("notice to the old address = %q, links %v", notice.Text, notice.Links)
	}

	// An address taken between the request and the confirmation: 409,
	// and the token stays usable once the address is free again.
	fresh := tokensOf(t, in)
	change(fresh.Access, map[string]any{"new_email": "carol@example.com"}).Must(t, 202)
	_, token = e.link("carol@example.com")
	carol := e.register("carol@example.com")
	wantError(t, e.auth("POST", "email-change/confirm", "", map[string]any{"token": token}), 409, "CONFLICT")
	e.api("DELETE", "/users/"+jsonID(carol.User["id"]), e.p.Key, nil).Must(t, 200)
	e.auth("POST", "email-change/confirm", "", map[string]any{"token": token}).Must(t, 200)
}
