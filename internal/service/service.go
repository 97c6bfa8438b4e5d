// Package service assembles Tablesmith's runtime: the database pool, the
// published-schema registry, credentials, background workers, and the two
// HTTP handlers. Caddy (or a test) owns one Service per database.
package service

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"log/slog"
	"net/http"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/lib/pq"

	"github.com/tablesmith/tablesmith/internal/apihttp"
	"github.com/tablesmith/tablesmith/internal/auth"
	"github.com/tablesmith/tablesmith/internal/cors"
	"github.com/tablesmith/tablesmith/internal/edgecache"
	"github.com/tablesmith/tablesmith/internal/events"
	"github.com/tablesmith/tablesmith/internal/extdb"
	"github.com/tablesmith/tablesmith/internal/files"
	"github.com/tablesmith/tablesmith/internal/mail"
	"github.com/tablesmith/tablesmith/internal/pgexec"
	"github.com/tablesmith/tablesmith/internal/pgpool"
	"github.com/tablesmith/tablesmith/internal/plans"
	"github.com/tablesmith/tablesmith/internal/platformhttp"
	"github.com/tablesmith/tablesmith/internal/publish"
	"github.com/tablesmith/tablesmith/internal/realtime"
	"github.com/tablesmith/tablesmith/internal/registry"
	"github.com/tablesmith/tablesmith/internal/replica"
	"github.com/tablesmith/tablesmith/internal/store"
	"github.com/tablesmith/tablesmith/internal/webhooks"
	"github.com/tablesmith/tablesmith/schema"
	"github.com/tablesmith/tablesmith/translate"
)

// DefaultPreparedStatements is how many prepared statements a data pool
// keeps by default: enough for the get, writes and common list shapes of
// a few busy tables, few enough that PostgreSQL's memory for them stays
// within ~6 MB per connection (docs/performance.md).
const DefaultPreparedStatements = 64

// MaxPageSizeCeiling bounds Config.MaxPageSize: a page is built in
// memory as one JSON value.
const MaxPageSizeCeiling = 10000

