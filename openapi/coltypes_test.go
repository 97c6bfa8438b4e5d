package openapi_test

import (
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"mime/multipart"
	"net/http"
	"net/url"
	"os"
	"strings"
	"testing"

	"github.com/pb33f/libopenapi"
	validator "github.com/pb33f/libopenapi-validator"

	"github.com/tablesmith/tablesmith/internal/testserver"
	"github.com/tablesmith/tablesmith/schema"
	"github.com/tablesmith/tablesmith/translate"
)

// TestEveryRegisteredColumnTypeWorksThroughEveryLayer walks each type of
// schema's registry through the layers a new type must reach, so that an
// entry with a missing piece fails here: its DDL (a generate on
// PostgreSQL, with the indexes and checks its traits ask for), the
// document (a body with its example value is valid), validation (the
// example is stored, and what a record shows is accepted back), the
// query language (every operator the table offers for it, an expression,
// sort, search and aggregates by its traits, refused where they do not
// apply), and the dashboard's generated copy of the registry.
func TestEveryRegisteredColumnTypeWorksThroughEveryLayer(t *testing.T) {
	t.Parallel()
	s := testserver.New(t)
	dashboard, err := os.ReadFile("../dashboard/src/schema/columnTypes.gen.ts")
	if err != nil {
		t.Fatal(err)
	}
	for _, ct := range schema.ColumnTypes() {
		if !ct.Offered {
			continue
		}
		t.Run(ct.Name, func(t *testing.T) {
			t.Parallel()
			if !bytes.Contains(dashboard, []byte(`"name": "`+ct.Name+`"`)) {
				t.Errorf("the dashboard's columnTypes.gen.ts lacks %s: run go generate ./schema", ct.Name)
			}
			w := newTypeWalk(t, s, ct)
			w.validates()
			w.queries()
		})
	}
}

// typeWalk is one type's project: table things with a column v of the
// type (unique, indexed and searchable where its traits allow) and a
// column d whose default is the type's example.
type typeWalk struct {
	t  *testing.T
	s  *testserver.Server
	p  *testserver.Project
	ct *schema.ColumnType
	v  validator.Validator
	id string
}

func newTypeWalk(t *testing.T, s *testserver.Server, ct *schema.ColumnType) *typeWalk {
	v := map[string]any{"name": "v", "type": ct.Name, "unique": ct.Traits.Unique,
		"index": ct.Traits.Indexable && !ct.Traits.Unique, "searchable": ct.Traits.Textual}
	d := map[string]any{"name": "d", "type": ct.Name}
	if ct.Traits.Enumerated {
		v["values"] = []any{ct.Example}
		d["values"] = []any{ct.Example}
	}
	if !ct.Traits.Secret {
		d["default"] = ct.Example
	}
	doc, err := json.Marshal(map[string]any{"tables": []any{map[string]any{"name": "things", "columns": []any{v, d}}}})
	if err != nil {
		t.Fatal(err)
	}
	p := s.NewProject(string(doc))
	raw := s.Do("GET", "/v1/"+p.ID+"/openapi.json", "", nil).Must(t, 200).Raw
	ldoc, err := libopenapi.NewDocument(raw)
	if err != nil {
		t.Fatal(err)
	}
	val, errs := validator.NewValidator(ldoc)
	if len(errs) > 0 {
		t.Fatalf("the document does not load: %v", errs)
	}
	return &typeWalk{t: t, s: s, p: p, ct: ct, v: val}
}

// validates creates a record with the example, as the document and the
// server agree it may be, and writes what the record shows back.
func (w *typeWalk) validates() {
	t := w.t
	if w.ct.Traits.Upload {
		w.uploads()
		return
	}
	body := map[string]any{"v": w.ct.Example}
	raw, _ := json.Marshal(body)
	req, _ := http.NewRequest("POST", w.s.URL+"/v1/"+w.p.ID+"/things", bytes.NewReader(raw))
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("Authorization", "Bearer "+w.p.Key)
	if ok, errs := w.v.ValidateHttpRequestSync(req); !ok {
		t.Errorf("the document refuses a body with the example %v: %s", w.ct.Example, describe(errs))
	}
	rec := w.s.API(w.p, "POST", "/things", body).Must(t, 201).Data()
	w.id = fmt.Sprint(rec["id"])
	shown, present := rec["v"]
	if w.ct.Traits.Secret {
		if present {
			t.Errorf("a %s value is returned: %v", w.ct.Name, rec)
		}
		return
	}
	if shown == nil || rec["d"] == nil {
		t.Fatalf("the record lacks its value or its default: %v", rec)
	}
	// A unique column takes its own value again on the same record.
	w.s.API(w.p, "PATCH", "/things/"+w.id, map[string]any{"v": shown, "d": rec["d"]}).Must(t, 200)
}

