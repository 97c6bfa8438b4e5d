package translate

import (
	"fmt"
	"strings"
	"testing"
)

// show prints a parsed expression as an S-expression, so tests state the
// tree (and so the precedence) they expect.
func show(e Expr) string {
	switch n := e.(type) {
	case *Logical:
		parts := make([]string, len(n.Terms))
		for i, t := range n.Terms {
			parts[i] = show(t)
		}
		return "(" + n.Op + " " + strings.Join(parts, " ") + ")"
	case *Not:
		return "(not " + show(n.X) + ")"
	case *Comparison:
		v := n.Value.Text
		if n.Value.Kind == StringLiteral {
			v = fmt.Sprintf("%q", v)
		}
		return "(" + n.Op + " " + n.Column + " " + v + ")"
	}
	return fmt.Sprintf("?%T", e)
}

func TestParseFilterBuildsTheTreeWithPrecedence(t *testing.T) {
	cases := map[string]string{
		"age >= 18 and (name ~ 'ann' or is_active = true)": `(and (>= age 18) (or (~ name "ann") (= is_active true)))`,
		"a = 1 or b = 2 and c = 3":                         `(or (= a 1) (and (= b 2) (= c 3)))`,
		"(a = 1 or b = 2) and c = 3":                       `(and (or (= a 1) (= b 2)) (= c 3))`,
		"a = 1 and b = 2 and c = 3 or d = 4":               `(or (and (= a 1) (= b 2) (= c 3)) (= d 4))`,
		"not a = 1 and b = 2":                              `(and (not (= a 1)) (= b 2))`,
		"not (a = 1 and b = 2)":                            `(not (and (= a 1) (= b 2)))`,
		"not not a = 1":                                    `(not (not (= a 1)))`,
		"a != 1":                                           `(!= a 1)`,
		"a <= -2.5e-3":                                     `(<= a -2.5e-3)`,
		"a<0":                                              `(< a 0)`,
		"a > 1.0":                                          `(> a 1.0)`,
		"a >= 1E+9":                                        `(>= a 1E+9)`,
		"a ~ ''":                                           `(~ a "")`,
		"a !~ 'x'":                                         `(!~ a "x")`,
		"a = 'it''s'":                                      `(= a "it's")`,
		`a = 'it\'s'`:                                      `(= a "it's")`,
		`a = 'back\\slash'`:                                `(= a "back\\slash")`,
		`a = '%_"'`:                                        `(= a "%_\"")`,
		"a = 'ünïcode ✓'":                                  `(= a "ünïcode ✓")`,
		"A = TRUE AND b = Null OR NOT c = False":           `(or (and (= A true) (= b null)) (not (= c false)))`,
		`"and" = 1`:                                        `(= and 1)`,
		`"we""ird" = 1`:                                    `(= we"ird 1)`,
		"\ta\n=\r\n1 ":                                     `(= a 1)`,
		"(a>=1)and(b=2)":                                   `(and (>= a 1) (= b 2))`,
		"((((a = 1))))":                                    `(= a 1)`,
		"_x1 = 'y'":                                        `(= _x1 "y")`,
	}
	for in, want := range cases {
		e, err := ParseFilter(in)
		if err != nil {
			t.Errorf("ParseFilter(%q): %v", in, err)
			continue
		}
		if got := show(e); got != want {
			t.Errorf("ParseFilter(%q) = %s, want %s", in, got, want)
		}
	}
}

