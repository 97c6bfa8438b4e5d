package apihttp_test

import (
	"context"
	"reflect"
	"testing"

	"github.com/tablesmith/tablesmith/internal/testserver"
)

func TestListFiltersOnRelatedTablesThroughToOneAndToManyRelations(t *testing.T) {
	t.Parallel()
	s := testserver.New(t)
	p := s.NewProject(librarySchema)
	seedLibrary(t, s, p)

	runListCases(t, s, p, []listCase{
		// to-one: the related row matches
		{"posts", query("filter[author.name][like]", "ann"), []int{1, 2}},
		{"posts", query("filter[author.age][gte]", "18"), []int{1, 2}},
		{"posts", query("filter[author.tier][in]", "silver,bronze"), []int{3}},
		{"posts", query("filter[author.rating][null]", "true"), []int{}},
		// to-many: some related row matches
		{"authors", query("filter[posts.title][like]", "rust"), []int{2}},
		{"authors", query("filter[posts.id][gt]", "0"), []int{1, 2}},
		// two hops, both directions
		{"authors", query("filter[posts.comments.text]", "nice"), []int{1}},
		{"comments", query("filter[post.author.name][like]", "bob"), []int{3}},
		// with the table's own filters, and inside filter=
		{"posts", query("filter[author.name][like]", "lee", "filter[title][like]", "go"), []int{2}},
		{"authors", query("filter", "posts.comments.text ~ 'hm'"), []int{2}},
		{"authors", query("filter", "posts.title ~ 'rust' or name ~ 'cara'"), []int{2, 3}},
		{"authors", query("filter", "not posts.title ~ 'o'"), []int{3, 4, 5}},
		{"posts", query("filter", "author.age > 20 and author.is_active = true"), []int{1, 2}},
		{"posts", query("filter", "author.name = null"), []int{}},
	})

	for _, c := range []struct{ table, query, param string }{
		{"posts", query("filter[author.nope]", "x"), "filter[author.nope]"},
		{"posts", query("filter[nope.name]", "x"), "filter[nope.name]"},
		{"posts", query("filter[author.age]", "old"), "filter[author.age]"},
		{"posts", query("filter[author.name][gt]x", "x"), "filter[author.name][gt]x"},
		{"posts", query("filter[author.meta][like]", "x"), "filter[author.meta][like]"},
		{"authors", query("filter[posts.comments.post.author.name]", "x"), "filter[posts.comments.post.author.name]"},
		{"posts", query("filter", "author.nope = 1"), "filter"},
		{"posts", query("filter", "author.age = 'x'"), "filter"},
		{"posts", query("filter", "author.secret_hash = 'x'"), "filter"},
	} {
		r := s.API(p, "GET", "/"+c.table+"?"+c.query, nil)
		if r.Status != 400 || r.ErrorCode() != "INVALID_QUERY" || r.Details()[c.param] == nil {
			t.Errorf("GET /%s?%s: want 400 INVALID_QUERY with details[%q], got %d %s", c.table, c.query, c.param, r.Status, r.Raw)
		}
	}
}

func TestRelatedFiltersApplyTheRelatedTablesReadRuleAndOwnerScope(t *testing.T) {
	t.Parallel()
	s := testserver.New(t)
	p := s.NewProject(membersSchema)
	execIn(t, s, p, append(membersSeed,
		`INSERT INTO $s.boards (name) VALUES ('main'), ('side')`,
		`INSERT INTO $s.pins (label, board_id, note_id) VALUES ('p1', 1, 1), ('p2', 1, 3), ('p3', 2, 2)`,
		`INSERT INTO $s.audits (what, board_id) VALUES ('created', 1)`,
	)...)
	srv, _ := countedAPI(t, s, p, membersSchema)
	base := "/v1/" + p.ID
	for _, c := range []struct {
		path, token string
		want        []int
	}{
		// a note of another user never matches, whatever its text
		{"/pins?" + query("filter[note.text][like]", "one"), "user-1", []int{1, 3}},
		{"/pins?" + query("filter[note.text][like]", "one"), "user-2", []int{}},
		{"/pins?" + query("filter", "note.text ~ 'two'"), "user-2", []int{2}},
		{"/pins?" + query("filter", "note.text ~ 'two'"), "user-1", []int{}},
		{"/pins?" + query("filter", "not note.text ~ 'two'"), "user-1", []int{1, 2, 3}},
		// through a public table to an owned one
		{"/boards?" + query("filter[pins.note.text]", "one-b"), "user-1", []int{2}},
		{"/boards?" + query("filter[pins.note.text]", "one-b"), "user-2", []int{}},
		{"/boards?" + query("filter[audits.what]", "created"), p.Key, []int{1}},
		{"/pins?" + query("filter[note.text][like]", "a"), p.Key, []int{1, 2}},
	} {
		status, body := getJSON(t, srv, base+c.path, c.token)
		arr, _ := body["data"].([]any)
		if got := idsOf(arr); status != 200 || !reflect.DeepEqual(got, c.want) {
			t.Errorf("GET %s as %q: want 200 ids %v, got %d %v", c.path, c.token, c.want, status, body)
		}
	}
	// a related table the caller may not read is 403, as include is
	for _, c := range []struct{ path, token, param string }{
		{"/boards?" + query("filter[audits.what]", "created"), "user-1", "filter[audits.what]"},
		{"/boards?" + query("filter[audits.what]", "created"), "", "filter[audits.what]"},
		{"/pins?" + query("filter[note.text]", "one-a"), "", "filter[note.text]"},
		{"/boards?" + query("filter", "pins.note.text = 'one-a'"), "", "filter"},
	} {
		status, body := getJSON(t, srv, base+c.path, c.token)
		e, _ := body["error"].(map[string]any)
		details, _ := e["details"].(map[string]any)
		if status != 403 || e["code"] != "FORBIDDEN" || details[c.param] == nil {
			t.Errorf("GET %s as %q: want 403 FORBIDDEN with details[%q], got %d %v", c.path, c.token, c.param, status, body)
		}
	}
}

// A filter through a to-many relation reads the related table by its
// reference index, not by scanning it for every outer row.
func TestRelatedFiltersReadTheReferenceIndex(t *testing.T) {
	t.Parallel()
	s := testserver.New(t)
	p := s.NewProject(sortSchema)
	ctx := context.Background()
	execIn(t, s, p,
		`INSERT INTO $s.people (age, name, born, email, code) SELECT g % 90, 'person ' || g, date '2000-01-01' + g % 9000, 'p' || g || '@example.com', 'c' || g FROM generate_series(1, 5000) g`,
		`INSERT INTO $s.notes (person_id, body) SELECT g % 5000 + 1, 'note ' || g FROM generate_series(1, 50000) g`,
		`ANALYZE $s.people`,
		`ANALYZE $s.notes`,
	)
	entry, err := s.Svc.Registry.Get(ctx, p.ID)
	if err != nil {
		t.Fatal(err)
	}
	for _, c := range []struct{ table, query, index string }{
		{"people", query("filter[age]", "7", "filter[notes.body][like]", "note 1"), "notes_person_id_sort"},
		{"notes", query("filter[body]", "note 77", "filter[person.age][gt]", "3"), "people_pkey"},
	} {
		plan := explainList(t, s.Svc.DB, buildFor(t, entry, c.table, c.query), false)
		if _, used := planNodes(t, plan); !contains(used, c.index) {
			t.Errorf("/%s?%s: plan reads indexes %v, want %s among them:\n%s", c.table, c.query, used, c.index, plan)
		}
		s.API(p, "GET", "/"+c.table+"?"+c.query, nil).Must(t, 200)
	}
}
