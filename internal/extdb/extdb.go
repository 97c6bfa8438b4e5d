// Package extdb connects Tablesmith to PostgreSQL databases it fronts but
// does not own (the postgres_external engine): it checks a connection and
// says what is wrong with it, reads a schema's catalog for introspection,
// keeps one health-tracked pool per database, and seals connection URLs
// at rest.
package extdb

import (
	"context"
	"crypto/tls"
	"crypto/x509"
	"database/sql"
	"errors"
	"fmt"
	"net"
	"net/netip"
	"net/url"
	"strconv"
	"strings"
	"syscall"
	"time"

	"github.com/lib/pq"

	"github.com/tablesmith/tablesmith/internal/pgpool"

	"github.com/tablesmith/tablesmith/schema"
	"github.com/tablesmith/tablesmith/schema/introspect"
)

// Kinds of connection problems.
const (
	ProblemInvalidURL        = "invalid_url"
	ProblemCannotConnect     = "cannot_connect"
	ProblemAuthentication    = "authentication_failed"
	ProblemDatabaseNotFound  = "database_not_found"
	ProblemSchemaNotFound    = "schema_not_found"
	ProblemPrivileges        = "insufficient_privilege"
	ProblemTLS               = "tls"
	ProblemControlDatabase   = "control_database"
	ProblemInvalidSchemaName = "invalid_schema"
)

// Problem is a connection that cannot be used, worded so that the person
// who typed it can fix it. Err is the underlying error, for logs.
type Problem struct {
	Kind    string
	Message string
	Err     error
}

func (p *Problem) Error() string { return p.Message }

// Unwrap returns the underlying error.
func (p *Problem) Unwrap() error { return p.Err }

// AsProblem unwraps a Problem.
func AsProblem(err error) (*Problem, bool) {
	var p *Problem
	ok := errors.As(err, &p)
	return p, ok
}

// Parameters a user's URL may not set: they read files on Tablesmith's
// server (passfile, certificates, service files) or move the target away
// from what the URL's authority says.
var forbiddenParams = map[string]string{
	"passfile": "reads a file on the server", "service": "reads a file on the server",
	"sslcert": "reads a file on the server", "sslkey": "reads a file on the server",
	"sslrootcert": "reads a file on the server", "sslinline": "is not supported",
	"krbsrvname": "is not supported", "krbspn": "is not supported",
	"host": "belongs in the URL's authority", "hostaddr": "belongs in the URL's authority",
	"port": "belongs in the URL's authority", "user": "belongs in the URL's authority",
	"password": "belongs in the URL's authority", "dbname": "belongs in the URL's path",
}

// Options are the limits every connection to a fronted database gets.
type Options struct {
	// ConnectTimeout bounds establishing one connection (default 5s).
	ConnectTimeout time.Duration
	// StatementTimeout bounds one statement (default 30s); a user's URL
	// may ask for less with statement_timeout.
	StatementTimeout time.Duration
}

func (o Options) withDefaults() Options {
	if o.ConnectTimeout <= 0 {
		o.ConnectTimeout = 5 * time.Second
	}
	if o.StatementTimeout <= 0 {
		o.StatementTimeout = 30 * time.Second
	}
	return o
}

// Config parses a user's postgres:// URL into a driver configuration that
// depends on nothing but the URL: no environment variables, password
// file or service file of the server running Tablesmith. Session
// settings are fixed so that every statement means the same on every
// database: time zone UTC (timestamps without a zone are UTC), a
// statement timeout, and an application name for pg_stat_activity.
func Config(raw string, o Options) (pq.Config, error) {
	o = o.withDefaults()
	u, err := checkURL(raw)
	if err != nil {
		return pq.Config{}, err
	}
	cfg, err := pq.NewConfig(raw)
	if err != nil {
		return pq.Config{}, invalidURL("the url cannot be read: %s", strings.TrimPrefix(err.Error(), "pq: "))
	}
	pinToURL(&cfg, u, o)
	cfg.Runtime = sessionSettings(cfg.Runtime, u.Query(), o)
	return cfg, nil
}

