package platformhttp_test

import (
	"context"
	"fmt"
	"strings"
	"sync"
	"testing"
	"time"
)

func TestPasswordResetByMailEndsEverySessionAndSignsIn(t *testing.T) {
	t.Parallel()
	c := newClock()
	s, smtp := mailServer(t, c)
	const email = "reset@example.com"
	first := s.Signup(email)
	second := s.Do("POST", "/api/auth/login", "", map[string]any{"email": email, "password": testPassword}).Must(t, 200).Data()["token"].(string)

	res := s.Do("POST", "/api/auth/password-reset", "", map[string]any{"email": " Reset@Example.com "}).Must(t, 202)
	token, m := waitMail(t, s, smtp, email, "reset-password")
	if !strings.HasPrefix(token, "tsar_") || len(token) != len("tsar_")+43 {
		t.Fatalf("reset token = %q", token)
	}
	// The mail names the link's life, and the outbox lists it for the
	// account (its body, which held the link, is cleared once the SMTP
	// server took it: read the text as delivered).
	if !strings.Contains(m.Text, "1 hour") {
		t.Fatalf("reset mail: %q", m.Text)
	}
	var accountID int64
	if err := s.Svc.DB.QueryRowContext(context.Background(), `SELECT coalesce(account_id, 0) FROM tablesmith.mail_outbox
		WHERE kind = 'account_reset' AND to_address = $1`, email).Scan(&accountID); err != nil {
		t.Fatal(err)
	}
	if accountID == 0 {
		t.Fatal("the outbox row of the reset names no account")
	}
	// Only the hash is stored.
	var stored int
	if err := s.Svc.DB.QueryRowContext(context.Background(), `SELECT count(*) FROM tablesmith.account_tokens WHERE token_hash = $1::bytea`, []byte(token)).Scan(&stored); err != nil || stored != 0 {
		t.Fatalf("token stored in clear: %d %v", stored, err)
	}

	// A new password that is too short does not spend the link.
	bad := s.Do("POST", "/api/auth/password-reset/confirm", "", map[string]any{"token": token, "password": "short"}).Must(t, 400)
	if bad.Details()["password"] == nil {
		t.Fatalf("short password = %s", bad.Raw)
	}
	done := s.Do("POST", "/api/auth/password-reset/confirm", "", map[string]any{"token": token, "password": "a brand new password"}).Must(t, 200).Data()
	fresh, _ := done["token"].(string)
	acc, _ := done["account"].(map[string]any)
	if fresh == "" || done["token_type"] != "Bearer" || acc["email"] != email || acc["email_verified"] != true {
		t.Fatalf("confirm = %v (request answered %s)", done, res.Raw)
	}
	for _, old := range []string{first, second} {
		s.Do("GET", "/api/account", old, nil).Must(t, 401)
	}
	s.Do("GET", "/api/account", fresh, nil).Must(t, 200)
	s.Do("POST", "/api/auth/login", "", map[string]any{"email": email, "password": testPassword}).Must(t, 401)
	s.Do("POST", "/api/auth/login", "", map[string]any{"email": email, "password": "a brand new password"}).Must(t, 200)
	// Used: it does not work twice.
	again := s.Do("POST", "/api/auth/password-reset/confirm", "", map[string]any{"token": token, "password": "yet another password"}).Must(t, 400)
	if again.ErrorCode() != "VALIDATION_ERROR" || again.Details()["token"] == nil {
		t.Fatalf("used token = %s", again.Raw)
	}
}

