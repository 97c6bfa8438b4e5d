package caddymodule

import (
	"fmt"
	"slices"
	"strconv"
	"strings"

	"github.com/caddyserver/caddy/v2"
	"github.com/caddyserver/caddy/v2/caddyconfig"
	"github.com/caddyserver/caddy/v2/caddyconfig/caddyfile"
	"github.com/caddyserver/caddy/v2/caddyconfig/httpcaddyfile"
	"github.com/dustin/go-humanize"

	"github.com/tablesmith/tablesmith/internal/plans"
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
//	    request_timeout <duration>          # each request's deadline, both APIs, at least 100ms (10s)
//	    request_log on|off                  # the request log behind the dashboard's Logs page (on)
//	    webhook_allow_private on|off        # webhooks may reach loopback, private and link-local addresses (off)
//	    export_timeout  <duration>          # bound of one CSV/NDJSON export, at least 1s, instead of the above (5m)
//	    realtime_retention <duration>       # how long changes stay resumable by realtime streams, at least 1m (15m)
//	    replica_url     <postgres URL>      # optional, repeatable; a streaming replica that serves reads
//	    max_replica_lag <duration>          # how stale a replica may be for other clients' reads, at least 100ms (1s)
//	    files_dir       <path>              # where file columns' files are kept ({data dir}/tablesmith/files)
//	    max_file_size   <size>              # one uploaded file at most, whatever its column allows (50MiB)
//	    files_grace     <duration>          # age at which a stored file no row names is swept, at least 1s (1h)
//	    storage s3 {                        # optional; file columns' files in an S3-compatible store instead of files_dir
//	        endpoint    <URL>               # http(s)://host[:port] of the store
//	        bucket      <name>              # must exist
//	        region      <name>              # optional
//	        access_key  <key>               # use {env.…}
//	        secret_key  <secret>            # use {env.…}
//	        path_style  on|off              # bucket in the path (most self-hosted stores) or the host name (off)
//	    }
//	    smtp {                              # optional; without it e-mail goes to the log and the dashboard's Outbox
//	        host      <name>                # the mail server
//	        port      <n>                   # optional (587 with starttls, 465 with tls, 25 with none)
//	        user      <name>                # optional; use {env.…}
//	        password  <secret>              # optional, with user; use {env.…}
//	        from      <address>             # "Name <no-reply@example.com>" or an address
//	        tls       starttls|tls|none     # optional (starttls: required upgrade; none only for a relay on this host)
//	    }
//	    data_server <name> {                # optional, repeatable; a server for new projects' tables
//	        url         <postgres URL>
//	        replica_url <postgres URL>      # optional, repeatable
//	    }
//	    plan <name> {
//	        rate     <n>/hour | <n>/minute | unlimited  # generated-API requests per project
//	        projects <n> | unlimited        # projects per account
//	        statement_timeout <duration>    # optional; run time of one data statement (free 5s, pro 15s, else 30s)
//	        realtime_streams <n> | unlimited # optional; concurrent realtime streams per project and node (free 5, pro 1000, else 5)
//	        log_retention <duration>        # optional; how long the request log keeps requests, at least 1h (free 24h, pro 168h, unlimited 720h, else 24h)
//	        webhooks <n> | unlimited        # optional; webhooks per project (free 2, pro 20, else 2)
//	        webhook_deliveries <n>/hour | <n>/minute | unlimited # optional; webhook delivery attempts per project (free 1000/hour, pro 100000/hour, else 1000/hour)
//	        file_storage <size> | unlimited # optional; bytes of a project's stored files (free 100MiB, pro 10GiB, else 100MiB)
//	        max_file_size <size> | unlimited # optional; one uploaded file (free 10MiB, pro 1GiB, else 10MiB)
//	    }
//	}
//
// Durations are Caddy's: 500ms, 10s, 15m, 2h, 1d. Parsing keeps to the
// syntax (how many arguments, and that each is a number, a size, a
// duration or one of the words an option takes) and reports it with the
// line; the bounds of every value (ranges and minimums) are checked by
// Validate, so that a JSON config meets the same checks with the same
// messages. A zero is refused here: in the JSON config zero means "the
// default", so the Caddyfile would otherwise silently mean the default.
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
		var err error
		switch key {
		case "plan":
			err = a.unmarshalPlan(d)
		case "data_server":
			err = a.unmarshalDataServer(d)
		case "storage":
			err = a.unmarshalStorage(d)
		case "smtp":
			err = a.unmarshalSMTP(d)
		default:
			opt, ok := optionNamed(key)
			if !ok {
				return d.Errf("unknown tablesmith option %q (known: %s, data_server, storage, smtp, plan)", key, strings.Join(optionNames(), ", "))
			}
			err = opt.parse(d, a)
		}
		if err != nil {
			return err
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
	err := blockOptions(d, "data_server "+name, []string{"url", "replica_url"}, func(key, v string) error {
		if key == "url" {
			ds.URL = v
		} else {
			ds.ReplicaURLs = append(ds.ReplicaURLs, v)
		}
		return nil
	})
	if err != nil {
		return err
	}
	a.DataServers = append(a.DataServers, ds)
	return nil
}

// unmarshalStorage reads storage s3 { endpoint … bucket … region …
// access_key … secret_key … path_style on|off }: file columns' files in
// an S3-compatible store instead of files_dir.
func (a *App) unmarshalStorage(d *caddyfile.Dispenser) error {
	var kind string
	if !d.AllArgs(&kind) || kind != "s3" {
		return d.Errf("storage takes the kind s3 and a block: storage s3 { endpoint ... bucket ... }")
	}
	if a.Storage != nil {
		return d.Errf("storage is given twice")
	}
	st := &StorageConfig{Kind: kind}
	known := []string{"endpoint", "bucket", "region", "access_key", "secret_key", "path_style"}
	err := blockOptions(d, "storage s3", known, func(key, v string) error {
		switch key {
		case "endpoint":
			st.Endpoint = v
		case "bucket":
			st.Bucket = v
		case "region":
			st.Region = v
		case "access_key":
			st.AccessKey = v
		case "secret_key":
			st.SecretKey = v
		case "path_style":
			if v != "on" && v != "off" {
				return fmt.Errorf("path_style takes on or off, not %q", v)
			}
			st.PathStyle = v == "on"
		}
		return nil
	})
	if err != nil {
		return err
	}
	a.Storage = st
	return nil
}

// unmarshalSMTP reads smtp { host … port … user … password … from …
// tls … }: the server that delivers the service's e-mail.
func (a *App) unmarshalSMTP(d *caddyfile.Dispenser) error {
	if d.NextArg() {
		return d.Errf("smtp takes a block, not arguments: smtp { host ... from ... }")
	}
	if a.SMTP != nil {
		return d.Errf("smtp is given twice")
	}
	c := &SMTPConfig{}
	known := []string{"host", "port", "user", "password", "from", "tls"}
	err := blockOptions(d, "smtp", known, func(key, v string) error {
		switch key {
		case "host":
			c.Host = v
		case "port":
			n, err := strconv.Atoi(v)
			if err != nil || n < 1 || n > 65535 {
				return fmt.Errorf("port must be a number from 1 to 65535, not %q", v)
			}
			c.Port = n
		case "user":
			c.User = v
		case "password":
			c.Password = v
		case "from":
			c.From = v
		case "tls":
			if v != "starttls" && v != "tls" && v != "none" {
				return fmt.Errorf("tls takes starttls, tls or none, not %q", v)
			}
			c.TLS = v
		}
		return nil
	})
	if err != nil {
		return err
	}
	a.SMTP = c
	return nil
}

// blockOptions reads a block of `key value` lines, exactly one value each,
// and hands each to set; what names the block in errors ("smtp"), known
// lists the keys it takes, for the error on any other.
func blockOptions(d *caddyfile.Dispenser, what string, known []string, set func(key, v string) error) error {
	for nesting := d.Nesting(); d.NextBlock(nesting); {
		key := d.Val()
		var v string
		if !d.AllArgs(&v) {
			return d.Errf("%s: %s takes exactly one value", what, key)
		}
		if !slices.Contains(known, key) {
			return d.Errf("%s: unknown option %q (known: %s)", what, key, strings.Join(known, ", "))
		}
		if err := set(key, v); err != nil {
			return d.Errf("%s: %v", what, err)
		}
	}
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
		var err error
		switch key {
		case "rate":
			p.RatePerHour, err = rateArg(d, "plan "+name+": rate")
			sawRate = true
		case "projects":
			var n int64
			n, err = countOrUnlimitedArg(d, "plan "+name+": projects")
			p.Projects, sawProjects = int(n), true
		case "statement_timeout":
			p.StatementTimeout, err = durationArg(d, "plan "+name+": statement_timeout")
		case "realtime_streams":
			var n int64
			n, err = countOrUnlimitedArg(d, "plan "+name+": realtime_streams")
			streams := int(n)
			p.RealtimeStreams = &streams
		case "log_retention":
			p.LogRetention, err = durationArg(d, "plan "+name+": log_retention")
		case "webhooks":
			var n int64
			n, err = countOrUnlimitedArg(d, "plan "+name+": webhooks")
			hooks := int(n)
			p.Webhooks = &hooks
		case "webhook_deliveries":
			var n int64
			n, err = rateArg(d, "plan "+name+": webhook_deliveries")
			deliveries := int(n)
			p.WebhookDeliveries = &deliveries
		case "file_storage":
			var n int64
			n, err = sizeOrUnlimitedArg(d, "plan "+name+": file_storage")
			p.FileStorage = &n
		case "max_file_size":
			var n int64
			n, err = sizeOrUnlimitedArg(d, "plan "+name+": max_file_size")
			p.MaxFileSize = &n
		default:
			return d.Errf("plan %s: unknown option %q (known: rate, projects, statement_timeout, realtime_streams, log_retention, webhooks, webhook_deliveries, file_storage, max_file_size)", name, key)
		}
		if err != nil {
			return err
		}
	}
	if !sawRate || !sawProjects {
		return d.Errf("plan %s needs both rate and projects", name)
	}
	a.Plans[name] = p
	return nil
}

