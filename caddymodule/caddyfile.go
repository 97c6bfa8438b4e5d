package caddymodule

import (
	"strconv"
	"strings"
	"time"

	"github.com/caddyserver/caddy/v2"
	"github.com/caddyserver/caddy/v2/caddyconfig"
	"github.com/caddyserver/caddy/v2/caddyconfig/caddyfile"
	"github.com/caddyserver/caddy/v2/caddyconfig/httpcaddyfile"
	"github.com/dustin/go-humanize"
	"github.com/tablesmith/tablesmith/internal/service"
	"github.com/tablesmith/tablesmith/translate"
)

func init() {
	httpcaddyfile.RegisterGlobalOption("tablesmith", parseGlobalOption)
}

// parseGlobalOption turns the global option into the tablesmith app.
func parseGlobalOption(d *caddyfile.Dispenser, _ any) (any, error) {
	app := new(App)
	if err := app.UnmarshalCaddyfile(d); err != nil {
		return nil, err
	}
	return httpcaddyfile.App{Name: "tablesmith", Value: caddyconfig.JSON(app, nil)}, nil
}

// UnmarshalCaddyfile sets up the app from Caddyfile tokens. Syntax:
//
//	tablesmith {
//	    database_url    <postgres URL>      # use {env.TABLESMITH_DATABASE_URL}
//	    redis_url       <redis URL>         # optional; shares rate limits across nodes
//	    secret          <master secret>     # optional; generated once otherwise
//	    default_plan    <plan name>         # plan of new accounts (free)
//	    max_body        <size>              # generated-API body limit (1MiB)
//	    max_bulk_rows   <n>                 # records per bulk create (1000)
//	    max_connections <n>                 # size of each PostgreSQL pool, control and data (20)
//	    max_page_size   <n>                 # largest list limit, 100..10000 (100)
//	    prepared_statements <n> | off       # prepared statements kept per data pool (64)
//	    project_concurrency <n> | off       # data statements one project runs at once per node (max_connections/4)
//	    project_queue_wait  <duration>      # wait for a project's turn before a 503 (2s)
//	    request_timeout <duration>          # each request's deadline, both APIs (10s)
//	    export_timeout  <duration>          # bound of one CSV/NDJSON export, instead of the above (5m)
//	    realtime_retention <duration>       # how long changes stay resumable by realtime streams (15m)
//	    replica_url     <postgres URL>      # optional, repeatable; a streaming replica that serves reads
//	    max_replica_lag <duration>          # how stale a replica may be for other clients' reads (1s)
//	    data_server <name> {                # optional, repeatable; a server for new projects' tables
//	        url         <postgres URL>
//	        replica_url <postgres URL>      # optional, repeatable
//	    }
//	    plan <name> {
//	        rate     <n>/hour | <n>/minute | unlimited  # generated-API requests per project
//	        projects <n> | unlimited        # projects per account
//	        statement_timeout <duration>    # optional; run time of one data statement (free 5s, pro 15s, else 30s)
//	        realtime_streams <n> | unlimited # optional; concurrent realtime streams per project and node (free 5, pro 1000, else 5)
//	    }
//	}
//
// Values may be placeholders such as {env.TABLESMITH_SECRET}: they are
// resolved when Caddy provisions the app, so secrets never appear in the
// JSON config or its autosave.
func (a *App) UnmarshalCaddyfile(d *caddyfile.Dispenser) error {
	d.Next() // the option name
	if d.NextArg() {
		return d.Errf("tablesmith takes a block, not arguments")
	}
	for d.NextBlock(0) {
		key := d.Val()
		switch key {
		case "database_url", "redis_url", "secret", "default_plan":
			var v string
			if !d.AllArgs(&v) {
				return d.Errf("%s takes exactly one value", key)
			}
			switch key {
			case "database_url":
				a.DatabaseURL = v
			case "redis_url":
				a.RedisURL = v
			case "secret":
				a.Secret = v
			case "default_plan":
				a.DefaultPlan = v
			}
		case "max_body":
			var v string
			if !d.AllArgs(&v) {
				return d.Errf("max_body takes exactly one size, e.g. 1MiB")
			}
			n, err := humanize.ParseBytes(v)
			if err != nil || n == 0 {
				return d.Errf("max_body: %q is not a size (e.g. 512KB, 1MiB)", v)
			}
			a.MaxBody = int64(n)
		case "max_bulk_rows":
			var v string
			if !d.AllArgs(&v) {
				return d.Errf("max_bulk_rows takes exactly one number")
			}
			n, err := strconv.Atoi(v)
			if err != nil || n < 1 {
				return d.Errf("max_bulk_rows: %q is not a positive number", v)
			}
			a.MaxBulkRows = n
		case "max_connections":
			var v string
			if !d.AllArgs(&v) {
				return d.Errf("max_connections takes exactly one number")
			}
			n, err := strconv.Atoi(v)
			if err != nil || n < 1 {
				return d.Errf("max_connections: %q is not a positive number", v)
			}
			a.MaxConnections = n
		case "max_page_size":
			n, err := intArg(d, key, translate.MaxLimit, service.MaxPageSizeCeiling)
			if err != nil {
				return err
			}
			a.MaxPageSize = n
		case "prepared_statements":
			var v string
			if !d.AllArgs(&v) {
				return d.Errf("prepared_statements takes exactly one number, or off")
			}
			if v == "off" {
				a.PreparedStatements = -1
				break
			}
			n, err := strconv.Atoi(v)
			if err != nil || n < 1 {
				return d.Errf("prepared_statements: %q is not a positive number or off", v)
			}
			a.PreparedStatements = n
		case "project_concurrency":
			var v string
			if !d.AllArgs(&v) {
				return d.Errf("project_concurrency takes exactly one number, or off")
			}
			if v == "off" {
				a.ProjectConcurrency = -1
				break
			}
			n, err := strconv.Atoi(v)
			if err != nil || n < 1 {
				return d.Errf("project_concurrency: %q is not a positive number or off", v)
			}
			a.ProjectConcurrency = n
		case "project_queue_wait":
			var v string
			if !d.AllArgs(&v) {
				return d.Errf("project_queue_wait takes exactly one duration, e.g. 2s")
			}
			w, err := time.ParseDuration(v)
			if err != nil || w <= 0 {
				return d.Errf("project_queue_wait: %q is not a positive duration (e.g. 500ms, 2s)", v)
			}
			a.ProjectQueueWait = caddy.Duration(w)
		case "request_timeout":
			var v string
			if !d.AllArgs(&v) {
				return d.Errf("request_timeout takes exactly one duration, e.g. 10s")
			}
			dur, err := caddy.ParseDuration(v)
			if err != nil || dur < 100*time.Millisecond {
				return d.Errf("request_timeout: %q is not a duration of at least 100ms (e.g. 10s)", v)
			}
			a.RequestTimeout = caddy.Duration(dur)
		case "export_timeout":
			var v string
			if !d.AllArgs(&v) {
				return d.Errf("export_timeout takes exactly one duration, e.g. 5m")
			}
			dur, err := caddy.ParseDuration(v)
			if err != nil || dur < time.Second {
				return d.Errf("export_timeout: %q is not a duration of at least 1s (e.g. 5m)", v)
			}
			a.ExportTimeout = caddy.Duration(dur)
		case "realtime_retention":
			var v string
			if !d.AllArgs(&v) {
				return d.Errf("realtime_retention takes exactly one duration, e.g. 15m")
			}
			dur, err := caddy.ParseDuration(v)
			if err != nil || dur < time.Minute {
				return d.Errf("realtime_retention: %q is not a duration of at least 1m (e.g. 15m)", v)
			}
			a.RealtimeRetention = caddy.Duration(dur)
		case "replica_url":
			var v string
			if !d.AllArgs(&v) {
				return d.Errf("replica_url takes exactly one URL (repeat the line for more replicas)")
			}
			a.ReplicaURLs = append(a.ReplicaURLs, v)
		case "max_replica_lag":
			var v string
			if !d.AllArgs(&v) {
				return d.Errf("max_replica_lag takes exactly one duration, e.g. 1s")
			}
			dur, err := caddy.ParseDuration(v)
			if err != nil || dur < 100*time.Millisecond {
				return d.Errf("max_replica_lag: %q is not a duration of at least 100ms (e.g. 1s)", v)
			}
			a.MaxReplicaLag = caddy.Duration(dur)
		case "plan":
			if err := a.unmarshalPlan(d); err != nil {
				return err
			}
		case "data_server":
			if err := a.unmarshalDataServer(d); err != nil {
				return err
			}
		default:
			return d.Errf("unknown tablesmith option %q (known: database_url, redis_url, secret, default_plan, max_body, max_bulk_rows, max_connections, max_page_size, prepared_statements, project_concurrency, project_queue_wait, request_timeout, export_timeout, realtime_retention, replica_url, max_replica_lag, data_server, plan)", key)
		}
	}
	return nil
}

