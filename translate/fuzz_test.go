package translate

import (
	"errors"
	"github.com/tablesmith/tablesmith/access"
	"net/url"
	"regexp"
	"strings"
	"testing"
	"unicode/utf8"
)

var fuzzSeeds = []string{
	"age >= 18 and (name ~ 'ann' or is_active = true)",
	"not (tier = null) or score < -1.5e3",
	`name = 'it''s' and email != 'a\'b\\c'`,
	`"name" ~ '%_' and born > '2020-01-01'`,
	"seen_at <= '2026-01-02T03:04:05Z' or ref = '0b6b6c7e-5d5a-4c1a-9f1e-1a2b3c4d5e6f'",
	"balance > 10.50 and not not is_active = false",
	"((age = 1))) or",
	"age = 1; DROP TABLE users; --",
	"name = '') OR 1=1 --'",
	"name ~ '\\'",
	"\"x\"\"y\" = 1",
	"é = 'ü'",
	"posts.title ~ 'x' and not posts.comments.body = null or posts.author.age > 3",
}

// condTokens are all the filter condition SQL may consist of: keywords,
// operators, parentheses, placeholders and column references of the
// users table. Nothing a request writes can pass this, except as $n.
// A filter on a related table adds EXISTS over a published table (its
// quoted relation name) with _xN aliases.
var condTokens = regexp.MustCompile(`^(?: |\(|\)|AND|OR|NOT|IS|NULL|ILIKE|<>|<=|>=|=|<|>|\$[0-9]+|t\."[a-z_]+"|EXISTS|SELECT 1 FROM|WHERE|_x[0-9]+\."[a-z_]+"|_x[0-9]+|"[a-z0-9_]+"\."[a-z_]+")`)

// checkConditionSQL fails unless cond is made of condTokens only and every
// column it names is a visible column of users.
func checkConditionSQL(t *testing.T, pub *Published, cond string) {
	t.Helper()
	users, _ := pub.Compiled.Table("users")
	for rest := cond; rest != ""; {
		m := condTokens.FindString(rest)
		if m == "" {
			t.Fatalf("condition has text outside the whitelist at %q:\n%s", rest, cond)
		}
		if col, ok := strings.CutPrefix(m, `t."`); ok {
			if c, found := users.Column(strings.TrimSuffix(col, `"`)); !found || c.Hidden {
				t.Fatalf("condition names column %s:\n%s", m, cond)
			}
		}
		rest = rest[len(m):]
	}
}

var placeholders = regexp.MustCompile(`\$[0-9]+`)

// FuzzParseFilter checks that the expression parser never panics, reports
// positions inside the input, and that whatever it accepts renders to SQL
// built only from fixed text, schema identifiers and $n placeholders:
// the statement equals the unfiltered one plus " WHERE <cond>".
func FuzzParseFilter(f *testing.F) {
	for _, s := range fuzzSeeds {
		f.Add(s)
	}
	pub := testPublished(f)
	users, _ := pub.Compiled.Table("users")
	base, err := BuildList(pub, users, &ListQuery{Page: 1, Limit: DefaultLimit, Count: CountExact, Caller: access.Key("", false)})
	if err != nil {
		f.Fatal(err)
	}
	f.Fuzz(func(t *testing.T, s string) {
		e, err := ParseFilter(s)
		if err != nil {
			var se *SyntaxError
			if !errors.As(err, &se) {
				t.Fatalf("error %v is not a SyntaxError", err)
			}
			if se.At < 1 || (utf8.ValidString(s) && se.At > utf8.RuneCountInString(s)+1) {
				t.Fatalf("error position %d outside the input of %d characters", se.At, utf8.RuneCountInString(s))
			}
			return
		}
		cond, err := planExpr(users, e)
		if err != nil {
			var se *SyntaxError
			if !errors.As(err, &se) {
				t.Fatalf("plan error %v is not a SyntaxError", err)
			}
			return
		}
		if cond, err = resolveRelated(pub, users, access.Key("", false), cond); err != nil {
			var qe *QueryError
			if !errors.As(err, &qe) || qe.Param != "filter" {
				t.Fatalf("related filter error %v is not a QueryError of filter", err)
			}
			return
		}
		r := &renderer{pub: pub}
		where := r.where([]condition{cond}, "t")
		checkConditionSQL(t, pub, where)

		ls, err := BuildList(pub, users, &ListQuery{Page: 1, Limit: DefaultLimit, Count: CountExact, Exprs: []Expr{e}, Caller: access.Key("", false)})
		if err != nil {
			t.Fatalf("planned once, failed to build: %v", err)
		}
		got := placeholders.ReplaceAllString(strings.ReplaceAll(ls.SQL, " WHERE "+where, ""), "$?")
		want := placeholders.ReplaceAllString(base.SQL, "$?")
		if got != want {
			t.Fatalf("statement is not the template plus the condition:\n%s\nwant\n%s", ls.SQL, base.SQL)
		}
		if len(ls.Args) != len(r.args) { // the first page has no LIMIT or OFFSET argument
			t.Fatalf("%d args for %d condition args", len(ls.Args), len(r.args))
		}
	})
}

