package openapi_test

import (
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"os"
	"sort"
	"strconv"
	"strings"
	"testing"

	"github.com/pb33f/libopenapi"
	validator "github.com/pb33f/libopenapi-validator"
	verrors "github.com/pb33f/libopenapi-validator/errors"

	"github.com/tablesmith/tablesmith/internal/testpg"
	"github.com/tablesmith/tablesmith/internal/testserver"
	"github.com/tablesmith/tablesmith/schema"
)

func TestMain(m *testing.M) { testpg.Main(m, "openapi") }

// allTypesSchema uses every column type and constraint, an auth table, a
// uuid key and relations both ways.
func allTypesSchema(t testing.TB) string {
	t.Helper()
	raw, err := os.ReadFile("testdata/alltypes.json")
	if err != nil {
		t.Fatal(err)
	}
	return string(raw)
}

// contract is a running project with its own document loaded into
// libopenapi-validator.
type contract struct {
	t   *testing.T
	s   *testserver.Server
	p   *testserver.Project
	c   *schema.Compiled
	v   validator.Validator
	seq int
}

func newContract(t *testing.T) *contract {
	s := testserver.New(t)
	src := allTypesSchema(t)
	p := s.NewProject(src)
	raw := s.Do("GET", "/v1/"+p.ID+"/openapi.json", "", nil).Must(t, 200).Raw
	doc, err := libopenapi.NewDocument(raw)
	if err != nil {
		t.Fatal(err)
	}
	v, errs := validator.NewValidator(doc)
	if len(errs) > 0 {
		t.Fatalf("the served document does not load: %v", errs)
	}
	d, err := schema.Parse([]byte(src))
	if err != nil {
		t.Fatal(err)
	}
	c, err := schema.Compile(d)
	if err != nil {
		t.Fatal(err)
	}
	return &contract{t: t, s: s, p: p, c: c, v: v}
}

// send makes the request, checks it against the document, sends it to the
// server and checks the answer against the document too. It returns the
// document's verdict on the request and the server's answer.
func (k *contract) send(method, path, token string, body any) (docOK bool, docErrs []*verrors.ValidationError, status int, answer map[string]any) {
	k.t.Helper()
	var raw []byte
	if body != nil {
		var err error
		if raw, err = json.Marshal(body); err != nil {
			k.t.Fatal(err)
		}
	}
	req := func() *http.Request {
		r, err := http.NewRequest(method, k.s.URL+"/v1/"+k.p.ID+path, bytes.NewReader(raw))
		if err != nil {
			k.t.Fatal(err)
		}
		if body != nil {
			r.Header.Set("Content-Type", "application/json")
		}
		if token != "" {
			r.Header.Set("Authorization", "Bearer "+token)
		}
		return r
	}
	docOK, docErrs = k.v.ValidateHttpRequestSync(req())
	res, err := http.DefaultClient.Do(req())
	if err != nil {
		k.t.Fatal(err)
	}
	resBody, _ := io.ReadAll(res.Body)
	res.Body.Close()
	_ = json.Unmarshal(resBody, &answer)
	res.Body = io.NopCloser(bytes.NewReader(resBody))
	if ok, errs := k.v.ValidateHttpResponse(req(), res); !ok {
		k.t.Errorf("%s %s answered %d with a body the document does not describe: %s\n%s", method, path, res.StatusCode, describe(errs), resBody)
	}
	return docOK, docErrs, res.StatusCode, answer
}

func describe(errs []*verrors.ValidationError) string {
	var parts []string
	for _, e := range errs {
		s := e.Message
		for _, f := range e.SchemaValidationErrors {
			s += " [" + f.FieldPath + ": " + f.Reason + "]"
		}
		parts = append(parts, s)
	}
	return strings.Join(parts, "; ")
}

// mentions reports whether the document's errors name field.
func mentions(errs []*verrors.ValidationError, field string) bool {
	for _, e := range errs {
		for _, f := range e.SchemaValidationErrors {
			if f.FieldName == field || strings.Contains(f.FieldPath, "."+field) || strings.Contains(f.Reason, "'"+field+"'") {
				return true
			}
		}
	}
	return false
}

// omit as a case value means the field is left out of the body.
type omitted struct{}

var omit = omitted{}

// bodyCase is one body to try: the base body of the table and mode with
// one field set to value (or left out).
type bodyCase struct {
	table, mode, field string
	value              any
	valid              bool
}