// Config is what the service is built from.
type Config struct {
	DatabaseURL string
	RedisURL    string
	// Secret signs tokens; empty: generated once and kept in the database.
	Secret      string
	DefaultPlan string
	Plans       plans.Set
	MaxBody     int64
	// MaxPageSize is the largest list limit of the generated API
	// (default translate.MaxLimit, 100); at most MaxPageSizeCeiling.
	MaxPageSize int
	// MaxBulkRows bounds the records of one bulk create (default 1000).
	MaxBulkRows int
	// MaxOpenConns sizes each of the two database pools (default 20): the
	// control pool and the generated API's data pool (openDataPool), so a
	// node opens at most twice this many connections.
	MaxOpenConns int
	// PreparedStatements bounds the prepared statements of each data
	// pool (pgexec.Statements): 0 means DefaultPreparedStatements, a
	// negative number prepares nothing (for a pooler in transaction mode).
	PreparedStatements int
	Logger             *slog.Logger
	Now                func() time.Time
	// RequestTimeout is each request's deadline in both APIs (default
	// apihttp.DefaultTimeout, 10s): a statement, or a wait for a
	// connection, still running then ends and the request answers 503. The
	// generated API's pools also set it as PostgreSQL's statement_timeout,
	// and every pool connects within min(5s, RequestTimeout).
	RequestTimeout time.Duration
	// ExportTimeout bounds a generated-API CSV or NDJSON export, which
	// may outlast RequestTimeout and the plan's statement timeout
	// (default apihttp.DefaultExportTimeout, 5 min; never less than
	// RequestTimeout).
	ExportTimeout time.Duration
	// WithoutMetering serves the generated API without its rate limiter
	// and analytics recorder. Only the benchmarks set it, to measure what
	// metering costs (bench/RESULTS.md).
	WithoutMetering bool
	// WithoutRequestLog keeps no request log (Caddyfile request_log off):
	// the Logs API then answers 404.
	WithoutRequestLog bool
	// PurgeURLs are HTTP caches in front of the nodes that take a PURGE
	// with a Surrogate-Key header (docs/edge-cache.md).
	PurgeURLs []string
	// FilesDir is where the files of file columns are kept
	// (docs/files.md); "" keeps none and refuses uploads. MaxFileSize
	// bounds one file (default DefaultMaxFileSize).
	FilesDir    string
	MaxFileSize int64
	// FilesGrace is how old a stored file no row names must be before a
	// sweep removes it (default files.Grace; tests shorten it).
	FilesGrace time.Duration
	// FilesS3 keeps the files in an S3-compatible store instead of
	// FilesDir.
	FilesS3 *files.S3Config
	// WebhookAllowPrivate lets webhooks reach loopback, private,
	// link-local and metadata addresses (Caddyfile webhook_allow_private).
	WebhookAllowPrivate bool
	// WebhookBackoff is the wait before a failed webhook's next attempt
	// (default webhooks.Backoff: 5 s doubling to an hour, with jitter).
	WebhookBackoff func(attempts int) time.Duration
	// ProjectConcurrency bounds the data statements one project runs at
	// once on this node (internal/fairshare): 0 means a quarter of
	// MaxOpenConns (at least 1), a negative number no bound.
	ProjectConcurrency int
	// ProjectQueueWait is how long a statement waits for its project's
	// turn before a 503 (0: fairshare.DefaultWait, 2 s).
	ProjectQueueWait time.Duration
	// IndexBuilds bound the background index builds (wire_indexes.go);
	// IndexPoll is how often the builder looks for builds nobody holds
	// (default 10 s; kicks start it at once).
	IndexBuilds store.BuildOptions
	IndexPoll   time.Duration
	// RealtimeRetention is how long a project's change log keeps a change
	// for streams that resume (default realtime.DefaultRetention, 15 min).
	RealtimeRetention time.Duration
	// ReplicaURLs are read replicas of DatabaseURL: the generated API's
	// reads go to them (wire_replicas.go). Empty: none.
	ReplicaURLs []string
	// MaxReplicaLag bounds how stale a replica may be for reads by
	// clients other than a recent writer (default replica.DefaultMaxLag).
	MaxReplicaLag time.Duration
	// DataServers hold the managed projects created while they are
	// configured (wire_dataservers.go); the control schema stays on
	// DatabaseURL. Empty: every project is on DatabaseURL.
	DataServers []DataServer
	// SMTP delivers the service's e-mail (wire_mail.go); nil: messages go
	// to the log and stay readable in the dashboard's Outbox.
	SMTP *mail.SMTPConfig
	// MailScope keeps this service's mail to itself among services that
	// share a database (mail.Outbox.Scope): tests set one per server.
	MailScope string
}

// Settings are the parts of Config a reload may change in a running service.
type Settings struct {
	DefaultPlan string
	Plans       plans.Set
	Secret      string
}

