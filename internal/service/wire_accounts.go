package service

import (
	"context"
	"time"
)

// wireAccounts gives the platform API what the accounts' security needs
// (docs/accounts.md): the mail sender (after wireMail) and pruning of
// expired links and mail windows. The TOTP key is set with the other keys
// (applySecret).
func (s *Service) wireAccounts() error {
	s.platformDeps.Mail = s.Mail
	// Like the end users' pruning: tidying only, not again at shutdown.
	s.starters = append(s.starters, func(ctx context.Context) error {
		s.tick(ctx, 10*time.Minute, func() bool {
			if err := s.Store.PruneAccountTokens(ctx, s.cfg.Now(), time.Hour); err != nil && ctx.Err() == nil {
				s.log.Warn("prune account tokens", "err", err)
			}
			return false
		})
		return nil
	})
	return nil
}
