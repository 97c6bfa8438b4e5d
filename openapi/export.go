package openapi

import (
	"fmt"

	"github.com/pb33f/libopenapi/datamodel/high/base"
	v3 "github.com/pb33f/libopenapi/datamodel/high/v3"
	"github.com/pb33f/libopenapi/orderedmap"
	"go.yaml.in/yaml/v4"

	"github.com/tablesmith/tablesmith/schema"
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
		paramFormat: {Name: "format", In: "query", Required: ptr(true), Example: str(translate.FormatCSV),
			Description: "csv (RFC 4180, a header row of the columns) or ndjson (one record per line, as data of a list holds it).",
			Schema: base.CreateSchemaProxy(&base.Schema{Type: types("string"),
				Enum: []*yaml.Node{str(translate.FormatCSV), str(translate.FormatNDJSON)}, Examples: []*yaml.Node{str(translate.FormatCSV)}})},
	}
}

// exportPath is GET /<table>/export: every matching record as CSV or
// NDJSON, its own operation so that the list's 200 is JSON alone and
// typed clients get typed data from it. The filters are its path's
// parameters, as on the list and aggregate paths.
func exportPath(sp *splicer, t *schema.CTable, n tableNames) *v3.PathItem {
	filters, rest := splitFilters(sp, listParameters(sp, t))
	params := []*v3.Parameter{paramRef(paramFormat)}
	for _, p := range rest {
		if p.Name == "sort" || p.Name == "include" || p.Name == "fields" || p.Reference == paramRef(paramOrder).Reference {
			params = append(params, p)
		}
	}
	content := orderedmap.New[string, *v3.MediaType]()
	content.Set("text/csv", &v3.MediaType{Schema: base.CreateSchemaProxy(&base.Schema{Type: types("string"),
		Description: fmt.Sprintf("Every matching %s record as CSV (format=csv): a header row of the columns, CRLF line ends, NULL as an empty field.", t.Name)})})
	// No type: the body is several JSON texts, which JSON Schema cannot
	// describe as one value (validators that parse it would see the first).
	content.Set("application/x-ndjson", &v3.MediaType{Schema: base.CreateSchemaProxy(&base.Schema{
		Description: fmt.Sprintf("Every matching %s record as one JSON object per line (format=ndjson), as data of a list holds it.", t.Name)})})
	ok := &v3.Response{Description: "Every matching record, streamed.", Headers: rateHeaders(), Content: content}
	level := t.Level("read")
	errs := []string{respInvalidQuery, respUnauthorized}
	if level == schema.LevelKey || len(t.RelationNames) > 0 {
		errs = append(errs, respForbidden)
	}
	errs = append(errs, respNotFound, respRateLimited, respInternal, respUnavailable)
	get := &v3.Operation{Tags: []string{t.Name}, OperationId: n.ExportOp, Summary: "Export " + t.Name,
		Description: joinSentences("Streams every record a list with the same filters, search, sort and fields would return, "+
			"all pages at once, as CSV or NDJSON; include only with ndjson. page, offset, limit and after are refused (400). "+
			"Accept: text/csv or application/x-ndjson may stand for format. The list's format= parameter asks the same "+
			"(GET /"+t.Name+"?format=csv). An export counts as one request", levelText(level, false)),
		Parameters: params, Security: security(level), Responses: responses("200", ok, errs...)}
	return &v3.PathItem{Parameters: filters, Get: get, Description: "Methods: GET, HEAD (HEAD answers the headers alone). " +
		"Any other method is answered 405 METHOD_NOT_ALLOWED (the error envelope) with an Allow header naming the methods."}
}
