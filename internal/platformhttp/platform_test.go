package platformhttp_test

import (
	"context"
	"strings"
	"testing"

	"github.com/tablesmith/tablesmith/internal/testpg"
	"github.com/tablesmith/tablesmith/internal/testserver"
)

func TestMain(m *testing.M) { testpg.Main(m, "platformhttp") }

func TestSignupLoginAndAccount(t *testing.T) {
	t.Parallel()
	s := testserver.New(t)
	res := s.Do("POST", "/api/auth/signup", "", map[string]any{"email": "Dana@Example.com", "password": "longpassword", "name": "Dana"}).Must(t, 201)
	acc := res.Data()["account"].(map[string]any)
	if acc["email"] != "dana@example.com" || acc["plan"] != "unlimited" || res.Data()["token"] == "" {
		t.Fatalf("signup = %s", res.Raw)
	}
	if strings.Contains(string(res.Raw), "password") {
		t.Fatalf("signup leaks the password or its hash: %s", res.Raw)
	}
	dup := s.Do("POST", "/api/auth/signup", "", map[string]any{"email": "dana@example.com", "password": "longpassword"}).Must(t, 409)
	if dup.Details()["email"] == nil {
		t.Fatalf("duplicate = %s", dup.Raw)
	}
	bad := s.Do("POST", "/api/auth/signup", "", map[string]any{"email": "nope", "password": "short"}).Must(t, 400)
	if bad.Details()["email"] != "invalid e-mail format" || bad.Details()["password"] == nil {
		t.Fatalf("bad signup = %s", bad.Raw)
	}
	wrong := s.Do("POST", "/api/auth/login", "", map[string]any{"email": "dana@example.com", "password": "wrongpassword"}).Must(t, 401)
	unknown := s.Do("POST", "/api/auth/login", "", map[string]any{"email": "nobody@example.com", "password": "wrongpassword"}).Must(t, 401)
	if wrong.ErrorCode() != "INVALID_CREDENTIALS" || wrong.Message() != unknown.Message() {
		t.Fatalf("wrong password and unknown e-mail must answer alike: %s vs %s", wrong.Raw, unknown.Raw)
	}
	tok := s.Do("POST", "/api/auth/login", "", map[string]any{"email": "DANA@example.com", "password": "longpassword"}).Must(t, 200).Data()["token"].(string)
	me := s.Do("GET", "/api/account", tok, nil).Must(t, 200).Data()
	if me["email"] != "dana@example.com" || me["limits"] == nil || me["usage"] == nil {
		t.Fatalf("account = %v", me)
	}
	s.Do("GET", "/api/account", "", nil).Must(t, 401)
	s.Do("GET", "/api/account", tok+"x", nil).Must(t, 401)
	// The password is stored only as a hash.
	var hash string
	if err := s.Svc.DB.QueryRowContext(context.Background(), `SELECT password_hash FROM tablesmith.accounts WHERE email = 'dana@example.com'`).Scan(&hash); err != nil {
		t.Fatal(err)
	}
	if !strings.HasPrefix(hash, "$argon2id$") {
		t.Fatalf("stored password = %q", hash)
	}
}

func TestEnginesRecommendExactlyOne(t *testing.T) {
	t.Parallel()
	s := testserver.New(t)
	engines := s.Do("GET", "/api/engines", "", nil).Must(t, 200).List()
	recommended := 0
	for _, e := range engines {
		if e["recommended"] == true {
			recommended++
			if e["name"] != "postgres" || e["available"] != true {
				t.Fatalf("recommended engine = %v", e)
			}
		}
	}
	if recommended != 1 {
		t.Fatalf("%d engines recommended", recommended)
	}
}

