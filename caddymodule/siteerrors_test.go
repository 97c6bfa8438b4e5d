package caddymodule

import (
	"database/sql"
	"encoding/json"
	"io"
	"net/http"
	"strings"
	"testing"

	"github.com/caddyserver/caddy/v2"
	"github.com/caddyserver/caddy/v2/caddyconfig"

	"github.com/tablesmith/tablesmith/internal/testpg"
	"github.com/tablesmith/tablesmith/schema"
)

// TestAnInternalFailureGoesToTheSitesHandleErrorsAndElseIsAnEnvelope
// breaks a published table behind the service's back (the database
// changed under the schema: a 500) and asks for it on three sites of one
// Caddy server: the one whose handle_errors takes every error answers it
// there; the one whose handle_errors takes only 404s, and the one without
// handle_errors, answer the contract's envelope. An API answer (a 404
// for an unknown table) is an envelope on every site.
func TestAnInternalFailureGoesToTheSitesHandleErrorsAndElseIsAnEnvelope(t *testing.T) {
	dbURL := testpg.NewDatabase(t)
	base := caddyEnv(t, dbURL)
	port := base[strings.LastIndex(base, ":")+1:]
	caddyfile := `{
	admin off
	tablesmith {
		database_url {env.TABLESMITH_DATABASE_URL}
		secret {env.TABLESMITH_SECRET}
		default_plan unlimited
	}
}
http://errors.test:` + port + ` {
	tablesmith_api /v1/*
	handle_errors {
		respond "site error {err.status_code}" 500
	}
}
http://notfound.test:` + port + ` {
	tablesmith_api /v1/*
	handle_errors 404 {
		respond "no such page" 404
	}
}
{$TABLESMITH_ADDR} {
	tablesmith_api /v1/*
	handle /api/* {
		tablesmith_platform
	}
}
`
	cfg, _, err := caddyconfig.GetAdapter("caddyfile").Adapt([]byte(caddyfile), map[string]any{"filename": "Caddyfile"})
	if err != nil {
		t.Fatal(err)
	}
	if err := caddy.Load(cfg, true); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		if err := caddy.Stop(); err != nil {
			t.Errorf("stop caddy: %v", err)
		}
	})
	c := client{t, base}
	_, project, key := setUpUsers(c)
	get := func(host, path string) (int, http.Header, string) {
		t.Helper()
		req, _ := http.NewRequest("GET", base+path, nil)
		req.Host = host
		req.Header.Set("Authorization", "Bearer "+key)
		res, err := http.DefaultClient.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		defer res.Body.Close()
		body, _ := io.ReadAll(res.Body)
		return res.StatusCode, res.Header, string(body)
	}
	errorCode := func(body string) string {
		var env struct {
			Error struct{ Code string } `json:"error"`
		}
		_ = json.Unmarshal([]byte(body), &env) // a body that is not an envelope leaves the code empty
		return env.Error.Code
	}
	if status, _, body := get("errors.test", "/v1/"+project+"/users/1"); status != 200 || !strings.Contains(body, "john@example.com") {
		t.Fatalf("before the failure, errors.test: %d %s", status, body)
	}

	db, err := sql.Open("postgres", dbURL)
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	if _, err := db.Exec(`DROP TABLE ` + schema.QuoteIdent(schema.ProjectSchema(project)) + `.users CASCADE`); err != nil {
		t.Fatal(err)
	}

	status, hdr, body := get("errors.test", "/v1/"+project+"/users/1")
	if status != 500 || body != "site error 500" {
		t.Errorf("errors.test (handle_errors): %d %q, want 500 from handle_errors", status, body)
	}
	if ct := hdr.Get("Content-Type"); strings.Contains(ct, "json") {
		t.Errorf("errors.test (handle_errors): Content-Type %q describes the dropped envelope", ct)
	}
	if hdr.Get("X-Request-Id") == "" {
		t.Errorf("errors.test (handle_errors): the request id that the log has the cause under is gone: %v", hdr)
	}
	for _, host := range []string{"notfound.test", "localhost"} {
		if status, _, body := get(host, "/v1/"+project+"/users/1"); status != 500 || errorCode(body) != "INTERNAL_ERROR" {
			t.Errorf("%s: %d %s, want the 500 envelope", host, status, body)
		}
	}
	if status, _, body := get("errors.test", "/v1/"+project+"/nosuch"); status != 404 || errorCode(body) != "NOT_FOUND" {
		t.Errorf("errors.test, an unknown table: %d %s, want the 404 envelope", status, body)
	}
}
