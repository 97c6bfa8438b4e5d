package openapi

import (
	"fmt"

	"github.com/pb33f/libopenapi/datamodel/high/base"
	v3 "github.com/pb33f/libopenapi/datamodel/high/v3"
	"go.yaml.in/yaml/v4"

	"github.com/tablesmith/tablesmith/translate"
)

// Names of the keyset and export parameters.
const (
	paramAfter  = "After"
	paramFormat = "Format"
)

// pagingParameters are the shared parameters of cursor pages and
// exports, added to sharedParameters' map by its caller.
func pagingParameters() map[string]*v3.Parameter {
	return map[string]*v3.Parameter{
		paramAfter: {Name: "after", In: "query",
			Description: "Cursor of the row this page starts after: meta.next_cursor of the previous page, with the same table, sort and order. " +
				"Not with page or offset. A cursor page reports page and offset 0.",
			Schema: base.CreateSchemaProxy(&base.Schema{Type: types("string"), MaxLength: ptr(int64(translate.MaxCursorLength)),
				Pattern: "^[A-Za-z0-9_-]+$"})},
		paramFormat: {Name: "format", In: "query",
			Description: "json (the default) answers a page; csv (RFC 4180, header row) and ndjson (one record per line) stream every matching row " +
				"with the same filters, search, sort, fields and owner scope, without page, offset, limit or after (400). " +
				"Accept: text/csv or application/x-ndjson asks the same. An export counts as one request.",
			Schema: base.CreateSchemaProxy(&base.Schema{Type: types("string"),
				Enum: []*yaml.Node{str("json"), str(translate.FormatCSV), str(translate.FormatNDJSON)}, Default: str("json")})},
	}
}

// withExports adds the export media types to a list's 200 answer.
func withExports(r *v3.Response, table string) *v3.Response {
	r.Content.Set("text/csv", &v3.MediaType{Schema: base.CreateSchemaProxy(&base.Schema{Type: types("string"),
		Description: fmt.Sprintf("Every matching %s record as CSV (format=csv): a header row of the columns, CRLF line ends, NULL as an empty field.", table)})})
	// No type: the body is several JSON texts, which JSON Schema cannot
	// describe as one value (validators that parse it would see the first).
	r.Content.Set("application/x-ndjson", &v3.MediaType{Schema: base.CreateSchemaProxy(&base.Schema{
		Description: fmt.Sprintf("Every matching %s record as one JSON object per line (format=ndjson), as data of a list holds it.", table)})})
	return r
}
