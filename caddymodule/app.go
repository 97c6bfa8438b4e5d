// Package caddymodule adapts Tablesmith to Caddy: the "tablesmith" app
// (global option) that owns the runtime, the tablesmith_api and
// tablesmith_platform handlers, Caddyfile parsing and CLI subcommands.
// It holds no business logic.
package caddymodule

import (
	"context"
	"fmt"
	"net/url"
	"path/filepath"
	"strconv"
	"strings"
	"time"

	"github.com/caddyserver/caddy/v2"

	"github.com/tablesmith/tablesmith/internal/edgecache"
	"github.com/tablesmith/tablesmith/internal/files"
	"github.com/tablesmith/tablesmith/internal/mail"
	"github.com/tablesmith/tablesmith/internal/plans"
	"github.com/tablesmith/tablesmith/internal/service"
)

func init() {
	caddy.RegisterModule(&App{})
}

// App is the "tablesmith" Caddy app. Its JSON is produced by the
// Caddyfile global option; secrets and URLs stay as {env.*} placeholders
// there and are resolved in Provision. A zero value takes the default;
// Validate checks every other value against its bounds (options.go), the
// same for a Caddyfile and a JSON config.
type App struct {
	// DatabaseURL is the PostgreSQL URL of the control database, where
	// projects' schemas also live. Required; usually
	// {env.TABLESMITH_DATABASE_URL}. Caddyfile: database_url.
	DatabaseURL string `json:"database_url,omitempty"`
	// RedisURL, when set, keeps rate-limit counters in Redis so that every
	// node shares them; without it each node counts in memory. Default
	// none. Caddyfile: redis_url.
	RedisURL string `json:"redis_url,omitempty"`
	// Secret is the master secret that session and end-user token keys
	// are derived from. Default: one generated on first start and kept in
	// the database. Caddyfile: secret.
	Secret string `json:"secret,omitempty"`
	// DefaultPlan names the plan of new accounts; it must be a plan of
	// the built-in set or of Plans. Default "free". Caddyfile: default_plan.
	DefaultPlan string `json:"default_plan,omitempty"`
	// Plans replace or add to the built-in plans (free, pro, unlimited)
	// by name. Caddyfile: one plan <name> { ... } block each.
	Plans map[string]PlanConfig `json:"plans,omitempty"`
	// MaxBody is the generated API's request body limit in bytes.
	// Default 1 MiB. Caddyfile: max_body (a size such as 512KB).
	MaxBody int64 `json:"max_body,omitempty"`
	// MaxBulkRows bounds the records of one bulk create (a POST of a
	// JSON array). Default 1000. Caddyfile: max_bulk_rows.
	MaxBulkRows int `json:"max_bulk_rows,omitempty"`
	// MaxConnections sizes each PostgreSQL pool (control and data).
	// Default 20. Caddyfile: max_connections.
	MaxConnections int `json:"max_connections,omitempty"`
	// MaxPageSize is the largest list limit of the generated APIs
	// (default 100, at most 10,000). Caddyfile: max_page_size.
	MaxPageSize int `json:"max_page_size,omitempty"`
	// PreparedStatements bounds the prepared statements of each data
	// pool: 0 is the default (64), -1 prepares nothing.
	// Caddyfile: prepared_statements (<n> or off).
	PreparedStatements int `json:"prepared_statements,omitempty"`
	// ProjectConcurrency bounds the data statements one project runs at
	// once on a node: 0 is the default (max_connections/4), -1 no bound.
	// Caddyfile: project_concurrency (<n> or off).
	ProjectConcurrency int `json:"project_concurrency,omitempty"`
	// ProjectQueueWait is how long a statement waits for its project's
	// turn before a 503. Default 2 s. Caddyfile: project_queue_wait.
	ProjectQueueWait caddy.Duration `json:"project_queue_wait,omitempty"`
	// RequestTimeout is each request's deadline in both APIs, at least
	// 100 ms. Default 10 s. The pools are opened with it, so a changed value takes new
	// pools. Caddyfile: request_timeout.
	RequestTimeout caddy.Duration `json:"request_timeout,omitempty"`
	// ExportTimeout bounds one CSV or NDJSON export of the generated API,
	// in place of request_timeout and the plan's statement_timeout; at
	// least 1 s. Default 5 min. Caddyfile: export_timeout.
	ExportTimeout caddy.Duration `json:"export_timeout,omitempty"`
	// RealtimeRetention is how long a project's change log keeps a change
	// for realtime streams that resume (docs/realtime.md); at least
	// 1 min. Default 15 min.
	// Caddyfile: realtime_retention.
	RealtimeRetention caddy.Duration `json:"realtime_retention,omitempty"`
	// ReplicaURLs are PostgreSQL streaming replicas of DatabaseURL: the
	// generated API's reads go to a healthy one, writes to the primary
	// (docs/deployment.md). Default none. Caddyfile: replica_url, once
	// per replica.
	ReplicaURLs []string `json:"replica_urls,omitempty"`
	// MaxReplicaLag is how far behind the primary a replica may be and
	// still serve reads (a client's own writes are always seen); at least
	// 100 ms. Default 1 s. Caddyfile: max_replica_lag.
	MaxReplicaLag caddy.Duration `json:"max_replica_lag,omitempty"`
	// RequestLog turns the request log (the dashboard's Logs page) on or
	// off for every project; default on. Caddyfile: request_log on|off.
	RequestLog *bool `json:"request_log,omitempty"`
	// PurgeURLs are HTTP caches in front of the nodes (Varnish with
	// xkey, a CDN's purge endpoint): the node that makes a write sends
	// each a PURGE with the surrogate keys it made stale
	// (docs/edge-cache.md). Caddyfile: purge_url, once per cache.
	PurgeURLs []string `json:"purge_urls,omitempty"`
	// FilesDir is where the files of file columns are kept on this node
	// (docs/files.md). Default: tablesmith/files under Caddy's data
	// directory. Caddyfile: files_dir.
	FilesDir string `json:"files_dir,omitempty"`
	// MaxFileSize bounds one uploaded file whatever its column allows.
	// Default 50 MiB. Caddyfile: max_file_size (a size such as 10MiB).
	MaxFileSize int64 `json:"max_file_size,omitempty"`
	// Storage keeps file columns' files in an S3-compatible store
	// instead of FilesDir (docs/files.md). Caddyfile: storage s3 {…}.
	Storage *StorageConfig `json:"storage,omitempty"`
	// SMTP delivers the service's e-mail (docs/email.md); without it
	// messages go to the log and the dashboard's Outbox. Caddyfile: smtp {…}.
	SMTP *SMTPConfig `json:"smtp,omitempty"`
	// FilesGrace is how old a stored file no row names must be before
	// a sweep removes it (an upload whose write has not committed yet is
	// younger); at least 1 s. Default 1 h. Caddyfile: files_grace.
	FilesGrace caddy.Duration `json:"files_grace,omitempty"`
	// WebhookAllowPrivate lets webhooks reach loopback, private,
	// link-local and metadata addresses, refused by default
	// (docs/webhooks.md). Caddyfile: webhook_allow_private on|off.
	WebhookAllowPrivate *bool `json:"webhook_allow_private,omitempty"`
	// DataServers are PostgreSQL servers that hold managed projects'
	// tables (docs/deployment.md, "Data servers"): once any is set, each
	// new project is placed on the one with the fewest projects, and the
	// control schema stays on DatabaseURL. Caddyfile: one
	// data_server <name> { url ...; replica_url ... } block each.
	DataServers []DataServerConfig `json:"data_servers,omitempty"`

	svc     *service.Service
	poolKey string
	ctx     caddy.Context
	// edge is the purger of this config's edge cache, if it has one.
	edge edgecache.Purger
	// edgeStores are the stores of this config's tablesmith_cache
	// handlers, which add themselves as they are provisioned.
	edgeStores edgecache.Fanout
	// unwatch ends watchExit when this config stops for a reload.
	unwatch chan struct{}
}

