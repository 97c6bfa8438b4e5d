package caddymodule

import (
	"bufio"
	"database/sql"
	"io"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/caddyserver/caddy/v2"

	"github.com/tablesmith/tablesmith/internal/testpg"
	"github.com/tablesmith/tablesmith/schema"
)

// TestAReloadThatReplacesTheServiceLosesNoRequest: a reload that changes
// a setting the shared service is keyed by (here request_timeout) opens a
// new service, and Caddy stops the old server without waiting for its
// requests. An export being read across the reload still arrives whole,
// reads sent throughout all answer 200, and a realtime stream of the old
// service ends with a reconnect event and opens again on the new one.
func TestAReloadThatReplacesTheServiceLosesNoRequest(t *testing.T) {
	dbURL := testpg.NewDatabase(t)
	base := caddyEnv(t, dbURL)
	loadExample(t, nil)
	t.Cleanup(func() {
		if err := caddy.Stop(); err != nil {
			t.Errorf("stop caddy: %v", err)
		}
	})
	c := client{t, base}
	session := c.must(201, "POST", "/api/auth/signup", "", map[string]any{"email": "reload@example.com", "password": "supersecret1"})["token"].(string)
	project := c.must(201, "POST", "/api/projects", session, map[string]any{"name": "Reload"})["id"].(string)
	c.must(200, "PUT", "/api/projects/"+project+"/schema", session, map[string]any{"tables": []any{map[string]any{
		"name": "notes", "realtime": true, "columns": []any{map[string]any{"name": "body", "type": "text"}}}}})
	c.must(200, "POST", "/api/projects/"+project+"/generate", session, map[string]any{})
	key := c.must(201, "POST", "/api/projects/"+project+"/keys", session, map[string]any{"name": "ci", "scope": "read_write"})["key"].(string)
	// 50,000 rows (about 4 MB as NDJSON): more than socket buffers hold, so
	// the export's handler runs until the client has read it.
	const rows = 50000
	db, err := sql.Open("postgres", dbURL)
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	if _, err := db.Exec(`INSERT INTO `+schema.QuoteIdent(schema.ProjectSchema(project))+`.notes (body)
		SELECT 'note number ' || g || ' with some text to make it longer' FROM generate_series(1, $1) g`, rows); err != nil {
		t.Fatal(err)
	}
	before := activeService(t)

	get := func(path string) *http.Response {
		req, _ := http.NewRequest("GET", base+"/v1/"+project+path, nil)
		req.Header.Set("Authorization", "Bearer "+key)
		res, err := http.DefaultClient.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		if res.StatusCode != 200 {
			body, _ := io.ReadAll(res.Body)
			t.Fatalf("GET %s: %d %s", path, res.StatusCode, body)
		}
		return res
	}
	export := get("/notes/export?format=ndjson")
	defer export.Body.Close()
	exported := bufio.NewReader(export.Body)
	first, err := exported.ReadString('\n')
	if err != nil || !strings.Contains(first, "note number") {
		t.Fatalf("the export's first line: %q, %v", first, err)
	}
	stream := get("/realtime?tables=notes")
	defer stream.Body.Close()
	streamEnd := make(chan string, 1)
	go func() {
		all, _ := io.ReadAll(stream.Body)
		streamEnd <- string(all)
	}()

	reads := readsThroughout(base+"/v1/"+project+"/notes/1", key)
	time.Sleep(50 * time.Millisecond)
	reloaded := make(chan struct{})
	go func() { // the reload returns once the old service has closed
		defer close(reloaded)
		loadExample(t, func(s string) string {
			return strings.Replace(s, "\t\tmax_body 1MiB\n", "\t\tmax_body 1MiB\n\t\trequest_timeout 25s\n", 1)
		})
	}()

	// The stream of the old service ends with a reconnect event.
	select {
	case got := <-streamEnd:
		if !strings.Contains(got, "event: reconnect") {
			t.Errorf("the stream ended without a reconnect event:\n%s", got)
		}
	case <-time.After(30 * time.Second):
		t.Fatal("the old service's stream did not end within 30 s of the reload")
	}
	// The export, read slowly across the reload, arrives whole.
	lines := 1
	for {
		line, err := exported.ReadString('\n')
		if err == io.EOF && line == "" {
			break
		}
		if err != nil {
			t.Fatalf("the export broke after %d lines: %v", lines, err)
		}
		lines++
		if lines%5000 == 0 {
			time.Sleep(20 * time.Millisecond)
		}
	}
	if lines != rows {
		t.Errorf("the export sent %d lines across the reload, want %d", lines, rows)
	}
	<-reloaded
	time.Sleep(50 * time.Millisecond)
	reads.check(t, "the reload")
	if activeService(t) == before {
		t.Fatal("the reload kept the service: request_timeout should have opened a new one")
	}
	// The stream opens again, on the new service.
	again := get("/realtime?tables=notes")
	again.Body.Close()
}
