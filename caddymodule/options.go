package caddymodule

import (
	"errors"
	"fmt"
	"maps"
	"slices"
	"strings"
	"time"

	"github.com/caddyserver/caddy/v2"
	"github.com/caddyserver/caddy/v2/caddyconfig/caddyfile"

	"github.com/tablesmith/tablesmith/internal/plans"
	"github.com/tablesmith/tablesmith/internal/service"
	"github.com/tablesmith/tablesmith/internal/store"
	"github.com/tablesmith/tablesmith/translate"
)

// option is one single-line subdirective of the tablesmith block: how
// the Caddyfile reads its arguments (syntax only) and the bounds its value
// must keep, which Validate checks whether the value came from a
// Caddyfile or from JSON. plan and data_server are blocks of their own.
type option struct {
	name  string
	parse func(d *caddyfile.Dispenser, a *App) error
	// check returns the bound the value breaks, or nil; nil for an
	// option without bounds.
	check func(a *App) error
}

// options are the single-line subdirectives, in the order the syntax
// lists them.
var options = []option{
	text("database_url", func(a *App) *string { return &a.DatabaseURL }),
	text("redis_url", func(a *App) *string { return &a.RedisURL }),
	text("secret", func(a *App) *string { return &a.Secret }),
	text("default_plan", func(a *App) *string { return &a.DefaultPlan }),
	size("max_body", func(a *App) *int64 { return &a.MaxBody }),
	count("max_bulk_rows", func(a *App) *int { return &a.MaxBulkRows }, 1, 0),
	count("max_connections", func(a *App) *int { return &a.MaxConnections }, 1, 0),
	count("max_page_size", func(a *App) *int { return &a.MaxPageSize }, translate.MaxLimit, service.MaxPageSizeCeiling),
	countOrOff("prepared_statements", func(a *App) *int { return &a.PreparedStatements }),
	countOrOff("project_concurrency", func(a *App) *int { return &a.ProjectConcurrency }),
	duration("project_queue_wait", func(a *App) *caddy.Duration { return &a.ProjectQueueWait }, 0),
	duration("request_timeout", func(a *App) *caddy.Duration { return &a.RequestTimeout }, 100*time.Millisecond),
	duration("export_timeout", func(a *App) *caddy.Duration { return &a.ExportTimeout }, time.Second),
	duration("realtime_retention", func(a *App) *caddy.Duration { return &a.RealtimeRetention }, time.Minute),
	repeated("replica_url", "URL (repeat the line for more replicas)", func(a *App) *[]string { return &a.ReplicaURLs }),
	duration("max_replica_lag", func(a *App) *caddy.Duration { return &a.MaxReplicaLag }, 100*time.Millisecond),
	onOff("request_log", func(a *App) **bool { return &a.RequestLog }),
	onOff("webhook_allow_private", func(a *App) **bool { return &a.WebhookAllowPrivate }),
	text("files_dir", func(a *App) *string { return &a.FilesDir }),
	size("max_file_size", func(a *App) *int64 { return &a.MaxFileSize }),
	duration("files_grace", func(a *App) *caddy.Duration { return &a.FilesGrace }, time.Second),
	repeated("purge_url", "URL (repeat the line for more caches)", func(a *App) *[]string { return &a.PurgeURLs }),
}

func optionNamed(name string) (option, bool) {
	for _, o := range options {
		if o.name == name {
			return o, true
		}
	}
	return option{}, false
}

func optionNames() []string {
	names := make([]string, len(options))
	for i, o := range options {
		names[i] = o.name
	}
	return names
}

// text is an option of one string, with no bounds.
func text(name string, field func(*App) *string) option {
	return option{name: name, parse: func(d *caddyfile.Dispenser, a *App) (err error) {
		*field(a), err = oneArg(d, name, "value")
		return err
	}}
}

// repeated is a string option that may be given once per value.
func repeated(name, kind string, field func(*App) *[]string) option {
	return option{name: name, parse: func(d *caddyfile.Dispenser, a *App) error {
		v, err := oneArg(d, name, kind)
		if err != nil {
			return err
		}
		*field(a) = append(*field(a), v)
		return nil
	}}
}

// size is a size in bytes, at least one (zero: the default).
func size(name string, field func(*App) *int64) option {
	return option{name: name,
		parse: func(d *caddyfile.Dispenser, a *App) (err error) {
			*field(a), err = sizeArg(d, name)
			return err
		},
		check: func(a *App) error {
			if n := *field(a); n < 0 {
				return fmt.Errorf("%s: %d is not a positive size", name, n)
			}
			return nil
		}}
}

// count is a whole number from lo to hi (hi 0: no upper bound); zero is
// the default.
func count(name string, field func(*App) *int, lo, hi int) option {
	return option{name: name,
		parse: func(d *caddyfile.Dispenser, a *App) (err error) {
			*field(a), err = intArg(d, name)
			return err
		},
		check: func(a *App) error {
			n := *field(a)
			switch {
			case n == 0:
				return nil
			case hi > 0 && (n < lo || n > hi):
				return fmt.Errorf("%s: %d is not a number from %d to %d", name, n, lo, hi)
			case n < lo:
				return fmt.Errorf("%s: %d is not a number of at least %d", name, n, lo)
			}
			return nil
		}}
}

// countOrOff is a positive whole number, or off (-1); zero is the
// default.
func countOrOff(name string, field func(*App) *int) option {
	return option{name: name,
		parse: func(d *caddyfile.Dispenser, a *App) (err error) {
			*field(a), err = countOrOffArg(d, name)
			return err
		},
		check: func(a *App) error {
			if n := *field(a); n < -1 {
				return fmt.Errorf("%s: %d is not a positive number or off (-1)", name, n)
			}
			return nil
		}}
}