// The argument helpers read the one argument of the option on the
// current line. what names it in messages ("max_body", "plan free: rate");
// they return d.Errf errors, which carry the file and line.

// oneArg reads the option's one argument; kind says what it is, for the
// message ("value", "size, e.g. 1MiB").
func oneArg(d *caddyfile.Dispenser, what, kind string) (string, error) {
	var v string
	if !d.AllArgs(&v) {
		return "", d.Errf("%s takes exactly one %s", what, kind)
	}
	return v, nil
}

// sizeArg reads a size such as 512KB or 1MiB.
func sizeArg(d *caddyfile.Dispenser, what string) (int64, error) {
	v, err := oneArg(d, what, "size, e.g. 1MiB")
	if err != nil {
		return 0, err
	}
	n, err := humanize.ParseBytes(v)
	if err != nil || n > 1<<62 {
		return 0, d.Errf("%s: %q is not a size (e.g. 512KB, 1MiB)", what, v)
	}
	if n == 0 {
		return 0, zeroErr(d, what)
	}
	return int64(n), nil
}

// sizeOrUnlimitedArg reads a size such as 100MiB, or unlimited (-1).
func sizeOrUnlimitedArg(d *caddyfile.Dispenser, what string) (int64, error) {
	v, err := oneArg(d, what, "size, e.g. 100MiB, or unlimited")
	if err != nil {
		return 0, err
	}
	if v == "unlimited" {
		return plans.Unlimited, nil
	}
	n, err := humanize.ParseBytes(v)
	if err != nil || n > 1<<62 {
		return 0, d.Errf("%s: %q is not a size (e.g. 100MiB) or unlimited", what, v)
	}
	if n == 0 {
		return 0, zeroErr(d, what)
	}
	return int64(n), nil
}

