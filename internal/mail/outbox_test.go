package mail_test

import (
	"context"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/tablesmith/tablesmith/internal/mail"
	"github.com/tablesmith/tablesmith/internal/testpg"
	"github.com/tablesmith/tablesmith/internal/testserver"
	"github.com/tablesmith/tablesmith/internal/testsmtp"
)

func TestMain(m *testing.M) { testpg.Main(m, "mail") }

const noTables = `{"tables": [{"name": "notes", "columns": [{"name": "body", "type": "text"}]}]}`

type clock struct {
	mu  sync.Mutex
	now time.Time
}

func (c *clock) Now() time.Time { c.mu.Lock(); defer c.mu.Unlock(); return c.now }
func (c *clock) Advance(d time.Duration) {
	c.mu.Lock()
	c.now = c.now.Add(d)
	c.mu.Unlock()
}

func send(t *testing.T, s *testserver.Server, m mail.Message) {
	t.Helper()
	if err := s.Svc.Mail.Send(context.Background(), m); err != nil {
		t.Fatal(err)
	}
}

func outbox(t *testing.T, s *testserver.Server, p *testserver.Project, query string) []map[string]any {
	t.Helper()
	return s.Do("GET", "/api/projects/"+p.ID+"/outbox"+query, p.Session, nil).Must(t, 200).List()
}

// waitStatus waits until the newest outbox message has the status.
func waitStatus(t *testing.T, s *testserver.Server, p *testserver.Project, status string) map[string]any {
	t.Helper()
	deadline := time.Now().Add(15 * time.Second)
	for {
		list := outbox(t, s, p, "")
		if len(list) > 0 && list[0]["status"] == status {
			return list[0]
		}
		if time.Now().After(deadline) {
			t.Fatalf("the newest message did not become %s: %v", status, list)
		}
		time.Sleep(50 * time.Millisecond)
	}
}

func TestAMessageGoesOutOverSMTPWithTheProjectsNameAndLeavesNoTokenBehind(t *testing.T) {
	smtp := testsmtp.Start(t, "mailer", "s3cret")
	s := testserver.New(t, testserver.WithSMTP(smtp))
	p := s.NewProject(noTables)
	s.Do("PATCH", "/api/projects/"+p.ID, p.Session, map[string]any{"name": "Acme Notes"}).Must(t, 200)

	link := "https://app.example.com/reset?token=tsx_secret"
	send(t, s, mail.Message{ProjectID: p.ID, Kind: mail.KindPasswordReset, To: "ann@example.com",
		Data: map[string]string{"Link": link, "ExpiresIn": "1 hour"}})
	m := smtp.Wait(t, "ann@example.com")
	if !strings.Contains(m.Subject, "Acme Notes") {
		t.Errorf("subject %q does not name the project", m.Subject)
	}
	if len(m.Links) != 1 || m.Links[0] != link {
		t.Errorf("text links %v, want [%s]", m.Links, link)
	}
	if !strings.Contains(m.HTML, `href="`+link+`"`) {
		t.Errorf("the HTML part has no button to the link: %s", m.HTML)
	}
	got := waitStatus(t, s, p, "sent")
	if got["text"] != "" || got["html"] != "" {
		t.Errorf("a sent message kept its body (and its token) in the outbox: %v", got)
	}
	if got["to"] != "ann@example.com" || got["kind"] != "password_reset" || got["sent_at"] == nil {
		t.Errorf("outbox entry %v", got)
	}
}

func TestAFailedDeliveryIsRetriedLaterAndNotLost(t *testing.T) {
	smtp := testsmtp.Start(t)
	c := &clock{now: time.Now().UTC()}
	s := testserver.New(t, testserver.WithSMTP(smtp), testserver.WithNow(c.Now))
	p := s.NewProject(noTables)
	smtp.Refuse(1)
	send(t, s, mail.Message{ProjectID: p.ID, Kind: mail.KindVerifyEmail, To: "bob@example.com", Data: map[string]string{"Link": "https://x.example/v"}})

	deadline := time.Now().Add(15 * time.Second)
	for {
		list := outbox(t, s, p, "")
		if list[0]["attempts"].(float64) == 1 && list[0]["last_error"] != "" {
			if list[0]["status"] != "queued" {
				t.Fatalf("after one refusal the message is %v, want queued", list[0]["status"])
			}
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("no failed attempt recorded: %v", list)
		}
		time.Sleep(50 * time.Millisecond)
	}
	if n := smtp.Count("bob@example.com"); n != 0 {
		t.Fatalf("%d messages arrived though the server refused", n)
	}
	// The retry is due after the backoff (30 s ±20 %), by the service's clock.
	c.Advance(time.Minute)
	m := smtp.Wait(t, "bob@example.com")
	if !strings.Contains(m.Text, "https://x.example/v") {
		t.Errorf("retried message lost its link: %q", m.Text)
	}
	got := waitStatus(t, s, p, "sent")
	if got["attempts"].(float64) != 2 {
		t.Errorf("attempts %v, want 2", got["attempts"])
	}
}