// DataServerConfig is one data server.
type DataServerConfig struct {
	// Name identifies the server in the control schema's placements and
	// in move-project; letters, digits, '-' and '_'. "default" is
	// database_url's.
	Name string `json:"name"`
	// URL is the server's PostgreSQL URL. Caddyfile: url.
	URL string `json:"url"`
	// ReplicaURLs are streaming replicas of URL for its projects' reads.
	// Caddyfile: replica_url, once per replica.
	ReplicaURLs []string `json:"replica_urls,omitempty"`
}

// StorageConfig is an S3-compatible store of file columns' files.
// Values may be placeholders ({env.TABLESMITH_S3_SECRET}).
type StorageConfig struct {
	// Kind is "s3".
	Kind      string `json:"kind"`
	Endpoint  string `json:"endpoint"`
	Bucket    string `json:"bucket"`
	Region    string `json:"region,omitempty"`
	AccessKey string `json:"access_key,omitempty"`
	SecretKey string `json:"secret_key,omitempty"`
	PathStyle bool   `json:"path_style,omitempty"`
}

// SMTPConfig is the mail server of the service's e-mail. Values may be
// placeholders ({env.SMTP_PASSWORD}).
type SMTPConfig struct {
	Host     string `json:"host"`
	Port     int    `json:"port,omitempty"`
	User     string `json:"user,omitempty"`
	Password string `json:"password,omitempty"`
	From     string `json:"from"`
	// TLS is starttls (default), tls or none.
	TLS string `json:"tls,omitempty"`
}

