package jsonbody_test

import (
	"bytes"
	"encoding/json"
	"errors"
	"io"
	"mime"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"

	"github.com/tablesmith/tablesmith/apierr"
	"github.com/tablesmith/tablesmith/internal/jsonbody"
)

func post(body, contentType string) (*httptest.ResponseRecorder, *http.Request) {
	r := httptest.NewRequest(http.MethodPost, "/", strings.NewReader(body))
	if contentType != "" {
		r.Header.Set("Content-Type", contentType)
	}
	return httptest.NewRecorder(), r
}

func TestObjectAppliesOneSetOfBodyRules(t *testing.T) {
	for _, tc := range []struct {
		name, body, contentType string
		code, message           string
		details                 map[string]string
	}{
		{name: "a plain object", body: `{"title":"a","n":1.50,"tags":["x"],"o":{"a":1}}`},
		{name: "a charset parameter", body: `{}`, contentType: "application/json; charset=utf-8"},
		{name: "a valid surrogate pair", body: `{"s":"\ud83d\ude00"}`},
		{name: "escaped text that only looks like a surrogate", body: `{"s":"\\ud800"}`},
		{name: "the same key in sibling objects", body: `{"a":{"k":1},"b":{"k":2},"c":[{"k":1},{"k":2}]}`},
		{name: "a NUL character outside the platform API", body: `{"s":"a\u0000b"}`},
		{name: "non-ASCII text", body: `{"name":"Zoë 日本 🙂"}`},
		{name: "wrong media type", body: `{}`, contentType: "text/plain", code: apierr.CodeUnsupportedMedia},
		{name: "no media type", body: `{}`, contentType: "-", code: apierr.CodeUnsupportedMedia},
		{name: "too large", body: `{"s":"` + strings.Repeat("x", 100) + `"}`, code: apierr.CodePayloadTooLarge},
		{name: "not an object", body: `[1]`, code: apierr.CodeInvalidJSON, message: "The body must be a JSON object"},
		{name: "null", body: `null`, code: apierr.CodeInvalidJSON, message: "The body must be a JSON object"},
		{name: "empty", body: ``, code: apierr.CodeInvalidJSON, message: "The body must be a JSON object"},
		{name: "two values", body: `{} {}`, code: apierr.CodeInvalidJSON, message: "The body must be a single JSON object"},
		{name: "broken syntax", body: `{"a":}`, code: apierr.CodeInvalidJSON, message: "The body must be a JSON object"},
		{name: "invalid UTF-8 in a string", body: "{\"s\":\"a\xffb\"}", code: apierr.CodeInvalidJSON, message: "The body is not valid UTF-8 (byte 7)"},
		{name: "a truncated UTF-8 sequence", body: "{\"s\":\"\xe6\x97\"}", code: apierr.CodeInvalidJSON, message: "The body is not valid UTF-8 (byte 6)"},
		{name: "a lone high surrogate", body: `{"s":"a\ud800b"}`, code: apierr.CodeInvalidJSON,
			message: `Invalid \u escape in s: a lone UTF-16 surrogate is not a character`},
		{name: "a lone low surrogate", body: `{"o":{"list":["ok","\uDC00"]}}`, code: apierr.CodeInvalidJSON,
			message: `Invalid \u escape in o.list[1]: a lone UTF-16 surrogate is not a character`},
		{name: "a high surrogate before a non-surrogate escape", body: `{"s":"\ud800\u0041"}`, code: apierr.CodeInvalidJSON,
			message: `Invalid \u escape in s: a lone UTF-16 surrogate is not a character`},
		{name: "a high surrogate at the end of the string", body: `{"s":"\ud83d"}`, code: apierr.CodeInvalidJSON,
			message: `Invalid \u escape in s: a lone UTF-16 surrogate is not a character`},
		{name: "a surrogate in a key", body: `{"\udfff":1}`, code: apierr.CodeInvalidJSON,
			message: `Invalid \u escape in the body: a lone UTF-16 surrogate is not a character`},
		{name: "a duplicate key", body: `{"name":"k","scope":"read","scope":"read_write"}`, code: apierr.CodeInvalidJSON,
			message: `Duplicate key "scope" in the body`},
		{name: "a duplicate key spelt with an escape", body: `{"scope":"read","sc\u006fpe":"read_write"}`, code: apierr.CodeInvalidJSON,
			message: `Duplicate key "scope" in the body`},
		{name: "a duplicate key deep down", body: `{"tables":[{"name":"a"},{"name":"b","columns":[{"name":"x","type":"text","name":"y"}]}]}`,
			code: apierr.CodeInvalidJSON, message: `Duplicate key "name" in tables[1].columns[0]`},
		{name: "a duplicate key in a large object", body: manyKeys(40, "k7"), code: apierr.CodeInvalidJSON,
			message: `Duplicate key "k7" in the body`},
	} {
		t.Run(tc.name, func(t *testing.T) {
			ct := tc.contentType
			switch ct {
			case "":
				ct = "application/json"
			case "-":
				ct = ""
			}
			w, r := post(tc.body, ct)
			body, err := jsonbody.Object(w, r, 64)
			if tc.name == "a duplicate key in a large object" || tc.name == "a duplicate key deep down" {
				w, r = post(tc.body, ct)
				body, err = jsonbody.Object(w, r, 1<<20)
			}
			if tc.code == "" {
				if err != nil {
					t.Fatalf("want the body accepted, got %v", err)
				}
				if body == nil {
					t.Fatal("no body")
				}
				return
			}
			e := apierr.As(err)
			if e.Code != tc.code || (tc.message != "" && e.Message != tc.message) {
				t.Fatalf("got %s %q, want %s %q", e.Code, e.Message, tc.code, tc.message)
			}
		})
	}
}

