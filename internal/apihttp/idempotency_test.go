package apihttp_test

import (
	"context"
	"database/sql"
	"strings"
	"sync"
	"testing"

	"github.com/tablesmith/tablesmith/internal/apihttp"
	"github.com/tablesmith/tablesmith/internal/store"
	"github.com/tablesmith/tablesmith/internal/testpg"
	"github.com/tablesmith/tablesmith/internal/testserver"
)

const notesSchema = `{"tables": [{"name": "notes", "columns": [
	{"name": "title", "type": "text", "required": true, "unique": true},
	{"name": "body", "type": "text"}]}]}`

// keyed sends a generated-API request with an Idempotency-Key.
func keyed(s *testserver.Server, p *testserver.Project, method, path, key string, body any) *testserver.Response {
	return s.Do(method, "/v1/"+p.ID+path, p.Key, body, "Idempotency-Key", key)
}

func countNotes(t *testing.T, s *testserver.Server, p *testserver.Project) int {
	t.Helper()
	var n int
	if err := s.Svc.DB.QueryRow(`SELECT count(*) FROM p_` + p.ID + `.notes`).Scan(&n); err != nil {
		t.Fatal(err)
	}
	return n
}

func mustReplay(t *testing.T, first, again *testserver.Response) {
	t.Helper()
	if again.Status != first.Status || string(again.Raw) != string(first.Raw) || again.Header.Get("Location") != first.Header.Get("Location") {
		t.Fatalf("replay differs:\nfirst %d %q %s\nagain %d %q %s", first.Status, first.Header.Get("Location"), first.Raw,
			again.Status, again.Header.Get("Location"), again.Raw)
	}
	if again.Header.Get("Idempotent-Replayed") != "true" {
		t.Fatalf("a replay must say so: headers %v", again.Header)
	}
}

func TestAnIdempotencyKeyReplaysTheFirstCreateWithoutWritingAgain(t *testing.T) {
	t.Parallel()
	s := testserver.New(t)
	p := s.NewProject(notesSchema)

	first := keyed(s, p, "POST", "/notes", "order-1", `{"title": "a", "body": "x"}`).Must(t, 201)
	if first.Header.Get("Location") != "/v1/"+p.ID+"/notes/1" || first.Header.Get("Idempotent-Replayed") != "" {
		t.Fatalf("first answer headers = %v", first.Header)
	}
	// The same JSON with other member order and spacing is the same body.
	again := keyed(s, p, "POST", "/notes", "order-1", `{ "body":"x",  "title":"a" }`)
	mustReplay(t, first, again)
	if n := countNotes(t, s, p); n != 1 {
		t.Fatalf("rows = %d, want 1", n)
	}
	// Without the key the same body is a new write (and here a conflict).
	s.API(p, "POST", "/notes", map[string]any{"title": "a", "body": "x"}).Must(t, 409)
}

func TestAnIdempotencyKeyUsedForAnotherRequestIs422(t *testing.T) {
	t.Parallel()
	s := testserver.New(t)
	p := s.NewProject(notesSchema)
	keyed(s, p, "POST", "/notes", "k", map[string]any{"title": "a"}).Must(t, 201)

	other := keyed(s, p, "POST", "/notes", "k", map[string]any{"title": "b"}).Must(t, 422)
	if other.ErrorCode() != "IDEMPOTENCY_KEY_REUSED" || !strings.Contains(other.Message(), "different request") {
		t.Fatalf("different body = %s", other.Raw)
	}
	// The key is bound to method and path too.
	keyed(s, p, "PATCH", "/notes/1", "k", map[string]any{"title": "a"}).Must(t, 422)
	keyed(s, p, "DELETE", "/notes/1", "k", nil).Must(t, 422)
	if n := countNotes(t, s, p); n != 1 {
		t.Fatalf("rows = %d, want 1", n)
	}
}

func TestIdempotencyKeysOfDifferentCredentialsAreIndependent(t *testing.T) {
	t.Parallel()
	s := testserver.New(t)
	p := s.NewProject(notesSchema)
	second := s.Do("POST", "/api/projects/"+p.ID+"/keys", p.Session, map[string]any{"name": "second", "scope": "read_write"}).Must(t, 201).Data()["key"].(string)

	keyed(s, p, "POST", "/notes", "shared", map[string]any{"title": "a"}).Must(t, 201)
	// The other key's caller neither sees the first answer nor is refused.
	res := s.Do("POST", "/v1/"+p.ID+"/notes", second, map[string]any{"title": "b"}, "Idempotency-Key", "shared").Must(t, 201)
	if res.Header.Get("Idempotent-Replayed") != "" || res.Data()["title"] != "b" {
		t.Fatalf("second credential got %v %s", res.Header, res.Raw)
	}
	if n := countNotes(t, s, p); n != 2 {
		t.Fatalf("rows = %d, want 2", n)
	}
}

