package schema

import "testing"

func TestAProjectsSchemaNameGoesThereAndBack(t *testing.T) {
	name := ProjectSchema("ab12cd")
	if name != "p_ab12cd" {
		t.Fatalf("schema of ab12cd = %q", name)
	}
	if id, ok := ProjectOfSchema(name); !ok || id != "ab12cd" {
		t.Fatalf("project of %q = %q, %v", name, id, ok)
	}
	for _, other := range []string{"public", "tablesmith", "p_", "pg_catalog"} {
		if id, ok := ProjectOfSchema(other); ok {
			t.Errorf("%q is taken for project %q's schema", other, id)
		}
	}
	if got := ProjectSchemaPattern(); got != `p\_%` {
		t.Fatalf("pattern %q, want p\\_%% (the underscore escaped)", got)
	}
}

func TestQuoteIdentDoublesQuotesAndKeepsEveryByte(t *testing.T) {
	for in, want := range map[string]string{`posts`: `"posts"`, `we"ird`: `"we""ird"`, "a\x00b": "\"a\x00b\""} {
		if got := QuoteIdent(in); got != want {
			t.Errorf("QuoteIdent(%q) = %q, want %q", in, got, want)
		}
	}
}
