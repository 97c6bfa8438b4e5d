package schema

import (
	"encoding/json"
	"math/rand/v2"
	"net/url"
	"os"
	"strings"
	"testing"
)

// FormatCases are the strings of testdata/formats.json, which the
// OpenAPI tests run through the document's patterns too.
type FormatCases struct {
	URL     AcceptRefuse `json:"url"`
	Decimal AcceptRefuse `json:"decimal"`
	Email   AcceptRefuse `json:"email"`
}

// AcceptRefuse lists values a check must accept and values it must refuse.
type AcceptRefuse struct {
	Accept []string `json:"accept"`
	Refuse []string `json:"refuse"`
}

func readFormatCases(t *testing.T) FormatCases {
	t.Helper()
	raw, err := os.ReadFile("testdata/formats.json")
	if err != nil {
		t.Fatal(err)
	}
	var fc FormatCases
	if err := json.Unmarshal(raw, &fc); err != nil {
		t.Fatal(err)
	}
	// The digit bounds, at and past the edge.
	digits := strings.Repeat("9", DecimalDigits)
	fc.Decimal.Accept = append(fc.Decimal.Accept, digits, digits+"."+digits+"e99", "-"+digits+"e-99")
	fc.Decimal.Refuse = append(fc.Decimal.Refuse, digits+"9", "1."+digits+"9", digits+"e100")
	return fc
}

func TestURLAndDecimalChecksFollowTheSharedCases(t *testing.T) {
	fc := readFormatCases(t)
	run := func(c *Column, cases AcceptRefuse) {
		for _, s := range cases.Accept {
			if _, msg := CheckValue(c, s); msg != "" {
				t.Errorf("%s %q refused (%s), the shared cases accept it", c.Type, s, msg)
			}
		}
		for _, s := range cases.Refuse {
			if _, msg := CheckValue(c, s); msg == "" {
				t.Errorf("%s %q accepted, the shared cases refuse it", c.Type, s)
			}
		}
	}
	run(&Column{Name: "site", Type: TypeURL}, fc.URL)
	run(&Column{Name: "price", Type: TypeDecimal}, fc.Decimal)
}

func TestTheEmailRuleFollowsTheSharedCasesAndStoresTheNormalForm(t *testing.T) {
	fc := readFormatCases(t)
	if len(fc.Email.Accept) < 10 || len(fc.Email.Refuse) < 20 {
		t.Fatalf("too few e-mail cases: %+v", fc.Email)
	}
	c := &Column{Name: "email", Type: TypeEmail}
	for _, s := range fc.Email.Accept {
		got, msg := CheckValue(c, s)
		if msg != "" {
			t.Errorf("%q refused (%s), the shared cases accept it", s, msg)
			continue
		}
		if want := strings.ToLower(strings.Trim(s, "\t\n\v\f\r ")); got != want {
			t.Errorf("%q stored as %q, want %q (trimmed, lower case)", s, got, want)
		}
	}
	for _, s := range fc.Email.Refuse {
		if _, msg := CheckValue(c, s); msg != MsgInvalidEmail {
			t.Errorf("%q: %q, the shared cases refuse it as %q", s, msg, MsgInvalidEmail)
		}
	}
}

func TestARequiredTextLikeColumnRefusesTheEmptyStringButAnOptionalOneTakesIt(t *testing.T) {
	for _, typ := range []string{TypeText, TypePassword} {
		required := &Column{Name: "c", Type: typ, Required: true, MinLength: new(int)}
		if _, msg := CheckValue(required, ""); msg != MsgEmpty {
			t.Errorf("required %s takes \"\": %q", typ, msg)
		}
	}
	if _, msg := CheckValue(&Column{Name: "c", Type: TypeText}, ""); msg != "" {
		t.Errorf("optional text refuses \"\": %s", msg)
	}
	if _, msg := CheckValue(&Column{Name: "c", Type: TypeText, Required: true}, " "); msg != "" {
		t.Errorf("a blank is a value: %s", msg)
	}
	// A default of "" on a required text column stays valid: documents
	// published before the rule keep their meaning.
	doc := Document{Tables: []Table{{Name: "t", Columns: []Column{{Name: "c", Type: TypeText, Required: true, Default: []byte(`""`)}}}}}
	if p := Validate(doc); len(p) > 0 {
		t.Errorf("a required text column's default \"\" is refused: %v", p)
	}
	g := DDL{Schema: "s"}
	if got := g.CreateTable(doc.Tables[0])[0]; !strings.Contains(got, `"c" text NOT NULL DEFAULT ''`) {
		t.Errorf("the default is not declared: %s", got)
	}
}

func TestDecimalsAsJSONNumbersFollowThePatternToo(t *testing.T) {
	c := &Column{Name: "price", Type: TypeDecimal}
	for in, ok := range map[string]bool{"12.5": true, "-1e99": true, "1e7790": false, "1e100": false} {
		v, msg := CheckValue(c, json.Number(in))
		if (msg == "") != ok {
			t.Errorf("json number %s: accepted %v (%q), want %v", in, msg == "", msg, ok)
		}
		if ok && v != in {
			t.Errorf("json number %s stored as %v", in, v)
		}
	}
	if v, _ := CheckValue(c, " 12.5\n"); v != "12.5" {
		t.Errorf("blanks around a decimal string are trimmed, got %q", v)
	}
}

// TestURLPatternIsWithinNetURL holds URLPattern to Go's URL parser: every
// string it accepts, from the shared cases and from random strings built
// of URL-ish pieces, parses as an http(s) URL with a host.
func TestURLPatternIsWithinNetURL(t *testing.T) {
	fc := readFormatCases(t)
	pieces := []string{"http://", "https://", "HTTP://", "a", "b.c", "-", "_", "~", "%41", "%zz", "%", ":", "80", "@", "u:p@",
		"[", "]", "[::1]", "[::ffff:1.2.3.4]", "[1:2:3:4:5:6:7:8]", "[1::]", "::", "1.2.3.4", "01", "/", "?", "#", "=", "&", "{", "}", "|", "\\", "^", "`", " ", "\t", "ä", "ß", "\u00a0", "\x7f", "'", "(", "*", "+", ",", ";", "!", "$"}
	r := rand.New(rand.NewPCG(19, 9))
	inputs := append([]string{}, fc.URL.Accept...)
	matched := 0
	for range 200000 {
		var b strings.Builder
		b.WriteString(pieces[r.IntN(3)])
		for n := r.IntN(8); n >= 0; n-- {
			b.WriteString(pieces[r.IntN(len(pieces))])
		}
		inputs = append(inputs, b.String())
	}
	for _, s := range inputs {
		if !urlRe.MatchString(s) {
			continue
		}
		matched++
		u, err := url.Parse(s)
		if err != nil {
			t.Errorf("pattern accepts %q, net/url refuses it: %v", s, err)
			continue
		}
		if (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" {
			t.Errorf("pattern accepts %q: scheme %q host %q", s, u.Scheme, u.Host)
		}
	}
	if matched < 1000 {
		t.Fatalf("only %d strings matched; the generator does not exercise the pattern", matched)
	}
}
