package access_test

import (
	"errors"
	"testing"

	"github.com/tablesmith/tablesmith/access"
	"github.com/tablesmith/tablesmith/schema"
)

func compile(t *testing.T, doc string) *schema.Compiled {
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

const rulesDoc = `{"tables": [
	{"name": "users", "auth": true, "columns": [
		{"name": "email", "type": "email", "required": true, "unique": true},
		{"name": "password_hash", "type": "password", "required": true}]},
	{"name": "open", "permissions": {"read": "public", "create": "public", "update": "public", "delete": "public"},
	 "columns": [{"name": "title", "type": "text"}]},
	{"name": "keyed", "permissions": {"read": "key", "create": "key", "update": "key", "delete": "key"},
	 "columns": [{"name": "title", "type": "text"}]},
	{"name": "signed", "columns": [{"name": "title", "type": "text"}]},
	{"name": "owned", "owner_column": "user_id",
	 "permissions": {"read": "owner", "create": "owner", "update": "owner", "delete": "owner"},
	 "columns": [{"name": "user_id", "type": "integer", "references": {"table": "users"}}]},
	{"name": "claimed", "owner_column": "user_id",
	 "permissions": {"read": "public", "create": "public", "update": "authenticated", "delete": "key"},
	 "columns": [{"name": "user_id", "type": "integer", "references": {"table": "users"}}]}]}`

func TestDecideAppliesEachRuleToEachKindOfCaller(t *testing.T) {
	c := compile(t, rulesDoc)
	anon, ro, rw, user := access.Principal{}, access.Key("ts_ro", true), access.Key("ts_rw", false), access.User(int64(7))
	const ok, unauth, forbid = "ok", "401", "403"
	cases := []struct {
		table  string
		action access.Action
		who    access.Principal
		want   string
	}{
		{"open", access.Read, anon, ok},
		{"open", access.Create, anon, ok},
		{"open", access.Delete, ro, forbid}, // a read-only key never writes
		{"open", access.Read, ro, ok},
		{"keyed", access.Read, anon, unauth},
		{"keyed", access.Read, user, forbid},
		{"keyed", access.Update, rw, ok},
		{"keyed", access.Update, ro, forbid},
		{"signed", access.Read, anon, unauth},
		{"signed", access.Create, user, ok},
		{"signed", access.Create, ro, forbid},
		{"owned", access.Read, anon, unauth},
		{"owned", access.Delete, user, ok},
		{"owned", access.Delete, rw, ok},
	}
	for _, tc := range cases {
		tbl, _ := c.Table(tc.table)
		_, err := access.Decide(tc.who, tbl, tc.action)
		got := ok
		var d *access.Denied
		switch {
		case errors.As(err, &d) && d.Unauthenticated:
			got = unauth
		case errors.As(err, &d):
			got = forbid
		case err != nil:
			t.Fatalf("unexpected error %v", err)
		}
		if got != tc.want {
			t.Errorf("%s %s as %s: got %s (%v), want %s", tc.action, tc.table, tc.who.Kind, got, err, tc.want)
		}
	}
}

func TestDecideScopesOwnerRowsToTheEndUserOnly(t *testing.T) {
	c := compile(t, rulesDoc)
	owned, _ := c.Table("owned")
	for _, a := range []access.Action{access.Read, access.Update, access.Delete} {
		g, err := access.Decide(access.User(int64(7)), owned, a)
		if err != nil || g.Rows.All() || g.Rows.Value != int64(7) || g.Rows.Column != owned.Owner {
			t.Errorf("%s by an end user: grant %+v, %v; want rows of user 7", a, g, err)
		}
		g, err = access.Decide(access.Key("ts_rw", false), owned, a)
		if err != nil || !g.Rows.All() {
			t.Errorf("%s by an API key: grant %+v, %v; want every row", a, g, err)
		}
	}
	// A create reaches no existing row; the owner rule fills the column.
	g, _ := access.Decide(access.User(int64(7)), owned, access.Create)
	if !g.Rows.All() || g.Owner != access.OwnerIsCaller {
		t.Errorf("create by an end user: grant %+v, want all rows and the caller as owner", g)
	}
}

func TestOnlyAPIKeysChooseTheOwnerOfARow(t *testing.T) {
	c := compile(t, rulesDoc)
	claimed, _ := c.Table("claimed")
	signed, _ := c.Table("signed")
	cases := []struct {
		who    access.Principal
		action access.Action
		table  *schema.CTable
		want   access.OwnerRule
	}{
		{access.User(int64(7)), access.Create, claimed, access.OwnerIsCaller},
		{access.User(int64(7)), access.Update, claimed, access.OwnerIsCaller},
		{access.Principal{}, access.Create, claimed, access.OwnerForbidden},
		{access.Key("ts_rw", false), access.Create, claimed, access.OwnerFree},
		{access.User(int64(7)), access.Create, signed, access.OwnerFree}, // no owner column
	}
	for _, tc := range cases {
		g, err := access.Decide(tc.who, tc.table, tc.action)
		if err != nil || g.Owner != tc.want {
			t.Errorf("%s %s as %s: owner rule %v (%v), want %v", tc.action, tc.table.Name, tc.who.Kind, g.Owner, err, tc.want)
		}
	}
}

func TestEmbedRefusesWithTheIncludePathAndScopesOwnerRows(t *testing.T) {
	c := compile(t, rulesDoc)
	keyed, _ := c.Table("keyed")
	owned, _ := c.Table("owned")
	if _, err := access.Embed(access.User(int64(7)), keyed, "posts.keyed"); err == nil || err.Error() != "including posts.keyed needs an API key (keyed is readable with API keys only)" {
		t.Errorf("embedding a key-only table as an end user: %v", err)
	}
	if _, err := access.Embed(access.Principal{}, owned, "owned"); err == nil {
		t.Error("an anonymous caller embedded an owner table")
	}
	rows, err := access.Embed(access.User(int64(7)), owned, "owned")
	if err != nil || rows.Value != int64(7) {
		t.Errorf("an end user embeds owned rows %+v (%v), want theirs", rows, err)
	}
}