func (c bodyCase) String() string {
	v := fmt.Sprintf("%#v", c.value)
	if c.value == omit {
		v = "omitted"
	}
	if len(v) > 40 {
		v = v[:40] + "…"
	}
	return fmt.Sprintf("%s %s %s=%s", c.mode, c.table, c.field, v)
}

// samples says, per column type and constraints, which values the server
// accepts and which it refuses; n keeps values of unique columns apart.
func samples(col *schema.CColumn, n int) (valid, invalid []any) {
	minLen, maxLen := 0, -1
	if col.MinLength != nil {
		minLen = *col.MinLength
	}
	if n, ok := schema.MaxLength(&col.Column); ok {
		maxLen = n // a unique text column without max_length has the index's bound
	}
	uniq := func(s string) string {
		if col.Unique {
			return fmt.Sprintf("%s%d", s, n)
		}
		return s
	}
	switch col.Type {
	case schema.TypeText:
		if col.Pattern != "" { // the fixture's only pattern is ^[a-z0-9-]+$
			valid = append(valid, uniq("a-slug-"))
			invalid = append(invalid, "Not A Slug!")
		} else {
			valid = append(valid, uniq("Plain text é ✓ "))
		}
		if col.HTML {
			valid = append(valid, uniq("<p>Some <b>bold</b> text</p>"))
		}
		// Lengths count characters, not bytes: the longest value has
		// multi-byte ones (in the pattern, when there is one).
		char := "é"
		if col.Pattern != "" {
			char = "a"
		}
		if minLen > 0 {
			valid = append(valid, strings.Repeat(char, minLen))
			invalid = append(invalid, strings.Repeat("x", minLen-1))
		}
		if maxLen > 0 {
			longest := strings.Repeat(char, maxLen)
			if col.Unique { // its number in front, within the length
				tag := strconv.Itoa(n)
				longest = tag + strings.Repeat(char, maxLen-len(tag))
			}
			valid = append(valid, longest)
			invalid = append(invalid, strings.Repeat("x", maxLen+1))
		}
		invalid = append(invalid, 42, true, []any{"a"})
	case schema.TypeEmail:
		valid = append(valid, uniq("Someone")+"@Example.com", "  "+uniq("padded")+"@example.org  ")
		invalid = append(invalid, "not-an-email", "a@b", "two@@example.com", "sp ace@example.com",
			strings.Repeat("a", 250)+"@example.com", 7)
		if !col.Unique {
			// The shared e-mail rule of schema/testdata/formats.json.
			fc := formatCases()
			valid, invalid = appendStrings(valid, fc.Email.Accept), appendStrings(invalid, fc.Email.Refuse)
		}
	case schema.TypeURL:
		valid = append(valid, "https://example.com/a?b=1#c", "HTTP://EXAMPLE.COM")
		invalid = append(invalid, "ftp://example.com", "example.com", "https://", "https://exa mple.com", 1)
		// The shared cases of schema/testdata/formats.json, which the
		// document once accepted and the server refused.
		fc := formatCases()
		valid, invalid = appendStrings(valid, fc.URL.Accept), appendStrings(invalid, fc.URL.Refuse)
	case schema.TypeEnum:
		for _, v := range col.Values {
			valid = append(valid, v)
		}
		invalid = append(invalid, "nope", "", strings.ToUpper(col.Values[0]), 1)
	case schema.TypePassword:
		if minLen == 0 {
			minLen = schema.MinPasswordLength
		}
		valid = append(valid, strings.Repeat("p", minLen))
		invalid = append(invalid, strings.Repeat("p", minLen-1), 12345678)
		if maxLen > 0 {
			valid = append(valid, strings.Repeat("p", maxLen))
			invalid = append(invalid, strings.Repeat("p", maxLen+1))
		}
	case schema.TypeInteger:
		if col.References != nil {
			return nil, []any{"1", 1.5, true}
		}
		valid = append(valid, 7)
		if col.Min != nil {
			valid = append(valid, *col.Min)
			invalid = append(invalid, *col.Min-1)
		} else {
			valid = append(valid, -7)
		}
		if col.Max != nil {
			valid = append(valid, *col.Max)
			invalid = append(invalid, *col.Max+1)
		}
		invalid = append(invalid, 1.5, "3", true)
	case schema.TypeNumber:
		valid = append(valid, 2.5, 3)
		if col.Min != nil {
			valid = append(valid, *col.Min)
			invalid = append(invalid, *col.Min-0.5)
		}
		if col.Max != nil {
			valid = append(valid, *col.Max)
			invalid = append(invalid, *col.Max+0.5)
		}
		invalid = append(invalid, "2.5", false)
	case schema.TypeDecimal:
		valid = append(valid, 12.25, 3, "12.50", " 7 ", "1e2")
		if col.Min != nil {
			valid = append(valid, *col.Min)
			invalid = append(invalid, *col.Min-1)
		}
		if col.Max != nil {
			valid = append(valid, *col.Max)
			invalid = append(invalid, *col.Max+1)
		}
		invalid = append(invalid, "abc", "1,5", "0x10", "NaN", "Infinity", true, 1e300)
		fc := formatCases()
		for _, s := range fc.Decimal.Accept {
			// Within the column's bounds (0 to 1,000 in alltypes).
			if f, err := strconv.ParseFloat(strings.TrimSpace(s), 64); err == nil && (col.Min == nil || f >= *col.Min) && (col.Max == nil || f <= *col.Max) {
				valid = append(valid, s)
			}
		}
		invalid = appendStrings(invalid, fc.Decimal.Refuse)
	case schema.TypeBoolean:
		valid = append(valid, true, false)
		invalid = append(invalid, "true", 1, 0)
	case schema.TypeTimestamp:
		valid = append(valid, "2026-01-31T12:00:00Z", "2026-01-31T12:00:00.123456+02:00", "2026-12-31T23:59:59-08:00")
		invalid = append(invalid, "2026-01-31", "2026-01-31 12:00:00Z", "2026-13-01T00:00:00Z", "2026-01-31T25:00:00Z",
			"2026-01-31t12:00:00z", "2026-01-31T12:00:00", "tomorrow", 1769860800)
	case schema.TypeDate:
		valid = append(valid, "2026-02-28", "2024-02-29")
		invalid = append(invalid, "2026-2-28", "2026-13-01", "28/02/2026", "2026-02-28T00:00:00Z", 20260228)
	case schema.TypeUUID:
		valid = append(valid, "3f2504e0-4f89-11d3-9a0c-0305e82c3301", "3F2504E0-4F89-11D3-9A0C-0305E82C3301")
		invalid = append(invalid, "not-a-uuid", "3f2504e0-4f89-11d3-9a0c-0305e82c330", "3f2504e04f8911d39a0c0305e82c3301", 5)
	case schema.TypeJSON:
		valid = append(valid, map[string]any{"a": []any{1, "b", nil}}, []any{1, 2}, "text", 3.5, false)
	}
	if col.Required {
		invalid = append(invalid, nil)
	} else {
		valid = append(valid, nil)
	}
	return valid, invalid
}

