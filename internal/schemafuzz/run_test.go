package schemafuzz

import (
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/tablesmith/tablesmith/internal/store"
	"github.com/tablesmith/tablesmith/internal/testserver"
	"github.com/tablesmith/tablesmith/schema"
)

// runner runs cases against one service, one fresh project per case.
type runner struct {
	s       *testserver.Server
	session string
	client  *http.Client
}

// The client gives up long after any answer the service owes (its
// request deadline is 10 s): a hang fails the case, not the suite.
const clientTimeout = 60 * time.Second

func newRunner(t testing.TB) *runner {
	s := testserver.New(t)
	tok := s.Signup("schemafuzz-" + store.RandomID(8) + "@example.com")
	return &runner{s: s, session: tok, client: &http.Client{Timeout: clientTimeout}}
}

// failure is what a case found wrong. Kind says what went wrong in a few
// stable words (shrinking keeps a smaller case only when it fails with the
// same kind); Detail says everything.
type failure struct {
	Kind   string `json:"kind"`
	Op     int    `json:"op"` // the request's index, -1 for the schema, the stream or the final comparison
	Detail string `json:"detail"`
}

func (f *failure) Error() string { return fmt.Sprintf("%s (request %d): %s", f.Kind, f.Op, f.Detail) }

// exchange is one request of a run and its answer, for the report.
type exchange struct {
	Method string          `json:"method"`
	Path   string          `json:"path"`
	Body   json.RawMessage `json:"body,omitempty"`
	Status int             `json:"status"`
	Answer string          `json:"answer,omitempty"`
}

// execution is one case running against its project.
type execution struct {
	rn      *runner
	c       *fuzzCase
	project string
	key     string
	comp    *schema.Compiled
	m       *model
	log     []exchange
	stream  *stream
}

// run publishes the case's schema in a new project, sends its requests and
// compares what the database holds with the model. It answers the first
// failure, and the requests sent up to it.
func (rn *runner) run(c fuzzCase) (*failure, []exchange) {
	x := &execution{rn: rn, c: &c}
	fail := x.run()
	if x.stream != nil {
		x.stream.close()
	}
	if x.project != "" {
		rn.s.Do("DELETE", "/api/projects/"+x.project, rn.session, nil)
	}
	return fail, x.log
}

func (x *execution) run() *failure {
	if f := x.publish(); f != nil {
		return f
	}
	if f := x.openStream(); f != nil {
		return f
	}
	for i, o := range x.c.Ops {
		if f := x.send(o); f != nil {
			f.Op = i
			f.Kind += " (" + o.Kind + ")"
			return f
		}
	}
	if f := x.compareRows(); f != nil {
		return f
	}
	return x.compareEvents()
}

// publish creates the project, publishes the document and makes a key.
func (x *execution) publish() *failure {
	doc, err := json.Marshal(x.c.Schema)
	if err != nil {
		return &failure{Kind: "schema", Op: -1, Detail: err.Error()}
	}
	comp, err := schema.Compile(x.c.Schema)
	if err != nil {
		return &failure{Kind: "schema invalid", Op: -1, Detail: err.Error()}
	}
	x.comp, x.m = comp, newModel(comp)
	s := x.rn.s
	p := s.Do("POST", "/api/projects", x.rn.session, map[string]any{"name": "schemafuzz", "engine": "postgres"})
	if p.Status != 201 {
		return &failure{Kind: "project", Op: -1, Detail: string(p.Raw)}
	}
	x.project = p.Data()["id"].(string)
	if r := s.Do("PUT", "/api/projects/"+x.project+"/schema", x.rn.session, doc); r.Status != 200 {
		return &failure{Kind: "save draft", Op: -1, Detail: fmt.Sprintf("%d %s", r.Status, r.Raw)}
	}
	if r := s.Do("POST", "/api/projects/"+x.project+"/generate", x.rn.session, map[string]any{"confirm_destructive": true}); r.Status != 200 {
		return &failure{Kind: "generate refused a valid document", Op: -1, Detail: fmt.Sprintf("%d %s", r.Status, r.Raw)}
	}
	k := s.Do("POST", "/api/projects/"+x.project+"/keys", x.rn.session, map[string]any{"name": "fuzz", "scope": "read_write"})
	if k.Status != 201 {
		return &failure{Kind: "key", Op: -1, Detail: string(k.Raw)}
	}
	x.key = k.Data()["key"].(string)
	return nil
}

