package apihttp_test

import (
	"encoding/json"
	"reflect"
	"strings"
	"testing"

	"github.com/tablesmith/tablesmith/internal/testserver"
)

// groupsOf is the data array of an aggregate answer, compared as JSON so
// an integer 2 and a string "2" stay different.
func groupsOf(t *testing.T, r *testserver.Response) string {
	t.Helper()
	var body struct {
		Data json.RawMessage `json:"data"`
	}
	if err := json.Unmarshal(r.Raw, &body); err != nil {
		t.Fatal(err)
	}
	return string(body.Data)
}

func TestAggregateGroupsFilteredRowsAndKeepsNumbersExact(t *testing.T) {
	t.Parallel()
	s := testserver.New(t)
	p := s.NewProject(librarySchema)
	seedLibrary(t, s, p)

	for _, c := range []struct{ table, query, want string }{
		{"authors", "group_by=tier&count=*",
			`[{"tier":"bronze","count":1}, {"tier":"gold","count":2}, {"tier":"silver","count":1}, {"tier":null,"count":1}]`},
		// no group_by: one group of every row; integers stay integers,
		// decimals and averages of integers are exact strings
		{"authors", "count=*,rating&sum=age,balance,rating&avg=age,balance&min=born,balance,name&max=last_seen,age",
			`[{"count":5,"count_rating":3,"sum_age":122,"sum_balance":"110.49","sum_rating":12.5,"avg_age":"30.5000000000000000","avg_balance":"36.8300000000000000",` +
				`"min_born":"1994-05-01","min_balance":"0","min_name":"Ann Lee","max_last_seen":"2026-01-02T03:04:05.000000Z","max_age":45}]`},
		{"authors", "count=rating", `[{"count_rating":3}]`},
		// sort by an aggregate, then the group columns break ties
		{"authors", "group_by=is_active&sum=age&sort=-sum_age",
			`[{"is_active":true,"sum_age":75}, {"is_active":false,"sum_age":47}]`},
		{"authors", "group_by=age&count=*&sort=-count&limit=3",
			`[{"age":30,"count":2}, {"age":17,"count":1}, {"age":45,"count":1}]`},
		{"authors", "group_by=age,is_active&count=*&sort=-age&limit=2",
			`[{"age":null,"is_active":true,"count":1}, {"age":45,"is_active":true,"count":1}]`},
		{"authors", "group_by=tier&order=desc&limit=2",
			`[{"tier":null}, {"tier":"silver"}]`},
		// every list filter, filter= and search
		{"authors", "group_by=tier&count=*&" + query("filter[is_active]", "true"),
			`[{"tier":"bronze","count":1}, {"tier":"gold","count":1}, {"tier":null,"count":1}]`},
		{"authors", "count=*&" + query("filter", "age >= 30 and not tier = 'bronze'"), `[{"count":2}]`},
		{"authors", "count=*&search=lee", `[{"count":2}]`},
		// pages of groups
		{"authors", "group_by=tier&count=*&limit=2&page=2", `[{"tier":"silver","count":1}, {"tier":null,"count":1}]`},
		{"authors", "group_by=tier&count=*&limit=3&offset=3", `[{"tier":null,"count":1}]`},
		// filters on related tables work here too
		{"posts", "group_by=author_id&count=*&" + query("filter[author.name][like]", "lee"), `[{"author_id":1,"count":2}]`},
		{"authors", "count=*&" + query("filter[posts.comments.text]", "hmm"), `[{"count":1}]`},
		// nothing matches: no groups; without group_by one group of zero
		{"authors", "group_by=tier&count=*&" + query("filter[age][gt]", "99"), `[]`},
		{"authors", "count=*&sum=age&" + query("filter[age][gt]", "99"), `[{"count":0,"sum_age":null}]`},
	} {
		r := s.API(p, "GET", "/"+c.table+"/aggregate?"+c.query, nil)
		if r.Status != 200 {
			t.Errorf("GET /%s/aggregate?%s: status %d: %s", c.table, c.query, r.Status, r.Raw)
			continue
		}
		var got, want any
		if err := json.Unmarshal([]byte(groupsOf(t, r)), &got); err != nil {
			t.Fatal(err)
		}
		if err := json.Unmarshal([]byte(c.want), &want); err != nil {
			t.Fatalf("bad want %s: %v", c.want, err)
		}
		if !reflect.DeepEqual(got, want) {
			t.Errorf("GET /%s/aggregate?%s:\n got %s\nwant %s", c.table, c.query, groupsOf(t, r), c.want)
		}
		// integer results are JSON integers, not strings or floats
		if strings.Contains(c.want, `"count":`) && strings.Contains(groupsOf(t, r), `"count":"`) {
			t.Errorf("GET /%s/aggregate?%s: count is a string: %s", c.table, c.query, r.Raw)
		}
	}
	r := s.API(p, "GET", "/authors/aggregate?group_by=tier&limit=2&page=2", nil).Must(t, 200)
	if m := meta(r); !reflect.DeepEqual(m, map[string]any{"page": float64(2), "limit": float64(2), "offset": float64(2)}) {
		t.Errorf("meta = %v", m)
	}
	// the record route is still there
	if d := s.API(p, "GET", "/authors/1", nil).Must(t, 200).Data(); d["name"] != "Ann Lee" {
		t.Errorf("GET /authors/1 = %v", d)
	}
}

