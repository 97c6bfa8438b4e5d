package schema

import (
	"encoding/json"
	"regexp"
	"testing"
)

// sampleColumn is a column of type t without constraints (an enum's
// values are its example).
func sampleColumn(t *ColumnType) Column {
	c := Column{Name: "c", Type: t.Name}
	if t.Traits.Enumerated {
		c.Values = []string{t.Example.(string)}
	}
	if t.Traits.ReadOnly {
		c.PGType = "tsvector"
	}
	return c
}

func TestEveryRegisteredColumnTypeHasEveryPiece(t *testing.T) {
	seen := map[string]bool{}
	fronted := map[string]string{}
	for _, ct := range ColumnTypes() {
		if seen[ct.Name] || ct.Name == "" {
			t.Fatalf("type %q is registered twice or without a name", ct.Name)
		}
		seen[ct.Name] = true
		if got, ok := TypeOf(ct.Name); !ok || got != ct {
			t.Errorf("TypeOf(%q) does not find its entry", ct.Name)
		}
		if ct.check == nil || ct.parseQuery == nil || ct.document == nil || ct.Literal == "" {
			t.Errorf("%s: an entry needs check, parseQuery, document and Literal", ct.Name)
		}
		for _, pg := range ct.Fronts {
			if other, dup := fronted[pg]; dup {
				t.Errorf("PostgreSQL type %s is fronted by both %s and %s", pg, other, ct.Name)
			}
			fronted[pg] = ct.Name
		}
		tr := ct.Traits
		switch {
		case tr.Textual && !tr.Comparable, tr.Ordered && !tr.Comparable, tr.Numeric && !tr.MinMax:
			t.Errorf("%s: textual and ordered types compare, numeric ones have a min and max: %+v", ct.Name, tr)
		case tr.Secret && (tr.Comparable || tr.Unique || tr.Indexable):
			t.Errorf("%s: a secret is never compared, unique or indexed: %+v", ct.Name, tr)
		case tr.Markup && !tr.Textual, tr.Enumerated && !tr.Textual:
			t.Errorf("%s: markup and enumerated values are text: %+v", ct.Name, tr)
		case tr.Exact && !tr.Numeric, tr.Whole && !tr.Numeric, tr.Float && !tr.Numeric:
			t.Errorf("%s: exact, whole and float describe numbers: %+v", ct.Name, tr)
		}
		if tr.Numeric && ct.Literal != LiteralNumber {
			t.Errorf("%s: numeric values are written as numbers in filters", ct.Name)
		}
		if !ct.Offered {
			if !tr.ReadOnly {
				t.Errorf("%s: only read-only types are kept from the builder", ct.Name)
			}
			continue
		}
		// Uploaded files have no example: no JSON value is one.
		if ct.Label == "" || ct.PG == "" || (ct.Example == nil) != tr.Upload {
			t.Errorf("%s: an offered type needs a label, a PostgreSQL type and an example (a file type none)", ct.Name)
		}
		if tr.Textual && ct.PG != "text" {
			t.Errorf("%s: textual types are stored as text (conversions between them keep the column)", ct.Name)
		}
	}
	for _, name := range []string{TypeText, TypeInteger, TypeNumber, TypeDecimal, TypeBoolean, TypeTimestamp, TypeDate,
		TypeEmail, TypeURL, TypeUUID, TypeEnum, TypeJSON, TypePassword, TypePassthrough} {
		if !seen[name] {
			t.Errorf("the contract's type %s has no entry", name)
		}
	}
	for _, id := range []string{TypeInteger, TypeUUID} {
		if ct, _ := TypeOf(id); !ct.Traits.Key {
			t.Errorf("%s is a table id type, so it must be able to reference one", id)
		}
	}
}

func TestEveryTypesExampleIsAcceptedAndDescribedByItsOwnSchema(t *testing.T) {
	for _, ct := range ColumnTypes() {
		if !ct.Offered {
			continue
		}
		c := sampleColumn(ct)
		v, msg := CheckValue(&c, ct.Example)
		if msg != "" {
			t.Errorf("%s refuses its own example %v: %s", ct.Name, ct.Example, msg)
			continue
		}
		for _, forRequest := range []bool{true, false} {
			s := ct.Document(&c, forRequest, true)
			if s.Format == "password" && !forRequest {
				continue
			}
			if forRequest && s.Patterns != nil {
				str, _ := ct.Example.(string)
				for _, p := range s.Patterns {
					if !regexp.MustCompile(p).MatchString(str) {
						t.Errorf("%s: the example %q does not match the document's pattern %s", ct.Name, str, p)
					}
				}
			}
		}
		// A comparable type's example, written as a filter value, is read back.
		if ct.Traits.Comparable {
			raw, _ := json.Marshal(v)
			text := string(raw)
			if s, ok := ct.Example.(string); ok {
				text = s
			}
			if _, msg := ParseQueryValue(&c, text); msg != "" {
				t.Errorf("%s: its example %q is refused as a filter value: %s", ct.Name, text, msg)
			}
		}
	}
}

func TestMessagesThatListTypesAreWrittenFromTheRegistry(t *testing.T) {
	for got, want := range map[string]string{
		msgBoundsApply: "min and max apply to integer, number and decimal columns",
		msgSearchable:  "only text, email, url and enum columns are searchable",
		msgHTMLApplies: "html applies to text columns only",
		msgValuesApply: "values apply to enum columns only",
	} {
		if got != want {
			t.Errorf("message %q, want %q", got, want)
		}
	}
}
