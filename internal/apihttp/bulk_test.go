package apihttp_test

import (
	"fmt"
	"net/url"
	"testing"

	"github.com/tablesmith/tablesmith/internal/plans"
	"github.com/tablesmith/tablesmith/internal/service"
	"github.com/tablesmith/tablesmith/internal/testserver"
)

// contactsSchema has a unique column for upserts, a column with a
// default that bulk items may leave out, and a uuid key whose values say
// nothing about the order records were written in.
const contactsSchema = `{"tables": [{"name": "contacts", "id_type": "uuid", "columns": [
	{"name": "email", "type": "email", "required": true, "unique": true},
	{"name": "name", "type": "text"},
	{"name": "n", "type": "integer"},
	{"name": "status", "type": "enum", "values": ["new", "active", "gone"], "default": "new"},
	{"name": "meta", "type": "json"}]}]}`

func countRows(t *testing.T, s *testserver.Server, p *testserver.Project, table, where string) int {
	t.Helper()
	var n int
	if err := s.Svc.DB.QueryRow(`SELECT count(*) FROM p_` + p.ID + `.` + table + ` WHERE ` + where).Scan(&n); err != nil {
		t.Fatal(err)
	}
	return n
}

func contacts(from, to int) []map[string]any {
	var out []map[string]any
	for i := from; i < to; i++ {
		out = append(out, map[string]any{"email": fmt.Sprintf("c%d@example.com", i), "n": i})
	}
	return out
}

func TestBulkCreateWritesEveryRecordInTheItemsOrderWithDefaults(t *testing.T) {
	t.Parallel()
	s := testserver.New(t)
	p := s.NewProject(contactsSchema)

	items := []map[string]any{
		{"email": "Ann@Example.com", "name": "Ann", "status": "active", "meta": map[string]any{"tags": []string{"a", "<b>"}}},
		{"email": "bob@example.com"},
		{"email": "cy@example.com", "name": "Cy 'quoted' \"name\" \\ ünï", "n": 7, "meta": nil},
	}
	r := s.API(p, "POST", "/contacts", items).Must(t, 201)
	got := r.List()
	if len(got) != 3 || got[0]["email"] != "ann@example.com" || got[1]["email"] != "bob@example.com" || got[2]["email"] != "cy@example.com" {
		t.Fatalf("records = %s", r.Raw)
	}
	if got[0]["status"] != "active" || got[1]["status"] != "new" || got[1]["name"] != nil || got[2]["n"] != float64(7) {
		t.Fatalf("values or defaults wrong: %s", r.Raw)
	}
	if got[2]["name"] != "Cy 'quoted' \"name\" \\ ünï" {
		t.Fatalf("text changed on the way: %q", got[2]["name"])
	}
	if m, _ := got[0]["meta"].(map[string]any); m == nil || fmt.Sprint(m["tags"]) != "[a <b>]" {
		t.Fatalf("json column = %v", got[0]["meta"])
	}
	meta := r.Body["meta"].(map[string]any)
	if meta["created"] != float64(3) || meta["updated"] != float64(0) || r.Header.Get("Location") != "" {
		t.Fatalf("meta = %v, Location %q", meta, r.Header.Get("Location"))
	}

	// A thousand records come back in the order they were sent.
	big := s.API(p, "POST", "/contacts", contacts(0, 1000)).Must(t, 201).List()
	for i, rec := range big {
		if rec["n"] != float64(i) {
			t.Fatalf("record %d has n = %v: the answer is not in the items' order", i, rec["n"])
		}
	}
	if n := countRows(t, s, p, "contacts", "true"); n != 1003 {
		t.Fatalf("rows = %d, want 1003", n)
	}
}

