package platformhttp_test

import (
	"database/sql"
	"encoding/json"
	"fmt"
	"net"
	"net/url"
	"os"
	"sort"
	"strings"
	"testing"
	"time"

	"github.com/tablesmith/tablesmith/internal/store"
	"github.com/tablesmith/tablesmith/internal/testpg"
	"github.com/tablesmith/tablesmith/internal/testproxy"
	"github.com/tablesmith/tablesmith/internal/testserver"
)

// appDatabase is a throwaway database filled by extdb/testdata/app.sql,
// a schema that looks like a real application's.
func appDatabase(t *testing.T) (string, *sql.DB) {
	t.Helper()
	u := testpg.NewDatabase(t)
	db, err := sql.Open("postgres", u)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { db.Close() })
	script, err := os.ReadFile("../extdb/testdata/app.sql")
	if err != nil {
		t.Fatal(err)
	}
	if _, err := db.Exec(string(script)); err != nil {
		t.Fatalf("load app.sql: %v", err)
	}
	return u, db
}

// withPassword puts a password into a URL; the local server trusts its
// clients and ignores it, which lets the tests prove it is never shown.
func withPassword(raw, password string) string {
	u, _ := url.Parse(raw)
	u.User = url.UserPassword(u.User.Username(), password)
	return u.String()
}

// catalogSnapshot lists, one line each, every schema, relation, column,
// constraint, index, type, enum label, trigger, sequence and extension of
// a database: if generate or refresh changed anything, the lists differ.
func catalogSnapshot(t *testing.T, db *sql.DB) []string {
	t.Helper()
	const user = `n.nspname NOT LIKE 'pg\_%' AND n.nspname <> 'information_schema'`
	rows, err := db.Query(`
		SELECT 'schema ' || n.nspname FROM pg_namespace n WHERE ` + user + `
		UNION ALL SELECT 'relation ' || n.nspname || '.' || c.relname || ' ' || c.relkind::text || ' owner=' || c.relowner::regrole
			FROM pg_class c JOIN pg_namespace n ON n.oid = c.relnamespace WHERE ` + user + `
		UNION ALL SELECT 'column ' || n.nspname || '.' || c.relname || '.' || a.attname || ' ' || format_type(a.atttypid, a.atttypmod)
			|| ' notnull=' || a.attnotnull || ' default=' || coalesce(pg_get_expr(d.adbin, d.adrelid), '') || ' identity=' || a.attidentity::text
			FROM pg_attribute a JOIN pg_class c ON c.oid = a.attrelid JOIN pg_namespace n ON n.oid = c.relnamespace
			LEFT JOIN pg_attrdef d ON d.adrelid = a.attrelid AND d.adnum = a.attnum
			WHERE a.attnum > 0 AND NOT a.attisdropped AND ` + user + `
		UNION ALL SELECT 'constraint ' || n.nspname || '.' || co.conname || ' on ' || co.conrelid::regclass || ' ' || pg_get_constraintdef(co.oid)
			|| ' valid=' || co.convalidated FROM pg_constraint co JOIN pg_namespace n ON n.oid = co.connamespace WHERE ` + user + `
		UNION ALL SELECT 'index ' || pg_get_indexdef(i.indexrelid) || ' valid=' || i.indisvalid
			FROM pg_index i JOIN pg_class c ON c.oid = i.indrelid JOIN pg_namespace n ON n.oid = c.relnamespace WHERE ` + user + `
		UNION ALL SELECT 'type ' || n.nspname || '.' || t.typname || ' ' || t.typtype::text
			FROM pg_type t JOIN pg_namespace n ON n.oid = t.typnamespace WHERE ` + user + `
		UNION ALL SELECT 'enum ' || e.enumtypid::regtype || ' ' || e.enumlabel || ' ' || e.enumsortorder FROM pg_enum e
		UNION ALL SELECT 'trigger ' || pg_get_triggerdef(oid) FROM pg_trigger WHERE NOT tgisinternal
		UNION ALL SELECT 'extension ' || extname || ' ' || extversion FROM pg_extension
		UNION ALL SELECT 'comment ' || objoid::text || '.' || objsubid || ' ' || description FROM pg_description
			WHERE classoid = 'pg_class'::regclass AND objoid IN (SELECT c.oid FROM pg_class c JOIN pg_namespace n ON n.oid = c.relnamespace WHERE ` + user + `)
		ORDER BY 1`)
	if err != nil {
		t.Fatal(err)
	}
	defer rows.Close()
	var out []string
	for rows.Next() {
		var line string
		if err := rows.Scan(&line); err != nil {
			t.Fatal(err)
		}
		out = append(out, line)
	}
	if len(out) < 50 {
		t.Fatalf("the snapshot is suspiciously small: %v", out)
	}
	return out
}