func TestProjectsAreCreatedListedRenamedAndDeletedWithTheirSchema(t *testing.T) {
	t.Parallel()
	s := testserver.New(t)
	tok := s.Signup("pat@example.com")
	p := s.Do("POST", "/api/projects", tok, map[string]any{"name": "Shop", "engine": "postgres"}).Must(t, 201).Data()
	id := p["id"].(string)
	if !strings.HasSuffix(p["api_base_url"].(string), "/v1/"+id) || p["created_at"] == nil || p["engine"] != "postgres" {
		t.Fatalf("project = %v", p)
	}
	if !schemaExists(t, s, "p_"+id) {
		t.Fatal("project schema was not created")
	}
	if list := s.Do("GET", "/api/projects", tok, nil).Must(t, 200).List(); len(list) != 1 || list[0]["id"] != id {
		t.Fatalf("list = %v", list)
	}
	renamed := s.Do("PATCH", "/api/projects/"+id, tok, map[string]any{"name": "Shop 2"}).Must(t, 200).Data()
	if renamed["name"] != "Shop 2" {
		t.Fatalf("rename = %v", renamed)
	}
	s.Do("PATCH", "/api/projects/"+id, tok, map[string]any{"name": " "}).Must(t, 400)
	s.Do("POST", "/api/projects", tok, map[string]any{"name": "X", "engine": "oracle"}).Must(t, 400)

	// Another account cannot see it.
	stranger := s.Signup("stranger@example.com")
	s.Do("GET", "/api/projects/"+id, stranger, nil).Must(t, 404)
	s.Do("DELETE", "/api/projects/"+id, stranger, nil).Must(t, 404)

	s.Do("DELETE", "/api/projects/"+id, tok, nil).Must(t, 200)
	s.Do("GET", "/api/projects/"+id, tok, nil).Must(t, 404)
	if schemaExists(t, s, "p_"+id) {
		t.Fatal("project schema survived the delete")
	}
	// Unknown routes and methods answer in the envelope.
	if r := s.Do("GET", "/api/nothing", tok, nil).Must(t, 404); r.ErrorCode() != "NOT_FOUND" {
		t.Fatalf("unknown route = %s", r.Raw)
	}
	if r := s.Do("PUT", "/api/projects", tok, map[string]any{}).Must(t, 405); r.ErrorCode() != "METHOD_NOT_ALLOWED" || r.Header.Get("Allow") == "" {
		t.Fatalf("wrong method = %s", r.Raw)
	}
}

func schemaExists(t *testing.T, s *testserver.Server, name string) bool {
	var ok bool
	if err := s.Svc.DB.QueryRowContext(context.Background(), `SELECT EXISTS (SELECT 1 FROM pg_namespace WHERE nspname = $1)`, name).Scan(&ok); err != nil {
		t.Fatal(err)
	}
	return ok
}

func TestSchemaValidationNamesThePathOfEachProblem(t *testing.T) {
	t.Parallel()
	s := testserver.New(t)
	tok := s.Signup("val@example.com")
	id := s.Do("POST", "/api/projects", tok, map[string]any{"name": "V"}).Must(t, 201).Data()["id"].(string)
	doc := `{"tables": [
		{"name": "users", "columns": [{"name": "email", "type": "email"}]},
		{"name": "Bad Name", "columns": [
			{"name": "title", "type": "string"},
			{"name": "id", "type": "integer"},
			{"name": "owner_id", "type": "integer", "references": {"table": "ghosts"}},
			{"name": "status", "type": "enum"},
			{"name": "n", "type": "integer", "min": 5, "max": 1}]},
		{"name": "auth", "columns": []}]}`
	res := s.Do("POST", "/api/projects/"+id+"/schema/validate", tok, doc).Must(t, 400)
	want := map[string]string{
		"tables[1].name":                        "lowercase",
		"tables[1].columns[0].type":             "unknown type",
		"tables[1].columns[1].name":             "system column",
		"tables[1].columns[2].references.table": "ghosts",
		"tables[1].columns[3].values":           "at least one value",
		"tables[1].columns[4].min":              "greater than max",
		"tables[2].name":                        "reserved",
	}
	for path, sub := range want {
		msg, _ := res.Details()[path].(string)
		if !strings.Contains(msg, sub) {
			t.Errorf("details[%s] = %q, want it to mention %q", path, msg, sub)
		}
	}
	ok := s.Do("POST", "/api/projects/"+id+"/schema/validate", tok, `{"tables": [{"name": "users", "columns": [{"name": "email", "type": "email"}]}]}`).Must(t, 200)
	if ok.Data()["valid"] != true {
		t.Fatalf("valid = %s", ok.Raw)
	}
	// A draft is saved even when invalid, and says so.
	put := s.Do("PUT", "/api/projects/"+id+"/schema", tok, doc).Must(t, 200)
	meta := put.Body["meta"].(map[string]any)
	if meta["valid"] != false || meta["problems"] == nil || meta["has_unpublished_changes"] != true {
		t.Fatalf("put meta = %v", meta)
	}
	s.Do("POST", "/api/projects/"+id+"/generate", tok, map[string]any{}).Must(t, 400)
	s.Do("PUT", "/api/projects/"+id+"/schema", tok, `{"tables": [{"name": "x", "colour": 1}]}`).Must(t, 400)
}