func TestBulkCreateIsAllOrNothing(t *testing.T) {
	t.Parallel()
	s := testserver.New(t, testserver.WithConfig(func(c *service.Config) { c.MaxBulkRows = 5 }))
	p := s.NewProject(contactsSchema)

	cases := []struct {
		name    string
		body    any
		status  int
		code    string
		details map[string]string
	}{
		{"one invalid item names its position and field", []map[string]any{{"email": "a@example.com"}, {"email": "b@example.com"}, {"email": "nope"}, {"email": "d@example.com", "n": "x"}},
			400, "VALIDATION_ERROR", map[string]string{"2.email": "invalid e-mail format", "3.n": "must be an integer"}},
		{"unknown and missing fields", []map[string]any{{"email": "a@example.com", "colour": "red"}, {"name": "no email"}},
			400, "VALIDATION_ERROR", map[string]string{"0.colour": "unknown field", "1.email": "is required"}},
		{"an item that is not an object", `[{"email": "a@example.com"}, 3]`, 400, "VALIDATION_ERROR", map[string]string{"1": "must be a JSON object"}},
		{"an empty array", `[]`, 400, "VALIDATION_ERROR", map[string]string{"body": "must hold at least one record"}},
		{"more records than max_bulk_rows", contacts(0, 6), 400, "VALIDATION_ERROR", map[string]string{"body": "holds 6 records, more than 5"}},
		{"two items with one unique value", []map[string]any{{"email": "same@example.com"}, {"email": "same@example.com"}},
			409, "CONFLICT", map[string]string{"email": "already exists"}},
	}
	for _, c := range cases {
		r := s.API(p, "POST", "/contacts", c.body)
		if r.Status != c.status || r.ErrorCode() != c.code {
			t.Fatalf("%s: got %d %s, want %d %s: %s", c.name, r.Status, r.ErrorCode(), c.status, c.code, r.Raw)
		}
		for k, v := range c.details {
			if r.Details()[k] != v {
				t.Fatalf("%s: details[%q] = %v, want %q: %s", c.name, k, r.Details()[k], v, r.Raw)
			}
		}
		if n := countRows(t, s, p, "contacts", "true"); n != 0 {
			t.Fatalf("%s: %d rows written, want none", c.name, n)
		}
	}
	s.API(p, "POST", "/contacts", contacts(0, 5)).Must(t, 201)
}

func TestBulkCreateCountsEachRecordAgainstTheRateLimit(t *testing.T) {
	t.Parallel()
	s := testserver.New(t, testserver.WithPlans(plans.Defaults(), "free")) // 100 requests per hour
	p := s.NewProject(contactsSchema)

	r := s.API(p, "POST", "/contacts", contacts(0, 60)).Must(t, 201)
	if rem := r.Header.Get("X-RateLimit-Remaining"); rem != "40" {
		t.Fatalf("after 60 records X-RateLimit-Remaining = %q, want 40", rem)
	}
	r = s.API(p, "POST", "/contacts", contacts(60, 110))
	if r.Status != 429 || r.ErrorCode() != "RATE_LIMITED" || r.Header.Get("Retry-After") == "" {
		t.Fatalf("50 records with 40 left: %d %s", r.Status, r.Raw)
	}
	if n := countRows(t, s, p, "contacts", "true"); n != 60 {
		t.Fatalf("rows = %d, want the first 60 only", n)
	}
}

