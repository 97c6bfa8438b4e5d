package schema

import (
	"bytes"
	"encoding/json"
	"flag"
	"os"
	"testing"
)

// updateAlterGolden rewrites testdata/alter_column_plans.json from the
// current code; only for a deliberate change of what alterColumn plans.
var updateAlterGolden = flag.Bool("update-alter-golden", false, "rewrite testdata/alter_column_plans.json")

const alterGolden = "testdata/alter_column_plans.json"

// alterCase is one published → draft pair of documents. Both hold a table
// "u" (a reference target) and a table "t" with the column under test,
// unless the case spells the whole document.
type alterCase struct {
	name, from, to string
	// fromDoc/toDoc, when set, replace the two-table documents.
	fromDoc, toDoc string
}

// alterColumnCases covers each branch of alterColumn: every type pair
// convert knows and some it refuses, required, unique, index, searchable,
// every rule key, defaults, references and renames, alone and together.
func alterColumnCases() []alterCase {
	var cs []alterCase
	// Every pair of column types (password and passthrough apart): the
	// supported conversions, the refused ones and the text-like no-ops.
	types := []string{TypeText, TypeInteger, TypeNumber, TypeDecimal, TypeBoolean, TypeTimestamp, TypeDate, TypeEmail, TypeURL, TypeUUID, TypeEnum, TypeJSON}
	for _, a := range types {
		for _, b := range types {
			if a == b {
				continue
			}
			cs = append(cs, alterCase{name: "type " + a + " to " + b, from: typed(a), to: typed(b)})
		}
	}
	cs = append(cs,
		alterCase{name: "password to text is refused", from: `{"name": "c", "type": "password"}`, to: `{"name": "c", "type": "text"}`},
		alterCase{name: "text to password is refused", from: `{"name": "c", "type": "text"}`, to: `{"name": "c", "type": "password"}`},
		alterCase{name: "password length is metadata", from: `{"name": "c", "type": "password", "min_length": 8}`, to: `{"name": "c", "type": "password", "min_length": 10}`},
		alterCase{name: "nothing changed", from: `{"name": "c", "type": "text", "required": true}`, to: `{"name": "c", "type": "text", "required": true}`},
		alterCase{name: "description only", from: `{"name": "c", "type": "text"}`, to: `{"name": "c", "type": "text", "description": "d", "html": true}`},
		alterCase{name: "relation names only", from: `{"name": "c", "type": "integer", "references": {"table": "u"}}`, to: `{"name": "c", "type": "integer", "references": {"table": "u"}, "relation": "owner", "reverse_relation": "things"}`},
		alterCase{name: "pattern only", from: `{"name": "c", "type": "text"}`, to: `{"name": "c", "type": "text", "pattern": "^a"}`},
		alterCase{name: "pattern and required", from: `{"name": "c", "type": "text", "pattern": "^a"}`, to: `{"name": "c", "type": "text", "pattern": "^b", "required": true}`},

		alterCase{name: "required on", from: `{"name": "c", "type": "text"}`, to: `{"name": "c", "type": "text", "required": true}`},
		alterCase{name: "required on with a default", from: `{"name": "c", "type": "text"}`, to: `{"name": "c", "type": "text", "required": true, "default": "x"}`},
		alterCase{name: "required on keeping a default", from: `{"name": "c", "type": "text", "default": "x"}`, to: `{"name": "c", "type": "text", "required": true, "default": "x"}`},
		alterCase{name: "required off", from: `{"name": "c", "type": "text", "required": true}`, to: `{"name": "c", "type": "text"}`},
		alterCase{name: "required off with a default", from: `{"name": "c", "type": "text", "required": true, "default": "x"}`, to: `{"name": "c", "type": "text", "default": "x"}`},
		alterCase{name: "required on with a type change", from: `{"name": "c", "type": "text"}`, to: `{"name": "c", "type": "integer", "required": true}`},

		alterCase{name: "unique on", from: `{"name": "c", "type": "text"}`, to: `{"name": "c", "type": "text", "unique": true}`},
		alterCase{name: "unique off", from: `{"name": "c", "type": "text", "unique": true}`, to: `{"name": "c", "type": "text"}`},
		alterCase{name: "unique kept across a type change", from: `{"name": "c", "type": "text", "unique": true}`, to: `{"name": "c", "type": "integer", "unique": true}`},
		alterCase{name: "unique kept across a widening type change", from: `{"name": "c", "type": "integer", "unique": true}`, to: `{"name": "c", "type": "decimal", "unique": true}`},
		alterCase{name: "unique on with a type change", from: `{"name": "c", "type": "number"}`, to: `{"name": "c", "type": "integer", "unique": true}`},
		alterCase{name: "unique on with a default", from: `{"name": "c", "type": "text"}`, to: `{"name": "c", "type": "text", "unique": true, "default": "x"}`},
		alterCase{name: "unique replaces an index", from: `{"name": "c", "type": "text", "index": true}`, to: `{"name": "c", "type": "text", "index": true, "unique": true}`},
		alterCase{name: "unique off keeps an index", from: `{"name": "c", "type": "text", "index": true, "unique": true}`, to: `{"name": "c", "type": "text", "index": true}`},

		alterCase{name: "index on", from: `{"name": "c", "type": "integer"}`, to: `{"name": "c", "type": "integer", "index": true}`},
		alterCase{name: "index off", from: `{"name": "c", "type": "integer", "index": true}`, to: `{"name": "c", "type": "integer"}`},
		alterCase{name: "index kept across a type change", from: `{"name": "c", "type": "integer", "index": true}`, to: `{"name": "c", "type": "text", "index": true}`},
		alterCase{name: "searchable on", from: `{"name": "c", "type": "text"}`, to: `{"name": "c", "type": "text", "searchable": true}`},
		alterCase{name: "searchable off", from: `{"name": "c", "type": "text", "searchable": true}`, to: `{"name": "c", "type": "text"}`},
		alterCase{name: "searchable enum on", from: `{"name": "c", "type": "enum", "values": ["a"]}`, to: `{"name": "c", "type": "enum", "values": ["a"], "searchable": true}`},
		alterCase{name: "searchable and index on together", from: `{"name": "c", "type": "text"}`, to: `{"name": "c", "type": "text", "searchable": true, "index": true}`},
		alterCase{name: "searchable kept across a type change to integer", from: `{"name": "c", "type": "text", "searchable": true}`, to: `{"name": "c", "type": "email", "searchable": true}`},

		alterCase{name: "min added", from: `{"name": "c", "type": "integer"}`, to: `{"name": "c", "type": "integer", "min": 0}`},
		alterCase{name: "min removed", from: `{"name": "c", "type": "integer", "min": 0}`, to: `{"name": "c", "type": "integer"}`},
		alterCase{name: "min lowered", from: `{"name": "c", "type": "integer", "min": 5}`, to: `{"name": "c", "type": "integer", "min": 1}`},
		alterCase{name: "min raised", from: `{"name": "c", "type": "integer", "min": 1}`, to: `{"name": "c", "type": "integer", "min": 5}`},
		alterCase{name: "max raised", from: `{"name": "c", "type": "number", "max": 5}`, to: `{"name": "c", "type": "number", "max": 9.5}`},
		alterCase{name: "max lowered", from: `{"name": "c", "type": "decimal", "max": 9}`, to: `{"name": "c", "type": "decimal", "max": 5}`},
		alterCase{name: "bounds kept across a type change", from: `{"name": "c", "type": "integer", "min": 0, "max": 9}`, to: `{"name": "c", "type": "decimal", "min": 0, "max": 9}`},
		alterCase{name: "bounds kept across a narrowing type change", from: `{"name": "c", "type": "number", "min": 0, "max": 9}`, to: `{"name": "c", "type": "integer", "min": 0, "max": 9}`},
		alterCase{name: "max_length raised", from: `{"name": "c", "type": "text", "max_length": 5}`, to: `{"name": "c", "type": "text", "max_length": 9}`},
		alterCase{name: "max_length lowered", from: `{"name": "c", "type": "text", "max_length": 9}`, to: `{"name": "c", "type": "text", "max_length": 5}`},
		alterCase{name: "min_length zero added", from: `{"name": "c", "type": "text"}`, to: `{"name": "c", "type": "text", "min_length": 0}`},
		alterCase{name: "min_length lowered", from: `{"name": "c", "type": "text", "min_length": 3}`, to: `{"name": "c", "type": "text", "min_length": 1}`},
		alterCase{name: "min_length raised", from: `{"name": "c", "type": "text", "min_length": 1}`, to: `{"name": "c", "type": "text", "min_length": 3}`},
		alterCase{name: "length kept across text to email", from: `{"name": "c", "type": "text", "max_length": 50}`, to: `{"name": "c", "type": "email", "max_length": 50}`},
		alterCase{name: "length added with text to url", from: `{"name": "c", "type": "text"}`, to: `{"name": "c", "type": "url", "max_length": 50}`},
		alterCase{name: "length with integer to text", from: `{"name": "c", "type": "integer"}`, to: `{"name": "c", "type": "text", "max_length": 3}`},
		alterCase{name: "enum value added", from: `{"name": "c", "type": "enum", "values": ["a"]}`, to: `{"name": "c", "type": "enum", "values": ["a", "b"]}`},
		alterCase{name: "enum value removed", from: `{"name": "c", "type": "enum", "values": ["a", "b"]}`, to: `{"name": "c", "type": "enum", "values": ["b"]}`},
		alterCase{name: "enum values reordered", from: `{"name": "c", "type": "enum", "values": ["a", "b"]}`, to: `{"name": "c", "type": "enum", "values": ["b", "a"]}`},
		alterCase{name: "enum to text drops the check", from: `{"name": "c", "type": "enum", "values": ["a"]}`, to: `{"name": "c", "type": "text"}`},
		alterCase{name: "enum with a type change to integer", from: `{"name": "c", "type": "enum", "values": ["1", "2"]}`, to: `{"name": "c", "type": "integer", "min": 1}`},

		alterCase{name: "default added", from: `{"name": "c", "type": "integer"}`, to: `{"name": "c", "type": "integer", "default": 3}`},
		alterCase{name: "default changed", from: `{"name": "c", "type": "boolean", "default": true}`, to: `{"name": "c", "type": "boolean", "default": false}`},
		alterCase{name: "default removed", from: `{"name": "c", "type": "date", "default": "2020-01-02"}`, to: `{"name": "c", "type": "date"}`},
		alterCase{name: "default kept across a type change", from: `{"name": "c", "type": "integer", "default": 1}`, to: `{"name": "c", "type": "number", "default": 1}`},
		alterCase{name: "default kept across a text-like change", from: `{"name": "c", "type": "text", "default": "a@b.c"}`, to: `{"name": "c", "type": "email", "default": "a@b.c"}`},
		alterCase{name: "default now", from: `{"name": "c", "type": "timestamp"}`, to: `{"name": "c", "type": "timestamp", "default": "now"}`},
		alterCase{name: "default changed with a type change", from: `{"name": "c", "type": "text", "default": "1"}`, to: `{"name": "c", "type": "integer", "default": 2}`},

		alterCase{name: "reference added", from: `{"name": "c", "type": "integer"}`, to: `{"name": "c", "type": "integer", "references": {"table": "u"}}`},
		alterCase{name: "reference added cascade", from: `{"name": "c", "type": "integer"}`, to: `{"name": "c", "type": "integer", "references": {"table": "u", "on_delete": "cascade"}}`},
		alterCase{name: "reference added unique", from: `{"name": "c", "type": "integer"}`, to: `{"name": "c", "type": "integer", "unique": true, "references": {"table": "u", "on_delete": "set_null"}}`},
		alterCase{name: "reference added with a type change", from: `{"name": "c", "type": "text"}`, to: `{"name": "c", "type": "integer", "references": {"table": "u"}}`},
		alterCase{name: "reference dropped", from: `{"name": "c", "type": "integer", "references": {"table": "u"}}`, to: `{"name": "c", "type": "integer"}`},
		alterCase{name: "reference dropped keeps the index", from: `{"name": "c", "type": "integer", "index": true, "references": {"table": "u"}}`, to: `{"name": "c", "type": "integer", "index": true}`},
		alterCase{name: "on_delete changed", from: `{"name": "c", "type": "integer", "references": {"table": "u"}}`, to: `{"name": "c", "type": "integer", "references": {"table": "u", "on_delete": "set_null"}}`},
		alterCase{name: "on_delete restrict spelled out", from: `{"name": "c", "type": "integer", "references": {"table": "u"}}`, to: `{"name": "c", "type": "integer", "references": {"table": "u", "on_delete": "restrict"}}`},
		alterCase{name: "reference target changed",
			fromDoc: `{"tables": [{"name": "u", "columns": []}, {"name": "v", "columns": []}, {"name": "t", "columns": [{"name": "c", "type": "integer", "references": {"table": "u"}}]}]}`,
			toDoc:   `{"tables": [{"name": "u", "columns": []}, {"name": "v", "columns": []}, {"name": "t", "columns": [{"name": "c", "type": "integer", "references": {"table": "v", "on_delete": "cascade"}}]}]}`},
		alterCase{name: "reference follows a renamed target",
			fromDoc: `{"tables": [{"name": "u", "columns": []}, {"name": "t", "columns": [{"name": "c", "type": "integer", "references": {"table": "u"}}]}]}`,
			toDoc:   `{"tables": [{"name": "w", "renamed_from": "u", "columns": []}, {"name": "t", "columns": [{"name": "c", "type": "integer", "references": {"table": "w"}}]}]}`},
		alterCase{name: "reference to a new table",
			fromDoc: `{"tables": [{"name": "t", "columns": [{"name": "c", "type": "integer"}]}]}`,
			toDoc:   `{"tables": [{"name": "n", "columns": []}, {"name": "t", "columns": [{"name": "c", "type": "integer", "references": {"table": "n"}}]}]}`},
		alterCase{name: "a claimed renamed_from leaves the reference alone",
			fromDoc: `{"tables": [{"name": "u", "columns": []}, {"name": "t", "columns": [{"name": "c", "type": "integer", "references": {"table": "u"}}]}]}`,
			toDoc:   `{"tables": [{"name": "x", "renamed_from": "u", "columns": []}, {"name": "u", "renamed_from": "zz", "columns": []}, {"name": "t", "columns": [{"name": "c", "type": "integer", "references": {"table": "u"}}]}]}`},

		alterCase{name: "column renamed with changes",
			from: `{"name": "c", "type": "text", "unique": true, "max_length": 5, "references": null}`,
			to:   `{"name": "d", "renamed_from": "c", "type": "text", "max_length": 4, "required": true, "index": true}`},
		alterCase{name: "column renamed and made unique",
			from: `{"name": "c", "type": "text"}`, to: `{"name": "d", "renamed_from": "c", "type": "text", "unique": true}`},
		alterCase{name: "column renamed with a type change and a reference",
			from: `{"name": "c", "type": "text", "references": null}`, to: `{"name": "d", "renamed_from": "c", "type": "integer", "references": {"table": "u"}}`},
		alterCase{name: "table renamed and column made unique",
			fromDoc: `{"tables": [{"name": "t", "columns": [{"name": "c", "type": "text"}]}]}`,
			toDoc:   `{"tables": [{"name": "t2", "renamed_from": "t", "columns": [{"name": "c", "type": "text", "unique": true, "searchable": true}]}]}`},
		alterCase{name: "table renamed and reference changed",
			fromDoc: `{"tables": [{"name": "u", "columns": []}, {"name": "t", "columns": [{"name": "c", "type": "integer", "references": {"table": "u"}}]}]}`,
			toDoc:   `{"tables": [{"name": "u", "columns": []}, {"name": "t2", "renamed_from": "t", "columns": [{"name": "c", "type": "integer", "required": true, "references": {"table": "u", "on_delete": "cascade"}}]}]}`},

		alterCase{name: "everything at once",
			from: `{"name": "c", "type": "text", "unique": true, "default": "1", "min_length": 1, "searchable": true}`,
			to:   `{"name": "c", "type": "integer", "required": true, "default": 2, "min": 0, "max": 100, "index": true, "references": {"table": "u", "on_delete": "cascade"}}`},
		alterCase{name: "everything off",
			from: `{"name": "c", "type": "email", "required": true, "unique": true, "default": "a@b.c", "max_length": 60, "searchable": true, "index": true}`,
			to:   `{"name": "c", "type": "text"}`},
		alterCase{name: "timestamp to date with required and unique",
			from: `{"name": "c", "type": "timestamp"}`, to: `{"name": "c", "type": "date", "required": true, "unique": true}`},
		alterCase{name: "text to email with a new rule and unique",
			from: `{"name": "c", "type": "text"}`, to: `{"name": "c", "type": "email", "max_length": 30, "unique": true}`},
		alterCase{name: "decimal to integer with bounds and unique",
			from: `{"name": "c", "type": "decimal", "max": 10}`, to: `{"name": "c", "type": "integer", "max": 5, "unique": true}`},

		alterCase{name: "passthrough of an existing table is never altered",
			fromDoc: `{"tables": [{"name": "e", "external": {"primary_key": "id"}, "columns": [{"name": "id", "type": "integer"}, {"name": "p", "type": "passthrough", "pg_type": "tsvector"}]}]}`,
			toDoc:   `{"tables": [{"name": "e", "external": {"primary_key": "id"}, "columns": [{"name": "id", "type": "integer"}, {"name": "p", "type": "passthrough", "pg_type": "tsvector", "description": "d"}]}]}`},
	)
	return cs
}