// PlanConfig is one plan's limits; -1 means unlimited. Validate holds
// each to the bounds the Caddyfile's syntax describes.
type PlanConfig struct {
	// RatePerHour is the generated-API requests a project of the plan may
	// make per hour; -1 is unlimited. Caddyfile: rate (<n>/hour,
	// <n>/minute or unlimited).
	RatePerHour int64 `json:"rate_per_hour"`
	// Projects is how many projects an account of the plan may own; -1 is
	// unlimited. Caddyfile: projects (<n> or unlimited).
	Projects int `json:"projects"`
	// StatementTimeout bounds one data statement of the plan's projects;
	// 0: the built-in plan's of the same name, else 30 s.
	// Caddyfile: statement_timeout.
	StatementTimeout caddy.Duration `json:"statement_timeout,omitempty"`
	// RealtimeStreams caps a project's concurrent realtime streams per
	// node; -1 is unlimited, 0 no streams; unset: the built-in plan's of
	// the same name, else 5. Caddyfile: realtime_streams.
	RealtimeStreams *int `json:"realtime_streams,omitempty"`
	// LogRetention is how long the request log keeps the plan's projects'
	// requests, at least 1 h; 0: the built-in plan's of the same name,
	// else 24 h. Caddyfile: log_retention.
	LogRetention caddy.Duration `json:"log_retention,omitempty"`
	// Webhooks caps a project's webhooks and WebhookDeliveries their
	// delivery attempts an hour; -1 is unlimited; unset: the built-in
	// plan's of the same name, else 2 and 1,000. Caddyfile: webhooks,
	// webhook_deliveries (<n>/hour).
	Webhooks          *int `json:"webhooks,omitempty"`
	WebhookDeliveries *int `json:"webhook_deliveries,omitempty"`
	// FileStorage bounds the bytes of a project's stored files and
	// MaxFileSize one file; -1 is unlimited; unset: the built-in plan's
	// of the same name, else 100 MiB and 10 MiB. Caddyfile: file_storage,
	// max_file_size (a size, or unlimited).
	FileStorage *int64 `json:"file_storage,omitempty"`
	MaxFileSize *int64 `json:"max_file_size,omitempty"`
}

// CaddyModule returns the module information.
func (*App) CaddyModule() caddy.ModuleInfo {
	return caddy.ModuleInfo{ID: "tablesmith", New: func() caddy.Module { return new(App) }}
}

// runtimes holds one service per database, shared across config reloads:
// a reload provisions the new config before the old one is cleaned up, so
// the pool is reused instead of reopened.
var runtimes = caddy.NewUsagePool()

type pooled struct{ svc *service.Service }

// Destruct closes the service once no config uses it. On a reload that
// replaced it, the old server still finishes its requests, which Close
// waits for; when the process exits the http app has already waited its
// grace_period, and nothing more is waited for.
func (p pooled) Destruct() error {
	if caddy.Exiting() {
		return p.svc.CloseAfter(0)
	}
	return p.svc.Close()
}

