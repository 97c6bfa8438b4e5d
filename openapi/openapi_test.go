package openapi

import (
	"bytes"
	"encoding/json"
	"fmt"
	"os"
	"reflect"
	"regexp"
	"slices"
	"sort"
	"strings"
	"sync"
	"testing"

	"github.com/pb33f/libopenapi"
	validator "github.com/pb33f/libopenapi-validator"
	"go.yaml.in/yaml/v4"

	"github.com/tablesmith/tablesmith/schema"
)

// compileFile compiles a schema document from testdata.
func compileFile(t testing.TB, name string) *schema.Compiled {
	t.Helper()
	raw, err := os.ReadFile("testdata/" + name)
	if err != nil {
		t.Fatal(err)
	}
	return compileJSON(t, string(raw))
}

func compileJSON(t testing.TB, doc string) *schema.Compiled {
	t.Helper()
	d, err := schema.Parse([]byte(doc))
	if err != nil {
		t.Fatal(err)
	}
	c, err := schema.Compile(d)
	if err != nil {
		t.Fatal(err)
	}
	return c
}

// renderMap renders c and decodes the JSON document into a map.
func renderMap(t testing.TB, c *schema.Compiled) map[string]any {
	t.Helper()
	doc, err := Render(c, Options{ProjectID: "abc123def456", Version: 7})
	if err != nil {
		t.Fatal(err)
	}
	var m map[string]any
	if err := json.Unmarshal(doc.JSON(), &m); err != nil {
		t.Fatalf("rendered JSON does not parse: %v", err)
	}
	return m
}

// at walks a decoded document by keys.
func at(t testing.TB, v any, path ...string) any {
	t.Helper()
	for i, k := range path {
		m, ok := v.(map[string]any)
		if !ok {
			t.Fatalf("%s is not an object", strings.Join(path[:i], "."))
		}
		if v, ok = m[k]; !ok {
			t.Fatalf("%s has no %q", strings.Join(path[:i], "."), k)
		}
	}
	return v
}

// deref follows a $ref into the document's components, so a check sees
// what a validator sees wherever the shape lives.
func deref(t testing.TB, m map[string]any, v any) map[string]any {
	t.Helper()
	o, ok := v.(map[string]any)
	if !ok {
		t.Fatalf("%v is not an object", v)
	}
	if ref, ok := o["$ref"].(string); ok {
		return deref(t, m, at(t, m, strings.Split(strings.TrimPrefix(ref, "#/"), "/")...))
	}
	return o
}

// schemaProps are the properties of a component schema, with those of the
// schemas it takes in through allOf.
func schemaProps(t testing.TB, m map[string]any, name string) map[string]any {
	t.Helper()
	out := map[string]any{}
	var walk func(s map[string]any)
	walk = func(s map[string]any) {
		props, _ := s["properties"].(map[string]any)
		for k, v := range props {
			out[k] = deref(t, m, v)
		}
		all, _ := s["allOf"].([]any)
		for _, sub := range all {
			walk(deref(t, m, sub))
		}
	}
	walk(deref(t, m, at(t, m, "components", "schemas", name)))
	return out
}

func strs(v any) []string {
	var out []string
	for _, x := range v.([]any) {
		out = append(out, x.(string))
	}
	return out
}

func TestSingularizeReadsAsEnglish(t *testing.T) {
	t.Parallel()
	for plural, want := range map[string]string{
		"users": "user", "categories": "category", "boxes": "box", "order_items": "order_item",
		"addresses": "address", "status": "status", "people": "person", "batches": "batch",
		"news": "news", "user": "user", "classes": "class", "data": "data",
	} {
		if got := singularize(plural); got != want {
			t.Errorf("singularize(%q) = %q, want %q", plural, got, want)
		}
	}
}

func TestOperationIDsAndTagsMakeGoodClientNames(t *testing.T) {
	t.Parallel()
	m := renderMap(t, compileFile(t, "alltypes.json"))
	want := map[string]string{
		"get /users": "listUsers", "post /users": "createUser", "get /users/{id}": "getUser",
		"put /users/{id}": "replaceUser", "patch /users/{id}": "updateUser", "delete /users/{id}": "deleteUser",
		"get /posts": "listPosts", "post /posts": "createPost", "get /tags/{id}": "getTag",
		"post /auth/register": "register", "post /auth/login": "login", "post /auth/refresh": "refreshToken",
		"post /auth/logout": "logout", "get /auth/me": "getCurrentUser",
		"head /users": "headListUsers", "head /users/{id}": "headGetUser",
	}
	seen := map[string]string{}
	for path, item := range at(t, m, "paths").(map[string]any) {
		for method, op := range item.(map[string]any) {
			if method == "parameters" || method == "description" {
				continue
			}
			id, _ := op.(map[string]any)["operationId"].(string)
			key := method + " " + path
			if prev, dup := seen[id]; dup {
				t.Errorf("operationId %q on %s and %s", id, prev, key)
			}
			seen[id] = key
			tags := strs(op.(map[string]any)["tags"])
			wantTag := strings.Split(path, "/")[1]
			if len(tags) != 1 || tags[0] != wantTag {
				t.Errorf("%s tags = %v, want [%s]", key, tags, wantTag)
			}
		}
	}
	for key, id := range want {
		if seen[id] != key {
			t.Errorf("operationId %q is on %q, want %q", id, seen[id], key)
		}
	}
	for _, name := range []string{"User", "UserCreate", "UserReplace", "UserUpdate", "UserResponse", "UserListResponse", "Post", "Tag", "Error", "ListMeta"} {
		at(t, m, "components", "schemas", name)
	}
}