// snapshotDiff returns the lines only in a and only in b.
func snapshotDiff(a, b []string) (onlyA, onlyB []string) {
	in := func(list []string) map[string]bool {
		m := map[string]bool{}
		for _, l := range list {
			m[l] = true
		}
		return m
	}
	ma, mb := in(a), in(b)
	for _, l := range a {
		if !mb[l] {
			onlyA = append(onlyA, l)
		}
	}
	for _, l := range b {
		if !ma[l] {
			onlyB = append(onlyB, l)
		}
	}
	return onlyA, onlyB
}

func mustSameCatalog(t *testing.T, before, after []string, when string) {
	t.Helper()
	gone, added := snapshotDiff(before, after)
	if len(gone) > 0 || len(added) > 0 {
		t.Fatalf("%s changed the fronted database:\n gone: %v\n added: %v", when, gone, added)
	}
}

type fronted struct {
	s       *testserver.Server
	url     string
	session string
	id      string
	key     string
	created map[string]any
}

// frontApp loads app.sql into a fresh database and creates a project
// fronting its shop schema, with a read_write key.
func frontApp(t *testing.T, s *testserver.Server, dbURL string) *fronted {
	t.Helper()
	f := &fronted{s: s, url: dbURL, session: s.Signup("front-" + store.RandomID(8) + "@example.com")}
	res := s.Do("POST", "/api/projects", f.session, map[string]any{"name": "Shop", "engine": "postgres_external",
		"connection": map[string]any{"url": dbURL, "schema": "shop"}}).Must(t, 201)
	f.created = res.Data()
	f.id = f.created["id"].(string)
	f.key = s.Do("POST", "/api/projects/"+f.id+"/keys", f.session, map[string]any{"name": "test"}).Must(t, 201).Data()["key"].(string)
	return f
}

func (f *fronted) api(method, path string, body any) *testserver.Response {
	return f.s.Do(method, "/v1/"+f.id+path, f.key, body)
}

func unsupportedTables(t *testing.T, project map[string]any) map[string]string {
	t.Helper()
	in, _ := project["introspection"].(map[string]any)
	list, _ := in["unsupported"].([]any)
	out := map[string]string{}
	for _, u := range list {
		m := u.(map[string]any)
		out[m["table"].(string)] = m["kind"].(string) + ": " + m["reason"].(string)
	}
	return out
}