func TestUpsertUpdatesTheRowWithTheSameUniqueValueAndSaysWhich(t *testing.T) {
	t.Parallel()
	s := testserver.New(t)
	p := s.NewProject(contactsSchema)
	ann := s.API(p, "POST", "/contacts", map[string]any{"email": "ann@example.com", "name": "Ann", "n": 1}).Must(t, 201).Data()

	r := s.API(p, "POST", "/contacts?on_conflict=email", []map[string]any{
		{"email": "bob@example.com", "name": "Bob"},
		{"email": "ANN@example.com", "name": "Ann B."},
	}).Must(t, 201)
	got := r.List()
	meta := r.Body["meta"].(map[string]any)
	if fmt.Sprint(meta["results"]) != "[created updated]" || meta["created"] != float64(1) || meta["updated"] != float64(1) {
		t.Fatalf("meta = %v", meta)
	}
	if got[1]["id"] != ann["id"] || got[1]["name"] != "Ann B." || got[1]["n"] != float64(1) || got[0]["name"] != "Bob" {
		t.Fatalf("records = %s", r.Raw)
	}

	// A single record: the answer is the record, 200 when it was updated.
	one := s.API(p, "POST", "/contacts?on_conflict=email", map[string]any{"email": "bob@example.com", "status": "gone"}).Must(t, 200)
	if one.Data()["status"] != "gone" || one.Data()["name"] != "Bob" || fmt.Sprint(one.Body["meta"].(map[string]any)["results"]) != "[updated]" {
		t.Fatalf("single upsert = %s", one.Raw)
	}
	created := s.API(p, "POST", "/contacts?on_conflict=email", map[string]any{"email": "cy@example.com"}).Must(t, 201)
	if created.Header.Get("Location") != "/v1/"+p.ID+"/contacts/"+created.Data()["id"].(string) {
		t.Fatalf("Location = %q", created.Header.Get("Location"))
	}

	for _, c := range []struct {
		query, key, want string
		body             any
	}{
		{"on_conflict=name", "on_conflict", `"name" is not a unique column of contacts (unique columns: email)`, map[string]any{"email": "x@example.com"}},
		{"on_conflict=id", "on_conflict", `"id" is not a unique column of contacts (unique columns: email)`, map[string]any{"email": "x@example.com"}},
		{"on_conflict=email", "1.email", "repeats the value of record 0; with on_conflict each record needs its own",
			[]map[string]any{{"email": "d@example.com"}, {"email": "D@example.com"}}},
		// An update must not reset what a record left out to its default.
		{"on_conflict=email", "0.status", "must be given: with on_conflict every record names the same fields (record 1 names it), so an update never resets a field the record left out",
			[]map[string]any{{"email": "bob@example.com"}, {"email": "new@example.com", "status": "active"}}},
	} {
		r := s.API(p, "POST", "/contacts?"+c.query, c.body).Must(t, 400)
		if r.Details()[c.key] != c.want {
			t.Fatalf("%s: details = %v", c.query, r.Details())
		}
	}
	if n := countRows(t, s, p, "contacts", "true"); n != 3 {
		t.Fatalf("rows = %d, want 3", n)
	}
}

// ownedSchema has an owner column and a unique column, for upserts and
// writes by filter under the owner rule.
const ownedSchema = `{"tables": [
	{"name": "users", "auth": true, "columns": [
		{"name": "email", "type": "email", "required": true, "unique": true},
		{"name": "password_hash", "type": "password", "required": true}]},
	{"name": "pages", "owner_column": "author_id",
	 "permissions": {"read": "owner", "create": "owner", "update": "owner", "delete": "owner"},
	 "columns": [
		{"name": "slug", "type": "text", "required": true, "unique": true},
		{"name": "title", "type": "text"},
		{"name": "views", "type": "integer", "default": 0},
		{"name": "author_id", "type": "integer", "references": {"table": "users", "on_delete": "cascade"}}]}]}`

func ownedEnv(t *testing.T) (s *testserver.Server, p *testserver.Project, ann, bob string) {
	t.Helper()
	s = testserver.New(t)
	p = s.NewProject(ownedSchema)
	signUp := func(email string) string {
		return s.Do("POST", "/v1/"+p.ID+"/auth/register", "", map[string]any{"email": email, "password": "correct horse battery"}).Must(t, 201).Data()["access_token"].(string)
	}
	return s, p, signUp("ann@example.com"), signUp("bob@example.com")
}