func TestNamesNeverCollide(t *testing.T) {
	t.Parallel()
	c := compileJSON(t, `{"tables": [
		{"name": "user", "columns": [{"name": "a", "type": "text"}]},
		{"name": "users", "columns": [{"name": "a", "type": "text"}]},
		{"name": "errors", "columns": [{"name": "a", "type": "text"}]},
		{"name": "error", "columns": [{"name": "a", "type": "text"}]},
		{"name": "current_users", "columns": [{"name": "a", "type": "text"}]}]}`)
	names := allocateNames(c)
	seen := map[string]string{}
	for _, fixed := range fixedComponentNames {
		seen[strings.ToLower(fixed)] = "fixed"
	}
	for table, n := range names {
		for _, name := range n.all() {
			if prev, dup := seen[strings.ToLower(name)]; dup {
				t.Errorf("%s of table %s collides with %s", name, table, prev)
			}
			seen[strings.ToLower(name)] = table
		}
	}
	if names["user"].GetOp != "getUser" || names["users"].ListOp != "listUsers" || names["users"].Record != "Users" {
		t.Errorf("user/users names: %+v / %+v", names["user"], names["users"])
	}
	m := renderMap(t, c) // and the document still renders
	at(t, m, "components", "schemas", "Error", "properties", "error")
}

func TestRequestSchemasFollowEachWriteMode(t *testing.T) {
	t.Parallel()
	m := renderMap(t, compileFile(t, "alltypes.json"))
	required := func(name string) []string {
		r, ok := at(t, m, "components", "schemas", name).(map[string]any)["required"]
		if !ok {
			return nil
		}
		out := strs(r)
		sort.Strings(out)
		return out
	}
	for name, want := range map[string][]string{
		"PostCreate":  {"featured", "title"},                      // required without a default
		"PostReplace": {"featured", "settings", "title", "views"}, // every required column
		"PostUpdate":  nil,
		"UserCreate":  {"email", "password"}, // password_hash is written as password
	} {
		if got := required(name); !reflect.DeepEqual(got, want) {
			t.Errorf("%s required = %v, want %v", name, got, want)
		}
	}
	// Create and Replace take the Update body's fields through allOf; the
	// Update body refuses any other field, so they do too.
	for _, name := range []string{"PostUpdate", "UserUpdate"} {
		if ap := at(t, m, "components", "schemas", name, "additionalProperties"); ap != false {
			t.Errorf("%s additionalProperties = %v, want false (unknown fields are refused)", name, ap)
		}
	}
	for name, update := range map[string]string{"PostCreate": "PostUpdate", "PostReplace": "PostUpdate", "UserCreate": "UserUpdate"} {
		all := at(t, m, "components", "schemas", name, "allOf").([]any)
		if len(all) != 1 || all[0].(map[string]any)["$ref"] != "#/components/schemas/"+update {
			t.Errorf("%s allOf = %v, want the %s body", name, all, update)
		}
	}
	props := schemaProps(t, m, "UserCreate")
	if _, ok := props["password_hash"]; ok {
		t.Error("UserCreate lists password_hash; the body field is password")
	}
	pw := props["password"].(map[string]any)
	if pw["writeOnly"] != true || pw["minLength"] != float64(schema.MinPasswordLength) || pw["format"] != "password" {
		t.Errorf("password = %v", pw)
	}
	for _, sys := range []string{"id", "created_at", "updated_at"} {
		if p, ok := props[sys].(map[string]any); !ok || p["readOnly"] != true {
			t.Errorf("UserCreate.%s = %v, want a read-only property (sent, it is ignored)", sys, props[sys])
		}
	}
	user := schemaProps(t, m, "User")
	if _, leaked := user["password_hash"]; leaked {
		t.Error("the User record lists password_hash, which is never returned")
	}
	if _, leaked := user["password"]; leaked {
		t.Error("the User record lists password, which is never returned")
	}
	post := schemaProps(t, m, "PostCreate")
	checks := map[string]map[string]any{
		"title":        {"minLength": float64(3), "maxLength": float64(80), "type": "string"},
		"slug":         {"pattern": "^[a-z0-9-]+$"},
		"status":       {"enum": []any{"draft", "published", "archived"}, "examples": []any{"draft"}},
		"rating":       {"minimum": float64(0), "maximum": float64(5)},
		"views":        {"type": "integer", "minimum": float64(0), "examples": []any{float64(0)}},
		"published_at": {"format": "date-time", "pattern": schema.DateTimePattern},
		"publish_on":   {"format": "date", "pattern": schema.DatePattern},
		"contact":      {"format": "email", "pattern": emailPattern, "maxLength": float64(emailMaxLength)},
		"website":      {"format": "uri", "pattern": urlPattern},
		"external_ref": {"format": "uuid", "pattern": schema.UUIDPattern},
		"pin":          {"writeOnly": true, "minLength": float64(4), "maxLength": float64(12)},
		"price":        {"pattern": decimalPattern},
	}
	for col, kv := range checks {
		p := merged(post[col].(map[string]any))
		for k, want := range kv {
			if !reflect.DeepEqual(p[k], want) {
				t.Errorf("PostCreate.%s.%s = %v, want %v", col, k, p[k], want)
			}
		}
	}
	if typ := post["featured"].(map[string]any)["type"]; typ != "boolean" {
		t.Errorf("a required column is not nullable: featured type = %v", typ)
	}
	// Nullable is anyOf [the value, {type: 'null'}], never a type array:
	// oapi-codegen and ogen refuse type arrays.
	if got := branchTypes(post["rating"].(map[string]any)); !reflect.DeepEqual(got, []string{"number", "null"}) {
		t.Errorf("an optional column takes null: rating anyOf types = %v", got)
	}
	if got := branchTypes(post["price"].(map[string]any)); !reflect.DeepEqual(got, []string{"number", "string", "null"}) {
		t.Errorf("an optional decimal is a number, a string or null: price anyOf types = %v", got)
	}
	if p := post["metadata"].(map[string]any); p["type"] != nil || p["anyOf"] != nil {
		t.Errorf("an optional json column takes any value: %v", p)
	}
	if not := at(t, post["settings"], "not", "type"); not != "null" {
		t.Errorf("a required json column takes any value but null: not.type = %v", not)
	}
}