func TestConcurrentRequestsWithOneIdempotencyKeyWriteOnce(t *testing.T) {
	t.Parallel()
	s := testserver.New(t)
	p := s.NewProject(notesSchema)

	const n = 8
	answers := make([]*testserver.Response, n)
	var wg sync.WaitGroup
	for i := range answers {
		wg.Add(1)
		go func() {
			defer wg.Done()
			answers[i] = keyed(s, p, "POST", "/notes", "together", map[string]any{"title": "once"})
		}()
	}
	wg.Wait()
	replays := 0
	for _, a := range answers {
		if a.Status != 201 || string(a.Raw) != string(answers[0].Raw) {
			t.Fatalf("answers differ: %d %s vs %s", a.Status, a.Raw, answers[0].Raw)
		}
		if a.Header.Get("Idempotent-Replayed") == "true" {
			replays++
		}
	}
	if replays != n-1 {
		t.Fatalf("replays = %d, want %d", replays, n-1)
	}
	if c := countNotes(t, s, p); c != 1 {
		t.Fatalf("rows = %d, want 1", c)
	}
}

func TestIdempotencyKeysReplayUpdatesAndDeletes(t *testing.T) {
	t.Parallel()
	s := testserver.New(t)
	p := s.NewProject(notesSchema)
	s.API(p, "POST", "/notes", map[string]any{"title": "a", "body": "one"}).Must(t, 201)

	patch := keyed(s, p, "PATCH", "/notes/1", "p1", map[string]any{"body": "two"}).Must(t, 200)
	s.API(p, "PATCH", "/notes/1", map[string]any{"body": "three"}).Must(t, 200)
	// The retry answers what the first PATCH answered and does not undo the later change.
	mustReplay(t, patch, keyed(s, p, "PATCH", "/notes/1", "p1", map[string]any{"body": "two"}))
	if got := s.API(p, "GET", "/notes/1", nil).Must(t, 200).Data()["body"]; got != "three" {
		t.Fatalf("body = %v, want three (the replay must not write)", got)
	}

	put := keyed(s, p, "PUT", "/notes/1", "u1", map[string]any{"title": "a"}).Must(t, 200)
	mustReplay(t, put, keyed(s, p, "PUT", "/notes/1", "u1", map[string]any{"title": "a"}))

	del := keyed(s, p, "DELETE", "/notes/1", "d1", nil).Must(t, 200)
	// Without the key a second delete is 404; with it, the first answer.
	s.API(p, "DELETE", "/notes/1", nil).Must(t, 404)
	mustReplay(t, del, keyed(s, p, "DELETE", "/notes/1", "d1", nil))
}

func TestAnAnswerDecidedByTheWriteIsReplayedAndOneBeforeItIsNot(t *testing.T) {
	t.Parallel()
	s := testserver.New(t)
	p := s.NewProject(notesSchema)
	s.API(p, "POST", "/notes", map[string]any{"title": "taken"}).Must(t, 201)

	// A unique conflict comes from the write: it is the answer to the key.
	conflict := keyed(s, p, "POST", "/notes", "c1", map[string]any{"title": "taken"}).Must(t, 409)
	s.API(p, "DELETE", "/notes/1", nil).Must(t, 200)
	mustReplay(t, conflict, keyed(s, p, "POST", "/notes", "c1", map[string]any{"title": "taken"}))

	// A body that fails validation never reached the write: the key stays free.
	keyed(s, p, "POST", "/notes", "v1", map[string]any{"nope": 1}).Must(t, 400)
	keyed(s, p, "POST", "/notes", "v1", map[string]any{"title": "fixed"}).Must(t, 201)
}