// Service is a running Tablesmith.
type Service struct {
	cfg       Config
	DB        *sql.DB
	dataDB    *sql.DB // the generated API's pool for managed projects (openDataPool)
	dataStmts *pgexec.Statements
	Store     *store.Store
	Registry  *registry.Registry
	Keys      *auth.Keys
	settings  atomic.Pointer[Settings]
	sessions  atomic.Pointer[auth.Sessions]
	trigram   atomic.Bool
	log       *slog.Logger

	api *apihttp.Handler
	// served is api counting its requests in inflight, which Close waits
	// for.
	served   http.Handler
	inflight atomic.Int64
	platform atomic.Pointer[platformhttp.Handler]
	// apiDeps and platformDeps are filled by New and the wire* hooks (one
	// file per area) before the handlers are built.
	apiDeps      apihttp.Deps
	platformDeps platformhttp.Deps
	// renderDocs gives a loaded entry its OpenAPI document (wire_docs.go).
	renderDocs func(*registry.Entry)
	// external reaches the databases that projects front (wire_external.go).
	external *extdb.Connections
	// replicas serve reads when replica_url is set (wire_replicas.go):
	// one set per data server that has replicas.
	replicas []*replica.Set
	// servers are the data servers by name, database_url's under
	// store.DefaultServer (wire_dataservers.go).
	servers map[string]*dataServer
	// Indexes builds indexes after generates (wire_indexes.go);
	// stopBuilds ends its run (Drain).
	Indexes    *publish.Builder
	stopBuilds context.CancelFunc
	buildsDone chan struct{}
	// node names this node in leases and in its NodeLeaving event;
	// draining is set by Drain (drain.go).
	node     string
	draining atomic.Bool
	// Mail queues e-mail (wire_mail.go): every feature that sends some
	// takes it as its mail.Sender; Outbox is the same queue with its
	// listing and templates.
	Mail   mail.Sender
	Outbox *mail.Outbox
	// Realtime serves the change streams (wire_realtime.go).
	Realtime *realtime.Hub
	// Webhooks delivers this node's share of the webhooks
	// (wire_webhooks.go); webhooks is their store.
	Webhooks      *webhooks.Deliverer
	webhooks      *webhooks.Store
	webhookSecret atomic.Pointer[[]byte]
	// remotePurge tells the HTTP caches in front (purge_url), or is nil.
	remotePurge *edgecache.Remote
	// EdgeCache holds the purger of the edge cache running in this
	// process, set by the Caddy adapter (wire_edgecache.go).
	EdgeCache edgecache.Slot
	// starters run in Start after migrations, one per area that has
	// background work; closers run in Close.
	starters []func(ctx context.Context) error
	// fileTokenKey signs upload tokens (wire_files.go), derived from
	// the secret.
	fileTokenKey atomic.Pointer[[]byte]
	// events hands cross-node events to the areas that registered for
	// them (events.On in their wire hook).
	events events.Dispatcher
	// onReconnect hooks drop per-node caches when cross-node events may
	// have been missed.
	onReconnect []func()
	closers     []func()

	startOnce sync.Once
	startErr  error
	stop      context.CancelFunc
	wg        sync.WaitGroup
	listenMu  sync.Mutex
	listeners []*pq.Listener
}

// dataConnLifetime recycles the data pools' connections. A PostgreSQL
// backend keeps the catalog entries of every relation it has touched,
// so on a node serving many projects one long-lived connection grows to
// hold them all (422 MiB after 10,000 projects of three tables,
// bench/tenants_test.go); a new connection starts small and re-prepares
// only what it runs.
const dataConnLifetime = 30 * time.Minute