// merged is a property's schema with the keywords of its typed anyOf
// branches brought up beside its annotations, for checks that do not
// care which branch a keyword sits in.
func merged(p map[string]any) map[string]any {
	out := map[string]any{}
	for k, v := range p {
		if k != "anyOf" {
			out[k] = v
		}
	}
	branches, _ := p["anyOf"].([]any)
	for _, b := range branches {
		for k, v := range b.(map[string]any) {
			if _, ok := out[k]; !ok && !(k == "type" && v == "null") {
				out[k] = v
			}
		}
	}
	return out
}

// branchTypes lists the types of a schema's anyOf branches.
func branchTypes(p map[string]any) []string {
	var out []string
	branches, _ := p["anyOf"].([]any)
	for _, b := range branches {
		out = append(out, fmt.Sprint(b.(map[string]any)["type"]))
	}
	return out
}

// eachObject calls fn with every JSON object in v and its path from "#".
func eachObject(v any, path string, fn func(path string, object map[string]any)) {
	switch x := v.(type) {
	case map[string]any:
		fn(path, x)
		for k, c := range x {
			eachObject(c, path+"/"+k, fn)
		}
	case []any:
		for i, c := range x {
			eachObject(c, fmt.Sprintf("%s/%d", path, i), fn)
		}
	}
}

// No schema anywhere in a document has a type array.
func TestNoSchemaHasSeveralTypes(t *testing.T) {
	t.Parallel()
	for _, file := range []string{"alltypes.json", "books.json"} {
		eachObject(renderMap(t, compileFile(t, file)), "#", func(path string, x map[string]any) {
			if typ, ok := x["type"].([]any); ok {
				t.Errorf("%s: %s has type %v", file, path, typ)
			}
		})
	}
}

// Every number is a double: oapi-codegen types a number without a format
// as float32, which rounds a decimal such as 1234567.89 to 1234567.9.
func TestEveryNumberIsADouble(t *testing.T) {
	t.Parallel()
	numbers := 0
	eachObject(renderMap(t, compileFile(t, "alltypes.json")), "#", func(path string, x map[string]any) {
		if x["type"] != "number" {
			return
		}
		numbers++
		if x["format"] != "double" {
			t.Errorf("%s is a number with format %v, want double", path, x["format"])
		}
	})
	if numbers < 4 {
		t.Errorf("found %d number schemas; alltypes.json has decimal and number columns, their filters and aggregates", numbers)
	}
}

// Found by internal/schemafuzz: a required column whose default is null
// has no default (its DDL has none, and the server asks for it), but the
// document left it out of the create body's required fields.
func TestARequiredColumnWithANullDefaultIsRequiredOnCreate(t *testing.T) {
	t.Parallel()
	m := renderMap(t, compileJSON(t, `{"tables": [{"name": "notes", "columns": [
		{"name": "body", "type": "json", "required": true, "default": null},
		{"name": "kind", "type": "text", "required": true, "default": "plain"}]}]}`))
	if got := strs(at(t, m, "components", "schemas", "NoteCreate", "required")); !reflect.DeepEqual(got, []string{"body"}) {
		t.Errorf("NoteCreate required = %v, want [body]: a null default is no default", got)
	}
}

