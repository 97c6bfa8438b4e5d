package schemafuzz

// The reads and the final comparison: what the API and PostgreSQL show
// against the model.

import (
	"bufio"
	"bytes"
	"context"
	"encoding/csv"
	"encoding/json"
	"fmt"
	"sort"
	"strings"

	"github.com/tablesmith/tablesmith/schema"
)

// sameRecord compares a record the API answered with the model's row,
// column by column.
func (x *execution) sameRecord(t *schema.CTable, want, got *mrow, what string) *failure {
	for _, c := range t.Columns {
		if c.Hidden {
			if _, shown := got.vals[c.Name]; shown {
				return &failure{Kind: "a password column was answered", Detail: c.Name}
			}
			continue
		}
		g, shown := got.vals[c.Name]
		if !shown {
			continue // fields= left it out
		}
		w := want.vals[c.Name]
		if w == nil && c.Name == schema.ColUpdatedAt {
			continue // set by a write whose answer did not show it
		}
		if !same(c, w, g) {
			return &failure{Kind: what + " answered a value the model does not hold", Detail: fmt.Sprintf("%s %s.%s: model %s, answer %s", t.Name, want.id(), c.Name, w, g)}
		}
	}
	return nil
}

// list runs a list with count=exact and limit=100 and compares its rows
// with the model's (every matching row, in any order, when they fit one
// page).
func (x *execution) list(t *schema.CTable, o op) *failure {
	q, kept, ok := x.query(t, o.Where)
	x.params(t, q, o.Params)
	conds := x.resolved(t, kept)
	status, _, raw, err := x.call("GET", "/"+t.Name, q, nil)
	if err != nil {
		return &failure{Kind: "transport", Detail: err.Error()}
	}
	a, f := envelope(status, raw)
	if f != nil {
		return f
	}
	if status >= 400 {
		if f := unexpectedDetails(a, queryAllowed(q)); f != nil {
			return f
		}
		return x.refusedValid(o.Valid && ok, status, raw)
	}
	var records []map[string]json.RawMessage
	if err := json.Unmarshal(a.Data, &records); err != nil {
		return &failure{Kind: "list answer", Detail: string(raw)}
	}
	want := x.matching(t, conds)
	var meta struct {
		Total *int `json:"total"`
		Limit int  `json:"limit"`
	}
	_ = json.Unmarshal(a.Meta, &meta)
	if q.Get("count") == "exact" && (meta.Total == nil || *meta.Total != len(want)) {
		return &failure{Kind: "list total differs from the model", Detail: fmt.Sprintf("model %d rows, meta %s (%s)", len(want), a.Meta, q.Encode())}
	}
	if len(want) > meta.Limit {
		return nil // not all on one page: the total said enough
	}
	return x.sameRows(t, want, records, "list")
}

// sameRows compares records (any order) with the model's rows.
func (x *execution) sameRows(t *schema.CTable, want []*mrow, records []map[string]json.RawMessage, what string) *failure {
	if len(records) != len(want) {
		return &failure{Kind: what + " rows differ from the model", Detail: fmt.Sprintf("model %d rows (%s), answer %d", len(want), ids(want), len(records))}
	}
	byID := map[string]*mrow{}
	for _, r := range want {
		byID[r.id()] = r
	}
	for _, rec := range records {
		got := &mrow{vals: rec}
		w := byID[got.id()]
		if w == nil {
			return &failure{Kind: what + " rows differ from the model", Detail: fmt.Sprintf("answer has %s, model rows %s", got.id(), ids(want))}
		}
		if f := x.sameRecord(t, w, got, what); f != nil {
			return f
		}
	}
	return nil
}

func ids(rows []*mrow) string {
	var s []string
	for _, r := range rows {
		s = append(s, r.id())
	}
	return strings.Join(s, ",")
}

// aggregate counts the matching rows (in groups, when grouped) and
// compares the sum of the counts with the model's.
func (x *execution) aggregate(t *schema.CTable, o op) *failure {
	q, kept, ok := x.query(t, o.Where)
	x.params(t, q, o.Params)
	conds := x.resolved(t, kept)
	status, _, raw, err := x.call("GET", "/"+t.Name+"/aggregate", q, nil)
	if err != nil {
		return &failure{Kind: "transport", Detail: err.Error()}
	}
	a, f := envelope(status, raw)
	if f != nil {
		return f
	}
	if status >= 400 {
		if f := unexpectedDetails(a, queryAllowed(q)); f != nil {
			return f
		}
		// A group column named count clashes with count=*'s value: a 400
		// (docs/query-language.md, Aggregates).
		return x.refusedValid(o.Valid && ok && q.Get("group_by") != "count", status, raw)
	}
	var groups []struct {
		Count int `json:"count"`
	}
	if err := json.Unmarshal(a.Data, &groups); err != nil {
		return &failure{Kind: "aggregate answer", Detail: string(raw)}
	}
	if q.Get("count") != "*" {
		return nil
	}
	total := 0
	for _, g := range groups {
		total += g.Count
	}
	if want := len(x.matching(t, conds)); total != want && len(groups) < 100 {
		return &failure{Kind: "aggregate count differs from the model", Detail: fmt.Sprintf("model %d, answer %s (%s)", want, raw, q.Encode())}
	}
	return nil
}