func TestGeneratePublishesAdditiveChangesAndGuardsTheRest(t *testing.T) {
	t.Parallel()
	s := testserver.New(t)
	p := s.NewProject(`{"tables": [{"name": "users", "columns": [{"name": "email", "type": "email", "required": true}]}]}`)
	s.API(p, "POST", "/users", map[string]any{"email": "keep@example.com"}).Must(t, 201)

	// Additive: a new table with a foreign key and a new optional column.
	next := `{"tables": [
		{"name": "users", "columns": [{"name": "email", "type": "email", "required": true}, {"name": "bio", "type": "text"}]},
		{"name": "posts", "columns": [{"name": "title", "type": "text"}, {"name": "author_id", "type": "integer", "references": {"table": "users", "on_delete": "cascade"}}]}]}`
	s.Do("PUT", "/api/projects/"+p.ID+"/schema", p.Session, next).Must(t, 200)
	plan := s.Do("GET", "/api/projects/"+p.ID+"/schema/plan", p.Session, nil).Must(t, 200).Data()
	if plan["destructive"] != false || len(plan["changes"].([]any)) != 2 || len(plan["statements"].([]any)) < 3 {
		t.Fatalf("plan = %v", plan)
	}
	gen := s.Do("POST", "/api/projects/"+p.ID+"/generate", p.Session, nil).Must(t, 200).Data()
	if gen["version"] != float64(2) || len(gen["endpoints"].([]any)) < 12 {
		t.Fatalf("generate = %v", gen)
	}
	s.API(p, "POST", "/posts", map[string]any{"title": "Hi", "author_id": 1}).Must(t, 201)
	if got := s.API(p, "GET", "/users/1", nil).Must(t, 200).Data(); got["email"] != "keep@example.com" || got["bio"] != nil {
		t.Fatalf("kept record = %v", got)
	}

	// A type change is refused with a clear 409 and changes nothing.
	changed := strings.Replace(next, `{"name": "title", "type": "text"}`, `{"name": "title", "type": "integer"}`, 1)
	s.Do("PUT", "/api/projects/"+p.ID+"/schema", p.Session, changed).Must(t, 200)
	refused := s.Do("POST", "/api/projects/"+p.ID+"/generate", p.Session, map[string]any{"confirm_destructive": true}).Must(t, 409)
	if refused.ErrorCode() != "CONFLICT" || refused.Details()["posts.title"] == nil {
		t.Fatalf("type change = %s", refused.Raw)
	}

	// Dropping a table needs confirmation.
	dropped := `{"tables": [{"name": "users", "columns": [{"name": "email", "type": "email", "required": true}, {"name": "bio", "type": "text"}]}]}`
	s.Do("PUT", "/api/projects/"+p.ID+"/schema", p.Session, dropped).Must(t, 200)
	d := s.Do("POST", "/api/projects/"+p.ID+"/generate", p.Session, map[string]any{}).Must(t, 409)
	if d.ErrorCode() != "DESTRUCTIVE_CHANGE" || d.Details()["posts"] == nil {
		t.Fatalf("unconfirmed drop = %s", d.Raw)
	}
	s.API(p, "GET", "/posts/1", nil).Must(t, 200)
	s.Do("POST", "/api/projects/"+p.ID+"/generate", p.Session, map[string]any{"confirm_destructive": true}).Must(t, 200)
	s.API(p, "GET", "/posts", nil).Must(t, 404)
	s.API(p, "GET", "/users/1", nil).Must(t, 200)

	versions := s.Do("GET", "/api/projects/"+p.ID+"/schema/versions", p.Session, nil).Must(t, 200).List()
	if len(versions) != 3 || versions[0]["version"] != float64(3) || versions[2]["version"] != float64(1) {
		t.Fatalf("versions = %v", versions)
	}
}