// formatCases reads schema/testdata/formats.json.
func formatCases() (fc struct {
	URL, Decimal, Email struct{ Accept, Refuse []string }
}) {
	raw, err := os.ReadFile("../schema/testdata/formats.json")
	if err != nil {
		panic(err)
	}
	if err := json.Unmarshal(raw, &fc); err != nil {
		panic(err)
	}
	return fc
}

func appendStrings(to []any, s []string) []any {
	for _, v := range s {
		to = append(to, v)
	}
	return to
}

func TestDocumentAndServerAgreeOnEveryBody(t *testing.T) {
	t.Parallel()
	k := newContract(t)
	key := k.p.Key

	// Records the bodies refer to: a user for posts.author_id, a post for
	// tags.post_id, and one record per table for PUT and PATCH.
	firstValid := func(col *schema.CColumn) any {
		k.seq++
		if col.References != nil {
			return nil
		}
		valid, _ := samples(col, 100000+k.seq) // apart from the cases' values of unique columns
		return valid[0]
	}
	base := func(table, mode string, refs map[string]any) map[string]any {
		tbl, _ := k.c.Table(table)
		b := map[string]any{}
		for _, col := range tbl.Writable {
			switch {
			case col.References != nil:
				if id, ok := refs[col.References.Table]; ok {
					b[col.Input] = id
				}
			case col.Required || col.Unique:
				b[col.Input] = firstValid(col)
			}
		}
		return b
	}
	refs := map[string]any{}
	records := map[string]any{}
	for _, table := range []string{"users", "posts", "tags"} {
		_, _, status, ans := k.send("POST", "/"+table, key, base(table, "create", refs))
		if status != 201 {
			t.Fatalf("creating the %s record for the cases: %d %v", table, status, ans)
		}
		id := ans["data"].(map[string]any)["id"]
		refs[table], records[table] = id, id
	}

	var cases []bodyCase
	for _, table := range []string{"users", "posts", "tags"} {
		tbl, _ := k.c.Table(table)
		for _, mode := range []string{"create", "replace", "patch"} {
			for _, col := range tbl.Writable {
				valid, invalid := samples(col, len(cases))
				if col.References != nil {
					valid = append(valid, refs[col.References.Table])
				}
				for _, v := range valid {
					cases = append(cases, bodyCase{table, mode, col.Input, v, true})
				}
				for _, v := range invalid {
					cases = append(cases, bodyCase{table, mode, col.Input, v, false})
				}
				needed := col.Required && (mode == "replace" || mode == "create" && len(col.Default) == 0)
				cases = append(cases, bodyCase{table, mode, col.Input, omit, !needed})
			}
			cases = append(cases,
				bodyCase{table, mode, "no_such_field", 1, false},
				bodyCase{table, mode, "id", "ignored", true},
				bodyCase{table, mode, "created_at", 12, true})
		}
	}
	cases = append(cases, bodyCase{"users", "create", "password_hash", "securepassword123", false})

	agree := 0
	for i, c := range cases {
		body := base(c.table, c.mode, refs)
		if c.mode == "patch" {
			body = map[string]any{}
		}
		if c.value == omit {
			delete(body, c.field)
		} else {
			body[c.field] = c.value
		}
		if c.mode == "patch" && len(body) == 0 {
			continue // an empty patch says nothing about this field
		}
		method, path := "POST", "/"+c.table
		switch c.mode {
		case "replace":
			method, path = "PUT", fmt.Sprintf("/%s/%v", c.table, records[c.table])
		case "patch":
			method, path = "PATCH", fmt.Sprintf("/%s/%v", c.table, records[c.table])
		}
		docOK, docErrs, status, ans := k.send(method, path, key, body)
		serverOK := status >= 200 && status < 300
		switch {
		case docOK != c.valid:
			t.Errorf("case %d %v: the document says valid=%v (%s), want %v", i, c, docOK, describe(docErrs), c.valid)
		case serverOK != c.valid:
			t.Errorf("case %d %v: the server answered %d %v, want valid=%v", i, c, status, ans, c.valid)
		case !c.valid && status != 400:
			t.Errorf("case %d %v: status %d, want 400", i, c, status)
		case !c.valid:
			details, _ := ans["error"].(map[string]any)["details"].(map[string]any)
			if _, named := details[c.field]; !named {
				t.Errorf("case %d %v: the server's 400 does not name %s: %v", i, c, c.field, ans)
			}
			if !mentions(docErrs, c.field) {
				t.Errorf("case %d %v: the document's errors do not name %s: %s", i, c, c.field, describe(docErrs))
			}
			agree++
		default:
			agree++
		}
	}
	if agree < 250 {
		t.Errorf("only %d cases agreed; the generator lost cases", agree)
	}
	t.Logf("%d bodies: the document and the server agree on %d", len(cases), agree)
}