// export streams the matching rows as CSV or NDJSON and compares their
// number and ids with the model's.
func (x *execution) export(t *schema.CTable, o op) *failure {
	q, kept, ok := x.query(t, o.Where)
	x.params(t, q, o.Params)
	if !q.Has("format") {
		return nil // a shrunk export that is a list no more
	}
	conds := x.resolved(t, kept)
	status, header, raw, err := x.call("GET", "/"+t.Name, q, nil)
	if err != nil {
		return &failure{Kind: "transport", Detail: err.Error()}
	}
	if status != 200 {
		a, f := envelope(status, raw)
		if f != nil {
			return f
		}
		if f := unexpectedDetails(a, queryAllowed(q)); f != nil {
			return f
		}
		return x.refusedValid(o.Valid && ok, status, raw)
	}
	want := x.matching(t, conds)
	var got []string
	if strings.HasPrefix(header.Get("Content-Type"), "text/csv") {
		recs, err := csv.NewReader(bytes.NewReader(raw)).ReadAll()
		if err != nil || len(recs) == 0 || len(recs[0]) == 0 || recs[0][0] != schema.ColID {
			return &failure{Kind: "export is not the CSV it should be", Detail: fmt.Sprintf("%v: %.300s", err, raw)}
		}
		for _, rec := range recs[1:] {
			got = append(got, rec[0])
		}
	} else {
		sc := bufio.NewScanner(bytes.NewReader(raw))
		sc.Buffer(make([]byte, 1<<20), 1<<24)
		for sc.Scan() {
			var rec map[string]json.RawMessage
			if err := json.Unmarshal(sc.Bytes(), &rec); err != nil {
				return &failure{Kind: "export is not the NDJSON it should be", Detail: sc.Text()}
			}
			got = append(got, idText(rec[schema.ColID]))
		}
	}
	var wantIDs []string
	for _, r := range want {
		wantIDs = append(wantIDs, r.id())
	}
	sort.Strings(got)
	sort.Strings(wantIDs)
	if strings.Join(got, ",") != strings.Join(wantIDs, ",") {
		return &failure{Kind: "export rows differ from the model", Detail: fmt.Sprintf("model %v, export %v (%s)", wantIDs, got, q.Encode())}
	}
	return nil
}

// compareRows reads every table from PostgreSQL and compares it with
// the model, column by column.
func (x *execution) compareRows() *failure {
	ns := schema.ProjectSchema(x.project)
	for _, t := range x.comp.Tables {
		rows, err := x.rn.s.Svc.DB.QueryContext(context.Background(),
			`SELECT row_to_json(_x.*)::text FROM `+schema.QuoteIdent(ns)+`.`+t.Ident+` _x`)
		if err != nil {
			return &failure{Kind: "read the table", Op: -1, Detail: err.Error()}
		}
		var db []*mrow
		for rows.Next() {
			var raw []byte
			if err := rows.Scan(&raw); err != nil {
				rows.Close()
				return &failure{Kind: "read the table", Op: -1, Detail: err.Error()}
			}
			r, _ := record(raw, nil)
			db = append(db, r)
		}
		rows.Close()
		want := x.m.tables[t.Name].rows
		if len(db) != len(want) {
			return &failure{Kind: "rows in PostgreSQL differ from the model", Op: -1,
				Detail: fmt.Sprintf("%s: model %d rows (%s), database %d (%s)", t.Name, len(want), ids(want), len(db), ids(db))}
		}
		byID := map[string]*mrow{}
		for _, r := range db {
			byID[r.id()] = r
		}
		for _, w := range want {
			g := byID[w.id()]
			if g == nil {
				return &failure{Kind: "rows in PostgreSQL differ from the model", Op: -1, Detail: fmt.Sprintf("%s: the database has no row %s", t.Name, w.id())}
			}
			for _, c := range t.Columns {
				if c.Hidden {
					if isNull(g.vals[c.Name]) == w.secret[c.Name] {
						return &failure{Kind: "rows in PostgreSQL differ from the model", Op: -1,
							Detail: fmt.Sprintf("%s %s.%s: the model says a hash is set: %v", t.Name, w.id(), c.Name, w.secret[c.Name])}
					}
					continue
				}
				if w.vals[c.Name] == nil && c.Name == schema.ColUpdatedAt {
					continue
				}
				if !same(c, w.vals[c.Name], g.vals[c.Name]) {
					return &failure{Kind: "rows in PostgreSQL differ from the model", Op: -1,
						Detail: fmt.Sprintf("%s %s.%s: model %s, database %s", t.Name, w.id(), c.Name, w.vals[c.Name], g.vals[c.Name])}
				}
			}
		}
	}
	return nil
}