func TestListParametersCoverFiltersIncludeAndFields(t *testing.T) {
	t.Parallel()
	m := renderMap(t, compileFile(t, "alltypes.json"))
	params := map[string]map[string]any{}
	// The filters are GET's (no path-level ones remain: POST would inherit them).
	pathParams, _ := at(t, m, "paths", "/users").(map[string]any)["parameters"].([]any)
	for _, p := range append(at(t, m, "paths", "/users", "get", "parameters").([]any), pathParams...) {
		pm := p.(map[string]any)
		if ref, ok := pm["$ref"].(string); ok {
			name := strings.TrimPrefix(ref, "#/components/parameters/")
			pm = at(t, m, "components", "parameters", name).(map[string]any)
		}
		params[pm["name"].(string)] = pm
	}
	for _, want := range []string{"page", "limit", "offset", "sort", "order", "filter", "search", "include", "fields", "count",
		"filter[id]", "filter[email]", "filter[age]", "filter[is_active]", "filter[created_at]"} {
		if _, ok := params[want]; !ok {
			t.Errorf("listUsers lacks parameter %s", want)
		}
	}
	if _, ok := params["filter[password_hash]"]; ok {
		t.Error("password columns cannot be filtered")
	}
	if typ := deref(t, m, at(t, params["filter[age]"], "schema"))["type"]; typ != "integer" {
		t.Errorf("filter[age] type = %v", typ)
	}
	limit := params["limit"]["schema"].(map[string]any)
	if limit["minimum"] != float64(1) || limit["maximum"] != float64(100) || limit["default"] != float64(20) {
		t.Errorf("limit = %v", limit)
	}
	// users has posts (reverse of posts.author_id); posts has author and tags.
	includeItem := at(t, params["include"], "schema", "items")
	if typ := at(t, includeItem, "type"); typ != "string" {
		t.Errorf("an include path is one string schema, got type %v", typ)
	}
	include := strs(at(t, includeItem, "examples"))
	withOptions := regexp.MustCompile(at(t, includeItem, "pattern").(string))
	for _, s := range []string{"posts(limit=5)", "posts(fields=title;sort=-title;limit=5).tags", "posts.tags(sort=name)"} {
		if !withOptions.MatchString(s) {
			t.Errorf("include item %q does not match the options pattern %s", s, withOptions)
		}
	}
	for _, s := range []string{"posts(limit=5,sort=x)", "posts(", "a.b.c.d", "Posts"} {
		if withOptions.MatchString(s) {
			t.Errorf("include item %q matches the options pattern %s", s, withOptions)
		}
	}
	for _, want := range []string{"posts", "posts.author", "posts.tags", "posts.tags.post"} {
		if !contains(include, want) {
			t.Errorf("include examples lack %q: %v", want, include)
		}
		if !withOptions.MatchString(want) {
			t.Errorf("plain path %q does not match the pattern %s", want, withOptions)
		}
	}
	if contains(include, "posts.tags.post.author") {
		t.Errorf("include nests at most 3 levels: %v", include)
	}
	// What default serializers send for an array: include=a&include=b.
	for _, name := range []string{"include", "fields"} {
		if params[name]["style"] != "form" || params[name]["explode"] != true {
			t.Errorf("%s is form, explode true: %v", name, params[name])
		}
	}
	fields := strs(at(t, params["fields"], "schema", "items", "enum"))
	if contains(fields, "password_hash") || !contains(fields, "email") {
		t.Errorf("fields enum = %v", fields)
	}
}

func contains(list []string, s string) bool {
	for _, x := range list {
		if x == s {
			return true
		}
	}
	return false
}