func TestMessagesDueTogetherLeaveInTheOrderTheyWereQueued(t *testing.T) {
	smtp := testsmtp.Start(t)
	c := &clock{now: time.Now().UTC()}
	s := testserver.New(t, testserver.WithSMTP(smtp), testserver.WithNow(c.Now))
	p := s.NewProject(noTables)
	// The owner's own verification mail goes first, so that the
	// refusals below meet only the test's messages.
	for deadline := time.Now().Add(15 * time.Second); len(smtp.Received()) == 0; time.Sleep(50 * time.Millisecond) {
		if time.Now().After(deadline) {
			t.Fatal("the owner's verification mail did not arrive")
		}
	}
	// Every first attempt is refused, so that all the retries fall due
	// at once and one claim takes them together.
	const n = 15
	smtp.Refuse(n)
	var want []string
	for i := range n {
		to := "queued" + strconv.Itoa(i) + "@example.com"
		want = append(want, to)
		send(t, s, mail.Message{ProjectID: p.ID, Kind: mail.KindVerifyEmail, To: to, Data: map[string]string{"Link": "https://x.example/v"}})
	}
	deadline := time.Now().Add(15 * time.Second)
	for {
		tried := 0
		for _, m := range outbox(t, s, p, "?limit=50") {
			if m["attempts"].(float64) == 1 && m["last_error"] != "" {
				tried++
			}
		}
		if tried == n {
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("%d of %d messages were tried once", tried, n)
		}
		time.Sleep(50 * time.Millisecond)
	}
	c.Advance(time.Minute)
	deadline = time.Now().Add(15 * time.Second)
	queued := func() []string {
		var to []string
		for _, m := range smtp.Received() {
			if strings.HasPrefix(m.To, "queued") {
				to = append(to, m.To)
			}
		}
		return to
	}
	for len(queued()) < n {
		if time.Now().After(deadline) {
			t.Fatalf("%d of %d retried messages arrived", len(queued()), n)
		}
		time.Sleep(50 * time.Millisecond)
	}
	got := queued()
	if strings.Join(got, " ") != strings.Join(want, " ") {
		t.Errorf("arrival order\n %v\nwant the order they were queued\n %v", got, want)
	}
}

func TestWithoutSMTPMessagesAreLoggedAndReadableInTheOutbox(t *testing.T) {
	s := testserver.New(t)
	p := s.NewProject(noTables)
	send(t, s, mail.Message{ProjectID: p.ID, Kind: mail.KindEmailChange, To: "cy@example.com",
		Data: map[string]string{"Link": "https://x.example/c?token=t1", "NewEmail": "cy2@example.com"}})
	got := waitStatus(t, s, p, "logged")
	if !strings.Contains(got["text"].(string), "https://x.example/c?token=t1") || !strings.Contains(got["text"].(string), "cy2@example.com") {
		t.Errorf("a logged message lost its text: %v", got)
	}
	// Another account sees nothing of it.
	other := s.Signup("other-" + p.ID + "@example.com")
	s.Do("GET", "/api/projects/"+p.ID+"/outbox", other, nil).Must(t, 404)
}

