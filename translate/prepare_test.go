package translate

import (
	"testing"

	"github.com/tablesmith/tablesmith/schema"
)

func TestPreparedStatementsArePinned(t *testing.T) {
	d, err := schema.Parse([]byte(`{"tables": [{"name": "users", "auth": true, "owner_column": "owner_id", "columns": [
		{"name": "email", "type": "email"},
		{"name": "password_hash", "type": "password"},
		{"name": "owner_id", "type": "integer", "references": {"table": "users"}}]}]}`))
	if err != nil {
		t.Fatal(err)
	}
	c, err := schema.Compile(d)
	if err != nil {
		t.Fatal(err)
	}
	ts := Prepare("p_x", c).Tables["users"]
	proj := `t."id", t."email", t."owner_id", to_char(t."created_at" AT TIME ZONE 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.US"Z"') AS "created_at", to_char(t."updated_at" AT TIME ZONE 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.US"Z"') AS "updated_at"`
	checks := map[string]string{
		"get":       ts.Get,
		"get owned": ts.GetOwned,
		"delete":    ts.Delete,
		"insert":    ts.Insert([]*schema.CColumn{c.Tables[0].Columns[1], c.Tables[0].Columns[2]}),
		"update":    ts.Update([]*schema.CColumn{c.Tables[0].Columns[1]}, []*schema.CColumn{c.Tables[0].Columns[3]}, true),
	}
	want := map[string]string{
		"get":       `SELECT row_to_json(_r) FROM (SELECT ` + proj + ` FROM "p_x"."users" t WHERE t."id" = $1) _r`,
		"get owned": `SELECT row_to_json(_r) FROM (SELECT ` + proj + ` FROM "p_x"."users" t WHERE t."id" = $1 AND t."owner_id" = $2) _r`,
		"delete":    `WITH _w AS (DELETE FROM "p_x"."users" t WHERE t."id" = $1 RETURNING t.*) SELECT row_to_json(_r) FROM (SELECT ` + proj + ` FROM _w t WHERE true) _r`,
		"insert":    `WITH _w AS (INSERT INTO "p_x"."users" ("email", "password_hash") VALUES ($1, $2) RETURNING *) SELECT row_to_json(_r) FROM (SELECT ` + proj + ` FROM _w t) _r`,
		"update":    `WITH _w AS (UPDATE "p_x"."users" t SET "email" = $1, "owner_id" = DEFAULT, "updated_at" = now() WHERE t."id" = $2 AND t."owner_id" = $3 RETURNING t.*) SELECT row_to_json(_r) FROM (SELECT ` + proj + ` FROM _w t) _r`,
	}
	for name, got := range checks {
		if got != want[name] {
			t.Errorf("%s:\n got %s\nwant %s", name, got, want[name])
		}
	}
}
