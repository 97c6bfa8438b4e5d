package schema

import (
	"encoding/json"
	"reflect"
	"testing"
)

// docWithColumn is a document of one managed table "a" with the given column.
func docWithColumn(t *testing.T, column string) Document {
	t.Helper()
	return mustParse(t, `{"tables": [{"name": "a", "columns": [`+column+`]}]}`)
}

// TestValidateColumnReportsEveryRuleWithItsExactMessage pins each column
// rule's path and message, and which message wins when two rules report
// at the same path (the first one checked).
func TestValidateColumnReportsEveryRuleWithItsExactMessage(t *testing.T) {
	const col = "tables[0].columns[0]"
	badJSON := docWithColumn(t, `{"name": "b", "type": "integer"}`)
	badJSON.Tables[0].Columns[0].Default = json.RawMessage(`{`)
	cases := []struct {
		name string
		doc  Document
		want Problems
	}{
		{"passthrough on a fronted table", mustParse(t, `{"tables": [{"name": "a", "external": {"primary_key": "id"}, "columns": [
			{"name": "id", "type": "integer"}, {"name": "doc", "type": "passthrough", "pg_type": "tsvector"}]}]}`), Problems{}},
		{"passthrough on a managed table", docWithColumn(t, `{"name": "b", "type": "passthrough"}`), Problems{
			col + ".type": `unknown type "passthrough" (one of text, integer, number, decimal, boolean, timestamp, date, email, url, uuid, enum, json, password, file, files)`}},
		{"bounds on text, min above max", docWithColumn(t, `{"name": "b", "type": "text", "min": 5, "max": 1}`), Problems{
			col + ".min": "min and max apply to integer, number and decimal columns"}},
		{"min above max", docWithColumn(t, `{"name": "b", "type": "integer", "min": 5, "max": 1}`), Problems{
			col + ".min": "must not be greater than max"}},
		{"negative min_length", docWithColumn(t, `{"name": "b", "type": "text", "min_length": -1}`), Problems{
			col + ".min_length": "must not be negative"}},
		{"max_length zero", docWithColumn(t, `{"name": "b", "type": "text", "max_length": 0}`), Problems{
			col + ".max_length": "must be at least 1"}},
		{"min_length above max_length", docWithColumn(t, `{"name": "b", "type": "email", "min_length": 5, "max_length": 2}`), Problems{
			col + ".min_length": "must not be greater than max_length"}},
		{"length on an integer wins over its own rule", docWithColumn(t, `{"name": "b", "type": "integer", "max_length": 0}`), Problems{
			col + ".max_length": "min_length, max_length and pattern apply to text-like columns"}},
		{"bad pattern on an integer", docWithColumn(t, `{"name": "b", "type": "integer", "pattern": "("}`), Problems{
			col + ".max_length": "min_length, max_length and pattern apply to text-like columns",
			col + ".pattern":    "is not a valid regular expression"}},
		{"enum without values", docWithColumn(t, `{"name": "b", "type": "enum"}`), Problems{
			col + ".values": "an enum needs at least one value"}},
		{"enum with an empty value", docWithColumn(t, `{"name": "b", "type": "enum", "values": ["x", ""]}`), Problems{
			col + ".values": "values must be non-empty and distinct"}},
		{"searchable password", docWithColumn(t, `{"name": "b", "type": "password", "searchable": true}`), Problems{
			col + ".searchable": "only text, email, url and enum columns are searchable"}},
		{"html on an email", docWithColumn(t, `{"name": "b", "type": "email", "html": true}`), Problems{
			col + ".html": "html applies to text columns only"}},
		{"unique password", docWithColumn(t, `{"name": "b", "type": "password", "unique": true}`), Problems{
			col + ".type": "a password column cannot be unique, indexed or have a default"}},
		{"indexed password", docWithColumn(t, `{"name": "b", "type": "password", "index": true}`), Problems{
			col + ".type": "a password column cannot be unique, indexed or have a default"}},
		{"unique json", docWithColumn(t, `{"name": "b", "type": "json", "unique": true}`), Problems{
			col + ".unique": "json columns cannot be unique"}},
		{"null default", docWithColumn(t, `{"name": "b", "type": "integer", "default": null}`), Problems{}},
		{"now on a date", docWithColumn(t, `{"name": "b", "type": "date", "default": "now"}`), Problems{}},
		{"now on text", docWithColumn(t, `{"name": "b", "type": "text", "default": "now"}`), Problems{}},
		{"default that is not JSON", badJSON, Problems{col + ".default": "is not valid JSON"}},
		{"reference to no table", docWithColumn(t, `{"name": "b_id", "type": "integer", "references": {"table": "nope"}}`), Problems{
			col + ".references.table": `no table named "nope"`}},
		{"managed table referencing a fronted one", mustParse(t, `{"tables": [
			{"name": "e", "external": {"primary_key": "id"}, "columns": [{"name": "id", "type": "integer"}]},
			{"name": "a", "columns": [{"name": "e_id", "type": "integer", "references": {"table": "e"}}]}]}`), Problems{
			"tables[1].columns[0].references.table": "cannot reference a table of an external database"}},
		{"integer referencing a uuid key", mustParse(t, `{"tables": [{"name": "u", "id_type": "uuid", "columns": []},
			{"name": "a", "columns": [{"name": "u_id", "type": "integer", "references": {"table": "u", "on_delete": "set_null"}}]}]}`), Problems{
			"tables[1].columns[0].type": "must be uuid to reference u.id"}},
		{"password rule wins over the reference's type", docWithColumn(t, `{"name": "b_id", "type": "password", "unique": true, "references": {"table": "a"}}`), Problems{
			col + ".type": "a password column cannot be unique, indexed or have a default"}},
		{"relation names without a reference", docWithColumn(t, `{"name": "b", "type": "integer", "relation": "9x"}`), Problems{
			col + ".relation": "relation names apply to columns with references"}},
		{"reverse relation that breaks the name rules", docWithColumn(t, `{"name": "b_id", "type": "integer", "references": {"table": "a"}, "reverse_relation": "Bs"}`), Problems{
			col + ".relation": "relation names follow the name rules"}},
	}
	for _, c := range cases {
		if got := Validate(c.doc); !reflect.DeepEqual(got, c.want) {
			t.Errorf("%s:\n  got  %v\n  want %v", c.name, got, c.want)
		}
	}
}