// Provision resolves placeholders and attaches to the shared service. It
// does no network I/O, so `caddy validate` works without a database.
func (a *App) Provision(ctx caddy.Context) error {
	a.ctx = ctx
	if err := a.Validate(); err != nil {
		return fmt.Errorf("invalid configuration: %w", err)
	}
	repl := caddy.NewReplacer()
	a.DatabaseURL = repl.ReplaceKnown(a.DatabaseURL, "")
	a.RedisURL = repl.ReplaceKnown(a.RedisURL, "")
	a.Secret = repl.ReplaceKnown(a.Secret, "")
	a.DefaultPlan = repl.ReplaceKnown(a.DefaultPlan, "")
	for i, u := range a.ReplicaURLs {
		a.ReplicaURLs[i] = repl.ReplaceKnown(u, "")
		if a.ReplicaURLs[i] == "" {
			return fmt.Errorf("tablesmith: replica_url %d is empty (an unset environment variable?)", i+1)
		}
	}
	for i, u := range a.PurgeURLs {
		a.PurgeURLs[i] = repl.ReplaceKnown(u, "")
		if a.PurgeURLs[i] == "" {
			return fmt.Errorf("tablesmith: purge_url %d is empty (an unset environment variable?)", i+1)
		}
		if pu, err := url.Parse(a.PurgeURLs[i]); err != nil || (pu.Scheme != "http" && pu.Scheme != "https") || pu.Host == "" {
			return fmt.Errorf("tablesmith: purge_url %q is not an http or https URL", a.PurgeURLs[i])
		}
	}
	var s3 *files.S3Config
	if st := a.Storage; st != nil {
		s3 = &files.S3Config{Endpoint: repl.ReplaceKnown(st.Endpoint, ""), Bucket: repl.ReplaceKnown(st.Bucket, ""),
			Region: repl.ReplaceKnown(st.Region, ""), AccessKey: repl.ReplaceKnown(st.AccessKey, ""),
			SecretKey: repl.ReplaceKnown(st.SecretKey, ""), PathStyle: st.PathStyle}
		if s3.Endpoint == "" || s3.Bucket == "" {
			return fmt.Errorf("tablesmith: storage s3 needs an endpoint and a bucket")
		}
	}
	var smtp *mail.SMTPConfig
	if c := a.SMTP; c != nil {
		smtp = &mail.SMTPConfig{Host: repl.ReplaceKnown(c.Host, ""), Port: c.Port, Username: repl.ReplaceKnown(c.User, ""),
			Password: repl.ReplaceKnown(c.Password, ""), From: repl.ReplaceKnown(c.From, ""), TLS: c.TLS}
		if err := smtp.Check(); err != nil {
			return fmt.Errorf("tablesmith: %w", err)
		}
	}
	a.FilesDir = repl.ReplaceKnown(a.FilesDir, "")
	if a.FilesDir == "" {
		a.FilesDir = filepath.Join(caddy.AppDataDir(), "tablesmith", "files")
	}
	servers, serversKey, err := a.dataServers(repl)
	if err != nil {
		return err
	}
	if a.DefaultPlan == "" {
		a.DefaultPlan = "free"
	}
	if a.DatabaseURL == "" {
		return fmt.Errorf("tablesmith: database_url is empty (set TABLESMITH_DATABASE_URL or database_url in the Caddyfile)")
	}
	set := a.planSet()
	if _, ok := set[a.DefaultPlan]; !ok {
		return fmt.Errorf("tablesmith: default_plan %q is not a defined plan", a.DefaultPlan)
	}
	a.poolKey = a.DatabaseURL + "\x00" + a.RedisURL + "\x00" + time.Duration(a.RequestTimeout).String() + "\x00" + time.Duration(a.ExportTimeout).String() +
		"\x00" + time.Duration(a.RealtimeRetention).String() +
		"\x00" + strings.Join(a.ReplicaURLs, "\x00") + "\x00" + time.Duration(a.MaxReplicaLag).String() + "\x00" + serversKey +
		"\x00" + strconv.FormatBool(a.requestLogOn()) + "\x00" + strconv.FormatBool(a.webhookAllowPrivate()) +
		"\x00" + strings.Join(a.PurgeURLs, "\x00") + "\x00" + a.FilesDir + "\x00" + strconv.FormatInt(a.MaxFileSize, 10) + "\x00" + time.Duration(a.FilesGrace).String() + "\x00" + fmt.Sprint(s3) + "\x00" + fmt.Sprint(smtp)
	logger := ctx.Slogger()
	val, _, err := runtimes.LoadOrNew(a.poolKey, func() (caddy.Destructor, error) {
		svc, err := service.New(service.Config{
			DatabaseURL: a.DatabaseURL, RedisURL: a.RedisURL, Secret: a.Secret,
			DefaultPlan: a.DefaultPlan, Plans: set, MaxBody: a.MaxBody, MaxBulkRows: a.MaxBulkRows, MaxPageSize: a.MaxPageSize, MaxOpenConns: a.MaxConnections,
			PreparedStatements: a.PreparedStatements, RequestTimeout: time.Duration(a.RequestTimeout), ExportTimeout: time.Duration(a.ExportTimeout),
			RealtimeRetention: time.Duration(a.RealtimeRetention),
			Logger:            logger, WithoutMetering: withoutMetering(), WithoutRequestLog: !a.requestLogOn(),
			WebhookAllowPrivate: a.webhookAllowPrivate(),
			ProjectConcurrency:  a.ProjectConcurrency, ProjectQueueWait: time.Duration(a.ProjectQueueWait),
			ReplicaURLs: a.ReplicaURLs, MaxReplicaLag: time.Duration(a.MaxReplicaLag),
			DataServers: servers, PurgeURLs: a.PurgeURLs, FilesDir: a.FilesDir, MaxFileSize: a.MaxFileSize, FilesGrace: time.Duration(a.FilesGrace), FilesS3: s3,
			SMTP: smtp,
		})
		if err != nil {
			return nil, err
		}
		return pooled{svc}, nil
	})
	if err != nil {
		a.poolKey = ""
		return fmt.Errorf("tablesmith: %w", err)
	}
	a.svc = val.(pooled).svc
	// A reload may change plans or the secret: apply them to the shared
	// service that outlives this config.
	if err := a.svc.Configure(service.Settings{DefaultPlan: a.DefaultPlan, Plans: set, Secret: a.Secret}); err != nil {
		return fmt.Errorf("tablesmith: %w", err)
	}
	if err := registerMetrics(ctx, a.svc); err != nil {
		return fmt.Errorf("tablesmith: metrics: %w", err)
	}
	return nil
}