// New builds a service without touching the network: sql.Open is lazy,
// so Caddy can validate a config with no database reachable.
func New(cfg Config) (*Service, error) {
	if cfg.DatabaseURL == "" {
		return nil, errors.New("database_url is required")
	}
	if cfg.Logger == nil {
		cfg.Logger = slog.Default()
	}
	if cfg.Now == nil {
		cfg.Now = time.Now
	}
	if cfg.Plans == nil {
		cfg.Plans = plans.Defaults()
	}
	if cfg.DefaultPlan == "" {
		cfg.DefaultPlan = "free"
	}
	if cfg.MaxOpenConns <= 0 {
		cfg.MaxOpenConns = 20
	}
	if cfg.RequestTimeout <= 0 {
		cfg.RequestTimeout = apihttp.DefaultTimeout
	}
	switch {
	case cfg.PreparedStatements == 0:
		cfg.PreparedStatements = DefaultPreparedStatements
	case cfg.PreparedStatements < 0:
		cfg.PreparedStatements = 0
	}
	// The control pool also runs migrations and background work, which
	// may take longer than a request: it gets no statement_timeout, and a
	// request's statements end by its deadline (pgpool) and lib/pq's
	// cancel request.
	// The control pool's server-side statement_timeout is the request
	// deadline too; its long work (migrations, schema changes, index
	// builds) lifts it for itself (internal/store/timeout.go).
	db, err := pgpool.Open(cfg.DatabaseURL, pgpool.Options{ConnectTimeout: cfg.connectTimeout(), StatementTimeout: cfg.RequestTimeout}, nil)
	if err != nil {
		return nil, fmt.Errorf("database_url: %w", err)
	}
	db.SetMaxOpenConns(cfg.MaxOpenConns)
	db.SetMaxIdleConns(cfg.MaxOpenConns)
	db.SetConnMaxIdleTime(5 * time.Minute)
	dataDB := openDataPool(cfg.DatabaseURL, cfg.dataPoolOptions())
	dataDB.SetMaxOpenConns(cfg.MaxOpenConns)
	dataDB.SetMaxIdleConns(cfg.MaxOpenConns)
	dataDB.SetConnMaxIdleTime(5 * time.Minute)
	dataDB.SetConnMaxLifetime(dataConnLifetime)
	s := &Service{cfg: cfg, DB: db, dataDB: dataDB, dataStmts: pgexec.NewStatements(dataDB, cfg.PreparedStatements, cfg.Logger),
		Store: &store.Store{DB: db}, log: cfg.Logger, node: nodeName()}
	s.settings.Store(&Settings{DefaultPlan: cfg.DefaultPlan, Plans: cfg.Plans, Secret: cfg.Secret})
	s.Registry = registry.New(s.loadProject)
	s.Keys = &auth.Keys{Lookup: s.lookupKey}
	events.On(&s.events, func(e events.ProjectChanged) { s.Registry.Invalidate(e.ProjectID) })
	events.On(&s.events, func(e events.KeyRevoked) { s.Keys.Forget(e.Prefix) })
	events.On(&s.events, func(e events.KeyCreated) { s.Keys.Forget(e.Prefix) })
	s.apiDeps = apihttp.Deps{DB: db, Registry: s.Registry, Keys: s.Keys, MaxBody: cfg.MaxBody, MaxBulkRows: cfg.MaxBulkRows, Logger: cfg.Logger, Now: cfg.Now,
		Routes: map[string]apihttp.RouteHandler{}, Timeout: cfg.RequestTimeout, MaxPageSize: cfg.MaxPageSize, ExportTimeout: cfg.ExportTimeout}
	s.platformDeps = platformhttp.Deps{Store: s.Store, Registry: s.Registry, Keys: s.Keys, Logger: cfg.Logger, Now: cfg.Now,
		Config: func() platformhttp.Config {
			st := s.settings.Load()
			return platformhttp.Config{Plans: st.Plans, DefaultPlan: st.DefaultPlan}
		}}
	for _, wire := range []func() error{s.wireMail, s.wireFiles, s.wireDocs, s.wireEndUsers, s.wireAuthProviders, s.wireAccounts, s.wireLimits, s.wireDataServers, s.wireExternal, s.wireFairShare, s.wireIdempotency, s.wireIndexes, s.wireReplicas, s.wireRealtime, s.wireWebhooks, s.wireEdgeCache, s.wireDrain} {
		if err := wire(); err != nil {
			db.Close()
			dataDB.Close()
			return nil, err
		}
	}
	if cfg.WithoutMetering {
		s.apiDeps.Limiter, s.apiDeps.Recorder = nil, nil
	}
	s.api = apihttp.New(s.apiDeps)
	s.served = s.counted(s.api)
	return s, nil
}

// Configure applies settings from a reloaded config to the running service.
// When a changed secret cannot be applied (an empty one is read from the
// database), the old settings stay and the error is returned, so that the
// reload fails instead of leaving the keys and the settings out of step.
func (s *Service) Configure(st Settings) error {
	if st.Plans == nil {
		st.Plans = plans.Defaults()
	}
	old := s.settings.Swap(&st)
	if old != nil && old.Secret != st.Secret && s.sessions.Load() != nil {
		if err := s.applySecret(context.Background()); err != nil {
			s.settings.Store(old)
			return err
		}
	}
	return nil
}

// Settings returns the current settings.
func (s *Service) Settings() Settings { return *s.settings.Load() }

// Start connects, migrates the control schema under an advisory lock and
// starts the background workers. It runs once; later calls return the
// first result.
func (s *Service) Start(ctx context.Context) error {
	s.startOnce.Do(func() { s.startErr = s.start(ctx) })
	return s.startErr
}