func TestTheOutboxPagesNewestFirstAndRefusesWhatItCannotRead(t *testing.T) {
	s := testserver.New(t)
	p := s.NewProject(noTables)
	for _, to := range []string{"a@example.com", "b@example.com", "c@example.com"} {
		send(t, s, mail.Message{ProjectID: p.ID, Kind: mail.KindVerifyEmail, To: to, Data: map[string]string{"Link": "https://x.example"}})
	}
	r := s.Do("GET", "/api/projects/"+p.ID+"/outbox?limit=2", p.Session, nil).Must(t, 200)
	page := r.List()
	if len(page) != 2 || page[0]["to"] != "c@example.com" || page[1]["to"] != "b@example.com" {
		t.Fatalf("first page %v", page)
	}
	next := r.Body["meta"].(map[string]any)["next_before"].(float64)
	rest := outbox(t, s, p, "?limit=2&before="+strconv.FormatInt(int64(next), 10))
	if len(rest) != 1 || rest[0]["to"] != "a@example.com" {
		t.Fatalf("second page %v", rest)
	}
	// A page that holds exactly what is left is the last: no next_before
	// that would lead to an empty page.
	last := s.Do("GET", "/api/projects/"+p.ID+"/outbox?limit=1&before="+strconv.FormatInt(int64(next), 10), p.Session, nil).Must(t, 200)
	if len(last.List()) != 1 || last.Body["meta"].(map[string]any)["next_before"] != nil {
		t.Fatalf("the last page, exactly full: %s", last.Raw)
	}
	if all := s.Do("GET", "/api/projects/"+p.ID+"/outbox?limit=3", p.Session, nil).Must(t, 200); all.Body["meta"].(map[string]any)["next_before"] != nil {
		t.Fatalf("one page of everything: %s", all.Raw)
	}
	for _, q := range []string{"?limit=0", "?limit=101", "?before=x", "?status=sent", "?limit=1&limit=2", "?limit=1;x"} {
		if r := s.Do("GET", "/api/projects/"+p.ID+"/outbox"+q, p.Session, nil); r.Status != 400 || r.ErrorCode() != "INVALID_QUERY" {
			t.Errorf("%s: %d %s, want 400 INVALID_QUERY", q, r.Status, r.Raw)
		}
	}
}

func TestAProjectsOwnTemplateIsCheckedStoredUsedAndReset(t *testing.T) {
	smtp := testsmtp.Start(t)
	s := testserver.New(t, testserver.WithSMTP(smtp))
	p := s.NewProject(noTables)
	path := "/api/projects/" + p.ID + "/mail-templates"

	list := s.Do("GET", path, p.Session, nil).Must(t, 200).List()
	if len(list) != len(mail.ProjectKinds) || list[0]["custom"] != false || list[3]["kind"] != "email_changed" {
		t.Fatalf("templates %v", list)
	}
	bad := s.Do("PUT", path+"/password_reset", p.Session, map[string]any{"subject": "x", "text": "{{range 10}}x{{end}}", "html": "{{.Nope}}"})
	if bad.Status != 400 || bad.Details()["text"] == nil || bad.Details()["html"] == nil {
		t.Fatalf("a bad template: %d %s", bad.Status, bad.Raw)
	}
	if r := s.Do("PUT", path+"/password_reset", p.Session, map[string]any{"subject": "x", "text": "y", "html": "z", "extra": 1}); r.Status != 400 {
		t.Errorf("an unknown field: %d", r.Status)
	}
	s.Do("PUT", path+"/account_reset", p.Session, map[string]any{"subject": "x", "text": "y", "html": "z"}).Must(t, 404)
	s.Do("PUT", path+"/password_reset", p.Session, map[string]any{
		"subject": "Forgot it, {{.Email}}?", "text": "Go to {{.Link}}{{if .ExpiresIn}} within {{.ExpiresIn}}{{end}}", "html": "<p>{{.Link}}</p>"}).Must(t, 200)

	send(t, s, mail.Message{ProjectID: p.ID, Kind: mail.KindPasswordReset, To: "dee@example.com", Data: map[string]string{"Link": "https://x.example/r", "ExpiresIn": "1 hour"}})
	m := smtp.Wait(t, "dee@example.com")
	if m.Subject != "Forgot it, dee@example.com?" || strings.TrimSpace(m.Text) != "Go to https://x.example/r within 1 hour" {
		t.Errorf("custom template not used: %q / %q", m.Subject, m.Text)
	}

	s.Do("DELETE", path+"/password_reset", p.Session, nil).Must(t, 200)
	send(t, s, mail.Message{ProjectID: p.ID, Kind: mail.KindPasswordReset, To: "dee@example.com", Data: map[string]string{"Link": "https://x.example/r"}})
	if m := smtp.Wait(t, "dee@example.com"); strings.HasPrefix(m.Subject, "Forgot it") {
		t.Errorf("the reset template is still used: %q", m.Subject)
	}
}
