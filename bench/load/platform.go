package main

import (
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"time"
)

// platform drives the platform API through Caddy, as the dashboard does,
// so the benchmarked tables are exactly what generate makes.
type platform struct {
	base    string // http://host:port
	session string
}

func (p *platform) call(method, path string, body any, out any) error {
	raw, err := json.Marshal(body)
	if err != nil {
		return err
	}
	req, err := http.NewRequest(method, p.base+path, bytes.NewReader(raw))
	if err != nil {
		return err
	}
	req.Header.Set("Content-Type", "application/json")
	if p.session != "" {
		req.Header.Set("Authorization", "Bearer "+p.session)
	}
	client := &http.Client{Timeout: 5 * time.Minute}
	res, err := client.Do(req)
	if err != nil {
		return err
	}
	defer res.Body.Close()
	data, _ := io.ReadAll(res.Body)
	if res.StatusCode >= 300 {
		return fmt.Errorf("%s %s: %d %s", method, path, res.StatusCode, data)
	}
	if out == nil {
		return nil
	}
	var env struct {
		Data json.RawMessage `json:"data"`
	}
	if err := json.Unmarshal(data, &env); err != nil {
		return fmt.Errorf("%s %s: %w", method, path, err)
	}
	return json.Unmarshal(env.Data, out)
}

// signup creates the benchmark account (on the default plan, which the
// Caddyfile sets to unlimited).
func (p *platform) signup(email string) error {
	var out struct {
		Token string `json:"token"`
	}
	if err := p.call("POST", "/api/auth/signup", map[string]string{"email": email, "password": "benchmark password", "name": "Bench"}, &out); err != nil {
		return err
	}
	p.session = out.Token
	return nil
}

// project creates a project, saves the schema draft, generates it and
// makes a read_write key; it returns the project id and the key.
func (p *platform) project(name, schemaDoc string) (id, key string, err error) {
	var proj struct {
		ID string `json:"id"`
	}
	if err = p.call("POST", "/api/projects", map[string]string{"name": name, "engine": "postgres"}, &proj); err != nil {
		return
	}
	if err = p.call("PUT", "/api/projects/"+proj.ID+"/schema", json.RawMessage(schemaDoc), nil); err != nil {
		return
	}
	if err = p.call("POST", "/api/projects/"+proj.ID+"/generate", map[string]bool{"confirm_destructive": true}, nil); err != nil {
		return
	}
	var k struct {
		Key string `json:"key"`
	}
	if err = p.call("POST", "/api/projects/"+proj.ID+"/keys", map[string]string{"name": "bench", "scope": "read_write"}, &k); err != nil {
		return
	}
	return proj.ID, k.Key, nil
}
