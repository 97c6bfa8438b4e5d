package apihttp_test

import (
	"bytes"
	"fmt"
	"strconv"
	"testing"

	"github.com/tablesmith/tablesmith/internal/testserver"
)

// permsSchema has one table per permission level, each level applied to
// every operation, plus the auth table the end users come from.
const permsSchema = `{"tables": [
	{"name": "users", "auth": true, "permissions": {"read": "key", "create": "key", "update": "key", "delete": "key"}, "columns": [
		{"name": "email", "type": "email", "required": true, "unique": true},
		{"name": "password_hash", "type": "password", "required": true}]},
	{"name": "pub_notes", "permissions": {"read": "public", "create": "public", "update": "public", "delete": "public"},
	 "columns": [{"name": "title", "type": "text", "required": true}]},
	{"name": "auth_notes",
	 "columns": [{"name": "title", "type": "text", "required": true}]},
	{"name": "key_notes", "permissions": {"read": "key", "create": "key", "update": "key", "delete": "key"},
	 "columns": [{"name": "title", "type": "text", "required": true}]},
	{"name": "own_notes", "owner_column": "author_id",
	 "permissions": {"read": "owner", "create": "owner", "update": "owner", "delete": "owner"},
	 "columns": [
		{"name": "title", "type": "text", "required": true},
		{"name": "author_id", "type": "integer", "references": {"table": "users", "on_delete": "cascade"}}]},
	{"name": "mixed_notes", "owner_column": "author_id",
	 "permissions": {"read": "public", "create": "authenticated", "update": "owner", "delete": "key"},
	 "columns": [
		{"name": "title", "type": "text", "required": true},
		{"name": "author_id", "type": "integer", "references": {"table": "users", "on_delete": "cascade"}}]},
	{"name": "open_notes", "owner_column": "author_id",
	 "permissions": {"read": "public", "create": "public", "update": "authenticated", "delete": "key"},
	 "columns": [
		{"name": "title", "type": "text", "required": true},
		{"name": "author_id", "type": "integer", "references": {"table": "users", "on_delete": "cascade"}}]}]}`

// permsEnv is a project of permsSchema with every kind of credential.
type permsEnv struct {
	s        *testserver.Server
	p        *testserver.Project
	readKey  string
	ann, bob string // access tokens
	annID    float64
	bobID    float64
}

func newPermsEnv(t *testing.T) *permsEnv {
	t.Helper()
	s := testserver.New(t)
	p := s.NewProject(permsSchema)
	e := &permsEnv{s: s, p: p}
	e.readKey = s.Do("POST", "/api/projects/"+p.ID+"/keys", p.Session, map[string]any{"name": "ro", "scope": "read"}).Must(t, 201).Data()["key"].(string)
	signUp := func(email string) (string, float64) {
		d := s.Do("POST", "/v1/"+p.ID+"/auth/register", "", map[string]any{"email": email, "password": "correct horse battery"}).Must(t, 201).Data()
		return d["access_token"].(string), d["user"].(map[string]any)["id"].(float64)
	}
	e.ann, e.annID = signUp("ann@example.com")
	e.bob, e.bobID = signUp("bob@example.com")
	return e
}

func (e *permsEnv) do(method, path, token string, body any) *testserver.Response {
	return e.s.Do(method, "/v1/"+e.p.ID+path, token, body)
}

// row creates a record with the read_write key (owned by owner when the
// table has an owner column) and returns its path.
func (e *permsEnv) row(t *testing.T, table string, owner float64) string {
	t.Helper()
	body := map[string]any{"title": "original"}
	if owner != 0 {
		body["author_id"] = owner
	}
	d := e.do("POST", "/"+table, e.p.Key, body).Must(t, 201).Data()
	return "/" + table + "/" + strconv.FormatFloat(d["id"].(float64), 'f', -1, 64)
}

// opCase is one operation as the matrix runs it.
type opCase struct {
	name, method string
	item, write  bool
	ok           int
}

var matrixOps = []opCase{
	{"list", "GET", false, false, 200},
	{"get", "GET", true, false, 200},
	{"create", "POST", false, true, 201},
	{"patch", "PATCH", true, true, 200},
	{"put", "PUT", true, true, 200},
	{"delete", "DELETE", true, true, 200},
}

