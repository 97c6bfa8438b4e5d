package service

import (
	"context"
	"sync"
	"time"

	"github.com/tablesmith/tablesmith/internal/endusers"
	"github.com/tablesmith/tablesmith/internal/events"
)

// wireEndUsers adds end-user auth routes and the access-token verifier (issue 4).
func (s *Service) wireEndUsers() error {
	a := endusers.New(endusers.Config{
		DB:     s.DB,
		Store:  s.Store,
		Secret: s.endUserSecret(),
		Now:    s.cfg.Now,
		Mail:   s.Mail,
		Logger: s.log,
	})
	s.apiDeps.Users = a
	s.apiDeps.Routes["auth"] = a.Serve
	// Another node revoked a session (logout, refresh-token reuse).
	events.On(&s.events, func(e events.SessionEnded) { a.Forget(e.SessionID) })
	s.onReconnect = append(s.onReconnect, a.ForgetAll)
	// Pruning only tidies (expired rows are refused anyway), so unlike
	// every() it does not run again at shutdown: services with their own
	// clocks may share a database (tests), and one far in the future must
	// not prune the others' live rows as it stops.
	s.starters = append(s.starters, func(ctx context.Context) error {
		s.tick(ctx, 10*time.Minute, func() bool {
			a.Prune(ctx)
			return false
		})
		return nil
	})
	return nil
}

// endUserSecret returns the master secret as it is now: the configured
// one, read on every call so that a reload changing it applies at once,
// or else the one kept in the control schema (which never changes, so it
// is read once).
func (s *Service) endUserSecret() func(ctx context.Context) (string, error) {
	var mu sync.Mutex
	var stored string
	return func(ctx context.Context) (string, error) {
		if secret := s.settings.Load().Secret; secret != "" {
			return secret, nil
		}
		mu.Lock()
		defer mu.Unlock()
		if stored == "" {
			v, err := s.Store.Secret(ctx)
			if err != nil {
				return "", err
			}
			stored = v
		}
		return stored, nil
	}
}
