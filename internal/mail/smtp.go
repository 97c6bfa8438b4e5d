package mail

import (
	"context"
	"fmt"
	"strings"
	"time"

	gomail "github.com/wneessen/go-mail"
)

// SMTPConfig is the smtp block of the tablesmith option.
type SMTPConfig struct {
	Host     string
	Port     int
	Username string
	Password string
	// From is the sender address, optionally with a name:
	// "Tablesmith <no-reply@example.com>".
	From string
	// TLS is "starttls" (the default: upgrade, refusing a server that
	// cannot), "tls" (implicit TLS, port 465) or "none" (plain text, for
	// a relay on the same host).
	TLS string
}

// TLS modes of SMTPConfig.
const (
	TLSStartTLS = "starttls"
	TLSImplicit = "tls"
	TLSNone     = "none"
)

// Check reports what is missing or wrong, as the Caddyfile adapter
// refuses it.
func (c SMTPConfig) Check() error {
	switch {
	case c.Host == "":
		return fmt.Errorf("smtp: host is required")
	case c.From == "":
		return fmt.Errorf("smtp: from is required")
	case c.Port < 0 || c.Port > 65535:
		return fmt.Errorf("smtp: port %d is out of range", c.Port)
	case c.TLS != "" && c.TLS != TLSStartTLS && c.TLS != TLSImplicit && c.TLS != TLSNone:
		return fmt.Errorf("smtp: tls must be starttls, tls or none, not %q", c.TLS)
	case (c.Username == "") != (c.Password == ""):
		return fmt.Errorf("smtp: user and password go together")
	}
	return nil
}

// SMTPTransport delivers over SMTP with go-mail, one connection per
// message (messages are rare: sign-ups, resets, invitations).
type SMTPTransport struct {
	Config  SMTPConfig
	Timeout time.Duration
}

// Delivered is "sent".
func (SMTPTransport) Delivered() string { return "sent" }

// Deliver sends one message, with a text and an HTML alternative.
func (s SMTPTransport) Deliver(ctx context.Context, to string, r Rendered) error {
	c := s.Config
	m := gomail.NewMsg()
	if err := m.From(c.From); err != nil {
		return fmt.Errorf("from: %w", err)
	}
	if err := m.To(to); err != nil {
		return fmt.Errorf("to: %w", err)
	}
	m.Subject(r.Subject)
	m.SetDate()
	m.SetMessageID()
	m.SetBodyString(gomail.TypeTextPlain, r.Text)
	m.AddAlternativeString(gomail.TypeTextHTML, r.HTML)

	timeout := s.Timeout
	if timeout <= 0 {
		timeout = 30 * time.Second
	}
	opts := []gomail.Option{gomail.WithTimeout(timeout)}
	port := c.Port
	switch strings.ToLower(c.TLS) {
	case TLSImplicit:
		opts = append(opts, gomail.WithSSL())
		if port == 0 {
			port = 465
		}
	case TLSNone:
		opts = append(opts, gomail.WithTLSPolicy(gomail.NoTLS))
		if port == 0 {
			port = 25
		}
	default:
		opts = append(opts, gomail.WithTLSPolicy(gomail.TLSMandatory))
		if port == 0 {
			port = 587
		}
	}
	opts = append(opts, gomail.WithPort(port))
	if c.Username != "" {
		// Over TLS the strongest mechanism the server offers; on a plain
		// connection (a relay on this host) PLAIN, which go-mail sends
		// unencrypted only to localhost.
		auth := gomail.SMTPAuthAutoDiscover
		if c.TLS == TLSNone {
			auth = gomail.SMTPAuthPlain
		}
		opts = append(opts, gomail.WithSMTPAuth(auth),
			gomail.WithUsername(c.Username), gomail.WithPassword(c.Password))
	}
	client, err := gomail.NewClient(c.Host, opts...)
	if err != nil {
		return err
	}
	return client.DialAndSendWithContext(ctx, m)
}