// onOff is a switch written on or off; unset is the default.
func onOff(name string, field func(*App) **bool) option {
	return option{name: name, parse: func(d *caddyfile.Dispenser, a *App) error {
		v, err := oneArg(d, name, "on or off")
		if err != nil {
			return err
		}
		if v != "on" && v != "off" {
			return d.Errf("%s: %q is not on or off", name, v)
		}
		on := v == "on"
		*field(a) = &on
		return nil
	}}
}

// duration is a duration of at least min (min 0: positive); zero is the
// default.
func duration(name string, field func(*App) *caddy.Duration, min time.Duration) option {
	return option{name: name,
		parse: func(d *caddyfile.Dispenser, a *App) (err error) {
			*field(a), err = durationArg(d, name)
			return err
		},
		check: func(a *App) error { return durationBound(name, time.Duration(*field(a)), min) }}
}

// durationBound checks a duration that zero leaves at its default.
func durationBound(name string, v, min time.Duration) error {
	switch {
	case v == 0:
		return nil
	case min == 0 && v < 0:
		return fmt.Errorf("%s: %s is not a positive duration", name, v)
	case v < min:
		return fmt.Errorf("%s: %s is not a duration of at least %s", name, v, shortDuration(min))
	}
	return nil
}

// shortDuration writes a round minimum as the Caddyfile would (1m, not
// 1m0s).
func shortDuration(d time.Duration) string {
	s := d.String()
	if strings.HasSuffix(s, "m0s") {
		s = strings.TrimSuffix(s, "0s")
	}
	if strings.HasSuffix(s, "h0m") {
		s = strings.TrimSuffix(s, "0m")
	}
	return s
}

// Validate checks every bound of the configuration without side effects,
// and reports each value that breaks one. A Caddyfile and a JSON config
// meet the same checks here; Provision runs them first too, so that no bad
// value reaches the shared service.
func (a *App) Validate() error {
	var errs []error
	for _, o := range options {
		if o.check != nil {
			errs = append(errs, o.check(a))
		}
	}
	for _, name := range slices.Sorted(maps.Keys(a.Plans)) {
		errs = append(errs, checkPlan(name, a.Plans[name]))
	}
	errs = append(errs, checkDataServers(a.DataServers))
	return errors.Join(errs...)
}

// checkPlan checks one plan's limits; -1 is unlimited.
func checkPlan(name string, p PlanConfig) error {
	var errs []error
	if p.RatePerHour == 0 || p.RatePerHour < plans.Unlimited {
		errs = append(errs, fmt.Errorf("plan %s: rate %d/hour is not a positive rate or unlimited (-1)", name, p.RatePerHour))
	}
	if p.Projects < plans.Unlimited {
		errs = append(errs, fmt.Errorf("plan %s: projects %d is not a number of at least 0 or unlimited (-1)", name, p.Projects))
	}
	errs = append(errs, durationBound("plan "+name+": statement_timeout", time.Duration(p.StatementTimeout), 0))
	if p.RealtimeStreams != nil && *p.RealtimeStreams < plans.Unlimited {
		errs = append(errs, fmt.Errorf("plan %s: realtime_streams %d is not a number of at least 0 or unlimited (-1)", name, *p.RealtimeStreams))
	}
	errs = append(errs, durationBound("plan "+name+": log_retention", time.Duration(p.LogRetention), time.Hour))
	if p.Webhooks != nil && *p.Webhooks < plans.Unlimited {
		errs = append(errs, fmt.Errorf("plan %s: webhooks %d is not a number of at least 0 or unlimited (-1)", name, *p.Webhooks))
	}
	if p.WebhookDeliveries != nil && *p.WebhookDeliveries < plans.Unlimited {
		errs = append(errs, fmt.Errorf("plan %s: webhook_deliveries %d/hour is not a number of at least 0 or unlimited (-1)", name, *p.WebhookDeliveries))
	}
	for _, size := range []struct {
		what string
		v    *int64
	}{{"file_storage", p.FileStorage}, {"max_file_size", p.MaxFileSize}} {
		if size.v != nil && *size.v < 1 && *size.v != plans.Unlimited {
			errs = append(errs, fmt.Errorf("plan %s: %s %d is not a size of at least 1 byte or unlimited (-1)", name, size.what, *size.v))
		}
	}
	return errors.Join(errs...)
}

// checkDataServers checks the data servers' names and that each has a
// URL (whether it resolves to one is Provision's to see).
func checkDataServers(servers []DataServerConfig) error {
	seen := map[string]bool{}
	for _, ds := range servers {
		if !validServerName(ds.Name) || ds.Name == store.DefaultServer {
			return fmt.Errorf("data_server %q: a name is letters, digits, '-' and '_', and not %q", ds.Name, store.DefaultServer)
		}
		if seen[ds.Name] {
			return fmt.Errorf("data_server %s is defined twice", ds.Name)
		}
		seen[ds.Name] = true
		if ds.URL == "" {
			return fmt.Errorf("data_server %s needs a url", ds.Name)
		}
	}
	return nil
}

// validServerName accepts letters, digits, '-' and '_', 1 to 63 of them.
func validServerName(name string) bool {
	if name == "" || len(name) > 63 {
		return false
	}
	for _, r := range name {
		if !(r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z' || r >= '0' && r <= '9' || r == '-' || r == '_') {
			return false
		}
	}
	return true
}