func (a *App) unmarshalDataServer(d *caddyfile.Dispenser) error {
	var name string
	if !d.AllArgs(&name) {
		return d.Errf("data_server takes a name and a block: data_server <name> { url ... }")
	}
	ds := DataServerConfig{Name: name}
	for nesting := d.Nesting(); d.NextBlock(nesting); {
		key := d.Val()
		var v string
		if !d.AllArgs(&v) {
			return d.Errf("data_server %s: %s takes exactly one URL", name, key)
		}
		switch key {
		case "url":
			ds.URL = v
		case "replica_url":
			ds.ReplicaURLs = append(ds.ReplicaURLs, v)
		default:
			return d.Errf("data_server %s: unknown option %q (known: url, replica_url)", name, key)
		}
	}
	if ds.URL == "" {
		return d.Errf("data_server %s needs a url", name)
	}
	a.DataServers = append(a.DataServers, ds)
	return nil
}

func (a *App) unmarshalPlan(d *caddyfile.Dispenser) error {
	var name string
	if !d.AllArgs(&name) {
		return d.Errf("plan takes a name and a block: plan <name> { rate ... projects ... }")
	}
	if a.Plans == nil {
		a.Plans = map[string]PlanConfig{}
	}
	p := PlanConfig{RatePerHour: -1, Projects: -1}
	var sawRate, sawProjects bool
	for nesting := d.Nesting(); d.NextBlock(nesting); {
		key := d.Val()
		var v string
		if !d.AllArgs(&v) {
			return d.Errf("plan %s: %s takes exactly one value", name, key)
		}
		switch key {
		case "rate":
			n, err := parseRate(v)
			if err != nil {
				return d.Errf("plan %s: rate %q: %v", name, v, err)
			}
			p.RatePerHour, sawRate = n, true
		case "projects":
			n, err := parseCount(v)
			if err != nil {
				return d.Errf("plan %s: projects %q: %v", name, v, err)
			}
			p.Projects, sawProjects = int(n), true
		case "statement_timeout":
			t, err := time.ParseDuration(v)
			if err != nil || t <= 0 {
				return d.Errf("plan %s: statement_timeout %q is not a positive duration (e.g. 5s)", name, v)
			}
			p.StatementTimeout = caddy.Duration(t)
		case "realtime_streams":
			n, err := parseCount(v)
			if err != nil {
				return d.Errf("plan %s: realtime_streams %q: %v", name, v, err)
			}
			streams := int(n)
			p.RealtimeStreams = &streams
		default:
			return d.Errf("plan %s: unknown option %q (known: rate, projects, statement_timeout, realtime_streams)", name, key)
		}
	}
	if !sawRate || !sawProjects {
		return d.Errf("plan %s needs both rate and projects", name)
	}
	a.Plans[name] = p
	return nil
}