func TestDocumentDescribesEveryAnswer(t *testing.T) {
	t.Parallel()
	k := newContract(t)
	key := k.p.Key
	ok := func(method, path, token string, body any, want int) map[string]any {
		t.Helper()
		docOK, docErrs, status, ans := k.send(method, path, token, body)
		if status != want {
			t.Fatalf("%s %s: status %d, want %d: %v", method, path, status, want, ans)
		}
		if want < 400 && !docOK {
			t.Errorf("%s %s: the document refuses a request the server took: %s", method, path, describe(docErrs))
		}
		return ans
	}
	user := ok("POST", "/users", key, map[string]any{"email": "ann@example.com", "password": "securepassword123", "name": "Ann"}, 201)
	uid := user["data"].(map[string]any)["id"]
	post := ok("POST", "/posts", key, map[string]any{"title": "Hello", "featured": true, "author_id": uid,
		"price": "19.99", "metadata": map[string]any{"k": 1}, "published_at": "2026-01-31T12:00:00Z", "publish_on": "2026-02-01",
		"external_ref": "3f2504e0-4f89-11d3-9a0c-0305e82c3301", "website": "https://example.com", "pin": "1234"}, 201)
	pid := post["data"].(map[string]any)["id"]
	tag := ok("POST", "/tags", key, map[string]any{"label": "go", "post_id": pid}, 201)
	tid := tag["data"].(map[string]any)["id"]

	ok("GET", "/posts?limit=5&sort=-created_at&include=author&include=tags&filter[featured]=true&count=exact", key, nil, 200)
	ok("GET", "/users?include=posts.tags&fields=email&fields=name", key, nil, 200)
	ok("GET", "/users?include="+url.QueryEscape("posts(fields=title;sort=-title;limit=2).tags(limit=1)")+"&include=posts.author", key, nil, 200)
	ok("GET", "/users?search=ann&filter=age%20%3E%3D%200%20or%20age%20%3D%20null", key, nil, 200)
	ok("GET", fmt.Sprintf("/posts/%v", pid), key, nil, 200)
	ok("PATCH", fmt.Sprintf("/posts/%v", pid), key, map[string]any{"rating": 4.5}, 200)
	ok("GET", "/tags?count=none", key, nil, 200)
	// filter[column][op] as the document describes it, one per operator.
	ok("GET", "/users?filter[age][gte]=0&filter[age][lte]=150&filter[age][ne]=7&filter[age][in]=1,2,30&filter[age][null]=false"+
		"&filter[email][like]=ann&filter[name][eq]=Ann&filter[is_active][ne]=false&search="+strings.Repeat("%E2%82%AC", 256), key, nil, 200)
	ok("GET", "/posts?filter[price][gt]=1.5&filter[published_at][lt]=2030-01-01T00:00:00Z&filter[rating][in]=4.5,5", key, nil, 200)
	// HEAD answers as GET without a body.
	ok("HEAD", "/posts?limit=5", key, nil, 200)
	ok("HEAD", fmt.Sprintf("/posts/%v", pid), key, nil, 200)
	ok("HEAD", "/posts/999999", key, nil, 404)
	second := ok("POST", "/tags", key, map[string]any{"label": "sql", "post_id": pid}, 201)
	page := ok("GET", "/tags?limit=2&sort=-label", key, nil, 200)
	cursor, _ := page["meta"].(map[string]any)["next_cursor"].(string)
	if cursor == "" {
		t.Fatalf("a full first page has a next_cursor: %v", page)
	}
	last := ok("GET", "/tags?limit=2&sort=-label&after="+cursor, key, nil, 200)
	if m := last["meta"].(map[string]any); m["next_cursor"] != nil || m["page"] != 0.0 || len(last["data"].([]any)) != 0 {
		t.Errorf("the empty page after the last by cursor: %v", last)
	}
	ok("DELETE", fmt.Sprintf("/tags/%v", second["data"].(map[string]any)["id"]), key, nil, 200)
	ok("GET", "/posts/export?format=csv&fields=title&fields=price&sort=-created_at", key, nil, 200)
	ok("GET", "/posts/export?format=ndjson&include=author", key, nil, 200)
	ok("GET", "/tags?after="+cursor, key, nil, 400)            // another sort
	ok("GET", "/tags/export?format=csv&page=2", key, nil, 400) // exports have no pages

	// Errors are described too (send checks every answer's body).
	ok("GET", "/posts?limit=500", key, nil, 400)
	ok("GET", "/posts?include=nope", key, nil, 400)
	ok("GET", "/posts", "", nil, 401)
	ok("GET", "/posts/999999", key, nil, 404)
	ok("POST", "/users", key, map[string]any{"email": "ann@example.com", "password": "securepassword123"}, 409)
	ok("DELETE", fmt.Sprintf("/posts/%v", pid), key, nil, 409) // a tag still references it (restrict)

	// The auth group, as the end-user auth routes implement it.
	reg := ok("POST", "/auth/register", "", map[string]any{"email": "bob@example.com", "password": "bobspassword1"}, 201)
	session := reg["data"].(map[string]any)
	access := session["access_token"].(string)
	ok("GET", "/auth/me", access, nil, 200)
	ok("GET", "/auth/me", key, nil, 403)
	ok("POST", "/auth/login", "", map[string]any{"email": "bob@example.com", "password": "wrong-password"}, 401)
	ok("POST", "/auth/login", "", map[string]any{"email": "bob@example.com"}, 400)
	login := ok("POST", "/auth/login", "", map[string]any{"email": "BOB@example.com", "password": "bobspassword1"}, 200)
	refresh := login["data"].(map[string]any)["refresh_token"].(string)
	again := ok("POST", "/auth/refresh", "", map[string]any{"refresh_token": refresh}, 200)
	ok("POST", "/auth/logout", "", map[string]any{"refresh_token": again["data"].(map[string]any)["refresh_token"]}, 200)
	ok("POST", "/auth/refresh", "", map[string]any{"refresh_token": "not-a-token"}, 401)

	// Deleting the user cascades to the post, which the tag restricts.
	ok("DELETE", fmt.Sprintf("/users/%v", uid), key, nil, 409)
	ok("DELETE", fmt.Sprintf("/tags/%v", tid), key, nil, 200)
	ok("DELETE", fmt.Sprintf("/users/%v", uid), key, nil, 200)
}

