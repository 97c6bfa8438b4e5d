package service

import (
	"context"
	"database/sql"
	"fmt"
	"sort"
	"sync/atomic"
	"time"

	"github.com/tablesmith/tablesmith/apierr"
	"github.com/tablesmith/tablesmith/internal/pgexec"
	"github.com/tablesmith/tablesmith/internal/pgpool"
	"github.com/tablesmith/tablesmith/internal/replica"
	"github.com/tablesmith/tablesmith/internal/store"
)

// DataServer is a PostgreSQL server that holds managed projects' tables
// (issue 22, docs/deployment.md "Data servers"): the control schema stays
// on database_url, each new project is placed on the data server with
// the fewest, and every node routes a project by its recorded placement.
type DataServer struct {
	Name string
	URL  string
	// ReplicaURLs are streaming replicas of URL that serve its projects'
	// reads, like Config.ReplicaURLs for database_url.
	ReplicaURLs []string
}

// dataServer is one data server's pools on this node.
type dataServer struct {
	name string
	url  string
	// schemaDB runs schema work (migrations, index builds, drops) and
	// the control-schema tables a data server also has
	// (idempotency_keys, data_versions).
	schemaDB *sql.DB
	// pool and stmts run the generated API's statements.
	pool     *sql.DB
	stmts    *pgexec.Statements
	replicas *replica.Set
	// migrated is set once the server has the tablesmith schema; until
	// then its projects answer 503.
	migrated atomic.Bool
}

// wireDataServers opens the data servers' pools (issue 22 item 4). The
// default server is database_url with the service's own pools.
func (s *Service) wireDataServers() error {
	def := &dataServer{name: store.DefaultServer, url: s.cfg.DatabaseURL, schemaDB: s.DB, pool: s.dataDB, stmts: s.dataStmts}
	def.migrated.Store(true) // the control schema's migration covers it
	s.servers = map[string]*dataServer{store.DefaultServer: def}
	for _, ds := range s.cfg.DataServers {
		if _, dup := s.servers[ds.Name]; dup || ds.Name == "" {
			return fmt.Errorf("data_server %q: the name is empty, taken or reserved", ds.Name)
		}
		schemaDB, err := pgpool.Open(ds.URL, pgpool.Options{ConnectTimeout: s.cfg.connectTimeout(), StatementTimeout: s.cfg.RequestTimeout}, nil)
		if err != nil {
			return fmt.Errorf("data_server %s: %w", ds.Name, err)
		}
		schemaDB.SetMaxOpenConns(max(2, s.cfg.MaxOpenConns/4))
		pool := openDataPool(ds.URL, s.cfg.dataPoolOptions())
		pool.SetMaxOpenConns(s.cfg.MaxOpenConns)
		pool.SetMaxIdleConns(s.cfg.MaxOpenConns)
		pool.SetConnMaxIdleTime(5 * time.Minute)
		pool.SetConnMaxLifetime(dataConnLifetime)
		srv := &dataServer{name: ds.Name, url: ds.URL, schemaDB: schemaDB, pool: pool,
			stmts: pgexec.NewStatements(pool, s.cfg.PreparedStatements, s.log)}
		s.servers[ds.Name] = srv
		s.closers = append(s.closers, func() {
			srv.stmts.Close()
			pool.Close()
			schemaDB.Close()
		})
	}
	s.Store.Servers = func(name string) (*sql.DB, error) {
		srv, err := s.server(name)
		if err != nil {
			return nil, err
		}
		return srv.schemaDB, nil
	}
	if len(s.cfg.DataServers) > 0 {
		s.platformDeps.PlaceProject = s.placeProject
	}
	s.starters = append(s.starters, func(ctx context.Context) error {
		for _, srv := range s.servers {
			if srv.name != store.DefaultServer {
				s.prepareDataServer(ctx, srv)
			}
		}
		s.every(ctx, time.Minute, s.dropLeftSchemas)
		return nil
	})
	return nil
}

// server returns a data server by name ("" is database_url's).
func (s *Service) server(name string) (*dataServer, error) {
	if name == "" {
		name = store.DefaultServer
	}
	srv, ok := s.servers[name]
	if !ok {
		return nil, apierr.New(apierr.CodeUnavailable, "The project's data server %q is not configured on this server", name)
	}
	if !srv.migrated.Load() {
		return nil, apierr.New(apierr.CodeUnavailable, "The project's data server %q is not reachable yet", name)
	}
	return srv, nil
}

// prepareDataServer migrates a data server (its tablesmith schema holds
// idempotency records and data_versions) and follows its events (the
// realtime capture's wake-ups), retrying in the background while it is
// unreachable: one server down must not keep the node, and the projects
// on the other servers, from starting.
func (s *Service) prepareDataServer(ctx context.Context, srv *dataServer) {
	try := func() bool {
		mctx, cancel := context.WithTimeout(ctx, 30*time.Second)
		defer cancel()
		if err := store.Migrate(mctx, srv.schemaDB); err != nil {
			s.log.Warn("data server not ready; its projects answer 503 until it is", "data_server", srv.name, "err", err)
			return false
		}
		srv.migrated.Store(true)
		s.listenOn(ctx, srv.url)
		return true
	}
	if !try() {
		s.tick(ctx, 5*time.Second, try)
	}
}

// placeProject picks a new project's data server: the reachable one with
// the fewest managed projects, by name among equals. database_url takes no
// new projects once data servers are configured.
func (s *Service) placeProject(ctx context.Context) (string, error) {
	counts, err := s.Store.ServerCounts(ctx)
	if err != nil {
		return "", err
	}
	names := make([]string, 0, len(s.cfg.DataServers))
	for _, ds := range s.cfg.DataServers {
		// A server this node cannot reach now takes no new project: its
		// first generate would fail.
		if s.servers[ds.Name].migrated.Load() {
			names = append(names, ds.Name)
		}
	}
	if len(names) == 0 {
		return "", apierr.New(apierr.CodeUnavailable, "No data server is reachable to hold a new project; try again shortly")
	}
	sort.Strings(names)
	best := ""
	for _, n := range names {
		if best == "" || counts[n] < counts[best] {
			best = n
		}
	}
	return best, nil
}

// isDataPool says whether db is a data server's generated-API pool,
// whose database holds tablesmith.idempotency_keys.
func (s *Service) isDataPool(db *sql.DB) bool {
	for _, srv := range s.servers {
		if srv.pool == db {
			return true
		}
	}
	return false
}

// dropLeftSchemas retries the drops of deleted projects' schemas on data
// servers and drops the old copies of confirmed moves.
func (s *Service) dropLeftSchemas(ctx context.Context) {
	if _, err := s.Store.DropLeftSchemas(ctx); err != nil {
		s.log.Warn("drop project schemas left on data servers", "err", err)
	}
}

// dataServers0 lists every configured server, database_url's first,
// reachable or not.
func (s *Service) dataServers0() []*dataServer {
	out := []*dataServer{s.servers[store.DefaultServer]}
	for _, ds := range s.cfg.DataServers {
		out = append(out, s.servers[ds.Name])
	}
	return out
}

// dataServers lists the servers ready for work (database_url's first),
// for the sweeps that run on each.
func (s *Service) dataServers() []*dataServer {
	out := []*dataServer{s.servers[store.DefaultServer]}
	for _, ds := range s.cfg.DataServers {
		if srv := s.servers[ds.Name]; srv != nil && srv.migrated.Load() {
			out = append(out, srv)
		}
	}
	return out
}
