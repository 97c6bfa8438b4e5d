package endusers_test

import (
	"sync"
	"testing"
	"time"

	"github.com/tablesmith/tablesmith/internal/testpg"
	"github.com/tablesmith/tablesmith/internal/testserver"
)

func TestMain(m *testing.M) { testpg.Main(m, "endusers") }

// clock is an injectable clock that tests move forward by hand.
type clock struct {
	mu  sync.Mutex
	now time.Time
}

func newClock() *clock { return &clock{now: time.Now().UTC().Truncate(time.Second)} }

func (c *clock) Now() time.Time {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.now
}

func (c *clock) Advance(d time.Duration) {
	c.mu.Lock()
	c.now = c.now.Add(d)
	c.mu.Unlock()
}

// appSchema has the spec's users table as the auth table and notes that
// each belong to one user.
const appSchema = `{"tables": [
	{"name": "users", "auth": true, "columns": [
		{"name": "email", "type": "email", "required": true, "unique": true},
		{"name": "name", "type": "text", "max_length": 100},
		{"name": "password_hash", "type": "password", "required": true},
		{"name": "age", "type": "integer", "min": 0},
		{"name": "is_active", "type": "boolean", "default": true}]},
	{"name": "notes", "owner_column": "author_id",
	 "permissions": {"read": "owner", "create": "owner", "update": "owner", "delete": "owner"},
	 "columns": [
		{"name": "title", "type": "text", "required": true},
		{"name": "author_id", "type": "integer", "references": {"table": "users", "on_delete": "cascade"}}]}]}`

const password = "correct horse battery"

// env is a started service with one project of appSchema.
type env struct {
	t     *testing.T
	s     *testserver.Server
	p     *testserver.Project
	clock *clock
}

func newEnv(t *testing.T, schemaDoc string) *env {
	t.Helper()
	c := newClock()
	s := testserver.New(t, testserver.WithNow(c.Now))
	return &env{t: t, s: s, p: s.NewProject(schemaDoc), clock: c}
}

// auth sends a request to /v1/<project>/auth/<route>.
func (e *env) auth(method, route, token string, body any) *testserver.Response {
	e.t.Helper()
	return e.s.Do(method, "/v1/"+e.p.ID+"/auth/"+route, token, body)
}

// api sends a generated-API request with a credential.
func (e *env) api(method, path, token string, body any) *testserver.Response {
	e.t.Helper()
	return e.s.Do(method, "/v1/"+e.p.ID+path, token, body)
}

// tokens is the data of a register, login or refresh answer.
type tokens struct {
	User    map[string]any
	Access  string
	Refresh string
}

func tokensOf(t *testing.T, r *testserver.Response) tokens {
	t.Helper()
	d := r.Data()
	user, _ := d["user"].(map[string]any)
	access, _ := d["access_token"].(string)
	refresh, _ := d["refresh_token"].(string)
	if user == nil || access == "" || refresh == "" {
		t.Fatalf("want {user, access_token, refresh_token}, got %s", r.Raw)
	}
	return tokens{User: user, Access: access, Refresh: refresh}
}

func (e *env) register(email string) tokens {
	e.t.Helper()
	return tokensOf(e.t, e.auth("POST", "register", "", map[string]any{"email": email, "password": password}).Must(e.t, 201))
}

func (e *env) login(email string) tokens {
	e.t.Helper()
	return tokensOf(e.t, e.auth("POST", "login", "", map[string]any{"email": email, "password": password}).Must(e.t, 200))
}

func wantError(t *testing.T, r *testserver.Response, status int, code string) {
	t.Helper()
	if r.Status != status || r.ErrorCode() != code {
		t.Fatalf("want %d %s, got %d: %s", status, code, r.Status, r.Raw)
	}
}