func TestEveryPermissionLevelForEveryOperationAndCredential(t *testing.T) {
	t.Parallel()
	e := newPermsEnv(t)
	creds := []struct{ name, token string }{
		{"none", ""}, {"read key", e.readKey}, {"read_write key", e.p.Key}, {"end user", e.ann},
	}
	// want gives the status of an operation under a level for a credential
	// (the owner rows used are the end user's own; isolation is tested apart).
	want := func(level, cred string, op opCase) int {
		switch {
		case cred == "read key" && op.write:
			return 403
		case level == "public":
			return op.ok
		case cred == "none":
			return 401
		case level == "key" && cred == "end user":
			return 403
		}
		return op.ok
	}
	for _, table := range []struct{ name, level string }{
		{"pub_notes", "public"}, {"auth_notes", "authenticated"}, {"key_notes", "key"}, {"own_notes", "owner"},
	} {
		for _, cred := range creds {
			for _, op := range matrixOps {
				t.Run(table.level+"/"+op.name+"/"+cred.name, func(t *testing.T) {
					t.Parallel()
					var owner float64
					if table.level == "owner" {
						owner = e.annID
					}
					path := "/" + table.name
					if op.item {
						path = e.row(t, table.name, owner)
					}
					var body any
					if op.method != "GET" && op.method != "DELETE" {
						body = map[string]any{"title": "changed"}
					}
					r := e.do(op.method, path, cred.token, body)
					exp := want(table.level, cred.name, op)
					if r.Status != exp {
						t.Fatalf("%s %s as %s: want %d, got %d: %s", op.method, path, cred.name, exp, r.Status, r.Raw)
					}
					wantCode := map[int]string{401: "UNAUTHORIZED", 403: "FORBIDDEN"}[exp]
					if wantCode != "" && r.ErrorCode() != wantCode {
						t.Fatalf("want %s, got %s", wantCode, r.Raw)
					}
					if op.item && op.write && exp >= 400 {
						// A refused write changed nothing.
						if got := e.do("GET", path, e.p.Key, nil).Must(t, 200).Data()["title"]; got != "original" {
							t.Fatalf("refused %s changed the row: title = %v", op.name, got)
						}
					}
					if table.level == "owner" && cred.name == "end user" && op.write && op.method != "DELETE" {
						if got := r.Data()["author_id"]; got != e.annID {
							t.Fatalf("author_id = %v, want the end user's %v", got, e.annID)
						}
					}
				})
			}
		}
	}
}

func TestOwnerRowsAreIsolatedBetweenEndUsers(t *testing.T) {
	t.Parallel()
	e := newPermsEnv(t)
	annRow := e.do("POST", "/own_notes", e.ann, map[string]any{"title": "ann's"}).Must(t, 201).Data()
	// An end user cannot create a row for someone else: the owner is theirs.
	planted := e.do("POST", "/own_notes", e.ann, map[string]any{"title": "for bob", "author_id": e.bobID}).Must(t, 201).Data()
	if annRow["author_id"] != e.annID || planted["author_id"] != e.annID {
		t.Fatalf("owner not filled: %v %v", annRow, planted)
	}
	bobPath := "/own_notes/" + strconv.FormatFloat(e.do("POST", "/own_notes", e.bob, map[string]any{"title": "bob's"}).Must(t, 201).Data()["id"].(float64), 'f', -1, 64)

	list := e.do("GET", "/own_notes", e.ann, nil).Must(t, 200).List()
	if len(list) != 2 {
		t.Fatalf("ann sees %d rows, want her 2: %v", len(list), list)
	}
	for _, rec := range list {
		if rec["author_id"] != e.annID {
			t.Fatalf("ann sees %v", rec)
		}
	}
	if rows := e.do("GET", fmt.Sprintf("/own_notes?filter[author_id]=%v", e.bobID), e.ann, nil).Must(t, 200).List(); len(rows) != 0 {
		t.Fatalf("a filter reaches bob's rows: %v", rows)
	}

	// Bob's row is, for Ann, a row that does not exist: 404, the same
	// answer as for an id that was never used.
	missing := e.do("GET", "/own_notes/999999", e.ann, nil)
	for _, c := range []struct {
		method string
		body   any
	}{{"GET", nil}, {"PATCH", map[string]any{"title": "mine now"}}, {"PUT", map[string]any{"title": "mine now"}}, {"DELETE", nil}} {
		r := e.do(c.method, bobPath, e.ann, c.body)
		if r.Status != 404 || r.ErrorCode() != "NOT_FOUND" {
			t.Fatalf("%s of bob's row as ann: want 404, got %d: %s", c.method, r.Status, r.Raw)
		}
		if c.method == "GET" && !bytes.Equal(r.Raw, missing.Raw) {
			t.Fatalf("bob's row and a missing row answer differently:\n%s\n%s", r.Raw, missing.Raw)
		}
	}
	if got := e.do("GET", bobPath, e.bob, nil).Must(t, 200).Data(); got["title"] != "bob's" {
		t.Fatalf("bob's row changed: %v", got)
	}

	// Ann cannot give her row away either.
	annPath := "/own_notes/" + strconv.FormatFloat(annRow["id"].(float64), 'f', -1, 64)
	if got := e.do("PATCH", annPath, e.ann, map[string]any{"author_id": e.bobID}).Must(t, 200).Data(); got["author_id"] != e.annID {
		t.Fatalf("owner changed by a patch: %v", got)
	}

	// API keys reach every row.
	if n := len(e.do("GET", "/own_notes", e.readKey, nil).Must(t, 200).List()); n != 3 {
		t.Fatalf("read key sees %d rows, want 3", n)
	}
	e.do("PATCH", bobPath, e.p.Key, map[string]any{"title": "by key"}).Must(t, 200)
	e.do("DELETE", bobPath, e.p.Key, nil).Must(t, 200)
}