func TestAnUpsertNeverChangesAnotherUsersRow(t *testing.T) {
	t.Parallel()
	s, p, ann, bob := ownedEnv(t)
	v1 := "/v1/" + p.ID
	s.Do("POST", v1+"/pages", ann, []map[string]any{{"slug": "home", "title": "Ann's"}, {"slug": "about"}}).Must(t, 201)

	r := s.Do("POST", v1+"/pages?on_conflict=slug", bob, []map[string]any{{"slug": "bob-1", "title": "new"}, {"slug": "home", "title": "Bob's now"}})
	if r.Status != 409 || r.ErrorCode() != "CONFLICT" || r.Details()["slug"] != "already exists in a record you may not change" {
		t.Fatalf("bob's upsert over ann's row: %d %s", r.Status, r.Raw)
	}
	if n := countRows(t, s, p, "pages", "slug = 'bob-1' OR title = 'Bob''s now'"); n != 0 {
		t.Fatalf("%d rows of the refused upsert were written", n)
	}
	// Ann upserts her own: the owner rule keeps her the owner.
	up := s.Do("POST", v1+"/pages?on_conflict=slug", ann, []map[string]any{{"slug": "home", "title": "Ann's v2"}, {"slug": "blog", "title": "Blog"}}).Must(t, 201)
	if fmt.Sprint(up.Body["meta"].(map[string]any)["results"]) != "[updated created]" || up.List()[0]["title"] != "Ann's v2" {
		t.Fatalf("ann's upsert = %s", up.Raw)
	}
}

func TestUpdateAndDeleteByFilterChangeOnlyMatchingRows(t *testing.T) {
	t.Parallel()
	s := testserver.New(t)
	p := s.NewProject(contactsSchema)
	s.API(p, "POST", "/contacts", contacts(0, 20)).Must(t, 201) // n = 0..19, status new

	r := s.API(p, "PATCH", "/contacts?filter[n][lt]=5", map[string]any{"status": "active", "id": "ignored"}).Must(t, 200)
	if r.Data()["affected"] != float64(5) || countRows(t, s, p, "contacts", "status = 'active'") != 5 {
		t.Fatalf("patch by field filter = %s", r.Raw)
	}
	expr := url.QueryEscape("n >= 15 and (status = 'new' or n = 0)")
	r = s.API(p, "PATCH", "/contacts?filter="+expr, map[string]any{"name": "late"}).Must(t, 200)
	if r.Data()["affected"] != float64(5) || countRows(t, s, p, "contacts", "name = 'late' AND n >= 15") != 5 {
		t.Fatalf("patch by expression = %s", r.Raw)
	}
	r = s.API(p, "PATCH", "/contacts?search=c1%40", map[string]any{"meta": map[string]any{"x": 1}}).Must(t, 200)
	if r.Data()["affected"] != float64(1) {
		t.Fatalf("patch by search = %s", r.Raw)
	}

	// max_affected refuses, and nothing changes.
	r = s.API(p, "DELETE", "/contacts?filter[status]=new&max_affected=3", nil).Must(t, 400)
	if r.ErrorCode() != "INVALID_QUERY" || r.Details()["max_affected"] != "15 records match, more than max_affected=3; nothing was deleted" {
		t.Fatalf("max_affected = %s", r.Raw)
	}
	if n := countRows(t, s, p, "contacts", "true"); n != 20 {
		t.Fatalf("rows = %d after a refused delete", n)
	}
	r = s.API(p, "DELETE", "/contacts?filter[status]=new&max_affected=15", nil).Must(t, 200)
	if r.Data()["affected"] != float64(15) || countRows(t, s, p, "contacts", "true") != 5 {
		t.Fatalf("delete = %s", r.Raw)
	}
	r = s.API(p, "DELETE", "/contacts?filter[n][gt]=100", nil).Must(t, 200)
	if r.Data()["affected"] != float64(0) {
		t.Fatalf("delete of nothing = %s", r.Raw)
	}

	for _, c := range []struct {
		method, query, key, code string
		body                     any
	}{
		{"DELETE", "", "filter", "INVALID_QUERY", nil},
		{"PATCH", "", "filter", "INVALID_QUERY", map[string]any{"name": "all"}},
		{"DELETE", "?filter=", "filter", "INVALID_QUERY", nil},
		{"DELETE", "?filter[n][gt]=1&limit=1", "limit", "INVALID_QUERY", nil},
		{"DELETE", "?filter[nope]=1", "filter[nope]", "INVALID_QUERY", nil},
		{"DELETE", "?filter[n]=1&max_affected=0", "max_affected", "INVALID_QUERY", nil},
		{"PATCH", "?filter[n]=1", "n", "VALIDATION_ERROR", map[string]any{"n": "one"}},
		{"PATCH", "?filter[n]=1", "body", "VALIDATION_ERROR", map[string]any{}},
	} {
		r := s.API(p, c.method, "/contacts"+c.query, c.body)
		if r.Status != 400 || r.ErrorCode() != c.code || r.Details()[c.key] == nil {
			t.Fatalf("%s %s: %d %s", c.method, c.query, r.Status, r.Raw)
		}
	}
	if n := countRows(t, s, p, "contacts", "true"); n != 5 {
		t.Fatalf("rows = %d after refused writes, want 5", n)
	}
	put := s.API(p, "PUT", "/contacts?filter[n]=1", map[string]any{})
	if put.Status != 405 || put.Header.Get("Allow") != "GET, POST, PATCH, DELETE" {
		t.Fatalf("PUT on a collection: %d %v", put.Status, put.Header)
	}
}

