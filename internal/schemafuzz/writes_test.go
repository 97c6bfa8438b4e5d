package schemafuzz

// The writes: each is checked against what it sent and what the model
// predicts, and then applied to the model.

import (
	"encoding/json"
	"fmt"
	"net/url"
	"strconv"
	"strings"

	"github.com/tablesmith/tablesmith/internal/validate"
	"github.com/tablesmith/tablesmith/schema"
)

// create runs a create, a bulk create or an upsert.
func (x *execution) create(t *schema.CTable, o op) *failure {
	valid := o.Valid
	var items []map[string]json.RawMessage
	for _, b := range o.Items {
		it, ok := x.item(t, b)
		valid = valid && ok && complete(t, opCreate, it) && accepted(t, b)
		items = append(items, it)
	}
	if len(items) == 0 {
		return nil
	}
	q := url.Values{}
	var key *schema.CColumn
	if o.Kind == opUpsert {
		var ok bool
		if key, ok = t.Inputs[o.OnConflict]; !ok {
			return nil
		}
		q.Set("on_conflict", o.OnConflict)
		seen := map[string]bool{}
		for _, it := range items {
			k := string(it[o.OnConflict])
			valid = valid && !seen[k] && !isNull(it[o.OnConflict])
			seen[k] = true
		}
	}
	var body any = items
	if o.Kind == opCreate {
		body = items[0]
	}
	status, _, raw, err := x.call("POST", "/"+t.Name, q, body)
	if err != nil {
		return &failure{Kind: "transport", Detail: err.Error()}
	}
	a, f := envelope(status, raw)
	if f != nil {
		return f
	}
	if status >= 400 {
		if f := unexpectedDetails(a, fieldsAllowed(t, len(items), o.Kind != opCreate)); f != nil {
			return f
		}
		return x.refusedValid(valid, status, raw)
	}
	var records []json.RawMessage
	if o.Kind == opCreate {
		records = []json.RawMessage{a.Data}
	} else if err := json.Unmarshal(a.Data, &records); err != nil || len(records) != len(items) {
		return &failure{Kind: "bulk answer", Detail: fmt.Sprintf("%d records for %d items: %s", len(records), len(items), raw)}
	}
	var results []string
	if o.Kind == opUpsert {
		var meta struct {
			Results []string `json:"results"`
		}
		_ = json.Unmarshal(a.Meta, &meta)
		if results = meta.Results; len(results) != len(items) {
			return &failure{Kind: "upsert answer", Detail: string(raw)}
		}
	}
	for i, rec := range records {
		row, err := record(rec, secrets(t, items[i]))
		if err != nil {
			return &failure{Kind: "record", Detail: err.Error()}
		}
		if f := x.stored(t, items[i], row); f != nil {
			return f
		}
		if results == nil || results[i] == "created" {
			if key != nil && x.keyTaken(t, key, items[i][key.Input]) {
				return &failure{Kind: "upsert created a row whose key exists", Detail: fmt.Sprintf("item %d: %s", i, raw)}
			}
			x.m.add(t.Name, row)
			continue
		}
		old := x.byKey(t, key, items[i][key.Input])
		if old == nil || old.id() != row.id() {
			return &failure{Kind: "upsert updated a row the model does not match", Detail: fmt.Sprintf("item %d: %s", i, raw)}
		}
		if err := x.m.replace(t.Name, row, true); err != nil {
			return &failure{Kind: "upsert", Detail: err.Error()}
		}
	}
	return nil
}

// keyTaken and byKey find a live row by a unique column's value.
func (x *execution) keyTaken(t *schema.CTable, c *schema.CColumn, v json.RawMessage) bool {
	return x.byKey(t, c, v) != nil
}

func (x *execution) byKey(t *schema.CTable, c *schema.CColumn, v json.RawMessage) *mrow {
	for _, r := range x.m.tables[t.Name].rows {
		if same(c, r.vals[c.Name], v) {
			return r
		}
	}
	return nil
}

// stored checks that the record holds the values the body sent (text as
// sent, numbers exactly, instants as instants), for the fields the record
// shows.
func (x *execution) stored(t *schema.CTable, sent map[string]json.RawMessage, r *mrow) *failure {
	for f, v := range sent {
		c, ok := t.Inputs[f]
		if !ok || c.Hidden {
			continue
		}
		v = asStored(c, v)
		if !same(c, r.vals[c.Name], v) {
			return &failure{Kind: "stored value differs from the one sent", Detail: fmt.Sprintf("%s.%s: sent %s, the record holds %s", t.Name, c.Name, v, r.vals[c.Name])}
		}
	}
	return nil
}

// asStored is a sent value as the server stores it: text sanitized (the
// server's own sanitizer: the fuzzer checks what happens around it), an
// e-mail trimmed and lower-cased.
func asStored(c *schema.CColumn, v json.RawMessage) json.RawMessage {
	s, isString := stringOf(v)
	if !isString {
		return v
	}
	switch {
	case c.Type == schema.TypeEmail:
		s = strings.ToLower(strings.TrimSpace(s))
	case c.Type == schema.TypeText && c.HTML:
		s = validate.SafeHTML(s)
	case c.Type == schema.TypeText:
		s = validate.PlainText(s)
	default:
		return v
	}
	out, _ := json.Marshal(s)
	return out
}