func TestFrontingAnExistingDatabaseServesItsSupportedTables(t *testing.T) {
	t.Parallel()
	s := testserver.New(t)
	dbURL, db := appDatabase(t)
	before := catalogSnapshot(t, db)
	f := frontApp(t, s, withPassword(dbURL, "s3cret-pw"))

	// The answer names the connection with its password masked, and what
	// was left out with the reason.
	conn := f.created["connection"].(map[string]any)
	if !strings.Contains(conn["url"].(string), ":****@") || conn["schema"] != "shop" || f.created["engine"] != "postgres_external" {
		t.Fatalf("connection = %v", conn)
	}
	unsupported := unsupportedTables(t, f.created)
	for table, want := range map[string]string{
		"order_items": "composite", "page_views": "no primary key", "countries": "character(2)",
		"order_totals": "view", "product_counts": "materialized_view", "measurements": "composite",
		"measurements_2026": "partition", "LegacyThings": "name",
	} {
		if !strings.Contains(unsupported[table], want) {
			t.Errorf("unsupported[%s] = %q, want it to mention %q", table, unsupported[table], want)
		}
	}
	for _, served := range []string{"customers", "orders", "products", "reviews", "referrals", "settings", "shipments"} {
		if _, bad := unsupported[served]; bad {
			t.Errorf("%s is reported unsupported", served)
		}
	}
	// The password is never shown and never stored in clear.
	for _, path := range []string{"/api/projects", "/api/projects/" + f.id} {
		if r := s.Do("GET", path, f.session, nil).Must(t, 200); strings.Contains(string(r.Raw), "s3cret-pw") {
			t.Fatalf("%s shows the password: %s", path, r.Raw)
		}
	}
	var stored string
	if err := s.Svc.DB.QueryRow(`SELECT connection::text FROM tablesmith.projects WHERE id = $1`, f.id).Scan(&stored); err != nil {
		t.Fatal(err)
	}
	if strings.Contains(stored, "s3cret-pw") {
		t.Fatalf("the stored connection holds the password in clear: %s", stored)
	}

	// The introspected document is the draft and the first published
	// version: nothing to generate.
	draft := s.Do("GET", "/api/projects/"+f.id+"/schema", f.session, nil).Must(t, 200)
	meta := draft.Body["meta"].(map[string]any)
	if meta["published_version"] != float64(1) || meta["has_unpublished_changes"] != false || meta["valid"] != true {
		t.Fatalf("draft meta = %v", meta)
	}
	if plan := s.Do("GET", "/api/projects/"+f.id+"/schema/plan", f.session, nil).Must(t, 200).Data(); len(plan["statements"].([]any)) != 0 {
		t.Fatalf("a fresh fronted project plans statements: %v", plan)
	}

	// List and get, with types the service does not model passed through.
	customers := f.api("GET", "/customers?sort=id", nil).Must(t, 200)
	list := customers.List()
	if len(list) != 3 || list[0]["email"] != "ada@example.com" || list[0]["tier"] != "gold" {
		t.Fatalf("customers = %s", customers.Raw)
	}
	if tags, ok := list[0]["tags"].([]any); !ok || len(tags) != 2 || list[0]["last_ip"] != "10.0.0.1" {
		t.Fatalf("passthrough columns = %v / %v", list[0]["tags"], list[0]["last_ip"])
	}
	if ts, _ := list[0]["created_at"].(string); !strings.HasSuffix(ts, "Z") {
		t.Fatalf("created_at = %v", list[0]["created_at"])
	}
	if _, has := list[0]["updated_at"]; has {
		t.Fatalf("customers have no updated_at, yet the record shows one: %v", list[0])
	}
	f.api("GET", "/customers/1", nil).Must(t, 200)
	f.api("GET", "/order_items", nil).Must(t, 404)
	f.api("GET", "/page_views", nil).Must(t, 404)

	// Create, with the database's defaults and checks, the read-only
	// columns ignored, and validators from the check constraints.
	created := f.api("POST", "/customers", map[string]any{"email": "linus@example.com", "full_name": "Linus", "tags": []string{"x"}}).Must(t, 201)
	c := created.Data()
	if c["tier"] != "basic" || c["loyalty_points"] != float64(0) || created.Header.Get("Location") == "" {
		t.Fatalf("created = %s", created.Raw)
	}
	if tags := c["tags"].([]any); len(tags) != 0 {
		t.Fatalf("a read-only column was written: %v", c["tags"])
	}
	bad := f.api("POST", "/customers", map[string]any{"email": "x@example.com", "full_name": "X", "tier": "platinum", "loyalty_points": -1}).Must(t, 400)
	if bad.ErrorCode() != "VALIDATION_ERROR" || bad.Details()["tier"] == nil || bad.Details()["loyalty_points"] == nil {
		t.Fatalf("bad create = %s", bad.Raw)
	}
	dup := f.api("POST", "/customers", map[string]any{"email": "ada@example.com", "full_name": "Ada again"}).Must(t, 409)
	if dup.Details()["email"] == nil {
		t.Fatalf("duplicate = %s", dup.Raw)
	}
	id := int(c["id"].(float64))
	patched := f.api("PATCH", fmt.Sprintf("/customers/%d", id), map[string]any{"loyalty_points": 7}).Must(t, 200).Data()
	if patched["loyalty_points"] != float64(7) || patched["full_name"] != "Linus" {
		t.Fatalf("patched = %v", patched)
	}

	// A uuid key, the database's own enum type (filters, search), a
	// domain, and a relation read from a foreign key.
	orders := f.api("GET", "/orders?filter[status][in]=paid,shipped&include=customer", nil).Must(t, 200).List()
	if len(orders) != 1 || orders[0]["status"] != "paid" || orders[0]["customer"].(map[string]any)["email"] != "ada@example.com" {
		t.Fatalf("orders = %v", orders)
	}
	if n := len(f.api("GET", "/orders?search=pend", nil).Must(t, 200).List()); n != 1 {
		t.Fatalf("search over an enum column found %d orders", n)
	}
	if n := len(f.api("GET", "/orders?filter="+url.QueryEscape("status = 'pending' or status ~ 'pai'"), nil).Must(t, 200).List()); n != 2 {
		t.Fatalf("expression filter over an enum column found %d orders", n)
	}
	order := f.api("POST", "/orders", map[string]any{"customer_id": id, "note": "gift"}).Must(t, 201).Data()
	if order["status"] != "pending" || order["total"] != float64(0) || len(order["id"].(string)) != 36 || order["placed_on"] == nil {
		t.Fatalf("order = %v", order)
	}
	f.api("GET", "/orders/"+order["id"].(string), nil).Must(t, 200)
	f.api("PATCH", "/orders/"+order["id"].(string), map[string]any{"status": "lost"}).Must(t, 400)
	f.api("PATCH", "/orders/"+order["id"].(string), map[string]any{"status": "shipped"}).Must(t, 200)
	customer := f.api("GET", fmt.Sprintf("/customers?filter[id]=%d&include=orders", id), nil).Must(t, 200).List()[0]
	if got := customer["orders"].([]any); len(got) != 1 {
		t.Fatalf("reverse relation = %v", customer["orders"])
	}
	if noRef := f.api("POST", "/orders", map[string]any{"customer_id": 999999}).Must(t, 400); noRef.Details()["customer_id"] == nil {
		t.Fatalf("a missing reference = %s", noRef.Raw)
	}

	// An identity key, timestamps without a time zone kept by the API, a
	// generated column read-only.
	prod := f.api("POST", "/products", map[string]any{"sku": "HB-1", "name": "Hub", "price": "12.50", "search": "ignored"}).Must(t, 201).Data()
	pid := int(prod["id"].(float64))
	if prod["price"] != 12.5 || prod["search"] == nil || !strings.HasSuffix(prod["updated_at"].(string), "Z") {
		t.Fatalf("product = %v", prod)
	}
	time.Sleep(10 * time.Millisecond)
	later := f.api("PATCH", fmt.Sprintf("/products/%d", pid), map[string]any{"price": 13}).Must(t, 200).Data()
	if later["updated_at"] == prod["updated_at"] || later["created_at"] != prod["created_at"] {
		t.Fatalf("timestamps after update = %v, before %v", later, prod)
	}
	if f.api("GET", "/products?filter[created_at][gte]=2000-01-01T00:00:00Z&sort=-id&limit=1", nil).Must(t, 200).List()[0]["sku"] != "HB-1" {
		t.Fatal("timestamp filter on a column without time zone")
	}
	// The database's restricting foreign key refuses the delete of a
	// reviewed product; a cascade removes a customer's orders.
	if r := f.api("DELETE", "/products/1", nil).Must(t, 409); r.ErrorCode() != "CONFLICT" {
		t.Fatalf("delete of a referenced product = %s", r.Raw)
	}
	f.api("DELETE", fmt.Sprintf("/customers/%d", id), nil).Must(t, 200)
	f.api("GET", "/orders/"+order["id"].(string), nil).Must(t, 404)
	reviews := f.api("GET", "/reviews?include=product,author&sort=id", nil).Must(t, 200).List()
	if len(reviews) != 2 || reviews[0]["product"].(map[string]any)["sku"] != "KB-1" || reviews[0]["author"] == nil {
		t.Fatalf("reviews = %v", reviews)
	}
	if r := f.api("POST", "/settings", map[string]any{"value": "x"}); r.Status != 400 {
		t.Fatalf("create on a table whose key has no default = %d %s", r.Status, r.Raw)
	}

	// The OpenAPI document describes the passthrough columns as read-only.
	if doc := s.Do("GET", "/v1/"+f.id+"/openapi.json", "", nil).Must(t, 200); !strings.Contains(string(doc.Raw), "Database type text[] (read-only).") {
		t.Fatalf("openapi.json does not describe the passthrough column")
	}

	// The connection can be replaced (a rotated password): checked first,
	// never shown, and the API follows it.
	if r := s.Do("PATCH", "/api/projects/"+f.id, f.session, map[string]any{"connection": map[string]any{"url": dbURL, "schema": "nope"}}).Must(t, 400); r.ErrorCode() != "INVALID_CONNECTION" {
		t.Fatalf("a bad new connection = %s", r.Raw)
	}
	moved := s.Do("PATCH", "/api/projects/"+f.id, f.session, map[string]any{"connection": map[string]any{"url": withPassword(dbURL, "n3w-pw"), "schema": "shop"}}).Must(t, 200)
	if strings.Contains(string(moved.Raw), "n3w-pw") || !strings.Contains(moved.Data()["connection"].(map[string]any)["url"].(string), ":****@") || moved.Data()["name"] != "Shop" {
		t.Fatalf("after replacing the connection = %s", moved.Raw)
	}
	f.api("GET", "/customers/1", nil).Must(t, 200)

	// Nothing but rows changed: no table, column, constraint or index.
	mustSameCatalog(t, before, catalogSnapshot(t, db), "serving the API")
}