func TestAnExpiredIdempotencyKeyIsAFreshWriteAndIsSwept(t *testing.T) {
	t.Parallel()
	s := testserver.New(t)
	p := s.NewProject(notesSchema)
	keyed(s, p, "POST", "/notes", "old", map[string]any{"title": "a"}).Must(t, 201)
	backdate := func() {
		t.Helper()
		if _, err := s.Svc.DB.Exec(`UPDATE tablesmith.idempotency_keys SET created_at = now() - interval '24 hours 1 second' WHERE project_id = $1`, p.ID); err != nil {
			t.Fatal(err)
		}
	}
	backdate()
	// Expired: the key is free, even for another body.
	res := keyed(s, p, "POST", "/notes", "old", map[string]any{"title": "b"}).Must(t, 201)
	if res.Header.Get("Idempotent-Replayed") != "" || countNotes(t, s, p) != 2 {
		t.Fatalf("expired key replayed: %v %s", res.Header, res.Raw)
	}
	mustReplay(t, res, keyed(s, p, "POST", "/notes", "old", map[string]any{"title": "b"}))

	backdate()
	if _, err := s.Svc.Store.DeleteExpiredIdempotencyKeys(context.Background(), apihttp.IdempotencyTTL); err != nil {
		t.Fatal(err)
	}
	var left int
	if err := s.Svc.DB.QueryRow(`SELECT count(*) FROM tablesmith.idempotency_keys WHERE project_id = $1`, p.ID).Scan(&left); err != nil {
		t.Fatal(err)
	}
	if left != 0 {
		t.Fatalf("records left after the sweep = %d", left)
	}
}

func TestAnIdempotencyKeyHoldsOnAnotherNodeAndAfterARestart(t *testing.T) {
	t.Parallel()
	s := testserver.New(t)
	p := s.NewProject(notesSchema)
	first := keyed(s, p, "POST", "/notes", "across", map[string]any{"title": "a"}).Must(t, 201)
	s.Close()
	if err := s.Svc.Close(); err != nil {
		t.Fatal(err)
	}

	// A new service on the same database: new handler, registry and pools.
	again := testserver.New(t)
	mustReplay(t, first, keyed(again, p, "POST", "/notes", "across", map[string]any{"title": "a"}))
	if n := countNotes(t, again, p); n != 1 {
		t.Fatalf("rows = %d, want 1", n)
	}
}

func TestAMalformedIdempotencyKeyIs400AndWritesNothing(t *testing.T) {
	t.Parallel()
	s := testserver.New(t)
	p := s.NewProject(notesSchema)
	for name, key := range map[string]string{
		"empty":     "",
		"too long":  strings.Repeat("k", apihttp.MaxIdempotencyKey+1),
		"non-ASCII": "clé",
		"control":   "a\tb",
	} {
		res := keyed(s, p, "POST", "/notes", key, map[string]any{"title": name}).Must(t, 400)
		if res.ErrorCode() != "VALIDATION_ERROR" || res.Details()["Idempotency-Key"] == nil {
			t.Fatalf("%s key: %s", name, res.Raw)
		}
	}
	if n := countNotes(t, s, p); n != 0 {
		t.Fatalf("rows = %d, want 0", n)
	}
	// Reads ignore the header.
	s.Do("GET", "/v1/"+p.ID+"/notes", p.Key, nil, "Idempotency-Key", "").Must(t, 200)
	// The longest key and the draft's quoted form are fine; the quotes are not part of the key.
	keyed(s, p, "POST", "/notes", strings.Repeat("k", apihttp.MaxIdempotencyKey), map[string]any{"title": "long"}).Must(t, 201)
	first := keyed(s, p, "POST", "/notes", `"quoted"`, map[string]any{"title": "q"}).Must(t, 201)
	mustReplay(t, first, keyed(s, p, "POST", "/notes", "quoted", map[string]any{"title": "q"}))
}