// call sends one generated-API request and records it.
func (x *execution) call(method, path string, q url.Values, body any) (int, http.Header, []byte, error) {
	var raw []byte
	if body != nil {
		var err error
		if raw, err = json.Marshal(body); err != nil {
			return 0, nil, nil, err
		}
	}
	target := "/v1/" + x.project + path
	if len(q) > 0 {
		target += "?" + q.Encode()
	}
	req, err := http.NewRequest(method, x.rn.s.URL+target, bytes.NewReader(raw))
	if err != nil {
		return 0, nil, nil, err
	}
	if body != nil {
		req.Header.Set("Content-Type", "application/json")
	}
	req.Header.Set("Authorization", "Bearer "+x.key)
	res, err := x.rn.client.Do(req)
	if err != nil {
		return 0, nil, nil, err
	}
	defer res.Body.Close()
	answer, err := io.ReadAll(res.Body)
	if err != nil {
		return 0, nil, nil, err
	}
	short := string(answer)
	if len(short) > 600 {
		short = short[:600] + "…"
	}
	x.log = append(x.log, exchange{Method: method, Path: strings.TrimPrefix(target, "/v1/"+x.project), Body: raw, Status: res.StatusCode, Answer: short})
	return res.StatusCode, res.Header, answer, nil
}

// missingID is a key no row has, of the table's key type.
func missingID(t *schema.CTable) string {
	if t.PK.Type == schema.TypeUUID {
		return "00000000-0000-4000-8000-000000000000"
	}
	return "999999999"
}

// resolve turns a reference into the JSON of a live row's id (or column);
// ok is false when there is no such row, or the column is null.
func (x *execution) resolve(ref *rowRef) (json.RawMessage, bool) {
	mt := x.m.tables[ref.Table]
	if mt == nil {
		return json.RawMessage(`null`), false
	}
	r := mt.row(ref.Row)
	if r == nil {
		id := missingID(mt.t)
		if mt.t.PK.Type == schema.TypeUUID {
			return json.RawMessage(strconv.Quote(id)), false
		}
		return json.RawMessage(id), false
	}
	if ref.Column != "" {
		v := r.vals[ref.Column]
		return v, !isNull(v)
	}
	return r.vals[schema.ColID], true
}

// item makes a body the table can read: references resolved, fields of
// columns the table no longer has (a shrunk case) left out. ok is false
// when a reference found no row.
func (x *execution) item(t *schema.CTable, b body) (map[string]json.RawMessage, bool) {
	out := map[string]json.RawMessage{}
	ok := true
	for f, v := range b {
		if _, known := t.Inputs[f]; !known && f != "no_such_field" {
			continue
		}
		if v.Ref != nil {
			raw, found := x.resolve(v.Ref)
			ok = ok && found
			out[f] = raw
			continue
		}
		out[f] = v.JSON
	}
	return out, ok
}

// send runs one request and checks its answer against the contract and
// the model, then applies what it did to the model.
func (x *execution) send(o op) *failure {
	t, ok := x.comp.Table(o.Table)
	if !ok {
		return nil // a table a shrunk case no longer has
	}
	switch o.Kind {
	case opCreate, opBulk, opUpsert:
		return x.create(t, o)
	case opGet, opPut, opPatch, opDelete:
		return x.record(t, o)
	case opList:
		return x.list(t, o)
	case opPatchWhere, opDeleteWhere:
		return x.writeWhere(t, o)
	case opAggregate:
		return x.aggregate(t, o)
	case opExport:
		return x.export(t, o)
	}
	return nil
}