func TestGenerateOnAFrontedDatabaseChangesOnlyWhatTheUserChanged(t *testing.T) {
	t.Parallel()
	s := testserver.New(t)
	dbURL, db := appDatabase(t)
	before := catalogSnapshot(t, db)
	f := frontApp(t, s, dbURL)
	mustSameCatalog(t, before, catalogSnapshot(t, db), "creating the project")

	gen := s.Do("POST", "/api/projects/"+f.id+"/generate", f.session, map[string]any{}).Must(t, 200).Data()
	if applied, _ := gen["applied"].([]any); len(applied) != 0 || gen["version"] != float64(2) {
		t.Fatalf("generate without changes = %v", gen)
	}
	refresh := s.Do("POST", "/api/projects/"+f.id+"/schema/refresh", f.session, nil).Must(t, 200).Data()
	if n := len(refresh["changes"].([]any)); n != 0 {
		t.Fatalf("refresh right after create reports %d changes: %v", n, refresh["changes"])
	}
	mustSameCatalog(t, before, catalogSnapshot(t, db), "generate and refresh without changes")

	// One new column in the builder: generate adds exactly that column.
	var doc map[string]any
	raw := s.Do("GET", "/api/projects/"+f.id+"/schema", f.session, nil).Must(t, 200).Raw
	var env struct {
		Data json.RawMessage `json:"data"`
	}
	if err := json.Unmarshal(raw, &env); err != nil {
		t.Fatal(err)
	}
	if err := json.Unmarshal(env.Data, &doc); err != nil {
		t.Fatal(err)
	}
	tables := doc["tables"].([]any)
	var settingsAt int
	for i, tb := range tables {
		tm := tb.(map[string]any)
		switch tm["name"] {
		case "orders":
			tm["columns"] = append(tm["columns"].([]any), map[string]any{"name": "gift_message", "type": "text", "max_length": 200})
		case "settings":
			settingsAt = i
		}
	}
	s.Do("PUT", "/api/projects/"+f.id+"/schema", f.session, doc).Must(t, 200)
	gen = s.Do("POST", "/api/projects/"+f.id+"/generate", f.session, map[string]any{}).Must(t, 200).Data()
	gone, added := snapshotDiff(before, catalogSnapshot(t, db))
	sort.Strings(added)
	if len(gone) != 0 || len(added) != 2 || !strings.HasPrefix(added[0], "column shop.orders.gift_message text") ||
		!strings.Contains(added[1], "char_length(gift_message) <= 200") {
		t.Fatalf("generate with one new column changed: gone %v, added %v (applied %v)", gone, added, gen["applied"])
	}
	f.api("PATCH", "/orders/6f1c7a52-4d8e-4c59-9a57-0c6b1f8e2a01", map[string]any{"gift_message": "Happy birthday"}).Must(t, 200)
	after := catalogSnapshot(t, db)

	// Dropping a table needs confirmation; read-only columns and the
	// database's own enum type are never altered or dropped; nothing
	// changes on the way.
	withoutSettings := append(append([]any{}, tables[:settingsAt]...), tables[settingsAt+1:]...)
	doc["tables"] = withoutSettings
	s.Do("PUT", "/api/projects/"+f.id+"/schema", f.session, doc).Must(t, 200)
	if r := s.Do("POST", "/api/projects/"+f.id+"/generate", f.session, map[string]any{}).Must(t, 409); r.ErrorCode() != "DESTRUCTIVE_CHANGE" || r.Details()["settings"] == nil {
		t.Fatalf("dropping a table without confirmation = %s", r.Raw)
	}
	doc["tables"] = tables
	for _, tb := range tables {
		tm := tb.(map[string]any)
		if tm["name"] != "customers" {
			continue
		}
		var keep []any
		for _, col := range tm["columns"].([]any) {
			if col.(map[string]any)["name"] != "tags" {
				keep = append(keep, col)
			}
		}
		tm["columns"] = keep
	}
	s.Do("PUT", "/api/projects/"+f.id+"/schema", f.session, doc).Must(t, 200)
	if r := s.Do("POST", "/api/projects/"+f.id+"/generate", f.session, map[string]any{"confirm_destructive": true}).Must(t, 409); r.Details()["customers.tags"] == nil {
		t.Fatalf("dropping a passthrough column = %s", r.Raw)
	}
	// The database's enum type, and the primary key, stay the database's.
	for _, tb := range tables {
		tm := tb.(map[string]any)
		for _, col := range tm["columns"].([]any) {
			cm := col.(map[string]any)
			switch {
			case tm["name"] == "orders" && cm["name"] == "status":
				cm["values"] = []string{"pending", "paid"}
			case tm["name"] == "products" && cm["name"] == "id":
				cm["type"] = "text"
			}
		}
	}
	s.Do("PUT", "/api/projects/"+f.id+"/schema", f.session, doc).Must(t, 200)
	r := s.Do("POST", "/api/projects/"+f.id+"/generate", f.session, map[string]any{"confirm_destructive": true}).Must(t, 409)
	for _, path := range []string{"customers.tags", "orders.status", "products.id"} {
		if !strings.Contains(fmt.Sprint(r.Details()[path]), "database") {
			t.Errorf("refusal of %s = %v", path, r.Details()[path])
		}
	}
	mustSameCatalog(t, after, catalogSnapshot(t, db), "refused generates")

	// Deleting the project forgets it and leaves the database alone.
	s.Do("DELETE", "/api/projects/"+f.id, f.session, nil).Must(t, 200)
	f.api("GET", "/customers", nil).Must(t, 404)
	mustSameCatalog(t, after, catalogSnapshot(t, db), "deleting the project")
}