func TestAFailedGenerateChangesNothing(t *testing.T) {
	t.Parallel()
	s := testserver.New(t)
	p := s.NewProject(`{"tables": [{"name": "users", "columns": [{"name": "email", "type": "email"}]}]}`)
	s.API(p, "POST", "/users", map[string]any{"email": "a@example.com"}).Must(t, 201)
	// A new required column without a default cannot be added to a
	// non-empty table; the new table in the same plan must not appear.
	next := `{"tables": [
		{"name": "users", "columns": [{"name": "email", "type": "email"}, {"name": "age", "type": "integer", "required": true}]},
		{"name": "tags", "columns": [{"name": "label", "type": "text"}]}]}`
	s.Do("PUT", "/api/projects/"+p.ID+"/schema", p.Session, next).Must(t, 200)
	res := s.Do("POST", "/api/projects/"+p.ID+"/generate", p.Session, nil).Must(t, 409)
	if !strings.Contains(res.Message(), "changed nothing") {
		t.Fatalf("failed generate = %s", res.Raw)
	}
	var tags bool
	if err := s.Svc.DB.QueryRowContext(context.Background(), `SELECT to_regclass($1) IS NOT NULL`, "p_"+p.ID+".tags").Scan(&tags); err != nil {
		t.Fatal(err)
	}
	if tags {
		t.Fatal("a failed generate left a table behind")
	}
	if v := s.Do("GET", "/api/projects/"+p.ID, p.Session, nil).Must(t, 200).Data()["published_version"]; v != float64(1) {
		t.Fatalf("published version = %v", v)
	}
	s.API(p, "GET", "/tags", nil).Must(t, 404)
}

func TestKeysAreShownOnceListedByPrefixAndRevocable(t *testing.T) {
	t.Parallel()
	s := testserver.New(t)
	p := s.NewProject(`{"tables": [{"name": "notes", "columns": [{"name": "body", "type": "text"}]}]}`)
	created := s.Do("POST", "/api/projects/"+p.ID+"/keys", p.Session, map[string]any{"name": "reader", "scope": "read"}).Must(t, 201).Data()
	key := created["key"].(string)
	if !strings.HasPrefix(key, created["prefix"].(string)+"_") {
		t.Fatalf("key %q does not start with its prefix %q", key, created["prefix"])
	}
	list := s.Do("GET", "/api/projects/"+p.ID+"/keys", p.Session, nil).Must(t, 200)
	if strings.Contains(string(list.Raw), key) || strings.Contains(string(list.Raw), `"hash"`) || len(list.List()) != 2 {
		t.Fatalf("list leaks or miscounts keys: %s", list.Raw)
	}
	s.Do("POST", "/api/projects/"+p.ID+"/keys", p.Session, map[string]any{"name": "x", "scope": "admin"}).Must(t, 400)
	s.Do("GET", "/v1/"+p.ID+"/notes", key, nil).Must(t, 200)
	s.Do("DELETE", "/api/projects/"+p.ID+"/keys/"+created["id"].(string), p.Session, nil).Must(t, 200)
	s.Do("GET", "/v1/"+p.ID+"/notes", key, nil).Must(t, 401)
	s.Do("DELETE", "/api/projects/"+p.ID+"/keys/"+created["id"].(string), p.Session, nil).Must(t, 404)
	// The stored hash is not the key.
	var n int
	if err := s.Svc.DB.QueryRowContext(context.Background(), `SELECT count(*) FROM tablesmith.api_keys WHERE encode(hash, 'escape') LIKE '%' || $1 || '%'`, key[12:]).Scan(&n); err != nil {
		t.Fatal(err)
	}
	if n != 0 {
		t.Fatal("a key is stored in clear")
	}
}