func TestEveryOperationDocumentsItsErrorsWithExamples(t *testing.T) {
	t.Parallel()
	m := renderMap(t, compileFile(t, "alltypes.json"))
	want := map[string][]string{
		"post /posts":           {"200", "201", "204", "400", "401", "403", "404", "409", "412", "413", "415", "422", "429", "500", "503"}, // 200: an upsert on slug that only updated (204 minimal); 412: If-None-Match: *
		"patch /posts":          {"200", "400", "401", "403", "404", "409", "413", "415", "422", "429", "500", "503"},
		"delete /posts":         {"200", "400", "401", "403", "404", "409", "422", "429", "500", "503"},
		"get /posts/aggregate":  {"200", "304", "400", "401", "403", "404", "429", "500", "503"},
		"head /posts/aggregate": {"200", "304", "400", "401", "403", "404", "429", "500", "503"},
		"get /posts":            {"200", "304", "400", "401", "403", "404", "429", "500", "503"},
		"get /posts/{id}":       {"200", "304", "400", "401", "403", "404", "429", "500", "503"}, // 400: include, fields; 403: an include
		"patch /posts/{id}":     {"200", "204", "400", "401", "403", "404", "409", "412", "413", "415", "422", "429", "500", "503"},
		"delete /posts/{id}":    {"200", "204", "400", "401", "403", "404", "409", "412", "422", "429", "500", "503"}, // tags.post_id restricts
		"delete /tags/{id}":     {"200", "204", "400", "401", "403", "404", "412", "422", "429", "500", "503"},
		"post /auth/login":      {"200", "400", "401", "403", "413", "415", "429", "500", "503"},
		"post /auth/register":   {"201", "400", "409", "413", "415", "429", "500", "503"},
	}
	for key, statuses := range want {
		method, path, _ := strings.Cut(key, " ")
		resp := at(t, m, "paths", path, method, "responses").(map[string]any)
		var got []string
		for s := range resp {
			got = append(got, s)
		}
		sort.Strings(got)
		if !reflect.DeepEqual(got, statuses) {
			t.Errorf("%s statuses = %v, want %v", key, got, statuses)
		}
	}
	for name, r := range at(t, m, "components", "responses").(map[string]any) {
		media := at(t, r, "content", "application/json").(map[string]any)
		if media["schema"].(map[string]any)["$ref"] != "#/components/schemas/Error" {
			t.Errorf("response %s does not use the Error envelope", name)
		}
		examples, _ := media["examples"].(map[string]any)
		if len(examples) == 0 {
			t.Errorf("response %s has no example", name)
		}
		for ex, e := range examples {
			val := at(t, e, "value").(map[string]any)
			if val["success"] != false || at(t, val, "error", "code") == "" {
				t.Errorf("example %s of %s is not an error envelope: %v", ex, name, val)
			}
		}
	}
	scheme := at(t, m, "components", "securitySchemes", "bearerAuth").(map[string]any)
	if scheme["type"] != "http" || scheme["scheme"] != "bearer" || !strings.Contains(scheme["description"].(string), "API key or access token") {
		t.Errorf("bearerAuth = %v", scheme)
	}
}

func TestPublicOperationsTakeACredentialOptionally(t *testing.T) {
	t.Parallel()
	m := renderMap(t, compileJSON(t, `{"tables": [{"name": "notes", "permissions": {"read": "public", "delete": "key"},
		"columns": [{"name": "body", "type": "text"}]}]}`))
	list := at(t, m, "paths", "/notes", "get", "security").([]any)
	if len(list) != 2 || len(list[0].(map[string]any)) != 0 {
		t.Errorf("public list security = %v, want [{}, {bearerAuth: []}]", list)
	}
	create := at(t, m, "paths", "/notes", "post", "security").([]any)
	if len(create) != 1 {
		t.Errorf("authenticated create security = %v", create)
	}
	if d := at(t, m, "paths", "/notes/{id}", "delete", "description").(string); !strings.Contains(d, "API keys only") {
		t.Errorf("key-level delete description = %q", d)
	}
}

func TestDocumentIsValidOpenAPI31(t *testing.T) {
	t.Parallel()
	for _, file := range []string{"alltypes.json"} {
		doc, err := Render(compileFile(t, file), Options{ProjectID: "abc123def456", Version: 1})
		if err != nil {
			t.Fatal(err)
		}
		for name, raw := range map[string][]byte{"json": doc.JSON(), "yaml": doc.YAML()} {
			parsed, err := libopenapi.NewDocument(raw)
			if err != nil {
				t.Fatalf("%s: %v", name, err)
			}
			v, errs := validator.NewValidator(parsed)
			if len(errs) > 0 {
				t.Fatalf("%s: %v", name, errs)
			}
			if ok, verrs := v.ValidateDocument(); !ok {
				for _, e := range verrs {
					t.Errorf("%s: %s: %s", name, e.Message, e.Reason)
					for _, f := range e.SchemaValidationErrors {
						t.Errorf("  %s at %s", f.Reason, f.FieldPath)
					}
				}
			}
		}
	}
}

func TestFrontedDatabaseTablesAreDescribed(t *testing.T) {
	t.Parallel()
	c := compileJSON(t, `{"tables": [{"name": "legacy_items", "external": {"primary_key": "code", "has_created_at": true},
		"columns": [{"name": "code", "type": "text", "required": true},
			{"name": "created_at", "type": "timestamp"},
			{"name": "location", "type": "passthrough", "pg_type": "point"},
			{"name": "label", "type": "text"}]}]}`)
	m := renderMap(t, c)
	if typ := at(t, m, "paths", "/legacy_items/{id}", "parameters").([]any)[0].(map[string]any)["schema"].(map[string]any)["type"]; typ != "string" {
		t.Errorf("a text primary key is a string id: %v", typ)
	}
	body := schemaProps(t, m, "LegacyItemCreate")
	for _, ro := range []string{"code", "location"} {
		if p, ok := body[ro].(map[string]any); !ok || p["readOnly"] != true {
			t.Errorf("LegacyItemCreate.%s = %v, want read-only", ro, body[ro])
		}
	}
	if _, ok := body["label"]; !ok {
		t.Error("LegacyItemCreate lacks its writable column")
	}
	rec := schemaProps(t, m, "LegacyItem")["location"].(map[string]any)
	if !strings.Contains(rec["description"].(string), "point") {
		t.Errorf("a passthrough column names its database type: %v", rec)
	}
	doc, err := Render(c, Options{ProjectID: "abc123def456", Version: 1})
	if err != nil {
		t.Fatal(err)
	}
	parsed, err := libopenapi.NewDocument(doc.JSON())
	if err != nil {
		t.Fatal(err)
	}
	v, errs := validator.NewValidator(parsed)
	if len(errs) > 0 {
		t.Fatal(errs)
	}
	if ok, verrs := v.ValidateDocument(); !ok {
		t.Fatalf("invalid document: %v", verrs)
	}
}