func invalidURL(format string, args ...any) error {
	return &Problem{Kind: ProblemInvalidURL, Message: fmt.Sprintf(format, args...)}
}

// checkURL refuses a URL that names no single host, user and database, or
// that asks for something read from the server's own files.
func checkURL(raw string) (*url.URL, error) {
	u, err := url.Parse(raw)
	if err != nil || (u.Scheme != "postgres" && u.Scheme != "postgresql") {
		return nil, invalidURL("the url must look like postgres://user:password@host:5432/database")
	}
	host := u.Hostname()
	switch {
	case host == "" || strings.Contains(u.Host, ","):
		return nil, invalidURL("the url needs one host name (postgres://user:password@host:5432/database)")
	case u.User == nil || u.User.Username() == "":
		return nil, invalidURL("the url needs a user name (postgres://user:password@host:5432/database)")
	case strings.Trim(u.Path, "/") == "":
		return nil, invalidURL("the url needs a database name (postgres://user:password@host:5432/database)")
	}
	if p := u.Port(); p != "" {
		if n, err := strconv.Atoi(p); err != nil || n < 1 || n > 65535 {
			return nil, invalidURL("the url's port %q is not a port number", p)
		}
	}
	if strings.HasPrefix(host, "/") || strings.HasPrefix(host, "@") {
		return nil, invalidURL("the url's host must be a host name or address, not a socket path")
	}
	if err := checkParams(u.Query()); err != nil {
		return nil, err
	}
	return u, nil
}

// checkParams refuses the parameters a user's URL may not set.
func checkParams(q url.Values) error {
	for k, v := range q {
		if strings.EqualFold(k, "sslrootcert") && len(v) == 1 && v[0] == "system" {
			continue // the system's certificate pool, not a file
		}
		if why, no := forbiddenParams[strings.ToLower(k)]; no {
			return invalidURL("the url parameter %s is not accepted: it %s", k, why)
		}
	}
	return nil
}

// pinToURL replaces whatever the server's environment said with the URL's
// own values (or their defaults).
func pinToURL(cfg *pq.Config, u *url.URL, o Options) {
	cfg.Host = u.Hostname()
	cfg.Port = 5432
	if p := u.Port(); p != "" {
		n, _ := strconv.Atoi(p)
		cfg.Port = uint16(n)
	}
	cfg.User = u.User.Username()
	cfg.Password, _ = u.User.Password()
	cfg.Passfile = "/dev/null/no-password-file" // never consult ~/.pgpass
	cfg.Service, cfg.SSLCert, cfg.SSLKey = "", "", ""
	if cfg.SSLRootCert != "system" {
		cfg.SSLRootCert = ""
	}
	cfg.Database = strings.Trim(u.Path, "/")
	q := u.Query()
	cfg.Hostaddr, cfg.Multi = netip.Addr{}, nil
	cfg.KrbSrvname, cfg.KrbSpn = "", ""
	cfg.Options = q.Get("options")
	if q.Get("sslmode") == "" {
		cfg.SSLMode = pq.SSLModeRequire
	}
	if q.Get("target_session_attrs") == "" {
		cfg.TargetSessionAttrs = pq.TargetSessionAttrsAny
	}
	if q.Get("connect_timeout") == "" || cfg.ConnectTimeout <= 0 || cfg.ConnectTimeout > o.ConnectTimeout {
		cfg.ConnectTimeout = o.ConnectTimeout
	}
	if q.Get("application_name") == "" {
		cfg.ApplicationName = "tablesmith"
	}
}

// sessionSettings fixes the time zone to UTC and the statement timeout to
// the limit, or to less where the URL asks for less.
func sessionSettings(runtime map[string]string, q url.Values, o Options) map[string]string {
	rt := map[string]string{}
	for k, v := range runtime {
		switch strings.ToLower(k) {
		case "timezone", "statement_timeout":
			continue
		}
		rt[k] = v
	}
	rt["timezone"] = "UTC"
	rt["statement_timeout"] = strconv.FormatInt(o.StatementTimeout.Milliseconds(), 10)
	if v := q.Get("statement_timeout"); v != "" {
		if ms, err := strconv.ParseInt(v, 10, 64); err == nil && ms > 0 && ms < o.StatementTimeout.Milliseconds() {
			rt["statement_timeout"] = v
		}
	}
	return rt
}