func (s *Service) start(ctx context.Context) error {
	pingCtx, cancel := context.WithTimeout(ctx, 15*time.Second)
	defer cancel()
	if err := s.DB.PingContext(pingCtx); err != nil {
		return fmt.Errorf("connect to PostgreSQL: %w", err)
	}
	if err := store.Migrate(ctx, s.DB); err != nil {
		return err
	}
	s.trigram.Store(store.TrigramAvailable(ctx, s.DB))
	if err := s.applySecret(ctx); err != nil {
		return err
	}
	bg, stop := context.WithCancel(context.Background())
	s.stop = stop
	s.listen(bg)
	s.every(bg, 30*time.Second, s.flushKeyUse)
	for _, start := range s.starters {
		if err := start(bg); err != nil {
			return err
		}
	}
	return nil
}

// applySecret derives the signing keys from the configured secret, or
// from the one kept in the database.
func (s *Service) applySecret(ctx context.Context) error {
	secret := s.settings.Load().Secret
	if secret == "" {
		var err error
		if secret, err = s.Store.Secret(ctx); err != nil {
			return fmt.Errorf("load secret: %w", err)
		}
	}
	s.setWebhookKey(secret)
	fileKey := auth.DeriveKey(secret, "upload-token")
	s.fileTokenKey.Store(&fileKey)
	sess := &auth.Sessions{Key: auth.DeriveKey(secret, "platform-session"), TicketKey: auth.DeriveKey(secret, "stream-ticket"),
		MFAKey: auth.DeriveKey(secret, "platform-mfa"), TTL: 7 * 24 * time.Hour, Now: s.cfg.Now}
	s.sessions.Store(sess)
	d := s.platformDeps
	d.Sessions, d.Trigram = sess, s.trigram.Load()
	d.TOTPKey = auth.DeriveKey(secret, "totp")
	s.platform.Store(platformhttp.New(d))
	return nil
}

// every runs f every period until ctx ends, and once more at the end.
func (s *Service) every(ctx context.Context, period time.Duration, f func(context.Context)) {
	s.repeat(ctx, period, func() bool { f(ctx); return false }, func() {
		fctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
		defer cancel()
		f(fctx)
	})
}

// tick runs f every period, in the background, until ctx ends or f
// reports it is done; unlike every, not once more at the end.
func (s *Service) tick(ctx context.Context, period time.Duration, f func() (done bool)) {
	s.repeat(ctx, period, f, nil)
}

// repeat is every's and tick's loop: f each period until ctx ends or f is
// done, then atEnd (if any) when ctx ended.
func (s *Service) repeat(ctx context.Context, period time.Duration, f func() (done bool), atEnd func()) {
	s.wg.Add(1)
	go func() {
		defer s.wg.Done()
		t := time.NewTicker(period)
		defer t.Stop()
		for {
			select {
			case <-ctx.Done():
				if atEnd != nil {
					atEnd()
				}
				return
			case <-t.C:
				if f() {
					return
				}
			}
		}
	}()
}

func (s *Service) flushKeyUse(ctx context.Context) {
	if used := s.Keys.TakeUsed(); len(used) > 0 {
		if err := s.Store.TouchKeys(ctx, used); err != nil {
			s.log.Warn("record API key use", "err", err)
		}
	}
}

// listen follows the events channel so that a generate, a project
// deletion or a key revocation on any node reaches this node's caches.
func (s *Service) listen(ctx context.Context) { s.listenOn(ctx, s.cfg.DatabaseURL) }

// listenOn follows the events channel of one database: the control
// schema's, or a data server's (its projects' realtime wake-ups).
func (s *Service) listenOn(ctx context.Context, databaseURL string) *pq.Listener {
	l := pq.NewListener(databaseURL, time.Second, time.Minute, func(ev pq.ListenerEventType, err error) {
		if ev == pq.ListenerEventReconnected {
			// Notifications may have been missed while disconnected.
			s.forgetAll()
		}
	})
	if err := l.Listen(events.Channel); err != nil {
		s.log.Warn("listen for cross-node events; caches follow this node only", "err", err)
	}
	s.listenMu.Lock()
	s.listeners = append(s.listeners, l)
	s.listenMu.Unlock()
	s.wg.Add(1)
	go func() {
		defer s.wg.Done()
		for {
			select {
			case <-ctx.Done():
				return
			case n, ok := <-l.Notify:
				if !ok {
					return
				}
				if n == nil {
					continue
				}
				s.handleEvent(n.Extra)
			}
		}
	}()
	return l
}