func TestMixedRulesApplyPerOperation(t *testing.T) {
	t.Parallel()
	e := newPermsEnv(t)
	bobRow := e.row(t, "mixed_notes", e.bobID)
	annRow := e.row(t, "mixed_notes", e.annID)

	e.do("GET", "/mixed_notes", "", nil).Must(t, 200)                           // read: public
	e.do("GET", bobRow, "", nil).Must(t, 200)                                   // public read reaches every row
	e.do("POST", "/mixed_notes", "", map[string]any{"title": "x"}).Must(t, 401) // create: authenticated
	e.do("POST", "/mixed_notes", e.ann, map[string]any{"title": "x"}).Must(t, 201)
	e.do("PATCH", bobRow, e.ann, map[string]any{"title": "x"}).Must(t, 404) // update: owner
	e.do("PATCH", annRow, e.ann, map[string]any{"title": "x"}).Must(t, 200)
	e.do("DELETE", annRow, e.ann, nil).Must(t, 403) // delete: key
	e.do("DELETE", annRow, e.readKey, nil).Must(t, 403)
	e.do("DELETE", annRow, e.p.Key, nil).Must(t, 200)
}

func TestABadCredentialIsRefusedEvenOnPublicTables(t *testing.T) {
	t.Parallel()
	e := newPermsEnv(t)
	for _, tok := range []string{"nonsense", e.ann + "x", "ts_abcdefgh_" + "0123456789abcdef0123456789abcdef"} {
		r := e.do("GET", "/pub_notes", tok, nil)
		if r.Status != 401 || r.ErrorCode() != "UNAUTHORIZED" {
			t.Fatalf("token %q: want 401, got %d: %s", tok, r.Status, r.Raw)
		}
	}
}

func TestAnEndUserAlwaysOwnsWhatTheyCreateOrUpdateWhateverTheRule(t *testing.T) {
	t.Parallel()
	e := newPermsEnv(t)
	// create is "authenticated" on mixed_notes and "public" on open_notes:
	// neither lets bob make a row that belongs to ann.
	for _, table := range []string{"mixed_notes", "open_notes"} {
		d := e.do("POST", "/"+table, e.bob, map[string]any{"title": "mine?", "author_id": e.annID}).Must(t, 201).Data()
		if d["author_id"] != e.bobID {
			t.Errorf("%s: bob created a row with author_id %v, want his own id %v", table, d["author_id"], e.bobID)
		}
	}
	// update is "authenticated" on open_notes: bob may change ann's row,
	// and the change makes it his, never another user's.
	path := e.row(t, "open_notes", e.annID)
	d := e.do("PATCH", path, e.bob, map[string]any{"author_id": e.annID, "title": "edited"}).Must(t, 200).Data()
	if d["author_id"] != e.bobID {
		t.Errorf("bob's update left author_id %v, want %v", d["author_id"], e.bobID)
	}
	d = e.do("PUT", path, e.ann, map[string]any{"title": "again", "author_id": e.bobID}).Must(t, 200).Data()
	if d["author_id"] != e.annID {
		t.Errorf("ann's replace set author_id %v, want %v", d["author_id"], e.annID)
	}
}

func TestOnlyAnAPIKeySetsTheOwnerColumnFreely(t *testing.T) {
	t.Parallel()
	e := newPermsEnv(t)
	d := e.do("POST", "/open_notes", e.p.Key, map[string]any{"title": "for ann", "author_id": e.annID}).Must(t, 201).Data()
	if d["author_id"] != e.annID {
		t.Errorf("the key created a row with author_id %v, want %v", d["author_id"], e.annID)
	}
	// An anonymous create (the rule is public) may not name an owner...
	res := e.do("POST", "/open_notes", "", map[string]any{"title": "spoof", "author_id": e.annID}).Must(t, 400)
	if _, named := res.Details()["author_id"]; !named {
		t.Errorf("the refusal should name author_id, got details %v", res.Details())
	}
	// ...and without one the row belongs to nobody.
	d = e.do("POST", "/open_notes", "", map[string]any{"title": "anonymous"}).Must(t, 201).Data()
	if d["author_id"] != nil {
		t.Errorf("an anonymous row has author_id %v, want null", d["author_id"])
	}
}
