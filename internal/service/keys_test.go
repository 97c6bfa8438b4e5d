package service_test

import (
	"context"
	"net/url"
	"strings"
	"testing"
	"time"

	"github.com/tablesmith/tablesmith/internal/auth"
	"github.com/tablesmith/tablesmith/internal/service"
	"github.com/tablesmith/tablesmith/internal/store"
	"github.com/tablesmith/tablesmith/internal/testpg"
	"github.com/tablesmith/tablesmith/internal/testproxy"
	"github.com/tablesmith/tablesmith/internal/testserver"
)

// keyLookup is the text of store.KeyByPrefix's statement.
const keyLookup = "FROM tablesmith.api_keys WHERE prefix"

func countStatements(px *testproxy.Proxy, containing string) int {
	n := 0
	for _, s := range px.Statements() {
		if strings.Contains(s, containing) {
			n++
		}
	}
	return n
}

// A flood of made-up keys (issue 35.11) reaches PostgreSQL once per
// prefix, whichever secret comes with it; a key created afterwards with
// one of those prefixes, on another node, is accepted there at once.
// Node A's connections go through a proxy that reads the statements they
// send.
func TestUnknownKeyPrefixesReachTheDatabaseOnceAndAKeyCreatedOnAnotherNodeWorksAtOnce(t *testing.T) {
	u, err := url.Parse(testpg.URL(t))
	if err != nil {
		t.Fatal(err)
	}
	px := testproxy.Start(t, u.Host)
	px.RecordStatements()
	u.Host = px.Addr
	a := testserver.New(t, testserver.WithConfig(func(c *service.Config) { c.DatabaseURL = u.String() }))
	b := testserver.New(t)
	p := b.NewProject(`{"tables": [{"name": "notes", "columns": [{"name": "body", "type": "text"}]}]}`)
	a.API(p, "GET", "/notes", nil).Must(t, 200) // A loads the project and its key

	const prefixes, tries = 40, 10
	before, all := countStatements(px, keyLookup), len(px.Statements())
	var made []string
	for i := range prefixes {
		prefix := "ts_" + store.RandomID(8)
		made = append(made, prefix)
		for range tries {
			key := prefix + "_" + store.RandomID(32) // a random secret each time
			r := a.Do("GET", "/v1/"+p.ID+"/notes", key, nil).Must(t, 401)
			if !strings.Contains(r.Message(), "unknown, incomplete or revoked") {
				t.Fatalf("prefix %d: %s", i, r.Raw)
			}
		}
	}
	lookups := countStatements(px, keyLookup) - before
	t.Logf("%d requests with %d unknown prefixes: %d key lookups, %d statements in all (background work included)",
		prefixes*tries, prefixes, lookups, len(px.Statements())-all)
	if lookups != prefixes {
		t.Errorf("%d key lookups for %d unknown prefixes tried %d times each, want one per prefix", lookups, prefixes, tries)
	}

	// Node B creates a key with one of those prefixes; node A learns of it
	// from the creation's notification.
	key := made[0] + "_" + store.RandomID(32)
	if _, err := b.Svc.Store.CreateKey(context.Background(), p.ID, "late", auth.ScopeReadWrite, made[0], auth.HashAPIKey(key)); err != nil {
		t.Fatal(err)
	}
	deadline := time.Now().Add(5 * time.Second) // a notification takes milliseconds
	for {
		r := a.Do("GET", "/v1/"+p.ID+"/notes", key, nil)
		if r.Status == 200 {
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("a key created on another node is still refused after 5s: %s", r.Raw)
		}
		time.Sleep(20 * time.Millisecond)
	}
}