// forgetAll drops every per-node cache that cross-node events keep
// fresh: after a reconnect, when some may have been missed.
func (s *Service) forgetAll() {
	s.Registry.InvalidateAll()
	s.Keys.ForgetAll()
	for _, f := range s.onReconnect {
		f()
	}
}

// handleEvent dispatches one received payload. A kind this version does
// not know (sent by a newer node) is ignored; a known kind that cannot be
// read may have been meant to drop a cache, so every cache is dropped.
func (s *Service) handleEvent(payload string) {
	e, err := events.Decode(payload)
	switch {
	case errors.Is(err, events.ErrUnknownKind):
		return
	case err != nil:
		s.log.Warn("unreadable cross-node event; dropping every cache", "err", err)
		s.forgetAll()
		return
	}
	s.events.Dispatch(e)
}

// Close waits for the requests still running (up to the longest a
// request may take: the export deadline), then stops the workers and
// closes the pools.
func (s *Service) Close() error { return s.CloseAfter(s.longestRequest()) }

// CloseAfter is Close waiting at most wait for the requests still
// running; what runs after that fails on the closed pools. A reload that
// replaces the service (a changed database_url, request_timeout, ...)
// stops the old server without waiting for its requests, which still
// run here: they finish, and the realtime streams end at once with a
// reconnect event, so that their clients resume on the new service.
func (s *Service) CloseAfter(wait time.Duration) error {
	if s.Realtime != nil {
		s.Realtime.Drain()
	}
	deadline := time.Now().Add(wait)
	for s.inflight.Load() > 0 && time.Now().Before(deadline) {
		time.Sleep(10 * time.Millisecond)
	}
	if s.stop != nil {
		s.stop()
	}
	s.listenMu.Lock()
	for _, l := range s.listeners {
		l.Close()
	}
	s.listenMu.Unlock()
	s.wg.Wait()
	for _, c := range s.closers {
		c()
	}
	s.dataStmts.Close()
	s.dataDB.Close()
	return s.DB.Close()
}

// openDataPool opens the pool for generated-API statements with lib/pq's
// binary_parameters: it then sends Parse, Bind and Execute of a statement
// with parameters together, one round trip instead of two (bench/RESULTS.md
// has the numbers). Binary mode sends []byte values as binary data, which
// only bytea accepts; the generated API's statements never bind []byte
// (values are strings, numbers, booleans, times and translate's arrays in
// text form), but the control schema's statements bind JSON as []byte, so
// they keep the default pool. Like sql.Open it does no I/O; a URL lib/pq
// cannot parse gets a plain pool that reports the error on first use.
func openDataPool(databaseURL string, o pgpool.Options) *sql.DB {
	db, err := pgpool.Open(databaseURL, o, func(cfg *pq.Config) { cfg.BinaryParameters = true })
	if err != nil {
		db, _ = sql.Open("postgres", databaseURL)
	}
	return db
}

// connectTimeout bounds establishing a connection of any pool: 5s, or
// the request deadline if shorter.
func (c Config) connectTimeout() time.Duration { return min(5*time.Second, c.RequestTimeout) }

// dataPoolOptions bound the generated API's pools (the managed data pool
// and fronted databases'): the server stops a statement at the request
// deadline too, even if the client's cancel request never reaches it.
func (c Config) dataPoolOptions() pgpool.Options {
	return pgpool.Options{ConnectTimeout: c.connectTimeout(), StatementTimeout: c.RequestTimeout}
}

// API is the generated-API handler (/v1).
func (s *Service) API() http.Handler { return s.served }

// counted serves with h, counting the request in inflight while it runs.
func (s *Service) counted(h http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		s.inflight.Add(1)
		defer s.inflight.Add(-1)
		h.ServeHTTP(w, r)
	})
}

// longestRequest is the longest a request may run: the export deadline
// (never shorter than the request deadline), and a second for its answer.
func (s *Service) longestRequest() time.Duration {
	d := s.cfg.ExportTimeout
	if d <= 0 {
		d = apihttp.DefaultExportTimeout
	}
	return max(d, s.cfg.RequestTimeout) + time.Second
}

