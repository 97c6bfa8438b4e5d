// Package testsmtp runs a real SMTP server for tests (emersion/go-smtp on
// 127.0.0.1): the service's mail goes out over the protocol exactly as it
// would to a provider, and tests read what arrived.
package testsmtp

import (
	"bytes"
	"encoding/base64"
	"errors"
	"io"
	"mime"
	"mime/multipart"
	"mime/quotedprintable"
	"net"
	"net/mail"
	"regexp"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/emersion/go-sasl"
	"github.com/emersion/go-smtp"

	tsmail "github.com/tablesmith/tablesmith/internal/mail"
)

// Message is one received e-mail, decoded.
type Message struct {
	From, To, Subject string
	Text, HTML        string
	// Links are the http(s) URLs of the text part, in order.
	Links []string
	Raw   []byte
}

// Server is a started SMTP server.
type Server struct {
	Addr     string
	Username string
	Password string

	mu       sync.Mutex
	received []Message
	arrived  chan struct{}
	// refuse makes the next n deliveries fail with a temporary error.
	refuse int
	srv    *smtp.Server
}

// Start runs a server until the test ends. With user and password given
// (optional, in that order) it requires AUTH PLAIN.
func Start(t testing.TB, userPassword ...string) *Server {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	s := &Server{Addr: ln.Addr().String(), arrived: make(chan struct{}, 1)}
	if len(userPassword) == 2 {
		s.Username, s.Password = userPassword[0], userPassword[1]
	}
	s.srv = smtp.NewServer(smtp.BackendFunc(func(*smtp.Conn) (smtp.Session, error) { return &session{s: s}, nil }))
	s.srv.Domain = "localhost"
	s.srv.AllowInsecureAuth = true // loopback only
	s.srv.ReadTimeout = 10 * time.Second
	s.srv.WriteTimeout = 10 * time.Second
	s.srv.ErrorLog = discard{}
	go func() { _ = s.srv.Serve(ln) }() // ends with an error when the test closes it
	t.Cleanup(func() { s.srv.Close() })
	return s
}

type discard struct{}

func (discard) Printf(string, ...any) {}
func (discard) Println(...any)        {}

// Config is the service's smtp setting for this server.
func (s *Server) Config() tsmail.SMTPConfig {
	host, port, _ := net.SplitHostPort(s.Addr)
	p, _ := strconv.Atoi(port)
	return tsmail.SMTPConfig{Host: host, Port: p, Username: s.Username, Password: s.Password,
		From: "Tablesmith <no-reply@tablesmith.test>", TLS: tsmail.TLSNone}
}

// Refuse makes the next n messages fail with 451 (try again later).
func (s *Server) Refuse(n int) {
	s.mu.Lock()
	s.refuse = n
	s.mu.Unlock()
}

// Received returns every message so far.
func (s *Server) Received() []Message {
	s.mu.Lock()
	defer s.mu.Unlock()
	return append([]Message(nil), s.received...)
}

// Count returns how many messages were received for an address.
func (s *Server) Count(to string) int {
	n := 0
	for _, m := range s.Received() {
		if strings.EqualFold(m.To, to) {
			n++
		}
	}
	return n
}

// Wait returns the first message to an address not returned by an
// earlier Wait, failing the test after 15 s.
func (s *Server) Wait(t testing.TB, to string) Message {
	t.Helper()
	return s.WaitSubject(t, to, "")
}

// WaitSubject is Wait for the first message whose subject contains
// subject: an address may also get mail the test does not wait for (a
// new account's verification beside its invitation).
func (s *Server) WaitSubject(t testing.TB, to, subject string) Message {
	t.Helper()
	deadline := time.After(15 * time.Second)
	for {
		s.mu.Lock()
		for i, m := range s.received {
			if strings.EqualFold(m.To, to) && strings.Contains(m.Subject, subject) {
				s.received = append(s.received[:i:i], s.received[i+1:]...)
				s.mu.Unlock()
				return m
			}
		}
		s.mu.Unlock()
		select {
		case <-s.arrived:
		case <-time.After(50 * time.Millisecond):
		case <-deadline:
			t.Fatalf("no e-mail to %s (subject with %q) arrived within 15 s", to, subject)
		}
	}
}

type session struct {
	s        *Server
	authed   bool
	from, to string
}

func (se *session) AuthMechanisms() []string {
	if se.s.Username == "" {
		return nil
	}
	return []string{sasl.Plain}
}

func (se *session) Auth(string) (sasl.Server, error) {
	return sasl.NewPlainServer(func(_, user, pass string) error {
		if user != se.s.Username || pass != se.s.Password {
			return errors.New("invalid credentials")
		}
		se.authed = true
		return nil
	}), nil
}

func (se *session) Mail(from string, _ *smtp.MailOptions) error {
	if se.s.Username != "" && !se.authed {
		return smtp.ErrAuthRequired
	}
	se.from = from
	return nil
}

func (se *session) Rcpt(to string, _ *smtp.RcptOptions) error {
	se.to = to
	return nil
}

func (se *session) Data(r io.Reader) error {
	raw, err := io.ReadAll(r)
	if err != nil {
		return err
	}
	se.s.mu.Lock()
	defer se.s.mu.Unlock()
	if se.s.refuse > 0 {
		se.s.refuse--
		return &smtp.SMTPError{Code: 451, EnhancedCode: smtp.EnhancedCode{4, 3, 0}, Message: "try again later"}
	}
	m, err := decode(raw)
	if err != nil {
		return err
	}
	m.From, m.To = se.from, se.to
	se.s.received = append(se.s.received, m)
	select {
	case se.s.arrived <- struct{}{}:
	default:
	}
	return nil
}

func (se *session) Reset()        {}
func (se *session) Logout() error { return nil }

var linkPattern = regexp.MustCompile(`https?://[^\s"<>]+`)

// decode reads the subject and the text and HTML parts of a message.
func decode(raw []byte) (Message, error) {
	msg, err := mail.ReadMessage(bytes.NewReader(raw))
	if err != nil {
		return Message{}, err
	}
	dec := new(mime.WordDecoder)
	subject, err := dec.DecodeHeader(msg.Header.Get("Subject"))
	if err != nil {
		return Message{}, err
	}
	out := Message{Subject: subject, Raw: raw}
	if err := readPart(&out, msg.Header.Get("Content-Type"), msg.Header.Get("Content-Transfer-Encoding"), msg.Body); err != nil {
		return Message{}, err
	}
	out.Links = linkPattern.FindAllString(out.Text, -1)
	return out, nil
}

func readPart(out *Message, contentType, encoding string, body io.Reader) error {
	mediaType, params, err := mime.ParseMediaType(contentType)
	if err != nil {
		return err
	}
	if strings.HasPrefix(mediaType, "multipart/") {
		mr := multipart.NewReader(body, params["boundary"])
		for {
			p, err := mr.NextRawPart()
			if errors.Is(err, io.EOF) {
				return nil
			}
			if err != nil {
				return err
			}
			if err := readPart(out, p.Header.Get("Content-Type"), p.Header.Get("Content-Transfer-Encoding"), p); err != nil {
				return err
			}
		}
	}
	switch strings.ToLower(encoding) {
	case "quoted-printable":
		body = quotedprintable.NewReader(body)
	case "base64":
		body = base64.NewDecoder(base64.StdEncoding, body)
	}
	b, err := io.ReadAll(body)
	if err != nil {
		return err
	}
	switch mediaType {
	case "text/plain":
		out.Text = strings.ReplaceAll(string(b), "\r\n", "\n")
	case "text/html":
		out.HTML = string(b)
	}
	return nil
}