// MaskURL returns the URL with its password replaced by ****, for display.
func MaskURL(raw string) string {
	u, err := url.Parse(raw)
	if err != nil {
		return "(unreadable URL)"
	}
	if u.User == nil {
		return u.String()
	}
	if _, has := u.User.Password(); !has {
		return u.String()
	}
	user := url.User(u.User.Username()).String()
	u.User = nil
	prefix := u.Scheme + "://"
	return prefix + user + ":****@" + strings.TrimPrefix(u.String(), prefix)
}

// target names a database for messages and logs, without credentials.
func target(cfg pq.Config) string {
	return net.JoinHostPort(cfg.Host, strconv.Itoa(int(cfg.Port))) + "/" + cfg.Database
}

// Inspect checks a connection for fronting schemaName and reads that
// schema's catalog. It opens one short-lived connection of its own (not a
// shared pool: a connection being created may never be used), runs only
// reads in a read-only transaction, and returns a *Problem naming what to
// fix when the connection cannot front the schema.
func Inspect(ctx context.Context, raw, schemaName string, o Options) (introspect.Catalog, error) {
	cfg, err := Config(raw, o)
	if err != nil {
		return introspect.Catalog{}, err
	}
	conn, err := pgpool.NewConnector(cfg)
	if err != nil {
		return introspect.Catalog{}, &Problem{Kind: ProblemInvalidURL, Message: "the url cannot be used: " + err.Error(), Err: err}
	}
	db := sql.OpenDB(conn)
	defer db.Close()
	db.SetMaxOpenConns(1)
	if err := db.PingContext(ctx); err != nil {
		return introspect.Catalog{}, Classify(err, cfg)
	}
	return ReadSchema(ctx, db, cfg.User, schemaName)
}

// ReadSchema checks that the role can use schemaName of the database db
// is connected to, and reads the schema's catalog in one read-only
// transaction.
func ReadSchema(ctx context.Context, db *sql.DB, user, schemaName string) (introspect.Catalog, error) {
	if schemaName == "" || len(schemaName) > 63 || strings.ContainsRune(schemaName, 0) {
		return introspect.Catalog{}, &Problem{Kind: ProblemInvalidSchemaName, Message: "the schema must be the name of a PostgreSQL schema (at most 63 bytes)"}
	}
	tx, err := db.BeginTx(ctx, &sql.TxOptions{ReadOnly: true})
	if err != nil {
		return introspect.Catalog{}, Classify(err, pq.Config{User: user})
	}
	defer tx.Rollback()
	var control bool
	if err := tx.QueryRowContext(ctx, `SELECT EXISTS (SELECT 1 FROM pg_class c JOIN pg_namespace n ON n.oid = c.relnamespace
		WHERE n.nspname = 'tablesmith' AND c.relname = 'schema_migrations')`).Scan(&control); err != nil {
		return introspect.Catalog{}, Classify(err, pq.Config{User: user})
	}
	if control {
		return introspect.Catalog{}, &Problem{Kind: ProblemControlDatabase,
			Message: "this is Tablesmith's own database; point the connection at your application's database"}
	}
	var usage sql.NullBool
	err = tx.QueryRowContext(ctx, `SELECT has_schema_privilege(oid, 'USAGE') FROM pg_namespace WHERE nspname = $1`, schemaName).Scan(&usage)
	if errors.Is(err, sql.ErrNoRows) {
		var names []string
		_ = tx.QueryRowContext(ctx, `SELECT coalesce(array_agg(nspname::text ORDER BY nspname), '{}') FROM pg_namespace
			WHERE nspname NOT LIKE 'pg\_%' AND nspname <> 'information_schema' AND has_schema_privilege(oid, 'USAGE')`).Scan(pq.Array(&names))
		msg := fmt.Sprintf("schema %q does not exist in this database", schemaName)
		if len(names) > 0 {
			msg += " (schemas you can use: " + strings.Join(names, ", ") + ")"
		}
		return introspect.Catalog{}, &Problem{Kind: ProblemSchemaNotFound, Message: msg}
	}
	if err != nil {
		return introspect.Catalog{}, Classify(err, pq.Config{User: user})
	}
	if !usage.Bool {
		return introspect.Catalog{}, &Problem{Kind: ProblemPrivileges,
			Message: fmt.Sprintf("user %q lacks the USAGE privilege on schema %q (GRANT USAGE ON SCHEMA %s TO %s)",
				user, schemaName, schema.QuoteIdent(schemaName), schema.QuoteIdent(user))}
	}
	cat, err := readCatalog(ctx, tx, schemaName)
	if err != nil {
		return cat, Classify(err, pq.Config{User: user})
	}
	return cat, nil
}