func TestAggregateRefusesWhatItCannotCompute(t *testing.T) {
	t.Parallel()
	s := testserver.New(t)
	p := s.NewProject(librarySchema)
	for _, c := range []struct{ query, param string }{
		{"", "group_by"},
		{"sum=name", "sum"},
		{"avg=born", "avg"},
		{"min=is_active", "min"},
		{"max=meta", "max"},
		{"sum=*", "sum"},
		{"count=nope", "count"},
		{"count=secret_hash", "count"},
		{"group_by=meta", "group_by"},
		{"group_by=nope", "group_by"},
		{"group_by=tier,tier", "group_by"},
		{"group_by=tier&sort=age", "sort"},
		{"count=*&sort=-sum_age", "sort"},
		{"group_by=tier&fields=tier", "fields"},
		{"group_by=tier&include=posts", "include"},
		{"group_by=tier&limit=1001", "limit"},
		{"group_by=tier&limit=0", "limit"},
		{"group_by=tier&page=1&offset=1", "offset"},
		{"group_by=tier&" + query("filter[age]", "x"), "filter[age]"},
		{"group_by=tier&" + query("filter", "age = "), "filter"},
		{"group_by=tier&count=tier&" + "count=*", "count"},
	} {
		r := s.API(p, "GET", "/authors/aggregate?"+c.query, nil)
		if r.Status != 400 || r.ErrorCode() != "INVALID_QUERY" || r.Details()[c.param] == nil {
			t.Errorf("GET /authors/aggregate?%s: want 400 INVALID_QUERY naming %s, got %d %s", c.query, c.param, r.Status, r.Raw)
		}
	}
	r := s.API(p, "POST", "/authors/aggregate", map[string]any{"name": "x"})
	if r.Status != 405 || r.Header.Get("Allow") != "GET, HEAD" {
		t.Errorf("POST /authors/aggregate: want 405 with Allow: GET, HEAD, got %d %v %s", r.Status, r.Header, r.Raw)
	}
}

func TestAggregateCountsOnlyTheCallersRows(t *testing.T) {
	t.Parallel()
	s := testserver.New(t)
	p := s.NewProject(membersSchema)
	execIn(t, s, p, append(membersSeed,
		`INSERT INTO $s.boards (name) VALUES ('main')`,
		`INSERT INTO $s.pins (label, board_id, note_id) VALUES ('p1', 1, 1), ('p2', 1, 3)`,
	)...)
	srv, _ := countedAPI(t, s, p, membersSchema)
	base := "/v1/" + p.ID
	for _, c := range []struct {
		path, token string
		status      int
		want        string
	}{
		{"/notes/aggregate?group_by=member_id&count=*", "user-1", 200, `[{"member_id":1,"count":2}]`},
		{"/notes/aggregate?group_by=member_id&count=*", "user-2", 200, `[{"member_id":2,"count":1}]`},
		{"/notes/aggregate?group_by=member_id&count=*", p.Key, 200, `[{"member_id":1,"count":2},{"member_id":2,"count":1}]`},
		{"/notes/aggregate?count=*", "", 401, ""},
		// related owner scope: user 2 cannot count pins by user 1's notes
		{"/pins/aggregate?count=*&" + query("filter[note.text][like]", "one"), "user-2", 200, `[{"count":0}]`},
		{"/pins/aggregate?count=*&" + query("filter[note.text][like]", "one"), "user-1", 200, `[{"count":1}]`},
		{"/pins/aggregate?count=*&" + query("filter[note.text][like]", "one"), "", 403, ""},
	} {
		status, body := getJSON(t, srv, base+c.path, c.token)
		if status != c.status {
			t.Errorf("GET %s as %q: status %d, want %d: %v", c.path, c.token, status, c.status, body)
			continue
		}
		if c.want == "" {
			continue
		}
		var want any
		if err := json.Unmarshal([]byte(c.want), &want); err != nil {
			t.Fatal(err)
		}
		if !reflect.DeepEqual(body["data"], want) {
			t.Errorf("GET %s as %q: data %v, want %s", c.path, c.token, body["data"], c.want)
		}
	}
}