func TestRefreshShowsAndAdoptsChangesMadeInTheDatabase(t *testing.T) {
	t.Parallel()
	s := testserver.New(t)
	dbURL, db := appDatabase(t)
	f := frontApp(t, s, dbURL)

	// Someone changes the database outside Tablesmith...
	if _, err := db.Exec(`ALTER TABLE shop.customers ADD COLUMN nickname varchar(30);
		CREATE TABLE shop.coupons (id serial PRIMARY KEY, code text NOT NULL UNIQUE, percent integer CHECK (percent BETWEEN 1 AND 100));
		ALTER TABLE shop.reviews DROP COLUMN body;
		CREATE TABLE shop.tags (name text PRIMARY KEY);`); err != nil {
		t.Fatal(err)
	}
	// ...while the builder has an unpublished edit.
	var env struct {
		Data map[string]any `json:"data"`
	}
	if err := json.Unmarshal(s.Do("GET", "/api/projects/"+f.id+"/schema", f.session, nil).Must(t, 200).Raw, &env); err != nil {
		t.Fatal(err)
	}
	for _, tb := range env.Data["tables"].([]any) {
		if tm := tb.(map[string]any); tm["name"] == "customers" {
			tm["columns"] = append(tm["columns"].([]any), map[string]any{"name": "vip", "type": "boolean", "default": false})
		}
	}
	s.Do("PUT", "/api/projects/"+f.id+"/schema", f.session, env.Data).Must(t, 200)
	before := catalogSnapshot(t, db)

	res := s.Do("POST", "/api/projects/"+f.id+"/schema/refresh", f.session, nil).Must(t, 200).Data()
	got := map[string]string{}
	for _, c := range res["changes"].([]any) {
		m := c.(map[string]any)
		key := m["kind"].(string) + " " + m["table"].(string)
		if col, ok := m["column"].(string); ok {
			key += "." + col
		}
		got[key] = m["origin"].(string)
	}
	want := map[string]string{"column_added customers.nickname": "database", "table_added coupons": "database",
		"column_removed reviews.body": "database", "column_added customers.vip": "draft"}
	for k, v := range want {
		if got[k] != v {
			t.Errorf("change %q has origin %q, want %q (all: %v)", k, got[k], v, got)
		}
	}
	if len(got) != len(want) {
		t.Errorf("changes = %v, want %v", got, want)
	}
	if !strings.Contains(unsupportedTables(t, map[string]any{"introspection": res})["tags"], "text") {
		t.Errorf("the new table with a text key is not reported: %v", res["unsupported"])
	}
	if res["applied"] != false {
		t.Fatalf("a refresh without apply applied: %v", res)
	}
	f.api("GET", "/coupons", nil).Must(t, 404)

	res = s.Do("POST", "/api/projects/"+f.id+"/schema/refresh", f.session, map[string]any{"apply": true}).Must(t, 200).Data()
	if res["applied"] != true || res["version"] != float64(2) {
		t.Fatalf("applied refresh = %v", res)
	}
	mustSameCatalog(t, before, catalogSnapshot(t, db), "refresh")
	f.api("POST", "/coupons", map[string]any{"code": "SPRING", "percent": 10}).Must(t, 201)
	f.api("POST", "/coupons", map[string]any{"code": "BIG", "percent": 150}).Must(t, 400)
	if c := f.api("GET", "/customers/1", nil).Must(t, 200).Data(); c["nickname"] != nil || len(c) == 0 {
		t.Fatalf("customer after refresh = %v", c)
	}
	if _, has := f.api("GET", "/reviews/1", nil).Must(t, 200).Data()["body"]; has {
		t.Fatal("a dropped column is still served")
	}
	// The draft kept the unpublished edit: generate applies only that.
	plan := s.Do("GET", "/api/projects/"+f.id+"/schema/plan", f.session, nil).Must(t, 200).Data()
	changes := plan["changes"].([]any)
	if len(changes) != 1 || changes[0].(map[string]any)["column"] != "vip" {
		t.Fatalf("plan after refresh = %v", plan)
	}
	s.Do("POST", "/api/projects/"+f.id+"/generate", f.session, map[string]any{}).Must(t, 200)
	_, added := snapshotDiff(before, catalogSnapshot(t, db))
	if len(added) != 1 || !strings.HasPrefix(added[0], "column shop.customers.vip boolean") {
		t.Fatalf("generate after refresh added %v", added)
	}
}

