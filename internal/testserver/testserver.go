// Package testserver runs a Tablesmith service behind httptest for API
// tests, with helpers that keep scenarios short: sign up, create a
// project, publish a schema, make a key, and send requests.
package testserver

import (
	"bytes"
	"context"
	"encoding/json"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/tablesmith/tablesmith/internal/clientaddr"
	"github.com/tablesmith/tablesmith/internal/plans"
	"github.com/tablesmith/tablesmith/internal/service"
	"github.com/tablesmith/tablesmith/internal/store"
	"github.com/tablesmith/tablesmith/internal/testpg"
	"github.com/tablesmith/tablesmith/internal/testsmtp"
)

// Server is a started service behind an httptest server.
type Server struct {
	*httptest.Server
	Svc *service.Service
	t   testing.TB
	// databaseURL is the database the service runs on (Beside shares it).
	databaseURL string
	// client is what the server in front determined, when set (SetClient).
	client atomic.Pointer[clientInfo]
}

type clientInfo struct {
	ip      string
	trusted bool
}

// SetClient makes every later request look as Caddy would pass it on:
// from client ip, through a trusted proxy or not (clientaddr.With).
func (s *Server) SetClient(ip string, trustedProxy bool) {
	s.client.Store(&clientInfo{ip, trustedProxy})
}

// Option adjusts the service configuration.
type Option func(*service.Config)

// WithPlans sets the plans.
func WithPlans(p plans.Set, def string) Option {
	return func(c *service.Config) { c.Plans, c.DefaultPlan = p, def }
}

// WithNow sets the clock.
func WithNow(now func() time.Time) Option { return func(c *service.Config) { c.Now = now } }

// WithSMTP delivers the service's e-mail to a test SMTP server.
func WithSMTP(srv *testsmtp.Server) Option {
	return func(c *service.Config) {
		cfg := srv.Config()
		c.SMTP = &cfg
	}
}

// WithConfig edits the configuration directly.
func WithConfig(f func(*service.Config)) Option { return Option(f) }

// New starts a service on the package's test database. The unlimited
// plan is the default so tests are not rate limited unless they ask.
func New(t testing.TB, opts ...Option) *Server {
	t.Helper()
	// Each server delivers only its own mail: the package's servers share
	// one database (so one outbox) but not one SMTP server.
	cfg := service.Config{DefaultPlan: "unlimited", Secret: "test-secret", MaxOpenConns: 8, FilesDir: t.TempDir(),
		MailScope: "test-" + store.RandomID(8)}
	for _, o := range opts {
		o(&cfg)
	}
	if cfg.DatabaseURL == "" { // an option may name another server (testcluster)
		cfg.DatabaseURL = testpg.URL(t)
	}
	svc, err := service.New(cfg)
	if err != nil {
		t.Fatal(err)
	}
	if err := svc.Start(context.Background()); err != nil {
		t.Fatal(err)
	}
	mux := http.NewServeMux()
	mux.Handle("/v1/", svc.API())
	mux.Handle("/api/", svc.Platform())
	s := &Server{Svc: svc, t: t, databaseURL: cfg.DatabaseURL}
	s.Server = httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if c := s.client.Load(); c != nil {
			r = r.WithContext(clientaddr.With(r.Context(), c.ip, c.trusted))
		}
		mux.ServeHTTP(w, r)
	}))
	t.Cleanup(func() {
		s.Close()
		svc.Close()
	})
	return s
}

// Beside starts another service on s's database, configured by opts: a
// test sets its project up on s, under the default deadlines and limits,
// and runs only the step under test on a service whose are tight, so that
// a busy machine cannot fail the setup (docs/testing.md). Credentials of
// either work on both (same database, same secret).
func (s *Server) Beside(opts ...Option) *Server {
	s.t.Helper()
	return New(s.t, append([]Option{WithConfig(func(c *service.Config) { c.DatabaseURL = s.databaseURL })}, opts...)...)
}

// Response is a decoded answer.
type Response struct {
	Status int
	Header http.Header
	Raw    []byte
	Body   map[string]any
}

// Data returns body.data as an object.
func (r *Response) Data() map[string]any {
	m, _ := r.Body["data"].(map[string]any)
	return m
}

