package apihttp_test

import (
	"encoding/json"
	"fmt"
	"strings"
	"testing"

	"github.com/tablesmith/tablesmith/internal/testserver"
)

// everyType has one column per type, each with constraints to check.
const everyType = `{"tables": [{"name": "things", "columns": [
	{"name": "t_text", "type": "text", "min_length": 2, "max_length": 5},
	{"name": "t_pattern", "type": "text", "pattern": "^[A-Z]+$"},
	{"name": "t_html", "type": "text", "html": true},
	{"name": "t_int", "type": "integer", "min": 0, "max": 10},
	{"name": "t_num", "type": "number", "min": -1.5},
	{"name": "t_dec", "type": "decimal", "max": 1000},
	{"name": "t_bool", "type": "boolean"},
	{"name": "t_ts", "type": "timestamp"},
	{"name": "t_date", "type": "date"},
	{"name": "t_email", "type": "email"},
	{"name": "t_url", "type": "url"},
	{"name": "t_uuid", "type": "uuid"},
	{"name": "t_enum", "type": "enum", "values": ["draft", "published"]},
	{"name": "t_json", "type": "json"},
	{"name": "secret_hash", "type": "password"}]}]}`

type typeCase struct {
	column string
	input  string // JSON value
	want   string // JSON of the stored value as returned; "" when the column is never returned
	errSub string // when set, a 400 naming the column with this text is expected
}

func TestEveryColumnTypeAcceptsGoodValuesAndRejectsBadOnes(t *testing.T) {
	t.Parallel()
	s := testserver.New(t)
	p := s.NewProject(everyType)
	cases := []typeCase{
		{"t_text", `"hey"`, `"hey"`, ""},
		{"t_text", `"<b>hey</b>"`, `"hey"`, ""},
		{"t_text", `"&lt;i&gt;ok&lt;/i&gt;"`, `"ok"`, ""},
		{"t_text", `"x"`, "", "at least 2 characters"},
		{"t_text", `"toolong"`, "", "at most 5 characters"},
		{"t_text", `12`, "", "must be a string"},
		{"t_text", `"a\u0000b"`, "", "NUL"},
		{"t_pattern", `"ABC"`, `"ABC"`, ""},
		{"t_pattern", `"abc"`, "", "pattern"},
		{"t_html", `"<p onclick=\"x()\">Hi <script>alert(1)</script><a href=\"javascript:x\">a</a></p>"`, `"<p>Hi a</p>"`, ""},
		{"t_html", `"<p style=\"background:url(javascript:x)\">Hi <a href=\"https://e.example\">e</a></p>"`, `"<p>Hi <a href=\"https://e.example\" rel=\"nofollow\">e</a></p>"`, ""},
		{"t_int", `7`, `7`, ""},
		{"t_int", `0`, `0`, ""},
		{"t_int", `11`, "", "at most 10"},
		{"t_int", `-1`, "", "at least 0"},
		{"t_int", `1.5`, "", "must be an integer"},
		{"t_int", `"7"`, "", "must be an integer"},
		{"t_num", `2.25`, `2.25`, ""},
		{"t_num", `-2`, "", "at least -1.5"},
		{"t_num", `true`, "", "must be a number"},
		{"t_dec", `"123.4500"`, `123.4500`, ""},
		{"t_dec", `99.5`, `99.5`, ""},
		{"t_dec", `"12abc"`, "", "decimal"},
		{"t_dec", `1001`, "", "at most 1000"},
		{"t_bool", `false`, `false`, ""},
		{"t_bool", `"true"`, "", "true or false"},
		{"t_ts", `"2026-01-31T12:00:00+02:00"`, `"2026-01-31T10:00:00.000000Z"`, ""},
		{"t_ts", `"2026-01-31"`, "", "RFC 3339"},
		{"t_ts", `"yesterday"`, "", "RFC 3339"},
		{"t_date", `"2026-02-28"`, `"2026-02-28"`, ""},
		{"t_date", `"2026-02-30"`, "", "valid date"},
		{"t_email", `"  Ann@Example.COM "`, `"ann@example.com"`, ""},
		{"t_email", `"ann@"`, "", "invalid e-mail format"},
		{"t_email", `"ann example.com"`, "", "invalid e-mail format"},
		{"t_url", `"https://example.com/a?b=c"`, `"https://example.com/a?b=c"`, ""},
		{"t_url", `"javascript:alert(1)"`, "", "invalid URL"},
		{"t_url", `"example.com"`, "", "invalid URL"},
		{"t_uuid", `"0F8FAD5B-D9CB-469F-A165-70867728950E"`, `"0f8fad5b-d9cb-469f-a165-70867728950e"`, ""},
		{"t_uuid", `"not-a-uuid"`, "", "must be a UUID"},
		{"t_enum", `"draft"`, `"draft"`, ""},
		{"t_enum", `"archived"`, "", "must be one of: draft, published"},
		{"t_json", `{"a": [1, 2, {"b": null}]}`, `{"a": [1, 2, {"b": null}]}`, ""},
		{"t_json", `"just a string"`, `"just a string"`, ""},
		{"secret", `"long enough secret"`, "", ""},
		{"secret", `"short"`, "", "at least 8 characters"},
	}
	for i, c := range cases {
		t.Run(fmt.Sprintf("%s_%d", c.column, i), func(t *testing.T) {
			body := fmt.Sprintf(`{%q: %s}`, c.column, c.input)
			res := s.API(p, "POST", "/things", json.RawMessage(body))
			if c.errSub != "" {
				res.Must(t, 400)
				if res.ErrorCode() != "VALIDATION_ERROR" {
					t.Fatalf("code = %s", res.ErrorCode())
				}
				msg, _ := res.Details()[c.column].(string)
				if !strings.Contains(msg, c.errSub) {
					t.Fatalf("details[%s] = %q, want it to mention %q (%s)", c.column, msg, c.errSub, res.Raw)
				}
				return
			}
			res.Must(t, 201)
			var rec map[string]json.RawMessage
			raw, _ := json.Marshal(res.Body["data"])
			if err := json.Unmarshal(raw, &rec); err != nil {
				t.Fatal(err)
			}
			if c.want == "" {
				for k := range rec {
					if strings.HasPrefix(k, "secret") {
						t.Fatalf("password column returned: %s", raw)
					}
				}
				return
			}
			got := normalizeJSON(t, string(rec[c.column]))
			if want := normalizeJSON(t, c.want); got != want {
				t.Fatalf("%s stored as %s, want %s", c.column, got, want)
			}
		})
	}
}

func normalizeJSON(t *testing.T, s string) string {
	t.Helper()
	var v any
	if err := json.Unmarshal([]byte(s), &v); err != nil {
		t.Fatalf("not JSON: %q", s)
	}
	out, _ := json.Marshal(v)
	return string(out)
}