func TestCreatingAFrontedProjectNamesWhatIsWrongWithTheConnection(t *testing.T) {
	t.Parallel()
	s := testserver.New(t)
	tok := s.Signup("conn-" + store.RandomID(6) + "@example.com")
	dbURL, db := appDatabase(t)
	create := func(conn any) *testserver.Response {
		return s.Do("POST", "/api/projects", tok, map[string]any{"name": "X", "engine": "postgres_external", "connection": conn})
	}
	expect := func(r *testserver.Response, status int, code, problem, text string) {
		t.Helper()
		if r.Status != status || r.ErrorCode() != code || !strings.Contains(fmt.Sprint(r.Details()["connection"]), text) {
			t.Fatalf("want %d %s naming %q, got %d %s", status, code, text, r.Status, r.Raw)
		}
		if problem != "" {
			if info, _ := r.Body["error"].(map[string]any)["info"].(map[string]any); info["problem"] != problem {
				t.Fatalf("want problem %s, got %s", problem, r.Raw)
			}
		}
	}
	expect(create(nil), 400, "VALIDATION_ERROR", "", "is required")
	expect(create(map[string]any{"url": dbURL}), 400, "VALIDATION_ERROR", "", "schema is required")
	expect(create(map[string]any{"url": "mysql://root@localhost/db", "schema": "shop"}), 400, "VALIDATION_ERROR", "invalid_url", "postgres://")
	expect(create(map[string]any{"url": dbURL + "&passfile=/etc/passwd", "schema": "shop"}), 400, "VALIDATION_ERROR", "invalid_url", "passfile")

	closed, _ := net.Listen("tcp", "127.0.0.1:0")
	port := closed.Addr().(*net.TCPAddr).Port
	closed.Close()
	expect(create(map[string]any{"url": fmt.Sprintf("postgres://app:pw@127.0.0.1:%d/shop?sslmode=disable", port), "schema": "shop"}),
		400, "INVALID_CONNECTION", "cannot_connect", "connection refused")
	u, _ := url.Parse(dbURL)
	u.Path = "/no_such_database_" + store.RandomID(4)
	expect(create(map[string]any{"url": u.String(), "schema": "shop"}), 400, "INVALID_CONNECTION", "database_not_found", "does not exist")
	expect(create(map[string]any{"url": dbURL, "schema": "nope"}), 400, "INVALID_CONNECTION", "schema_not_found", `schema "nope" does not exist`)
	expect(create(map[string]any{"url": testpg.URL(t), "schema": "tablesmith"}), 400, "INVALID_CONNECTION", "control_database", "Tablesmith's own database")

	// A role without rights: no USAGE on the schema, then no CONNECT.
	role := "ts_ro_" + store.RandomID(6)
	if _, err := db.Exec(`CREATE ROLE ` + role + ` LOGIN`); err != nil {
		t.Fatal(err)
	}
	realName := strings.TrimPrefix(mustParse(t, dbURL).Path, "/")
	t.Cleanup(func() {
		_, _ = db.Exec(`REVOKE ALL ON DATABASE ` + realName + ` FROM ` + role) // cleanup: best effort
		_, _ = db.Exec(`DROP OWNED BY ` + role)
		_, _ = db.Exec(`DROP ROLE ` + role)
	})
	ru := mustParse(t, dbURL)
	ru.User = url.User(role)
	expect(create(map[string]any{"url": ru.String(), "schema": "shop"}), 400, "INVALID_CONNECTION", "insufficient_privilege", "lacks the USAGE privilege")
	if _, err := db.Exec(`REVOKE CONNECT ON DATABASE ` + realName + ` FROM PUBLIC`); err != nil {
		t.Fatal(err)
	}
	expect(create(map[string]any{"url": ru.String(), "schema": "shop"}), 400, "INVALID_CONNECTION", "insufficient_privilege", "lacks a privilege")

	// None of these created a project.
	if list := s.Do("GET", "/api/projects", tok, nil).Must(t, 200).List(); len(list) != 0 {
		t.Fatalf("failed creates left projects: %v", list)
	}
	// And the engine is offered.
	for _, e := range s.Do("GET", "/api/engines", "", nil).Must(t, 200).List() {
		if e["name"] == "postgres_external" && e["available"] != true {
			t.Fatalf("engine = %v", e)
		}
	}
}

