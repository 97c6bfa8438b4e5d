package service

import (
	"context"
	"time"

	"github.com/tablesmith/tablesmith/internal/mail"
)

// wireMail adds e-mail (issue 41, docs/email.md): the outbox every feature
// queues its messages in, and this node's deliverer, over SMTP when it is
// configured, else to the log. It runs first: the features that send mail
// take s.Mail in their own wiring.
func (s *Service) wireMail() error {
	o := mail.NewOutbox(s.DB, s.cfg.Now)
	o.Scope = s.cfg.MailScope
	s.Mail, s.Outbox = o, o
	s.platformDeps.Outbox = o
	s.platformDeps.Mail = o // invitations (docs/teams.md)
	d := &mail.Deliverer{Outbox: o, Logger: s.log}
	if c := s.cfg.SMTP; c != nil {
		if err := c.Check(); err != nil {
			return err
		}
		d.Transport = mail.SMTPTransport{Config: *c}
	} else {
		d.Transport, d.KeepBodies = mail.LogTransport{Logger: s.log}, true
	}
	s.starters = append(s.starters, func(ctx context.Context) error {
		s.wg.Add(1)
		go func() {
			defer s.wg.Done()
			d.Run(ctx)
		}()
		s.tick(ctx, time.Hour, func() bool {
			if err := d.Prune(ctx); err != nil && ctx.Err() == nil {
				s.log.Warn("prune mail outbox", "err", err)
			}
			return false
		})
		return nil
	})
	return nil
}