// fixedLiterals are the only quoted literals list SQL contains.
var fixedLiterals = []string{`'UTC'`, `'YYYY-MM-DD"T"HH24:MI:SS.US"Z"'`, `'[]'`, `'block_size'`}

var quotedIdent = regexp.MustCompile(`"(?:[^"]|"")*"`)

// FuzzParseList feeds whole query strings through ParseList and BuildList:
// no panic, only the two error types, and no literal or identifier in the
// SQL that the schema or the renderer did not supply.
func FuzzParseList(f *testing.F) {
	for _, s := range []string{
		"page=2&limit=5&sort=-age,name&order=desc&count=exact",
		"filter[age][gte]=18&filter[name][like]=50%25&filter[tier][in]=gold,silver&filter[ref][null]=false",
		"filter=" + url.QueryEscape(fuzzSeeds[0]) + "&search=x%27y&include=posts.comments,notes&fields=name,age",
		"include=posts.author.posts&fields=name",
		"filter[name]=%27%3B%20DROP%20TABLE%20users&sort=name%22%3B",
		"offset=3&limit=100&include=audits",
	} {
		f.Add(s)
	}
	pub := testPublished(f)
	known := map[string]bool{`"p_test"`: true}
	for _, tbl := range pub.Compiled.Tables {
		known[tbl.Ident] = true
		for _, c := range tbl.Columns {
			known[c.Ident] = true
		}
		for name := range tbl.Relations {
			known[`"`+name+`"`] = true
		}
	}
	users, _ := pub.Compiled.Table("users")
	f.Fuzz(func(t *testing.T, raw string) {
		vals, err := url.ParseQuery(raw)
		if err != nil {
			return
		}
		q, err := ParseList(vals)
		if err != nil {
			var qe *QueryError
			if !errors.As(err, &qe) {
				t.Fatalf("ParseList error %v is not a QueryError", err)
			}
			return
		}
		q.Caller = access.User(int64(1))
		if g, err := access.Decide(q.Caller, users, access.Read); err == nil {
			q.Rows = g.Rows
		}
		ls, err := BuildList(pub, users, q)
		if err != nil {
			var qe *QueryError
			var fe *ForbiddenError
			if !errors.As(err, &qe) && !errors.As(err, &fe) {
				t.Fatalf("BuildList error %v is neither QueryError nor ForbiddenError", err)
			}
			return
		}
		stripped := ls.SQL
		for _, lit := range fixedLiterals {
			stripped = strings.ReplaceAll(stripped, lit, "")
		}
		if strings.ContainsAny(stripped, "';") || strings.Contains(stripped, "--") || strings.Contains(stripped, "/*") {
			t.Fatalf("SQL has a literal, a statement separator or a comment it should not:\n%s", ls.SQL)
		}
		for _, id := range quotedIdent.FindAllString(stripped, -1) {
			if !known[id] {
				t.Fatalf("SQL names %s, which is not in the schema:\n%s", id, ls.SQL)
			}
		}
		if n := len(placeholders.FindAllString(ls.SQL, -1)); n < len(ls.Args) {
			t.Fatalf("%d placeholders for %d args", n, len(ls.Args))
		}
	})
}