// webhookAllowPrivate reports whether webhook_allow_private is on (off
// by default).
func (a *App) webhookAllowPrivate() bool {
	return a.WebhookAllowPrivate != nil && *a.WebhookAllowPrivate
}

// requestLogOn reports whether request_log is on (the default).
func (a *App) requestLogOn() bool { return a.RequestLog == nil || *a.RequestLog }

func (a *App) planSet() plans.Set {
	set := plans.Defaults()
	for name, p := range a.Plans {
		timeout := time.Duration(p.StatementTimeout)
		if timeout <= 0 {
			timeout = plans.DefaultStatementTimeout
			if builtin, ok := set[name]; ok {
				timeout = builtin.StatementTimeout
			}
		}
		streams := plans.DefaultRealtimeStreams
		if builtin, ok := set[name]; ok {
			streams = builtin.RealtimeStreams
		}
		if p.RealtimeStreams != nil {
			streams = *p.RealtimeStreams
		}
		keepLog := time.Duration(p.LogRetention)
		if keepLog <= 0 {
			keepLog = plans.DefaultLogRetention
			if builtin, ok := set[name]; ok {
				keepLog = builtin.LogRetention
			}
		}
		hooks, deliveries := plans.DefaultWebhooks, plans.DefaultWebhookDeliveries
		if builtin, ok := set[name]; ok {
			hooks, deliveries = builtin.Webhooks, builtin.WebhookDeliveries
		}
		if p.Webhooks != nil {
			hooks = *p.Webhooks
		}
		if p.WebhookDeliveries != nil {
			deliveries = *p.WebhookDeliveries
		}
		storage, maxFile := int64(plans.DefaultFileStorage), int64(plans.DefaultMaxFileSize)
		if builtin, ok := set[name]; ok {
			storage, maxFile = builtin.FileStorage, builtin.MaxFileSize
		}
		if p.FileStorage != nil {
			storage = *p.FileStorage
		}
		if p.MaxFileSize != nil {
			maxFile = *p.MaxFileSize
		}
		set[name] = plans.Plan{Name: name, RatePerHour: p.RatePerHour, Projects: p.Projects, StatementTimeout: timeout,
			RealtimeStreams: streams, LogRetention: keepLog, Webhooks: hooks, WebhookDeliveries: deliveries,
			FileStorage: storage, MaxFileSize: maxFile}
	}
	return set
}

