package translate

import (
	"net/url"
	"strings"
	"testing"

	"github.com/tablesmith/tablesmith/schema"
)

// operand is a value of the users.name text column in an operator's form.
func operand(o Operator, expr bool) string {
	switch {
	case o.Value == OperandBool:
		return "true"
	case o.Value == OperandList:
		return "ann,bob"
	case expr:
		return "'ann'"
	}
	return "ann"
}

func TestEveryOperatorOfTheTableParsesAndRendersItsSQLInEachOfItsForms(t *testing.T) {
	pub := testPublished(t)
	for _, o := range Operators() {
		if o.Field == "" && o.Expr == "" {
			t.Errorf("%s has no form", o.Label)
		}
		if o.Field != "" {
			ls, err := build(t, pub, "users", url.Values{"filter[name][" + o.Field + "]": {operand(o, false)}}.Encode())
			if err != nil {
				t.Errorf("filter[name][%s]: %v", o.Field, err)
			} else if !strings.Contains(ls.SQL, `t."name" `+o.sql) {
				t.Errorf("filter[name][%s] renders without %s: %s", o.Field, o.sql, ls.SQL)
			}
		}
		if o.Expr != "" {
			expr := "name " + o.Expr + " " + operand(o, true)
			ls, err := build(t, pub, "users", url.Values{"filter": {expr}}.Encode())
			if err != nil {
				t.Errorf("filter=%s: %v", expr, err)
			} else if !strings.Contains(ls.SQL, `t."name" `+o.sql) {
				t.Errorf("filter=%s renders without %s: %s", expr, o.sql, ls.SQL)
			}
			// A realtime stream's where[<table>] takes the same expressions.
			if _, err := ParseChangeFilter("where[users]", expr); err != nil {
				t.Errorf("where[users]=%s: %v", expr, err)
			}
		}
	}
}

func TestATextualOperatorIsRefusedOnANonTextualColumnInBothForms(t *testing.T) {
	pub := testPublished(t)
	for _, o := range Operators() {
		if !o.Textual {
			continue
		}
		if o.Field != "" {
			if _, err := build(t, pub, "users", "filter[age]["+o.Field+"]=1"); err == nil || !strings.Contains(err.Error(), "needs a text column") {
				t.Errorf("filter[age][%s] on an integer: %v", o.Field, err)
			}
		}
		if o.Expr != "" {
			if _, err := build(t, pub, "users", url.Values{"filter": {"age " + o.Expr + " '1'"}}.Encode()); err == nil || !strings.Contains(err.Error(), "needs a text column") {
				t.Errorf("age %s on an integer: %v", o.Expr, err)
			}
		}
	}
}

func TestAnUnknownOperatorIsAnsweredWithTheTablesOperators(t *testing.T) {
	_, err := ParseList(url.Values{"filter[name][near]": {"x"}})
	if err == nil || !strings.Contains(err.Error(), `unknown operator "near"; use one of eq ne gt gte lt lte like in null`) {
		t.Fatalf("error %v", err)
	}
	_, err = ParseFilter("name <> 'x'")
	if err == nil || !strings.Contains(err.Error(), "expected a value") {
		t.Fatalf("<> is two operators' symbols, not one: %v", err)
	}
}

func TestOfferedFiltersFollowTheColumnTypesTraits(t *testing.T) {
	names := func(typ string) string {
		ct, _ := schema.TypeOf(typ)
		var out []string
		for _, o := range OfferedFilters(ct) {
			out = append(out, o.Field)
		}
		return strings.Join(out, " ")
	}
	for typ, want := range map[string]string{
		schema.TypeText: "eq ne gt gte lt lte like in null", schema.TypeInteger: "eq ne gt gte lt lte in null",
		schema.TypeBoolean: "eq ne in null", schema.TypeEnum: "eq ne like in null", schema.TypeUUID: "eq ne in null",
		schema.TypeJSON: "", schema.TypePassword: "", schema.TypePassthrough: "",
	} {
		if got := names(typ); got != want {
			t.Errorf("%s offers %q, want %q", typ, got, want)
		}
	}
}