// List returns body.data as an array of objects.
func (r *Response) List() []map[string]any {
	arr, _ := r.Body["data"].([]any)
	out := make([]map[string]any, len(arr))
	for i, v := range arr {
		out[i], _ = v.(map[string]any)
	}
	return out
}

// ErrorCode returns body.error.code.
func (r *Response) ErrorCode() string {
	e, _ := r.Body["error"].(map[string]any)
	c, _ := e["code"].(string)
	return c
}

// Details returns body.error.details.
func (r *Response) Details() map[string]any {
	e, _ := r.Body["error"].(map[string]any)
	d, _ := e["details"].(map[string]any)
	return d
}

// Message returns body.message or body.error.message.
func (r *Response) Message() string {
	if m, ok := r.Body["message"].(string); ok {
		return m
	}
	e, _ := r.Body["error"].(map[string]any)
	m, _ := e["message"].(string)
	return m
}

// Do sends a request; body may be nil, a string (sent as is) or a value
// (marshalled). JSON bodies get Content-Type application/json.
func (s *Server) Do(method, path, token string, body any, headers ...string) *Response {
	s.t.Helper()
	var rdr io.Reader
	switch b := body.(type) {
	case nil:
	case string:
		rdr = strings.NewReader(b)
	case []byte:
		rdr = bytes.NewReader(b)
	default:
		raw, err := json.Marshal(b)
		if err != nil {
			s.t.Fatal(err)
		}
		rdr = bytes.NewReader(raw)
	}
	req, err := http.NewRequest(method, s.URL+path, rdr)
	if err != nil {
		s.t.Fatal(err)
	}
	if body != nil {
		req.Header.Set("Content-Type", "application/json")
	}
	if token != "" {
		req.Header.Set("Authorization", "Bearer "+token)
	}
	for i := 0; i+1 < len(headers); i += 2 {
		req.Header.Set(headers[i], headers[i+1])
	}
	res, err := http.DefaultClient.Do(req)
	if err != nil {
		s.t.Fatal(err)
	}
	defer res.Body.Close()
	raw, _ := io.ReadAll(res.Body)
	out := &Response{Status: res.StatusCode, Header: res.Header, Raw: raw}
	_ = json.Unmarshal(raw, &out.Body)
	return out
}

// Must fails the test unless the response has the wanted status.
func (r *Response) Must(t testing.TB, status int) *Response {
	t.Helper()
	if r.Status != status {
		t.Fatalf("want status %d, got %d: %s", status, r.Status, r.Raw)
	}
	return r
}

// Signup creates an account and returns its session token.
func (s *Server) Signup(email string) string {
	s.t.Helper()
	r := s.Do("POST", "/api/auth/signup", "", map[string]any{"email": email, "password": "correct horse battery", "name": "Test"}).Must(s.t, 201)
	return r.Data()["token"].(string)
}

// Project is a project ready for generated-API calls.
type Project struct {
	ID      string
	Session string
	Key     string
}

// NewProject signs up a fresh account, creates a project, publishes the
// schema document and creates a read_write key.
func (s *Server) NewProject(schemaDoc string) *Project {
	s.t.Helper()
	tok := s.Signup("owner-" + store.RandomID(8) + "@example.com")
	p := s.Do("POST", "/api/projects", tok, map[string]any{"name": "Test project", "engine": "postgres"}).Must(s.t, 201)
	id := p.Data()["id"].(string)
	s.Publish(tok, id, schemaDoc)
	key := s.Do("POST", "/api/projects/"+id+"/keys", tok, map[string]any{"name": "test", "scope": "read_write"}).Must(s.t, 201)
	return &Project{ID: id, Session: tok, Key: key.Data()["key"].(string)}
}

// Publish saves a draft and generates it, failing the test on error.
func (s *Server) Publish(session, projectID, schemaDoc string) *Response {
	s.t.Helper()
	s.Do("PUT", "/api/projects/"+projectID+"/schema", session, schemaDoc).Must(s.t, 200)
	return s.Do("POST", "/api/projects/"+projectID+"/generate", session, map[string]any{"confirm_destructive": true}).Must(s.t, 200)
}

// API sends a generated-API request for project p with its key.
func (s *Server) API(p *Project, method, path string, body any) *Response {
	s.t.Helper()
	return s.Do(method, "/v1/"+p.ID+path, p.Key, body)
}