func TestWritesByFilterReachOnlyTheCallersRows(t *testing.T) {
	t.Parallel()
	s, p, ann, bob := ownedEnv(t)
	v1 := "/v1/" + p.ID
	s.Do("POST", v1+"/pages", ann, []map[string]any{{"slug": "a1"}, {"slug": "a2"}}).Must(t, 201)
	s.Do("POST", v1+"/pages", bob, []map[string]any{{"slug": "b1"}, {"slug": "b2"}, {"slug": "b3"}}).Must(t, 201)

	r := s.Do("PATCH", v1+"/pages?filter[views][gte]=0", bob, map[string]any{"views": 9}).Must(t, 200)
	if r.Data()["affected"] != float64(3) || countRows(t, s, p, "pages", "views = 9") != 3 || countRows(t, s, p, "pages", "views = 9 AND slug LIKE 'a%'") != 0 {
		t.Fatalf("bob's patch by filter = %s", r.Raw)
	}
	// max_affected counts only the rows the caller may change.
	r = s.Do("DELETE", v1+"/pages?filter[slug][like]=&max_affected=2", ann, nil).Must(t, 200)
	if r.Data()["affected"] != float64(2) || countRows(t, s, p, "pages", "true") != 3 {
		t.Fatalf("ann's delete by filter = %s", r.Raw)
	}
	s.Do("DELETE", v1+"/pages?filter[slug]=b1", "", nil).Must(t, 401)
}

func TestAnIdempotencyKeyReplaysABulkCreate(t *testing.T) {
	t.Parallel()
	s := testserver.New(t)
	p := s.NewProject(contactsSchema)
	first := keyed(s, p, "POST", "/contacts", "batch-1", contacts(0, 3)).Must(t, 201)
	again := keyed(s, p, "POST", "/contacts", "batch-1", contacts(0, 3))
	mustReplay(t, first, again)
	if n := countRows(t, s, p, "contacts", "true"); n != 3 {
		t.Fatalf("rows = %d, want 3", n)
	}
	// Another body, or the same body as an upsert, is another request.
	if r := keyed(s, p, "POST", "/contacts", "batch-1", contacts(0, 4)); r.Status != 422 {
		t.Fatalf("other items with the key: %d %s", r.Status, r.Raw)
	}
	if r := keyed(s, p, "POST", "/contacts?on_conflict=email", "batch-1", contacts(0, 3)); r.Status != 422 {
		t.Fatalf("an upsert with the key of a create: %d %s", r.Status, r.Raw)
	}
	up := keyed(s, p, "POST", "/contacts?on_conflict=email", "batch-2", contacts(2, 4)).Must(t, 201)
	mustReplay(t, up, keyed(s, p, "POST", "/contacts?on_conflict=email", "batch-2", contacts(2, 4)))
	del := keyed(s, p, "DELETE", "/contacts?filter[n][lt]=2", "del-1", nil).Must(t, 200)
	mustReplay(t, del, keyed(s, p, "DELETE", "/contacts?filter[n][lt]=2", "del-1", nil))
	if n := countRows(t, s, p, "contacts", "true"); n != 2 || del.Data()["affected"] != float64(2) {
		t.Fatalf("rows = %d after delete %s", n, del.Raw)
	}
}