// TestValidatorSeesEveryOperation guards the contract tests above: the
// validator must match every documented path, or it would approve
// requests by not finding them.
func TestValidatorSeesEveryOperation(t *testing.T) {
	t.Parallel()
	k := newContract(t)
	var missing []string
	for _, path := range []string{"/users", "/users/1", "/posts", "/posts/1", "/tags", "/auth/login"} {
		method := "GET"
		if path == "/auth/login" {
			method = "POST"
		}
		r, _ := http.NewRequest(method, k.s.URL+"/v1/"+k.p.ID+path, nil)
		r.Header.Set("Authorization", "Bearer "+k.p.Key)
		if _, errs := k.v.ValidateHttpRequestSync(r); len(errs) > 0 {
			for _, e := range errs {
				if e.IsPathMissingError() || e.IsOperationMissingError() {
					missing = append(missing, method+" "+path)
				}
			}
		}
	}
	sort.Strings(missing)
	if len(missing) > 0 {
		t.Fatalf("the validator does not find %v in the document", missing)
	}
}

// TestUndocumentedMethodsAnswer405WithTheDocumentsMethods: a path's
// description lists its methods; any other is answered 405 with an
// Allow header naming the same (apart from HEAD, which Allow leaves out).
func TestUndocumentedMethodsAnswer405WithTheDocumentsMethods(t *testing.T) {
	t.Parallel()
	k := newContract(t)
	var doc struct {
		Paths map[string]map[string]any `json:"paths"`
	}
	raw := k.s.Do("GET", "/v1/"+k.p.ID+"/openapi.json", "", nil).Must(t, 200).Raw
	if err := json.Unmarshal(raw, &doc); err != nil {
		t.Fatal(err)
	}
	for path, try := range map[string]string{"/posts": "PUT", "/posts/1": "POST"} {
		item := doc.Paths[path]
		if path == "/posts/1" {
			item = doc.Paths["/posts/{id}"]
		}
		if _, documented := item[strings.ToLower(try)]; documented {
			t.Fatalf("%s %s is documented", try, path)
		}
		var documented []string
		for _, m := range []string{"get", "post", "put", "patch", "delete"} {
			if item[m] != nil {
				documented = append(documented, strings.ToUpper(m))
			}
		}
		req, _ := http.NewRequest(try, k.s.URL+"/v1/"+k.p.ID+path, nil)
		req.Header.Set("Authorization", "Bearer "+k.p.Key)
		res, err := http.DefaultClient.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		var body struct {
			Error struct{ Code string } `json:"error"`
		}
		_ = json.NewDecoder(res.Body).Decode(&body)
		res.Body.Close()
		if res.StatusCode != 405 || body.Error.Code != "METHOD_NOT_ALLOWED" {
			t.Errorf("%s %s: %d %s, want 405 METHOD_NOT_ALLOWED", try, path, res.StatusCode, body.Error.Code)
		}
		if allow := res.Header.Get("Allow"); allow != strings.Join(documented, ", ") {
			t.Errorf("%s %s: Allow %q, the document has %v", try, path, allow, documented)
		}
		if d, _ := item["description"].(string); !strings.Contains(d, "405 METHOD_NOT_ALLOWED") {
			t.Errorf("%s description does not mention the 405: %q", path, d)
		}
	}
}
