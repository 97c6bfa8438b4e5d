package service

import (
	"context"

	"github.com/tablesmith/tablesmith/internal/replica"
	"github.com/tablesmith/tablesmith/internal/store"
)

// wireReplicas sends the generated API's reads of managed projects to
// read replicas (issue 22): replica_url for database_url's projects, and
// a data_server's own replica_url lines for its projects. Without
// replicas nothing is added to the request path.
func (s *Service) wireReplicas() error {
	want := map[string][]string{store.DefaultServer: s.cfg.ReplicaURLs}
	for _, ds := range s.cfg.DataServers {
		want[ds.Name] = ds.ReplicaURLs
	}
	for _, srv := range s.dataServers0() {
		urls := want[srv.name]
		if len(urls) == 0 {
			continue
		}
		set, err := replica.New(replica.Config{
			Primary: srv.stmts, PrimaryURL: srv.url, URLs: urls, MaxLag: s.cfg.MaxReplicaLag, RedisURL: s.cfg.RedisURL,
			Pool: s.cfg.dataPoolOptions(), MaxOpenConns: s.cfg.MaxOpenConns, PreparedStatements: s.cfg.PreparedStatements,
			Logger: s.log, Now: s.cfg.Now,
		})
		if err != nil {
			return err
		}
		srv.replicas = set
		s.replicas = append(s.replicas, set)
		s.starters = append(s.starters, func(ctx context.Context) error {
			set.Start(ctx)
			return nil
		})
		s.closers = append(s.closers, set.Close)
	}
	if len(s.replicas) > 0 {
		s.apiDeps.Replicas = replica.Router(s.replicas)
	}
	return nil
}

// ReplicaStats are each read replica's health and reads served, and the
// reads that went to the primary instead; nil without replicas.
func (s *Service) ReplicaStats() ([]replica.Stat, uint64) {
	var stats []replica.Stat
	var primary uint64
	for _, set := range s.replicas {
		stats = append(stats, set.Stats()...)
		primary += set.PrimaryReads()
	}
	return stats, primary
}

// Replicas is database_url's read-replica set, nil without replicas
// (tests).
func (s *Service) Replicas() *replica.Set { return s.servers[store.DefaultServer].replicas }