// record runs a get, put, patch or delete of one row.
func (x *execution) record(t *schema.CTable, o op) *failure {
	mt := x.m.tables[t.Name]
	target := mt.row(o.Row)
	id := missingID(t)
	if target != nil {
		id = target.id()
	}
	method := map[string]string{opGet: "GET", opPut: "PUT", opPatch: "PATCH", opDelete: "DELETE"}[o.Kind]
	valid := o.Valid && target != nil
	var sent map[string]json.RawMessage
	var body any
	if len(o.Items) > 0 {
		var ok bool
		sent, ok = x.item(t, o.Items[0])
		valid = valid && ok && accepted(t, o.Items[0]) && (o.Kind != opPut || complete(t, opPut, sent))
		body = sent
		if o.Kind == opPatch && len(sent) == 0 {
			return nil // every field of a shrunk body went
		}
	}
	status, _, raw, err := x.call(method, "/"+t.Name+"/"+url.PathEscape(id), nil, body)
	if err != nil {
		return &failure{Kind: "transport", Detail: err.Error()}
	}
	a, f := envelope(status, raw)
	if f != nil {
		return f
	}
	if target == nil {
		if status != 404 && !(status == 400 && a.Error != nil && a.Error.Code == "VALIDATION_ERROR") {
			return &failure{Kind: "a missing record was not 404", Detail: fmt.Sprintf("%s %s: %d %s", method, id, status, raw)}
		}
		return nil
	}
	if status >= 400 {
		if f := unexpectedDetails(a, fieldsAllowed(t, 1, false)); f != nil && o.Kind != opDelete {
			return f
		}
		if o.Kind == opDelete && status == 409 && !x.m.refuses(t.Name, []string{id}) {
			return &failure{Kind: "a delete was refused that nothing restricts", Detail: string(raw)}
		}
		if status == 404 {
			return &failure{Kind: "a live record was 404", Detail: fmt.Sprintf("%s %s: %s", method, id, raw)}
		}
		return x.refusedValid(valid, status, raw)
	}
	row, err := record(a.Data, secrets(t, sent))
	if err != nil {
		return &failure{Kind: "record", Detail: err.Error()}
	}
	if row.id() != id {
		return &failure{Kind: "answer is another record", Detail: fmt.Sprintf("asked for %s, got %s", id, raw)}
	}
	switch o.Kind {
	case opGet:
		return x.sameRecord(t, target, row, "get")
	case opDelete:
		if f := x.sameRecord(t, target, row, "delete"); f != nil {
			return f
		}
		if err := x.m.remove(t.Name, []string{id}); err != nil {
			return &failure{Kind: "delete broke a reference", Detail: err.Error()}
		}
		return nil
	}
	if f := x.stored(t, sent, row); f != nil {
		return f
	}
	if err := x.m.replace(t.Name, row, o.Kind == opPatch); err != nil {
		return &failure{Kind: "update", Detail: err.Error()}
	}
	return nil
}

// writeWhere runs an update or delete by filter and checks the count it
// answers against the model's, then does to the model what it did.
func (x *execution) writeWhere(t *schema.CTable, o op) *failure {
	q, kept, ok := x.query(t, o.Where)
	if len(kept) == 0 {
		return nil // its filters named what a shrunk case no longer has
	}
	conds := x.resolved(t, kept)
	max := -1
	for _, p := range o.Params {
		q.Add(p[0], p[1])
		if p[0] == "max_affected" {
			max, _ = strconv.Atoi(p[1])
		}
	}
	want := x.matching(t, conds)
	method := "DELETE"
	var sent map[string]json.RawMessage
	var body any
	valid := o.Valid && ok
	if o.Kind == opPatchWhere {
		method = "PATCH"
		var found bool
		sent, found = x.item(t, o.Items[0])
		valid = valid && found && accepted(t, o.Items[0])
		if len(sent) == 0 {
			return nil
		}
		body = sent
	}
	status, _, raw, err := x.call(method, "/"+t.Name, q, body)
	if err != nil {
		return &failure{Kind: "transport", Detail: err.Error()}
	}
	a, f := envelope(status, raw)
	if f != nil {
		return f
	}
	if status >= 400 {
		allowed := func(k string) bool { return queryAllowed(q)(k) || fieldsAllowed(t, 1, false)(k) }
		if f := unexpectedDetails(a, allowed); f != nil && !(o.Kind == opDeleteWhere && status == 409) {
			return f
		}
		if max >= 0 && len(want) > max && status == 400 && a.Error.Code == "INVALID_QUERY" {
			return nil // more rows matched than max_affected allows: nothing changed
		}
		if status == 409 && o.Kind == opDeleteWhere {
			var idList []string
			for _, r := range want {
				idList = append(idList, r.id())
			}
			if !x.m.refuses(t.Name, idList) {
				return &failure{Kind: "a delete was refused that nothing restricts", Detail: string(raw)}
			}
			return nil
		}
		return x.refusedValid(valid, status, raw)
	}
	if max >= 0 && len(want) > max {
		return &failure{Kind: "max_affected was passed", Detail: fmt.Sprintf("model %d rows, max_affected %d: %s", len(want), max, raw)}
	}
	var n struct {
		Affected int `json:"affected"`
	}
	_ = json.Unmarshal(a.Data, &n)
	if n.Affected != len(want) {
		return &failure{Kind: "affected differs from the model", Detail: fmt.Sprintf("model %d rows (%s), answer %s (%s)", len(want), ids(want), raw, q.Encode())}
	}
	if o.Kind == opDeleteWhere {
		var idList []string
		for _, r := range want {
			idList = append(idList, r.id())
		}
		if err := x.m.remove(t.Name, idList); err != nil {
			return &failure{Kind: "delete broke a reference", Detail: err.Error()}
		}
		return nil
	}
	for _, r := range want {
		for f, v := range sent {
			c := t.Inputs[f]
			if c == nil {
				continue
			}
			if c.Hidden {
				r.secret[c.Name] = !isNull(v)
				continue
			}
			r.vals[c.Name] = asStored(c, v)
		}
		r.vals[schema.ColUpdatedAt] = nil
		x.m.owe(t, "update", r)
	}
	return nil
}