func TestYAMLAndJSONAreTheSameDocument(t *testing.T) {
	t.Parallel()
	doc, err := Render(compileFile(t, "alltypes.json"), Options{ProjectID: "abc123def456", Version: 1})
	if err != nil {
		t.Fatal(err)
	}
	var fromJSON, fromYAML any
	if err := json.Unmarshal(doc.JSON(), &fromJSON); err != nil {
		t.Fatal(err)
	}
	if err := yaml.Unmarshal(doc.YAML(), &fromYAML); err != nil {
		t.Fatal(err)
	}
	// Through JSON, so YAML's integer and map types compare like JSON's.
	again, err := json.Marshal(fromYAML)
	if err != nil {
		t.Fatal(err)
	}
	var normalized any
	if err := json.Unmarshal(again, &normalized); err != nil {
		t.Fatal(err)
	}
	if !reflect.DeepEqual(fromJSON, normalized) {
		t.Fatal("the YAML document differs from the JSON one")
	}
}

func TestServerURLIsSplicedWithoutRendering(t *testing.T) {
	t.Parallel()
	doc, err := Render(compileFile(t, "alltypes.json"), Options{ProjectID: "abc123def456", Version: 1})
	if err != nil {
		t.Fatal(err)
	}
	rj, err := doc.Rendered(false)
	if err != nil {
		t.Fatal(err)
	}
	ry, err := doc.Rendered(true)
	if err != nil {
		t.Fatal(err)
	}
	for _, server := range []string{"", "https://api.example.com/v1/abc123def456", `http://[::1]:8080/v1/abc123def456`} {
		if server == "" {
			server = doc.BasePath()
		}
		var js, ys bytes.Buffer
		if err := rj.Write(&js, server); err != nil {
			t.Fatal(err)
		}
		if err := ry.Write(&ys, server); err != nil {
			t.Fatal(err)
		}
		if js.Len() != rj.Size(server) || ys.Len() != ry.Size(server) {
			t.Errorf("Size disagrees with what is written for %q", server)
		}
		want := server
		if want == "" {
			want = "/v1/abc123def456"
		}
		var j struct{ Servers []struct{ URL string } }
		if err := json.Unmarshal(js.Bytes(), &j); err != nil || len(j.Servers) != 1 || j.Servers[0].URL != want {
			t.Errorf("JSON servers = %+v (%v), want %s", j.Servers, err, want)
		}
		var y struct {
			Servers []struct {
				URL string `yaml:"url"`
			} `yaml:"servers"`
		}
		if err := yaml.Unmarshal(ys.Bytes(), &y); err != nil || len(y.Servers) != 1 || y.Servers[0].URL != want {
			t.Errorf("YAML servers = %+v (%v), want %s", y.Servers, err, want)
		}
	}
	if bytes.Contains(doc.JSON(), []byte("tablesmith-server-")) || bytes.Contains(doc.YAML(), []byte("tablesmith-server-")) {
		t.Error("the placeholder leaked into the document")
	}
}

func TestDocumentRendersOnceForConcurrentReaders(t *testing.T) {
	t.Parallel()
	doc := New(compileFile(t, "alltypes.json"), Options{ProjectID: "abc123def456", Version: 1})
	var wg sync.WaitGroup
	etags := make([]string, 8)
	for i := range etags {
		wg.Add(1)
		go func(i int) {
			defer wg.Done()
			etags[i] = doc.ETag()
		}(i)
	}
	wg.Wait()
	for _, e := range etags {
		if e == "" || e != etags[0] {
			t.Fatalf("etags = %v", etags)
		}
	}
}

// The ETag names the content: the same document rendered again (after a
// registry reload, or on another node) keeps it, and another document
// does not share it. Rendering splices a random placeholder in for the
// server URL, which once made every render's ETag different.
func TestETagIsTheSameForTheSameDocument(t *testing.T) {
	t.Parallel()
	c := compileFile(t, "alltypes.json")
	first := New(c, Options{ProjectID: "abc123def456", Version: 1}).ETag()
	again := New(c, Options{ProjectID: "abc123def456", Version: 1}).ETag()
	if first == "" || first != again {
		t.Fatalf("two renders of one document: ETags %q and %q", first, again)
	}
	if other := New(compileFile(t, "books.json"), Options{ProjectID: "abc123def456", Version: 1}).ETag(); other == first {
		t.Fatal("two different documents share an ETag")
	}
}

