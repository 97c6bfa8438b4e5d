package service

import (
	"context"

	"github.com/tablesmith/tablesmith/apierr"
	"github.com/tablesmith/tablesmith/internal/extdb"
	"github.com/tablesmith/tablesmith/internal/pgexec"
	"github.com/tablesmith/tablesmith/internal/store"
	"github.com/tablesmith/tablesmith/schema"
)

// wireExternal enables the postgres_external engine (issue 10): one pool
// per fronted database, owned by the service (which outlives config
// reloads) and closed with it, and connection URLs sealed with a key
// derived from the master secret.
func (s *Service) wireExternal() error {
	secret := s.endUserSecret() // the master secret as it is now
	s.external = &extdb.Connections{
		Pools: &extdb.Pools{Logger: s.log, Now: s.cfg.Now, PreparedStatements: s.cfg.PreparedStatements,
			Options: extdb.Options{ConnectTimeout: s.cfg.connectTimeout(), StatementTimeout: s.cfg.RequestTimeout}},
		Key: func(ctx context.Context) ([]byte, error) {
			v, err := secret(ctx)
			if err != nil {
				return nil, err
			}
			return extdb.SealKey(v), nil
		},
	}
	s.platformDeps.External = s.external
	s.closers = append(s.closers, s.external.Pools.Close)
	return nil
}

// projectTables says where a project's tables are: the service's data
// pool and p_<id> for a managed project, the fronted database's shared
// pool and the user's schema for one that fronts a database.
// p is the project's row (its id alone when the row is gone).
func (s *Service) projectTables(ctx context.Context, p store.Project) (string, *pgexec.Statements, error) {
	if p.Engine != store.EngineExternal {
		srv, err := s.server(p.DataServer)
		if err != nil {
			return "", nil, err
		}
		return schema.ProjectSchema(p.ID), srv.stmts, nil
	}
	conn, ok := store.ExternalConnectionOf(p)
	if !ok || s.external == nil {
		return "", nil, apierr.New(apierr.CodeUnavailable, "The project's database connection is not available on this server")
	}
	pool, err := s.external.Pool(ctx, conn.SealedURL)
	if err != nil {
		return "", nil, err
	}
	return conn.Schema, pool.Statements, nil
}

// ExternalPools are the pools of fronted databases (tests and metrics).
func (s *Service) ExternalPools() *extdb.Pools { return s.external.Pools }