func typed(typ string) string {
	if typ == TypeEnum {
		return `{"name": "c", "type": "enum", "values": ["a", "b"]}`
	}
	return `{"name": "c", "type": "` + typ + `"}`
}

func (c alterCase) docs(t *testing.T) (Document, Document) {
	t.Helper()
	from, to := c.fromDoc, c.toDoc
	if from == "" {
		from = `{"tables": [{"name": "u", "columns": []}, {"name": "t", "columns": [` + c.from + `]}]}`
		to = `{"tables": [{"name": "u", "columns": []}, {"name": "t", "columns": [` + c.to + `]}]}`
	}
	pub, draft := mustParse(t, from), mustParse(t, to)
	for _, d := range []Document{pub, draft} {
		if p := Validate(d); len(p) > 0 {
			t.Fatalf("case %q: invalid document: %v", c.name, p)
		}
	}
	return pub, draft
}

// TestAlterColumnPlansEveryKindOfChangeExactly pins the whole plan
// (changes with their statements, after-commit steps, checks and flags;
// prechecks with their SQL; locks; notes) of every case against
// testdata/alter_column_plans.json, recorded before alterColumn was split
// into named steps, so that the split cannot change a byte of any plan.
func TestAlterColumnPlansEveryKindOfChangeExactly(t *testing.T) {
	cases := alterColumnCases()
	got := map[string]Plan{}
	var order []string
	for _, c := range cases {
		if _, dup := got[c.name]; dup {
			t.Fatalf("two cases named %q", c.name)
		}
		pub, draft := c.docs(t)
		got[c.name] = Diff(DDL{Schema: "s", Trigram: true}, pub, draft)
		order = append(order, c.name)
	}
	if *updateAlterGolden {
		var buf bytes.Buffer
		buf.WriteString("{\n")
		for i, name := range order {
			k, _ := json.Marshal(name)
			v, err := json.MarshalIndent(got[name], "  ", "  ")
			if err != nil {
				t.Fatal(err)
			}
			buf.WriteString("  " + string(k) + ": " + string(v))
			if i < len(order)-1 {
				buf.WriteString(",")
			}
			buf.WriteString("\n")
		}
		buf.WriteString("}\n")
		if err := os.WriteFile(alterGolden, buf.Bytes(), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	raw, err := os.ReadFile(alterGolden)
	if err != nil {
		t.Fatal(err)
	}
	var want map[string]json.RawMessage
	if err := json.Unmarshal(raw, &want); err != nil {
		t.Fatal(err)
	}
	if len(want) != len(cases) {
		t.Errorf("golden file has %d plans, the test %d cases", len(want), len(cases))
	}
	for _, name := range order {
		t.Run(name, func(t *testing.T) {
			w, ok := want[name]
			if !ok {
				t.Fatalf("no recorded plan")
			}
			g, _ := json.Marshal(got[name])
			var compact bytes.Buffer
			if err := json.Compact(&compact, w); err != nil {
				t.Fatal(err)
			}
			if !bytes.Equal(g, compact.Bytes()) {
				t.Errorf("plan changed:\n got  %s\n want %s", g, compact.Bytes())
			}
		})
	}
}