func BenchmarkRenderAllTypes(b *testing.B) {
	c := compileFile(b, "alltypes.json")
	for i := 0; i < b.N; i++ {
		if _, err := Render(c, Options{ProjectID: "abc123def456", Version: 1}); err != nil {
			b.Fatal(err)
		}
	}
}

func TestWritesDocumentTheIdempotencyKeyHeader(t *testing.T) {
	t.Parallel()
	m := renderMap(t, compileFile(t, "alltypes.json"))
	param := at(t, m, "components", "parameters", "IdempotencyKey").(map[string]any)
	if param["in"] != "header" || param["name"] != "Idempotency-Key" || at(t, param, "schema", "maxLength") != float64(255) {
		t.Fatalf("Idempotency-Key parameter = %v", param)
	}
	for _, op := range []struct{ path, method, status string }{
		{"/posts", "post", "201"}, {"/posts/{id}", "put", "200"}, {"/posts/{id}", "patch", "200"}, {"/posts/{id}", "delete", "200"},
	} {
		o := at(t, m, "paths", op.path, op.method).(map[string]any)
		found := false
		for _, p := range o["parameters"].([]any) {
			found = found || p.(map[string]any)["$ref"] == "#/components/parameters/IdempotencyKey"
		}
		if !found {
			t.Errorf("%s %s does not take Idempotency-Key", op.method, op.path)
		}
		if at(t, o, "responses", "422", "$ref") != "#/components/responses/IdempotencyKeyReused" {
			t.Errorf("%s %s has no 422 for a reused key", op.method, op.path)
		}
		if at(t, o, "responses", op.status, "headers", "Idempotent-Replayed", "$ref") != "#/components/headers/Idempotent-Replayed" {
			t.Errorf("%s %s does not name Idempotent-Replayed", op.method, op.path)
		}
	}
	for _, p := range at(t, m, "paths", "/posts", "get", "parameters").([]any) {
		if p.(map[string]any)["$ref"] == "#/components/parameters/IdempotencyKey" {
			t.Error("a read takes Idempotency-Key")
		}
	}
}

// The server fills a required owner column for end users, so the create
// and replace bodies do not list it as required (a validating proxy would
// refuse an end user's valid create); its description says an API key
// must give it.
func TestTheOwnerColumnIsNotRequiredWhereTheServerFillsIt(t *testing.T) {
	t.Parallel()
	m := renderMap(t, compileJSON(t, `{"tables": [
		{"name": "users", "auth": true, "columns": [
			{"name": "email", "type": "email", "required": true, "unique": true},
			{"name": "password_hash", "type": "password", "required": true}]},
		{"name": "notes", "owner_column": "owner_id", "permissions": {"read": "owner", "create": "owner", "update": "owner", "delete": "owner"},
		 "columns": [
			{"name": "title", "type": "text", "required": true},
			{"name": "owner_id", "type": "integer", "required": true, "references": {"table": "users", "on_delete": "cascade"}}]}]}`))
	for _, name := range []string{"NoteCreate", "NoteReplace"} {
		if got := strs(at(t, m, "components", "schemas", name, "required")); !reflect.DeepEqual(got, []string{"title"}) {
			t.Errorf("%s required = %v, want [title] (not the owner column)", name, got)
		}
	}
	desc, _ := at(t, m, "components", "schemas", "NoteUpdate", "properties", "owner_id", "description").(string)
	if !strings.Contains(desc, "API key's create must give it") {
		t.Errorf("the owner column's description does not say who must give it: %q", desc)
	}
}

