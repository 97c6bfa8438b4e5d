package service

import "github.com/tablesmith/tablesmith/internal/authproviders"

// wireAuthProviders adds the end users' sign-in providers (issue 41) to
// the platform API; the sign-in itself is part of the /auth routes
// (wireEndUsers), which reach the same rows.
func (s *Service) wireAuthProviders() error {
	s.platformDeps.Providers = &authproviders.Store{DB: s.DB, Secret: s.endUserSecret()}
	return nil
}