// Platform is the platform-API handler (/api). Each request has the
// request deadline, like the generated API's.
func (s *Service) Platform() http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		s.inflight.Add(1)
		defer s.inflight.Add(-1)
		if s.serveHealth(w, r) {
			return
		}
		h := s.platform.Load()
		if h == nil {
			writeStarting(w)
			return
		}
		ctx, cancel := context.WithTimeout(r.Context(), platformDeadline(r, s.cfg.RequestTimeout))
		defer cancel()
		h.ServeHTTP(w, r.WithContext(ctx))
	})
}

// SchemaWorkTimeout is the deadline of the platform requests that change a
// project's tables: a generate checks and converts existing rows, and a
// project's deletion drops its tables, which on large tables takes longer
// than an ordinary request may.
const SchemaWorkTimeout = 5 * time.Minute

// platformDeadline is how long a platform request may run: the request
// deadline, or SchemaWorkTimeout for a generate or a project's deletion.
func platformDeadline(r *http.Request, requestTimeout time.Duration) time.Duration {
	rest, ok := strings.CutPrefix(r.URL.Path, "/api/projects/")
	if !ok || requestTimeout >= SchemaWorkTimeout {
		return requestTimeout
	}
	id, action, _ := strings.Cut(strings.TrimSuffix(rest, "/"), "/")
	switch {
	case r.Method == http.MethodPost && id != "" && action == "generate",
		r.Method == http.MethodDelete && id != "" && action == "":
		return SchemaWorkTimeout
	}
	return requestTimeout
}

// lookupKey reads a key for the key cache.
func (s *Service) lookupKey(ctx context.Context, prefix string) (auth.KeyRecord, error) {
	k, err := s.Store.KeyByPrefix(ctx, prefix)
	if errors.Is(err, store.ErrNotFound) {
		return auth.KeyRecord{}, auth.ErrUnknownKey
	}
	if err != nil {
		return auth.KeyRecord{}, err
	}
	return auth.KeyRecord{ID: k.ID, ProjectID: k.ProjectID, Scope: k.Scope, Prefix: k.Prefix, Hash: k.Hash, Revoked: k.RevokedAt != nil}, nil
}

// loadProject compiles a project's newest published version for the registry.
func (s *Service) loadProject(ctx context.Context, projectID string) (*registry.Entry, error) {
	if !schema.ValidProjectID(projectID) {
		return nil, registry.ErrNotPublished
	}
	// The project's row, read once per load: where its tables are (a
	// data server, or a database it fronts: wire_external.go), and its
	// CORS setting, which every request then finds in the entry.
	p, err := s.Store.Project(ctx, projectID)
	if errors.Is(err, store.ErrNotFound) {
		p = store.Project{ID: projectID, Engine: store.EngineManaged, CORS: store.DefaultCORS()}
	} else if err != nil {
		return nil, err
	}
	if p.DataServer != "" {
		// A node that stopped between a data server's commit and the
		// control schema's left the version behind: catch up first.
		if err := s.Store.Reconcile(ctx, projectID); err != nil {
			return nil, err
		}
	}
	v, err := s.Store.LatestVersion(ctx, projectID)
	if errors.Is(err, store.ErrNotFound) {
		return nil, registry.ErrNotPublished
	}
	if err != nil {
		return nil, err
	}
	doc, err := schema.Parse(v.Document)
	if err != nil {
		return nil, fmt.Errorf("project %s version %d: %w", projectID, v.Version, err)
	}
	c, err := schema.Compile(doc)
	if err != nil {
		return nil, fmt.Errorf("project %s version %d: %w", projectID, v.Version, err)
	}
	c.SetAPIBase("/v1/" + projectID)
	schemaName, tables, err := s.projectTables(ctx, p)
	if err != nil {
		return nil, err
	}
	e := &registry.Entry{ProjectID: projectID, Version: v.Version, Published: translate.Prepare(schemaName, c), Tables: tables,
		CORS: cors.Compile(p.CORS.AllowedOrigins), ProjectName: p.Name, WritesPaused: p.MovingTo != ""}
	s.renderDocs(e)
	return e, nil
}