func mustParse(t *testing.T, raw string) *url.URL {
	t.Helper()
	u, err := url.Parse(raw)
	if err != nil {
		t.Fatal(err)
	}
	return u
}

func TestAFrontedDatabaseThatGoesAwayAnswers503AndRecoversByItself(t *testing.T) {
	t.Parallel()
	s := testserver.New(t)
	dbURL, _ := appDatabase(t)
	u := mustParse(t, dbURL)
	px := testproxy.Start(t, u.Host)
	u.Host = px.Addr
	f := frontApp(t, s, u.String())

	f.api("GET", "/customers", nil).Must(t, 200)
	f.api("GET", "/products/1", nil).Must(t, 200)

	px.Stop()
	for i := 0; i < 3; i++ {
		start := time.Now()
		r := f.api("GET", "/customers", nil)
		msg := r.Message()
		if r.Status != 503 || r.ErrorCode() != "SERVICE_UNAVAILABLE" || !(strings.Contains(msg, "unreachable") || strings.Contains(msg, "unavailable")) || r.Body["success"] != false {
			t.Fatalf("request %d while the database is away = %d %s", i, r.Status, r.Raw)
		}
		if time.Since(start) > 3*time.Second {
			t.Fatalf("a request while the database is away took %s", time.Since(start))
		}
	}
	if r := f.api("POST", "/customers", map[string]any{"email": "z@example.com", "full_name": "Z"}); r.Status != 503 {
		t.Fatalf("a write while the database is away = %d %s", r.Status, r.Raw)
	}
	status := s.Do("GET", "/api/projects/"+f.id, f.session, nil).Must(t, 200).Data()["connection"].(map[string]any)["status"].(map[string]any)
	if status["state"] != "down" || !strings.Contains(fmt.Sprint(status["problem"]), "connection refused") {
		t.Fatalf("status while away = %v", status)
	}

	px.Restart(t)
	deadline := time.Now().Add(10 * time.Second)
	for {
		r := f.api("GET", "/customers", nil)
		if r.Status == 200 && len(r.List()) == 3 {
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("the API did not recover: %d %s", r.Status, r.Raw)
		}
		time.Sleep(100 * time.Millisecond)
	}
	f.api("POST", "/customers", map[string]any{"email": "back@example.com", "full_name": "Back"}).Must(t, 201)
	status = s.Do("GET", "/api/projects/"+f.id, f.session, nil).Must(t, 200).Data()["connection"].(map[string]any)["status"].(map[string]any)
	if status["state"] != "up" {
		t.Fatalf("status after recovery = %v", status)
	}
}
