package service

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"os"
	"time"

	"github.com/tablesmith/tablesmith/internal/auth"
	"github.com/tablesmith/tablesmith/internal/events"
	"github.com/tablesmith/tablesmith/internal/plans"
	"github.com/tablesmith/tablesmith/internal/webhooks"
)

// wireWebhooks adds webhooks (issue 39, docs/webhooks.md): their routes in
// the platform API and this node's deliverer, which leases due webhooks
// and delivers their changes from the projects' change logs. It runs after
// wireRealtime, whose change log it reads.
func (s *Service) wireWebhooks() error {
	s.webhooks = &webhooks.Store{DB: s.DB}
	s.platformDeps.Webhooks = s.webhooks
	s.platformDeps.WebhookKey = s.webhookKey
	s.platformDeps.WebhookAllowPrivate = s.cfg.WebhookAllowPrivate
	d := webhooks.New(webhooks.Config{
		Store:        s.webhooks,
		Source:       &webhooks.LogSource{Registry: s.Registry},
		Node:         s.node,
		Key:          s.webhookKey,
		AllowPrivate: s.cfg.WebhookAllowPrivate,
		PerHour:      s.webhookDeliveriesPerHour,
		Backoff:      s.cfg.WebhookBackoff,
		Logger:       s.log,
	})
	s.Webhooks = d
	// A numbering round of any node (a stream's, a deliverer's) wakes the
	// project's workers here at once.
	events.On(&s.events, func(e events.RealtimeChanged) { d.Changed(e.ProjectID) })
	s.starters = append(s.starters, func(ctx context.Context) error {
		s.wg.Add(1)
		go func() {
			defer s.wg.Done()
			d.Run(ctx)
		}()
		s.every(ctx, time.Minute, func(ctx context.Context) {
			if err := s.webhooks.PruneDeliveries(ctx); err != nil {
				s.log.Warn("prune webhook deliveries", "err", err)
			}
		})
		return nil
	})
	return nil
}

// webhookKey is the server's key for webhook secrets, derived from the
// secret (applySecret).
func (s *Service) webhookKey() []byte {
	if k := s.webhookSecret.Load(); k != nil {
		return *k
	}
	return nil
}

// setWebhookKey derives it from the server's secret.
func (s *Service) setWebhookKey(secret string) {
	k := auth.DeriveKey(secret, "webhook-signing")
	s.webhookSecret.Store(&k)
}

// webhookDeliveriesPerHour is the project's plan's delivery attempts an
// hour; -1 when served without metering.
func (s *Service) webhookDeliveriesPerHour(ctx context.Context, projectID string) (int, error) {
	l := s.limitsOf()
	if l == nil {
		return plans.Unlimited, nil
	}
	p, err := l.plans.Plan(ctx, projectID, s.cfg.Now())
	if err != nil {
		return 0, err
	}
	return p.WebhookDeliveries, nil
}

// nodeName names this node in webhook leases and NodeLeaving events: its host and a random
// suffix, so that two nodes on one host (or a restart) never share one.
func nodeName() string {
	host, _ := os.Hostname()
	b := make([]byte, 4)
	_, _ = rand.Read(b)
	return host + "-" + hex.EncodeToString(b)
}