func manyKeys(n int, dup string) string {
	var b strings.Builder
	b.WriteString("{")
	for i := 0; i < n; i++ {
		b.WriteString(`"k` + itoa(i) + `":1,`)
	}
	b.WriteString(`"` + dup + `":2}`)
	return b.String()
}

func itoa(n int) string { b, _ := json.Marshal(n); return string(b) }

func TestObjectKeepsNumbersAsWritten(t *testing.T) {
	w, r := post(`{"n":12345678901234567890}`, "application/json")
	body, err := jsonbody.Object(w, r, 1<<10)
	if err != nil {
		t.Fatal(err)
	}
	if n, ok := body["n"].(json.Number); !ok || n.String() != "12345678901234567890" {
		t.Fatalf("n = %#v", body["n"])
	}
}

func TestDecodeRefusesNULCharactersNamingTheField(t *testing.T) {
	type column struct {
		Name string `json:"name"`
	}
	type table struct {
		Name    string   `json:"name"`
		Columns []column `json:"columns"`
	}
	var v struct {
		Name   string  `json:"name"`
		Tables []table `json:"tables"`
	}
	for body, field := range map[string]string{
		`{"name":"a\u0000"}`: "name",
		`{"tables":[{"name":"ok","columns":[]},{"name":"t","columns":[{"name":"\u0000x"}]}]}`: "tables[1].columns[0].name",
		`{"\u0000":1}`: "body",
	} {
		w, r := post(body, "application/json")
		err := jsonbody.Decode(w, r, 1<<10, &v)
		e := apierr.As(err)
		if e.Code != apierr.CodeValidation || e.Details[field] != "must not contain NUL characters" {
			t.Errorf("%s: got %s %q %v, want a validation error on %s", body, e.Code, e.Message, e.Details, field)
		}
	}
}

func TestDecodeNamesUnknownAndMistypedFields(t *testing.T) {
	var v struct {
		Name  string `json:"name"`
		Count int    `json:"count"`
	}
	for body, want := range map[string]map[string]string{
		`{"nme":"x"}`:   {"nme": "unknown field"},
		`{"count":"x"}`: {"count": "has the wrong type"},
	} {
		w, r := post(body, "application/json")
		e := apierr.As(jsonbody.Decode(w, r, 1<<10, &v))
		if e.Code != apierr.CodeValidation || len(e.Details) != 1 || e.Details[keyOf(want)] != want[keyOf(want)] {
			t.Errorf("%s: got %s %v, want %v", body, e.Code, e.Details, want)
		}
	}
	w, r := post(`{"name":"a"} x`, "application/json")
	if e := apierr.As(jsonbody.Decode(w, r, 1<<10, &v)); e.Code != apierr.CodeInvalidJSON {
		t.Errorf("trailing data: got %s", e.Code)
	}
}

func keyOf(m map[string]string) string {
	for k := range m {
		return k
	}
	return ""
}

// oldReadBody is apihttp's reader before the shared one, kept here to
// measure what the new checks cost.
func oldReadBody(w http.ResponseWriter, r *http.Request, max int64) (map[string]any, error) {
	if mt, _, err := mime.ParseMediaType(r.Header.Get("Content-Type")); err != nil || mt != "application/json" {
		return nil, errors.New("media")
	}
	raw, err := io.ReadAll(http.MaxBytesReader(w, r.Body, max))
	if err != nil {
		return nil, err
	}
	dec := json.NewDecoder(bytes.NewReader(raw))
	dec.UseNumber()
	var body map[string]any
	if err := dec.Decode(&body); err != nil || body == nil {
		return nil, errors.New("json")
	}
	if _, err := dec.Token(); err != io.EOF {
		return nil, errors.New("json")
	}
	return body, nil
}

// typicalCreate is a ~300-byte create body of the generated API.
const typicalCreate = `{"title":"Quarterly report for the north-east region","body":"Revenue grew by 12% on the previous quarter; see the attached figures.","status":"published","author_id":42,"price":1234.50,"tags":["finance","report","q3"],"published_at":"2026-05-01T12:00:00Z","featured":true,"rating":4}`

func benchRead(b *testing.B, read func(http.ResponseWriter, *http.Request, int64) (map[string]any, error)) {
	w := httptest.NewRecorder()
	body := []byte(typicalCreate)
	r := httptest.NewRequest(http.MethodPost, "/", nil)
	r.Header.Set("Content-Type", "application/json")
	b.ReportAllocs()
	b.SetBytes(int64(len(body)))
	for i := 0; i < b.N; i++ {
		r.Body = io.NopCloser(bytes.NewReader(body))
		if _, err := read(w, r, 1<<20); err != nil {
			b.Fatal(err)
		}
	}
}

func BenchmarkObjectTypicalCreate(b *testing.B)      { benchRead(b, jsonbody.Object) }
func BenchmarkOldReadBodyTypicalCreate(b *testing.B) { benchRead(b, oldReadBody) }

func BenchmarkCheckTypicalCreate(b *testing.B) {
	body := []byte(typicalCreate)
	b.ReportAllocs()
	for i := 0; i < b.N; i++ {
		if err := jsonbody.Check(body); err != nil {
			b.Fatal(err)
		}
	}
}
