package service

import (
	"context"

	"github.com/tablesmith/tablesmith/internal/publish"
)

// wireIndexes runs this node's index builder (issue 16): a generate
// answers when its migration commits and kicks the builder here; the
// builder also takes over builds another node left unfinished.
func (s *Service) wireIndexes() error {
	s.Indexes = publish.NewBuilder(s.Store, s.cfg.IndexBuilds, s.log)
	if s.cfg.IndexPoll > 0 {
		s.Indexes.Poll = s.cfg.IndexPoll
	}
	s.platformDeps.BuildIndexes = s.Indexes.Kick
	s.starters = append(s.starters, func(ctx context.Context) error {
		ctx, s.stopBuilds = context.WithCancel(ctx)
		s.buildsDone = make(chan struct{})
		s.wg.Add(1)
		go func() {
			defer s.wg.Done()
			defer close(s.buildsDone)
			s.Indexes.Run(ctx)
		}()
		return nil
	})
	return nil
}