// uploads creates a record with a file in v (a multipart body, as the
// document describes it beside the JSON one), and the document accepts
// the record the server answers.
func (w *typeWalk) uploads() {
	t := w.t
	var b bytes.Buffer
	mw := multipart.NewWriter(&b)
	for _, name := range []string{"a.txt", "b.txt"} {
		fw, err := mw.CreateFormFile("v", name)
		if err != nil {
			t.Fatal(err)
		}
		fmt.Fprintf(fw, "the file %s", name)
		if !w.ct.Traits.Many {
			break
		}
	}
	if err := mw.Close(); err != nil {
		t.Fatal(err)
	}
	path := "/v1/" + w.p.ID + "/things"
	res := w.s.Do("POST", path, w.p.Key, b.Bytes(), "Content-Type", mw.FormDataContentType()).Must(t, 201)
	w.id = fmt.Sprint(res.Data()["id"])
	req, _ := http.NewRequest("POST", w.s.URL+path, nil)
	req.Header.Set("Authorization", "Bearer "+w.p.Key)
	answer := &http.Response{StatusCode: 201, Header: res.Header, Body: io.NopCloser(bytes.NewReader(res.Raw)), Request: req}
	if ok, errs := w.v.ValidateHttpResponse(req, answer); !ok {
		t.Errorf("the document refuses the record with a %s: %s\n%s", w.ct.Name, describe(errs), res.Raw)
	}
	if !strings.Contains(string(res.Raw), `"url": "/v1/`+w.p.ID+`/things/`+w.id+`/files/v/`) {
		t.Errorf("the record does not link its file: %s", res.Raw)
	}
}

// queries runs the query language on v: what the type's traits allow
// answers with the record, the rest is refused as INVALID_QUERY.
func (w *typeWalk) queries() {
	t, ct := w.t, w.ct
	text := exampleText(ct)
	list := func(q url.Values, want int) {
		t.Helper()
		r := w.s.API(w.p, "GET", "/things?"+q.Encode(), nil)
		if want == 0 {
			if r.Status != 400 || r.ErrorCode() != "INVALID_QUERY" {
				t.Errorf("?%s: %d %s, want 400 INVALID_QUERY", q.Encode(), r.Status, r.Raw)
			}
			return
		}
		r.Must(t, 200)
		if got := len(r.List()); got != want {
			t.Errorf("?%s: %d records, want %d: %s", q.Encode(), got, want, r.Raw)
		}
	}
	offered := translate.OfferedFilters(ct)
	if !ct.Traits.Comparable {
		list(url.Values{"filter[v]": {text}}, 0)
		list(url.Values{"sort": {"v"}}, 0)
	}
	for _, op := range offered {
		key := "filter[v][" + op.Field + "]"
		switch op.Value {
		case translate.OperandValue, translate.OperandList:
			want := 1
			if op.Field == "ne" || op.Field == "lt" || op.Field == "gt" {
				want = -1 // any answer but an error
			}
			w.expect(url.Values{key: {text}}, want)
		case translate.OperandText:
			list(url.Values{key: {text[:2]}}, 1)
		case translate.OperandBool:
			list(url.Values{key: {"false"}}, 1)
		}
	}
	if ct.Traits.Comparable {
		list(url.Values{"filter": {"v = " + exampleLiteral(ct)}}, 1)
		list(url.Values{"sort": {"-v"}}, 1)
		w.aggregate(url.Values{"group_by": {"v"}, "count": {"*"}}, true)
	}
	if ct.Traits.Textual {
		list(url.Values{"search": {text[:2]}}, 1)
	}
	w.aggregate(url.Values{"sum": {"v"}}, ct.Traits.Numeric)
	w.aggregate(url.Values{"min": {"v"}}, ct.Traits.MinMax)
}

// expect is list for an operator whose count depends on the value (want -1).
func (w *typeWalk) expect(q url.Values, want int) {
	w.t.Helper()
	r := w.s.API(w.p, "GET", "/things?"+q.Encode(), nil).Must(w.t, 200)
	if want >= 0 && len(r.List()) != want {
		w.t.Errorf("?%s: %d records, want %d: %s", q.Encode(), len(r.List()), want, r.Raw)
	}
}

func (w *typeWalk) aggregate(q url.Values, allowed bool) {
	w.t.Helper()
	r := w.s.API(w.p, "GET", "/things/aggregate?"+q.Encode(), nil)
	if allowed {
		r.Must(w.t, 200)
	} else if r.Status != 400 {
		w.t.Errorf("aggregate ?%s on %s: %d %s, want 400", q.Encode(), w.ct.Name, r.Status, r.Raw)
	}
}

// exampleText is the example as a filter value is written in a URL.
func exampleText(ct *schema.ColumnType) string {
	if s, ok := ct.Example.(string); ok {
		return s
	}
	raw, _ := json.Marshal(ct.Example)
	return string(raw)
}

// exampleLiteral is the example as a filter expression writes it.
func exampleLiteral(ct *schema.ColumnType) string {
	if ct.Literal == schema.LiteralString {
		return "'" + strings.ReplaceAll(exampleText(ct), "'", "''") + "'"
	}
	return exampleText(ct)
}
