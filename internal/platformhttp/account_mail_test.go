package platformhttp_test

import (
	"context"
	"net/url"
	"strings"
	"testing"

	"github.com/tablesmith/tablesmith/internal/service"
	"github.com/tablesmith/tablesmith/internal/testpg"
	"github.com/tablesmith/tablesmith/internal/testserver"
	"github.com/tablesmith/tablesmith/internal/testsmtp"
)

// mailServer starts a service whose mail reaches a test SMTP server, on a
// database of its own: the outbox is shared by every service on a
// database, and another test's deliverer (on another clock, or writing
// to the log) must not take this test's mail.
func mailServer(t *testing.T, c *clock) (*testserver.Server, *testsmtp.Server) {
	t.Helper()
	smtp := testsmtp.Start(t)
	db := testpg.NewDatabase(t)
	s := testserver.New(t, testserver.WithSMTP(smtp), testserver.WithNow(c.Now),
		testserver.WithConfig(func(cfg *service.Config) { cfg.DatabaseURL = db }))
	return s, smtp
}

// waitLink waits for the next mail to an address with a link to page of
// s, and returns the link's token.
func waitLink(t *testing.T, s *testserver.Server, smtp *testsmtp.Server, to, page string) string {
	t.Helper()
	token, _ := waitMail(t, s, smtp, to, page)
	return token
}

// waitMail is waitLink that also answers the message that carried the link.
func waitMail(t *testing.T, s *testserver.Server, smtp *testsmtp.Server, to, page string) (string, testsmtp.Message) {
	t.Helper()
	for {
		m := smtp.Wait(t, to)
		for _, l := range m.Links {
			if !strings.HasPrefix(l, s.URL+"/"+page+"?token=") {
				continue
			}
			u, err := url.Parse(l)
			if err != nil {
				t.Fatal(err)
			}
			return u.Query().Get("token"), m
		}
	}
}

// outboxCount counts the messages of a kind queued for an address.
func outboxCount(t *testing.T, s *testserver.Server, kind, to string) int {
	t.Helper()
	var n int
	err := s.Svc.DB.QueryRowContext(context.Background(), `SELECT count(*) FROM tablesmith.mail_outbox WHERE kind = $1 AND to_address = $2`, kind, to).Scan(&n)
	if err != nil {
		t.Fatal(err)
	}
	return n
}