func TestPasswordResetAnswersAnUnknownAddressTheSameAndMailsNothing(t *testing.T) {
	t.Parallel()
	c := newClock()
	s, smtp := mailServer(t, c)
	s.Signup("known@example.com")
	known := s.Do("POST", "/api/auth/password-reset", "", map[string]any{"email": "known@example.com"}).Must(t, 202)
	unknown := s.Do("POST", "/api/auth/password-reset", "", map[string]any{"email": "stranger@example.com"}).Must(t, 202)
	if string(known.Raw) != string(unknown.Raw) {
		t.Fatalf("known %s, unknown %s", known.Raw, unknown.Raw)
	}
	waitLink(t, s, smtp, "known@example.com", "reset-password")
	if n := outboxCount(t, s, "account_reset", "stranger@example.com"); n != 0 {
		t.Fatalf("%d messages queued for an address without an account", n)
	}
	// The throttle keeps no address in clear.
	var clear int
	if err := s.Svc.DB.QueryRowContext(context.Background(), `SELECT count(*) FROM tablesmith.account_mail_sends WHERE position('stranger'::bytea in subject) > 0`).Scan(&clear); err != nil || clear != 0 {
		t.Fatalf("throttle rows with the address in clear: %d %v", clear, err)
	}
	// Only a malformed address is refused, naming the field.
	if res := s.Do("POST", "/api/auth/password-reset", "", map[string]any{"email": "not an address"}).Must(t, 400); res.Details()["email"] == nil {
		t.Fatalf("malformed = %s", res.Raw)
	}
	s.Do("POST", "/api/auth/password-reset", "", map[string]any{"email": "known@example.com", "extra": 1}).Must(t, 400)
}

func TestPasswordResetMailIsThrottledPerAddress(t *testing.T) {
	t.Parallel()
	c := newClock()
	s, smtp := mailServer(t, c)
	const email = "throttle@example.com"
	s.Signup(email)
	ask := func() { s.Do("POST", "/api/auth/password-reset", "", map[string]any{"email": email}).Must(t, 202) }
	// One a minute: the second at once is answered alike but not sent.
	ask()
	waitLink(t, s, smtp, email, "reset-password")
	ask()
	if n := outboxCount(t, s, "account_reset", email); n != 1 {
		t.Fatalf("after two at once: %d mails", n)
	}
	// Five an hour.
	for i := 2; i <= 5; i++ {
		c.Add(61 * time.Second)
		ask()
		waitLink(t, s, smtp, email, "reset-password")
	}
	c.Add(61 * time.Second)
	ask()
	if n := outboxCount(t, s, "account_reset", email); n != 5 {
		t.Fatalf("after six in the hour: %d mails", n)
	}
	// The window ends an hour after its first mail.
	c.Add(time.Hour)
	ask()
	waitLink(t, s, smtp, email, "reset-password")
	if n := outboxCount(t, s, "account_reset", email); n != 6 {
		t.Fatalf("after the window: %d mails", n)
	}
}

func TestAResetLinkWorksOnceEvenToConcurrentUsesAndForOneHour(t *testing.T) {
	t.Parallel()
	c := newClock()
	s, smtp := mailServer(t, c)
	const email = "once@example.com"
	s.Signup(email)
	s.Do("POST", "/api/auth/password-reset", "", map[string]any{"email": email}).Must(t, 202)
	token := waitLink(t, s, smtp, email, "reset-password")

	const n = 6
	statuses := make([]int, n)
	var wg sync.WaitGroup
	for i := range n {
		wg.Add(1)
		go func() {
			defer wg.Done()
			statuses[i] = s.Do("POST", "/api/auth/password-reset/confirm", "", map[string]any{"token": token, "password": fmt.Sprintf("concurrent password %d", i)}).Status
		}()
	}
	wg.Wait()
	won := -1
	for i, st := range statuses {
		switch {
		case st == 200 && won < 0:
			won = i
		case st == 200:
			t.Fatalf("two uses won: %v", statuses)
		case st != 400:
			t.Fatalf("statuses %v", statuses)
		}
	}
	if won < 0 {
		t.Fatalf("no use won: %v", statuses)
	}
	s.Do("POST", "/api/auth/login", "", map[string]any{"email": email, "password": fmt.Sprintf("concurrent password %d", won)}).Must(t, 200)

	// Expiry: an hour later the next link is refused.
	c.Add(2 * time.Minute) // past the one-a-minute limit
	s.Do("POST", "/api/auth/password-reset", "", map[string]any{"email": email}).Must(t, 202)
	late := waitLink(t, s, smtp, email, "reset-password")
	c.Add(time.Hour + time.Second)
	expired := s.Do("POST", "/api/auth/password-reset/confirm", "", map[string]any{"token": late, "password": "too late password"}).Must(t, 400)
	if expired.Details()["token"] == nil {
		t.Fatalf("expired = %s", expired.Raw)
	}
	s.Do("POST", "/api/auth/password-reset/confirm", "", map[string]any{"token": "tsar_forged", "password": "forged password"}).Must(t, 400)
}