// Classify turns a connection or query error into a Problem that names
// its cause.
func Classify(err error, cfg pq.Config) *Problem {
	if p, ok := AsProblem(err); ok {
		return p
	}
	where := target(cfg)
	if cfg.Host == "" {
		where = "the database"
	}
	p := &Problem{Kind: ProblemCannotConnect, Err: err}
	var pe *pq.Error
	var dnsErr *net.DNSError
	var certErr x509.UnknownAuthorityError
	var hostErr x509.HostnameError
	var recErr tls.RecordHeaderError
	var ne net.Error
	switch {
	case errors.As(err, &pe):
		switch pe.Code {
		case "28P01":
			p.Kind, p.Message = ProblemAuthentication, fmt.Sprintf("authentication failed for user %q: wrong password", cfg.User)
		case "28000":
			p.Kind, p.Message = ProblemAuthentication, fmt.Sprintf("the server refused user %q: %s", cfg.User, pe.Message)
		case "3D000":
			p.Kind, p.Message = ProblemDatabaseNotFound, fmt.Sprintf("database %q does not exist on %s", cfg.Database, strings.TrimSuffix(where, "/"+cfg.Database))
		case "42501":
			p.Kind, p.Message = ProblemPrivileges, fmt.Sprintf("user %q lacks a privilege: %s", cfg.User, pe.Message)
		case "53300":
			p.Message = fmt.Sprintf("cannot connect to %s: the server has no free connection slots", where)
		case "57P03":
			p.Message = fmt.Sprintf("cannot connect to %s: the server is starting up or shutting down", where)
		default:
			p.Message = fmt.Sprintf("the database refused the request: %s", pe.Message)
		}
	case errors.Is(err, pq.ErrSSLNotSupported):
		p.Kind, p.Message = ProblemTLS, fmt.Sprintf("%s does not accept SSL; add sslmode=disable to the url only if the network to it is private", where)
	case errors.As(err, &certErr), errors.As(err, &hostErr), errors.As(err, &recErr),
		strings.Contains(err.Error(), "tls:"), strings.Contains(err.Error(), "x509:"):
		p.Kind, p.Message = ProblemTLS, fmt.Sprintf("the TLS handshake with %s failed: %v", where, err)
	case errors.As(err, &dnsErr):
		p.Message = fmt.Sprintf("cannot connect: host %q was not found", cfg.Host)
	case errors.Is(err, syscall.ECONNREFUSED):
		p.Message = fmt.Sprintf("cannot connect to %s: connection refused (is PostgreSQL running and listening there?)", where)
	case errors.As(err, &ne) && ne.Timeout(), errors.Is(err, context.DeadlineExceeded):
		p.Message = fmt.Sprintf("cannot connect to %s: no answer within %s", where, cfg.ConnectTimeout)
	default:
		p.Message = fmt.Sprintf("cannot connect to %s: %v", where, err)
	}
	return p
}