// intArg reads a whole number; its bounds are Validate's.
func intArg(d *caddyfile.Dispenser, what string) (int, error) {
	v, err := oneArg(d, what, "number")
	if err != nil {
		return 0, err
	}
	n, err := strconv.Atoi(v)
	if err != nil {
		return 0, d.Errf("%s: %q is not a whole number", what, v)
	}
	if n == 0 {
		return 0, zeroErr(d, what)
	}
	return n, nil
}

// countOrOffArg reads a whole number or off (kept as -1).
func countOrOffArg(d *caddyfile.Dispenser, what string) (int, error) {
	v, err := oneArg(d, what, "number, or off")
	if err != nil {
		return 0, err
	}
	if v == "off" {
		return -1, nil
	}
	n, err := strconv.Atoi(v)
	if err != nil {
		return 0, d.Errf("%s: %q is not a whole number or off", what, v)
	}
	if n == 0 {
		return 0, zeroErr(d, what)
	}
	return n, nil
}

// countOrUnlimitedArg reads a whole number or unlimited (kept as -1);
// zero is a count like any other here.
func countOrUnlimitedArg(d *caddyfile.Dispenser, what string) (int64, error) {
	v, err := oneArg(d, what, "number, or unlimited")
	if err != nil {
		return 0, err
	}
	if v == "unlimited" {
		return -1, nil
	}
	n, err := strconv.ParseInt(v, 10, 64)
	if err != nil {
		return 0, d.Errf("%s: %q is not a whole number or unlimited", what, v)
	}
	return n, nil
}

