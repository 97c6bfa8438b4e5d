package service

import (
	"context"

	"github.com/tablesmith/tablesmith/internal/replica"
)

// wireReplicas sends the generated API's reads of managed projects to
// read replicas when replica_url is set (issue 22): without replicas
// nothing is added to the request path.
func (s *Service) wireReplicas() error {
	if len(s.cfg.ReplicaURLs) == 0 {
		return nil
	}
	set, err := replica.New(replica.Config{
		Primary: s.dataStmts, PrimaryURL: s.cfg.DatabaseURL, URLs: s.cfg.ReplicaURLs, MaxLag: s.cfg.MaxReplicaLag, RedisURL: s.cfg.RedisURL,
		Pool: s.cfg.dataPoolOptions(), MaxOpenConns: s.cfg.MaxOpenConns, PreparedStatements: s.cfg.PreparedStatements,
		Logger: s.log, Now: s.cfg.Now,
	})
	if err != nil {
		return err
	}
	s.replicas = set
	s.apiDeps.Replicas = set
	s.starters = append(s.starters, func(ctx context.Context) error {
		set.Start(ctx)
		return nil
	})
	s.closers = append(s.closers, set.Close)
	return nil
}

// ReplicaStats are each read replica's health and reads served, and the
// reads that went to the primary instead; nil without replicas.
func (s *Service) ReplicaStats() ([]replica.Stat, uint64) {
	if s.replicas == nil {
		return nil, 0
	}
	return s.replicas.Stats(), s.replicas.PrimaryReads()
}

// Replicas is the read-replica set, nil without replicas (tests).
func (s *Service) Replicas() *replica.Set { return s.replicas }