// POST /<table> takes one object and GET /<table> answers JSON alone:
// bulk creates and exports are operations of their own, so generators
// type the create body and the list's data.
func TestBulkCreateAndExportAreOperationsOfTheirOwn(t *testing.T) {
	t.Parallel()
	m := renderMap(t, compileFile(t, "alltypes.json"))
	body := at(t, m, "paths", "/posts", "post", "requestBody", "content", "application/json", "schema").(map[string]any)
	if body["$ref"] != "#/components/schemas/PostCreate" {
		t.Errorf("POST /posts body = %v, want the PostCreate object", body)
	}
	for _, code := range []string{"200", "201"} {
		ref := at(t, m, "paths", "/posts", "post", "responses", code, "content", "application/json", "schema", "$ref")
		if ref != "#/components/schemas/PostResponse" {
			t.Errorf("POST /posts %s = %v, want one record", code, ref)
		}
	}
	bulk := at(t, m, "paths", "/posts/bulk", "post").(map[string]any)
	if bulk["operationId"] != "bulkCreatePosts" {
		t.Errorf("bulk operationId = %v", bulk["operationId"])
	}
	arr := at(t, bulk, "requestBody", "content", "application/json", "schema").(map[string]any)
	if arr["type"] != "array" || at(t, arr, "items", "$ref") != "#/components/schemas/PostCreate" || arr["maxItems"] != float64(DefaultMaxBulkRows) {
		t.Errorf("bulk body = %v", arr)
	}
	if ref := at(t, bulk, "responses", "201", "content", "application/json", "schema", "$ref"); ref != "#/components/schemas/PostBulkResponse" {
		t.Errorf("bulk 201 = %v", ref)
	}
	if _, ok := at(t, bulk, "parameters").([]any); !ok {
		t.Error("bulk on a table with a unique column takes on_conflict")
	}
	list := at(t, m, "paths", "/posts", "get", "responses", "200", "content").(map[string]any)
	if len(list) != 1 || list["application/json"] == nil {
		t.Errorf("the list's 200 has media types %v, want application/json alone", list)
	}
	export := at(t, m, "paths", "/posts/export", "get").(map[string]any)
	content := at(t, export, "responses", "200", "content").(map[string]any)
	if export["operationId"] != "exportPosts" || content["text/csv"] == nil || content["application/x-ndjson"] == nil || content["application/json"] != nil {
		t.Errorf("export = %v with media types %v", export["operationId"], content)
	}
	format := at(t, m, "components", "parameters", "Format").(map[string]any)
	if format["required"] != true || !reflect.DeepEqual(strs(at(t, format, "schema", "enum")), []string{"csv", "ndjson"}) {
		t.Errorf("format = %v", format)
	}
	// The export filters like the list: its path carries the filters the
	// list's GET takes.
	names := func(list []any) []string {
		var out []string
		for _, p := range list {
			pm := p.(map[string]any)
			if ref, ok := pm["$ref"].(string); ok {
				pm = at(t, m, "components", "parameters", strings.TrimPrefix(ref, "#/components/parameters/")).(map[string]any)
			}
			if name := pm["name"].(string); name == "filter" || name == "search" || strings.HasPrefix(name, "filter[") {
				out = append(out, name)
			}
		}
		slices.Sort(out)
		return out
	}
	listFilters := names(at(t, m, "paths", "/posts", "get", "parameters").([]any))
	exportFilters := names(at(t, m, "paths", "/posts/export", "parameters").([]any))
	if !slices.Equal(exportFilters, listFilters) || len(listFilters) < 10 {
		t.Errorf("export path filters %v, the list's %v", exportFilters, listFilters)
	}
}

// Filter parameters are only on the operations that take them (issue 37):
// a create lists none, inherited or its own; the updates and deletes by
// filter list filter= and search; the per-column ones are on GET.
func TestFilterParametersAreOnlyOnOperationsThatTakeThem(t *testing.T) {
	t.Parallel()
	m := renderMap(t, compileFile(t, "alltypes.json"))
	item := at(t, m, "paths", "/users").(map[string]any)
	if params, _ := item["parameters"].([]any); len(params) != 0 {
		t.Fatalf("/users has %d path-level parameters, which POST would inherit", len(params))
	}
	names := func(method string) []string {
		var out []string
		ops, _ := item[method].(map[string]any)
		list, _ := ops["parameters"].([]any)
		for _, p := range list {
			pm := p.(map[string]any)
			if ref, ok := pm["$ref"].(string); ok {
				pm = at(t, m, "components", "parameters", strings.TrimPrefix(ref, "#/components/parameters/")).(map[string]any)
			}
			out = append(out, pm["name"].(string))
		}
		return out
	}
	for _, name := range names("post") {
		if name == "filter" || name == "search" || strings.HasPrefix(name, "filter[") {
			t.Errorf("POST /users takes the filter parameter %s", name)
		}
	}
	for _, method := range []string{"patch", "delete"} {
		got := names(method)
		if !slices.Contains(got, "filter") || !slices.Contains(got, "max_affected") {
			t.Errorf("%s /users parameters = %v, want filter and max_affected among them", method, got)
		}
	}
	if !slices.Contains(names("get"), "filter[email]") {
		t.Errorf("GET /users lacks filter[email]: %v", names("get"))
	}
}

// Swagger UI renders descriptions as Markdown and drops what looks like an
// HTML tag: a `<placeholder>` outside a code span vanished from the page
// (issue 37). Every description and summary of a document with every
// feature keeps them in backticks.
func TestPlaceholdersInDescriptionsAreInCodeSpans(t *testing.T) {
	t.Parallel()
	m := renderMap(t, compileFile(t, "alltypes.json"))
	codeSpan := regexp.MustCompile("`[^`]*`")
	placeholder := regexp.MustCompile(`<[A-Za-z_][A-Za-z0-9_ ]*>`)
	var walk func(path string, v any)
	walk = func(path string, v any) {
		switch x := v.(type) {
		case map[string]any:
			for k, child := range x {
				if s, ok := child.(string); ok && (k == "description" || k == "summary") {
					if found := placeholder.FindString(codeSpan.ReplaceAllString(s, "")); found != "" {
						t.Errorf("%s.%s shows %s outside a code span, which Markdown drops: %q", path, k, found, s)
					}
					continue
				}
				walk(path+"."+k, child)
			}
		case []any:
			for i, child := range x {
				walk(fmt.Sprintf("%s[%d]", path, i), child)
			}
		}
	}
	walk("", m)
}