// Start connects, migrates and starts background work (once per service,
// however many configs share it).
func (a *App) Start() error {
	ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
	defer cancel()
	if err := a.svc.Start(ctx); err != nil {
		return fmt.Errorf("tablesmith: %w", err)
	}
	// Every app of the config is provisioned before any starts, so the
	// cache handlers have set up their storage by now.
	edge, err := findEdgeCache(a.ctx)
	if err != nil {
		return fmt.Errorf("tablesmith: edge cache: %w", err)
	}
	if len(a.edgeStores) > 0 {
		if edge != nil {
			a.edgeStores = append(a.edgeStores, edge)
		}
		edge = &a.edgeStores
	}
	if edge != nil {
		a.edge = edge
		a.svc.EdgeCache.Set(edge)
		a.ctx.Logger().Info("purging the edge cache on writes and publishes")
	}
	a.unwatch = make(chan struct{})
	go watchExit(a.svc, a.unwatch)
	return nil
}

// exitPoll is how often watchExit looks at caddy.Exiting.
const exitPoll = 50 * time.Millisecond

// drainBound bounds Drain: the webhook deliveries in flight (10 s each at
// most) and the notice to the other nodes.
const drainBound = 15 * time.Second

// watchExit drains the service as soon as the process begins to exit
// (SIGTERM, SIGINT, `caddy stop`), before the http app's shutdown_delay
// and grace period, which is when a load balancer must learn the node is
// leaving. Caddy stops its apps in no fixed order and says it is exiting
// only through caddy.Exiting, so it is polled; a reload, which keeps the
// listeners and loses no request, only ends the watch.
func watchExit(svc *service.Service, unwatch <-chan struct{}) {
	t := time.NewTicker(exitPoll)
	defer t.Stop()
	for {
		select {
		case <-unwatch:
			return
		case <-t.C:
			if caddy.Exiting() {
				ctx, cancel := context.WithTimeout(context.Background(), drainBound)
				svc.Drain(ctx)
				cancel()
				return
			}
		}
	}
}

// Stop destroys nothing: apps stop in random order and the http app may
// still be draining requests that need the pool. Cleanup releases it.
// It lets go of this config's edge cache, unless a reload already put
// the new config's in its place.
func (a *App) Stop() error {
	// Exiting, the watch goes on until it has drained the service.
	if a.unwatch != nil && !caddy.Exiting() {
		close(a.unwatch)
	}
	if a.edge != nil {
		a.svc.EdgeCache.Clear(a.edge)
	}
	return nil
}

// Cleanup releases this config's reference to the shared service; the
// last reference closes it.
func (a *App) Cleanup() error {
	if a.poolKey != "" {
		_, err := runtimes.Delete(a.poolKey)
		a.poolKey = ""
		return err
	}
	return nil
}

// Service returns the running service (for handlers).
func (a *App) Service() *service.Service { return a.svc }

// Interface guards.
var (
	_ caddy.App          = (*App)(nil)
	_ caddy.Provisioner  = (*App)(nil)
	_ caddy.Validator    = (*App)(nil)
	_ caddy.CleanerUpper = (*App)(nil)
)

// dataServers resolves the data servers' placeholders and checks that
// each resolves to a URL (Validate checks their names); key identifies
// them in the shared service's key.
func (a *App) dataServers(repl *caddy.Replacer) ([]service.DataServer, string, error) {
	var out []service.DataServer
	var key strings.Builder
	for _, ds := range a.DataServers {
		s := service.DataServer{Name: ds.Name, URL: repl.ReplaceKnown(ds.URL, "")}
		if s.URL == "" {
			return nil, "", fmt.Errorf("tablesmith: data_server %s: url is empty (an unset environment variable?)", ds.Name)
		}
		for i, u := range ds.ReplicaURLs {
			u = repl.ReplaceKnown(u, "")
			if u == "" {
				return nil, "", fmt.Errorf("tablesmith: data_server %s: replica_url %d is empty (an unset environment variable?)", ds.Name, i+1)
			}
			s.ReplicaURLs = append(s.ReplicaURLs, u)
		}
		out = append(out, s)
		fmt.Fprintf(&key, "%s\x01%s\x01%s\x02", s.Name, s.URL, strings.Join(s.ReplicaURLs, "\x01"))
	}
	return out, key.String(), nil
}

// addEdgeStore makes a tablesmith_cache handler's store one that this
// config purges.
func (a *App) addEdgeStore(s *edgecache.Store) { a.edgeStores = append(a.edgeStores, s) }