// durationArg reads a duration in Caddy's form (1d included); its
// minimum is Validate's.
func durationArg(d *caddyfile.Dispenser, what string) (caddy.Duration, error) {
	v, err := oneArg(d, what, "duration, e.g. 10s")
	if err != nil {
		return 0, err
	}
	dur, err := caddy.ParseDuration(v)
	if err != nil {
		return 0, d.Errf("%s: %q is not a duration (e.g. 500ms, 10s, 5m)", what, v)
	}
	if dur == 0 {
		return 0, zeroErr(d, what)
	}
	return caddy.Duration(dur), nil
}

// rateArg reads "<n>/hour" ("<n>/h", ulule's "<n>-H"), "<n>/minute"
// ("<n>/m", "<n>-M", kept as 60n per hour) or "unlimited" (-1).
func rateArg(d *caddyfile.Dispenser, what string) (int64, error) {
	v, err := oneArg(d, what, "rate, e.g. 100/hour")
	if err != nil {
		return 0, err
	}
	if v == "unlimited" {
		return -1, nil
	}
	num, unit, ok := strings.Cut(strings.ReplaceAll(v, "-", "/"), "/")
	if !ok {
		return 0, d.Errf("%s: %q is not a rate: write <n>/hour, <n>/minute or unlimited", what, v)
	}
	n, err := strconv.ParseInt(num, 10, 64)
	if err != nil {
		return 0, d.Errf("%s: %q is not a rate: the count must be a whole number", what, v)
	}
	switch strings.ToLower(unit) {
	case "h", "hour":
		return n, nil
	case "m", "minute":
		return n * 60, nil
	}
	return 0, d.Errf("%s: %q is not a rate: the period must be hour or minute", what, v)
}

// zeroErr refuses a zero: the JSON config leaves zero out and means the
// default by it, which the line surely did not mean.
func zeroErr(d *caddyfile.Dispenser, what string) error {
	return d.Errf("%s: 0 is not a value of this option (leave the line out for the default)", what)
}

// Interface guard.
var _ caddyfile.Unmarshaler = (*App)(nil)
