package schemafuzz

import (
	"bytes"
	"encoding/json"

	"github.com/tablesmith/tablesmith/schema"
)

// fuzzCase is one schema document and the requests sent to its API: what
// a seed generates, what shrinking reduces, and what a regression file
// holds (testdata/regressions/*.json).
type fuzzCase struct {
	// Name says what a regression case once found.
	Name string `json:"name,omitempty"`
	// Seed generated the case (0 for a written one).
	Seed   int64           `json:"seed,omitempty"`
	Schema schema.Document `json:"schema"`
	// Streams opens a realtime stream of every realtime table before
	// the first request, with a condition per table (where[<table>]).
	Streams []streamWhere `json:"streams,omitempty"`
	Ops     []op          `json:"ops"`
}

// streamWhere is the condition a case's stream puts on one table.
type streamWhere struct {
	Table string `json:"table"`
	Where *cond  `json:"where,omitempty"`
}

// op kinds: one per endpoint and method of the generated API.
const (
	opCreate      = "create"       // POST /<t> with an object
	opBulk        = "bulk"         // POST /<t> with an array
	opUpsert      = "upsert"       // POST /<t>?on_conflict=<col> with an array
	opGet         = "get"          // GET /<t>/<id>
	opPut         = "put"          // PUT /<t>/<id>
	opPatch       = "patch"        // PATCH /<t>/<id>
	opDelete      = "delete"       // DELETE /<t>/<id>
	opList        = "list"         // GET /<t> with filters, sort, fields, include, search, count
	opPatchWhere  = "patch_where"  // PATCH /<t>?<filters>
	opDeleteWhere = "delete_where" // DELETE /<t>?<filters>
	opAggregate   = "aggregate"    // GET /<t>/aggregate
	opExport      = "export"       // GET /<t>?format=csv|ndjson
)

// op is one request, in terms of the model: rows are named by their place
// among the table's live rows when the request is sent, so a case replays
// against a fresh project (and still runs when shrinking removed the
// requests that made some rows).
type op struct {
	Kind  string `json:"kind"`
	Table string `json:"table"`
	// Row picks the record of get, put, patch and delete: the Row-th
	// live row (modulo their number); -1 is an id no row has.
	Row int `json:"row,omitempty"`
	// Items are the bodies: one for create, put, patch and patch_where,
	// several for bulk and upsert.
	Items []body `json:"items,omitempty"`
	// OnConflict is an upsert's unique column.
	OnConflict string `json:"on_conflict,omitempty"`
	// Where are the filters of a list, a write by filter, an aggregate or
	// an export, each one the model can evaluate (ANDed).
	Where []cond `json:"where,omitempty"`
	// Params are further query parameters that do not change which rows
	// match: sort, order, fields, include, count, format, group_by.
	Params [][2]string `json:"params,omitempty"`
	// Valid is set when every value is one the table accepts: the request
	// may then fail only for what the model cannot foresee (a taken
	// unique value, a restricting reference), never with a 400 on a field.
	Valid bool `json:"valid,omitempty"`
}

// body maps a field (a column's input name) to its value.
type body map[string]value

// value is a body value: a JSON literal, or the id of a row the model
// holds when the request is sent.
type value struct {
	JSON json.RawMessage
	Ref  *rowRef
}

// rowRef names a row of a table by its place among the live rows.
type rowRef struct {
	Table string `json:"table"`
	// Row is the place, modulo the number of live rows; -1, or no live
	// row, is an id no row has.
	Row int `json:"row"`
	// Column, when set, takes that column's value of the row rather
	// than its id (an upsert's key of an existing row).
	Column string `json:"column,omitempty"`
}

// MarshalJSON writes a literal as itself and a reference as
// {"$ref": {...}}: no generated JSON value has a "$ref" member.
func (v value) MarshalJSON() ([]byte, error) {
	if v.Ref != nil {
		return json.Marshal(map[string]*rowRef{"$ref": v.Ref})
	}
	if v.JSON == nil {
		return []byte("null"), nil
	}
	return v.JSON, nil
}

// UnmarshalJSON reads what MarshalJSON writes.
func (v *value) UnmarshalJSON(b []byte) error {
	if bytes.HasPrefix(bytes.TrimSpace(b), []byte(`{"$ref"`)) {
		var r map[string]*rowRef
		if err := json.Unmarshal(b, &r); err != nil {
			return err
		}
		v.Ref = r["$ref"]
		return nil
	}
	v.JSON = append(json.RawMessage(nil), b...)
	return nil
}

// lit is a literal value.
func lit(x any) value {
	raw, err := json.Marshal(x)
	if err != nil {
		panic(err)
	}
	return value{JSON: raw}
}

// cond is one filter the model evaluates the way the server does.
type cond struct {
	Column string `json:"column"`
	// Op is eq, ne, gt, lt, in or null (filter[col][op]), or search
	// (search=, with no column); in takes Rows (the ids of those live
	// rows) and applies to the key only.
	Op   string `json:"op"`
	Val  value  `json:"value"`
	Rows []int  `json:"rows,omitempty"`
	Expr bool   `json:"expr,omitempty"` // written as filter=<expr> rather than filter[col][op]
}