type parseError string

func (e parseError) Error() string { return string(e) }

// parseRate reads "<n>/hour" ("<n>/h", ulule's "<n>-H"), "<n>/minute"
// ("<n>/m", "<n>-M", kept as 60n per hour) or "unlimited".
func parseRate(v string) (int64, error) {
	if v == "unlimited" {
		return -1, nil
	}
	num, unit, ok := strings.Cut(strings.ReplaceAll(v, "-", "/"), "/")
	if !ok {
		return 0, parseError("write <n>/hour or unlimited")
	}
	n, err := strconv.ParseInt(num, 10, 64)
	if err != nil || n < 1 {
		return 0, parseError("the count must be a positive number")
	}
	switch strings.ToLower(unit) {
	case "h", "hour":
		return n, nil
	case "m", "minute":
		return n * 60, nil
	}
	return 0, parseError("the period must be hour or minute")
}

func parseCount(v string) (int64, error) {
	if v == "unlimited" {
		return -1, nil
	}
	n, err := strconv.ParseInt(v, 10, 64)
	if err != nil || n < 0 {
		return 0, parseError("must be a number or unlimited")
	}
	return n, nil
}

// Interface guard.
var _ caddyfile.Unmarshaler = (*App)(nil)

// intArg reads the one whole-number argument of key, from lo to hi.
func intArg(d *caddyfile.Dispenser, key string, lo, hi int) (int, error) {
	var v string
	if !d.AllArgs(&v) {
		return 0, d.Errf("%s takes exactly one number", key)
	}
	n, err := strconv.Atoi(v)
	if err != nil || n < lo || n > hi {
		return 0, d.Errf("%s: %q is not a number from %d to %d", key, v, lo, hi)
	}
	return n, nil
}