func TestIdempotencyKeysAreRefusedForAFrontedDatabase(t *testing.T) {
	t.Parallel()
	s := testserver.New(t)
	dbURL := testpg.NewDatabase(t)
	db, err := sql.Open("postgres", dbURL)
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	if _, err := db.Exec(`CREATE SCHEMA shop; CREATE TABLE shop.items (id bigserial PRIMARY KEY, name text)`); err != nil {
		t.Fatal(err)
	}
	tok := s.Signup("front-" + store.RandomID(8) + "@example.com")
	id := s.Do("POST", "/api/projects", tok, map[string]any{"name": "Shop", "engine": "postgres_external",
		"connection": map[string]any{"url": dbURL, "schema": "shop"}}).Must(t, 201).Data()["id"].(string)
	key := s.Do("POST", "/api/projects/"+id+"/keys", tok, map[string]any{"name": "test", "scope": "read_write"}).Must(t, 201).Data()["key"].(string)

	res := s.Do("POST", "/v1/"+id+"/items", key, map[string]any{"name": "x"}, "Idempotency-Key", "k").Must(t, 400)
	if !strings.Contains(res.Message(), "not available for projects that front an existing database") {
		t.Fatalf("fronted = %s", res.Raw)
	}
	var n int
	if err := db.QueryRow(`SELECT count(*) FROM shop.items`).Scan(&n); err != nil || n != 0 {
		t.Fatalf("rows = %d (%v), want 0", n, err)
	}
	// Without the header the write works as before.
	s.Do("POST", "/v1/"+id+"/items", key, map[string]any{"name": "x"}).Must(t, 201)
}

func TestEndUsersHaveTheirOwnIdempotencyKeysAndAnonymousCallersShareOne(t *testing.T) {
	t.Parallel()
	s := testserver.New(t)
	p := s.NewProject(`{"tables": [
		{"name": "users", "auth": true, "columns": [
			{"name": "email", "type": "email", "required": true, "unique": true},
			{"name": "password_hash", "type": "password", "required": true}]},
		{"name": "diary", "owner_column": "author_id",
		 "permissions": {"read": "owner", "create": "owner", "update": "owner", "delete": "owner"},
		 "columns": [{"name": "text", "type": "text", "required": true},
			{"name": "author_id", "type": "integer", "references": {"table": "users", "on_delete": "cascade"}}]},
		{"name": "guestbook", "permissions": {"read": "public", "create": "public", "update": "public", "delete": "public"},
		 "columns": [{"name": "text", "type": "text", "required": true}]}]}`)
	token := func(email string) string {
		return s.Do("POST", "/v1/"+p.ID+"/auth/register", "", map[string]any{"email": email, "password": "correct horse battery"}).
			Must(t, 201).Data()["access_token"].(string)
	}
	ann, bob := token("ann@example.com"), token("bob@example.com")

	// The same key and body from two users: two writes, each owned by its writer.
	a := s.Do("POST", "/v1/"+p.ID+"/diary", ann, map[string]any{"text": "hi"}, "Idempotency-Key", "same").Must(t, 201)
	b := s.Do("POST", "/v1/"+p.ID+"/diary", bob, map[string]any{"text": "hi"}, "Idempotency-Key", "same").Must(t, 201)
	if b.Header.Get("Idempotent-Replayed") != "" || a.Data()["id"] == b.Data()["id"] || a.Data()["author_id"] == b.Data()["author_id"] {
		t.Fatalf("bob got ann's answer: %s / %s", a.Raw, b.Raw)
	}
	mustReplay(t, a, s.Do("POST", "/v1/"+p.ID+"/diary", ann, map[string]any{"text": "hi"}, "Idempotency-Key", "same"))

	// Callers without a credential share one scope.
	g := s.Do("POST", "/v1/"+p.ID+"/guestbook", "", map[string]any{"text": "hello"}, "Idempotency-Key", "guest").Must(t, 201)
	mustReplay(t, g, s.Do("POST", "/v1/"+p.ID+"/guestbook", "", map[string]any{"text": "hello"}, "Idempotency-Key", "guest"))
}

func TestAServerErrorIsNotRecordedAndTheKeyStaysFree(t *testing.T) {
	t.Parallel()
	s := testserver.New(t)
	p := s.NewProject(notesSchema)
	alter := func(from, to string) {
		t.Helper()
		if _, err := s.Svc.DB.Exec(`ALTER TABLE p_` + p.ID + `.notes RENAME COLUMN ` + from + ` TO ` + to); err != nil {
			t.Fatal(err)
		}
	}
	// The database changed behind Tablesmith's back: the write fails with 500.
	alter("body", "body_gone")
	keyed(s, p, "POST", "/notes", "retry-me", map[string]any{"title": "a", "body": "x"}).Must(t, 500)
	alter("body_gone", "body")

	res := keyed(s, p, "POST", "/notes", "retry-me", map[string]any{"title": "a", "body": "x"}).Must(t, 201)
	if res.Header.Get("Idempotent-Replayed") != "" || countNotes(t, s, p) != 1 {
		t.Fatalf("retry after a 500 = %v %s", res.Header, res.Raw)
	}
}