func TestParseFilterErrorsSayWhatAndWhere(t *testing.T) {
	cases := map[string]string{
		"":                  "unexpected end of expression at 1",
		"   ":               "unexpected end of expression at 4",
		")":                 "unexpected ')' at 1",
		"age >= 18 and )":   "unexpected ')' at 15",
		"(a = 1":            "expected ')' but found end of expression at 7",
		"a = 1)":            "unexpected ')' at 6",
		"a 1":               `expected an operator (= != > >= < <= ~ !~) after "a" but found number 1 at 3`,
		"a = b":             `expected a value (number, 'string', true, false or null) but found name "b" at 5`,
		"a = (":             `expected a value (number, 'string', true, false or null) but found '(' at 5`,
		"a = and":           `expected a value (number, 'string', true, false or null) but found 'and' at 5`,
		"a ! 1":             "unexpected '!' (use != or !~) at 3",
		"a = 'x":            "unterminated string at 5",
		`a = 'x\y'`:         `unknown escape in string (write \\ for a backslash, \' or '' for a quote) at 7`,
		"a = 1.":            "invalid number at 5",
		"a = 1e":            "invalid number at 5",
		"a = 12abc":         "invalid number at 5",
		"a = 1.2.3":         "invalid number at 5",
		"a = -":             "unexpected character \"-\" at 5",
		"a = @":             "unexpected character \"@\" at 5",
		`"" = 1`:            "empty column name at 1",
		`"abc = 1`:          "unterminated quoted name at 1",
		"a = 1 b = 2":       `unexpected name "b" at 7`,
		"a = 1 and":         "unexpected end of expression at 10",
		"1 = a":             "unexpected number 1 at 1",
		"'a' = a":           "unexpected string at 1",
		"true":              "unexpected 'true' at 1",
		"name = 'é' or )":   "unexpected ')' at 15", // positions count characters, not bytes
		"é = 1":             `unexpected character "é" at 1`,
		"a = 1 \x00":        "unexpected character at 7",
		"a = '\xff'":        "expression is not valid UTF-8 at 1",
		"a <> 1":            "expected a value (number, 'string', true, false or null) but found '>' at 4",
		"a = " + long(30):   "", // only checks it parses
		"a = 1 or " + "x":   `expected an operator (= != > >= < <= ~ !~) after "x" but found end of expression at 11`,
		"a = 'abc' and b =": "expected a value (number, 'string', true, false or null) but found end of expression at 18",
	}
	for in, want := range cases {
		_, err := ParseFilter(in)
		if want == "" {
			if err != nil {
				t.Errorf("ParseFilter(%q): %v", in, err)
			}
			continue
		}
		if err == nil || err.Error() != want {
			t.Errorf("ParseFilter(%q) error = %v, want %q", in, err, want)
		}
	}
}

func long(n int) string { return "'" + strings.Repeat("y", n) + "'" }

func TestParseFilterEnforcesItsLimits(t *testing.T) {
	nest := func(n int) string { return strings.Repeat("(", n) + "a = 1" + strings.Repeat(")", n) }
	if _, err := ParseFilter(nest(MaxFilterDepth)); err != nil {
		t.Fatalf("%d levels: %v", MaxFilterDepth, err)
	}
	if _, err := ParseFilter(nest(MaxFilterDepth + 1)); err == nil || !strings.Contains(err.Error(), "nested deeper than 16 levels at 17") {
		t.Fatalf("%d levels: %v", MaxFilterDepth+1, err)
	}
	if _, err := ParseFilter(strings.Repeat("not ", MaxFilterDepth+1) + "a = 1"); err == nil || !strings.Contains(err.Error(), "nested deeper") {
		t.Fatalf("%d nots: %v", MaxFilterDepth+1, err)
	}
	// depth is nesting, not the number of groups
	if _, err := ParseFilter(strings.Repeat("(a = 1) and ", 40) + "(a = 2)"); err != nil {
		t.Fatalf("40 sibling groups: %v", err)
	}
	terms := func(n int) string {
		parts := make([]string, n)
		for i := range parts {
			parts[i] = "a = 1"
		}
		return strings.Join(parts, " or ")
	}
	if _, err := ParseFilter(terms(MaxFilterComparisons)); err != nil {
		t.Fatalf("%d comparisons: %v", MaxFilterComparisons, err)
	}
	if _, err := ParseFilter(terms(MaxFilterComparisons + 1)); err == nil || !strings.Contains(err.Error(), "more than 64 comparisons") {
		t.Fatalf("%d comparisons: %v", MaxFilterComparisons+1, err)
	}
	if _, err := ParseFilter("a = " + long(MaxFilterLength)); err == nil || err.Error() != "expression longer than 2048 bytes at 1" {
		t.Fatalf("long expression: %v", err)
	}
}

func TestFilterNamesMayReachColumnsThroughRelations(t *testing.T) {
	for _, c := range []struct{ in, column string }{
		{"author.name ~ 'ann'", "author.name"},
		{"post.author.age >= 18", "post.author.age"},
		{"and_x.or_y = 1", "and_x.or_y"},
	} {
		e, err := ParseFilter(c.in)
		if err != nil {
			t.Fatalf("%q: %v", c.in, err)
		}
		if cmp, ok := e.(*Comparison); !ok || cmp.Column != c.column {
			t.Errorf("%q: parsed %#v, want a comparison of %s", c.in, e, c.column)
		}
	}
	for _, in := range []string{"author. name = 1", "author.1 = 1", "author.name. = 1"} {
		if _, err := ParseFilter(in); err == nil {
			t.Errorf("%q: parsed, want a syntax error", in)
		}
	}
}
