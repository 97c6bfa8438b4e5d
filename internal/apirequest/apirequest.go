// Package apirequest reads a generated-API table request once, whole: its
// kind (from the method and path), the record it names, its query string
// (strictly: a parameter it cannot read or does not take is refused,
// naming it) and the headers that change what a write does (preconditions
// and Prefer). The handler then plans (translate), runs (pgexec) and
// answers (envelope) from this one value; nothing downstream reads the
// raw query string again.
package apirequest

import (
	"errors"
	"net/http"
	"net/url"
	"strings"

	"github.com/tablesmith/tablesmith/apierr"
	"github.com/tablesmith/tablesmith/schema"
	"github.com/tablesmith/tablesmith/translate"
)

// Kind is what a table request asks for.
type Kind int

// The kinds of table requests (docs/api.md).
const (
	List        Kind = iota // GET /<table>
	Export                  // GET /<table> as CSV or NDJSON
	Get                     // GET /<table>/<id>
	Create                  // POST /<table>: one record, an array (bulk), or with on_conflict (upsert)
	Replace                 // PUT /<table>/<id>
	Patch                   // PATCH /<table>/<id>
	Delete                  // DELETE /<table>/<id>
	UpdateWhere             // PATCH /<table> with filters
	DeleteWhere             // DELETE /<table> with filters
	Aggregate               // GET /<table>/aggregate
)

// Operations as the permission rules and analytics name them.
const (
	OpList      = "list"
	OpGet       = "get"
	OpCreate    = "create"
	OpUpdate    = "update"
	OpDelete    = "delete"
	OpAggregate = "aggregate"
)

// Operation is the kind's operation name for analytics; an export is a
// list, a replace or patch an update.
func (k Kind) Operation() string {
	switch k {
	case List, Export:
		return OpList
	case Get:
		return OpGet
	case Create:
		return OpCreate
	case Replace, Patch, UpdateWhere:
		return OpUpdate
	case Delete, DeleteWhere:
		return OpDelete
	}
	return OpAggregate
}

// Item reports whether the kind names one record by its id.
func (k Kind) Item() bool { return k == Get || k == Replace || k == Patch || k == Delete }

// Write reports whether the kind changes rows.
func (k Kind) Write() bool { return k != List && k != Export && k != Get && k != Aggregate }

// AggregateSegment is the path segment of the aggregate route. Integer and
// UUID keys never spell it, so it cannot hide a record; a table with a
// text key keeps its record "aggregate" for writes, and GET goes to the
// aggregate route.
const AggregateSegment = "aggregate"

// BulkSegment and ExportSegment are the path segments of POST
// /<table>/bulk (a bulk create, whose body must be an array) and GET
// /<table>/export (a CSV or NDJSON export). They are their own routes so
// that the API description can give each operation one body type: typed
// clients get JSON data from the list and an object from the create
// (docs/openapi.md, "Clients and gateways"). Like aggregate, a text key
// keeps its records of these names for the other methods.
const (
	BulkSegment   = "bulk"
	ExportSegment = "export"
)

// Request is a table request as read from the wire.
type Request struct {
	Kind  Kind
	Table *schema.CTable
	// ID is the record segment of an item route, as written in the path.
	ID string
	// RawQuery is the query string as sent (the list statements' cache
	// key, and what an Idempotency-Key binds).
	RawQuery string
	// Query is every query parameter, read whole and checked against what
	// the kind takes.
	Query url.Values
	// Format is an export's: translate.FormatCSV or FormatNDJSON.
	Format string
	// Bulk is a create on POST /<table>/bulk: the body must be an array.
	Bulk bool
	// Upsert is a create with on_conflict=<OnConflict>.
	Upsert     bool
	OnConflict string
	// IfMatch holds the entity tags of If-Match (or "*") on a write of
	// one record: the write happens only if the record's current tag is
	// one of them (412 otherwise).
	IfMatch []string
	// IfNoneMatchAny is If-None-Match: * on a create: an upsert must not
	// change an existing row.
	IfNoneMatchAny bool
	// ReturnMinimal is Prefer: return=minimal on a write: the answer
	// carries no record (204, or 201 with Location for a create).
	ReturnMinimal bool
}

// Parse reads a request on table t; rest is the path after the project id,
// split on '/' (rest[0] is the table's name). A method the route does not
// take is a 405 whose error carries the methods it does take. Once the
// kind is known the request is returned even with an error, so that the
// refusal is counted under its operation.
func Parse(r *http.Request, rest []string, t *schema.CTable) (*Request, error) {
	if len(rest) > 2 {
		return nil, apierr.New(apierr.CodeNotFound, "Not found")
	}
	req := &Request{Table: t, RawQuery: r.URL.RawQuery}
	item := len(rest) == 2
	if item {
		req.ID = rest[1]
	}
	var err error
	if req.Kind, err = kindOf(r.Method, item, req.ID, t); err != nil {
		return nil, err
	}
	if !req.Kind.Item() {
		// POST /<table>/bulk, GET /<table>/export or /aggregate: a
		// collection route, no record.
		req.Bulk, req.ID = req.Kind == Create && item, ""
	}
	if req.Query, err = translate.ParseQueryString(r.URL.RawQuery); err != nil {
		return req, InvalidQuery(err)
	}
	if err := translate.CheckParams(req.Query, paramsOf(req.Kind), func(name string) bool {
		_, ok := t.Column(name)
		return ok
	}); err != nil {
		return req, InvalidQuery(err)
	}
	if err := req.readKindParams(r); err != nil {
		return req, err
	}
	return req, req.readWriteHeaders(r.Header)
}

// kindOf names the kind of method on a collection or (item) a record.
func kindOf(method string, item bool, id string, t *schema.CTable) (Kind, error) {
	get := method == http.MethodGet || method == http.MethodHead
	if !item {
		return collectionKind(method, get)
	}
	if k, named, err := segmentKind(method, get, id, t); named {
		return k, err
	}
	return recordKind(method, get)
}

// segments are a collection's named sub-resources and the one method
// (GET also answering HEAD) each takes. A segment that is also a
// well-formed key of the table (a text id "export") names the record on
// the other methods.
var segments = []struct {
	name  string
	kind  Kind
	post  bool
	allow string
	use   string
}{
	{AggregateSegment, Aggregate, false, "GET, HEAD", "GET"},
	{BulkSegment, Create, true, "POST", "POST with an array of records"},
	{ExportSegment, Export, false, "GET, HEAD", "GET"},
}

// segmentKind is the kind of a request to a named sub-resource; named is
// false when id names a record instead.
func segmentKind(method string, get bool, id string, t *schema.CTable) (k Kind, named bool, err error) {
	for _, s := range segments {
		if id != s.name {
			continue
		}
		takes := get && !s.post || s.post && method == http.MethodPost
		if !takes && KeyCanBe(t, s.name) {
			return 0, false, nil
		}
		if !takes {
			return 0, true, methodNotAllowed(s.allow, "Method %s is not allowed on %s; use %s", method, s.name, s.use)
		}
		return s.kind, true, nil
	}
	return 0, false, nil
}

// recordKind is the kind of a request to one record.
func recordKind(method string, get bool) (Kind, error) {
	switch {
	case get:
		return Get, nil
	case method == http.MethodPut:
		return Replace, nil
	case method == http.MethodPatch:
		return Patch, nil
	case method == http.MethodDelete:
		return Delete, nil
	}
	return 0, methodNotAllowed("GET, PUT, PATCH, DELETE", "Method %s is not allowed on a record; use GET, PUT, PATCH or DELETE", method)
}

// collectionKind is the kind of a request to a table's collection.
func collectionKind(method string, get bool) (Kind, error) {
	switch {
	case get:
		return List, nil
	case method == http.MethodPost:
		return Create, nil
	case method == http.MethodPatch:
		return UpdateWhere, nil
	case method == http.MethodDelete:
		return DeleteWhere, nil
	}
	return 0, methodNotAllowed("GET, POST, PATCH, DELETE", "Method %s is not allowed on a collection; use GET, POST, PATCH or DELETE", method)
}

func methodNotAllowed(allow, format string, args ...any) error {
	e := apierr.New(apierr.CodeMethodNotAllowed, format, args...)
	e.Allow = allow
	return e
}

// KeyCanBe reports whether s is a well-formed key of t (a malformed id is
// a record that does not exist, not a bad request).
func KeyCanBe(t *schema.CTable, s string) bool {
	_, ok := ParseID(t, s)
	return ok
}

// paramsOf is what each kind takes in its query string.
func paramsOf(k Kind) translate.Params {
	switch k {
	case List, Export:
		return translate.ListParams
	case Get:
		return translate.RecordParams
	case Aggregate:
		return translate.AggregateParams
	case Create:
		return translate.CreateParams
	case UpdateWhere, DeleteWhere:
		return translate.FilterWriteParams
	}
	return translate.NoParams
}

// readKindParams reads the parameters that decide what the request is
// before any planning: an export's format, an upsert's column.
func (req *Request) readKindParams(r *http.Request) error {
	switch req.Kind {
	case List:
		format, err := exportFormat(req.Query, r.Header.Get("Accept"))
		if err != nil {
			return err
		}
		if format != "" {
			req.Kind, req.Format = Export, format
		}
	case Export:
		// GET /<table>/export: format (or Accept) must name csv or ndjson.
		format, err := exportFormat(req.Query, r.Header.Get("Accept"))
		if err != nil {
			return err
		}
		if format == "" {
			return queryError("format", "must be csv or ndjson on export (GET /"+req.Table.Name+" answers JSON)")
		}
		req.Format = format
	case Create:
		vals, ok := req.Query["on_conflict"]
		if !ok {
			return nil
		}
		if len(vals) != 1 {
			return queryError("on_conflict", "is given more than once")
		}
		req.Upsert, req.OnConflict = true, vals[0]
	}
	return nil
}

// queryError is a bad parameter, as InvalidQuery reports them.
func queryError(param, msg string) error {
	return apierr.Fields(apierr.CodeInvalidQuery, "Invalid query parameter "+param+": "+msg, map[string]string{param: msg})
}

// InvalidQuery maps a parameter translate could not read or plan
// (*translate.QueryError) to the contract's INVALID_QUERY, naming the
// parameter in details; other errors pass through.
func InvalidQuery(err error) error {
	var qe *translate.QueryError
	if errors.As(err, &qe) {
		return queryError(qe.Param, qe.Message)
	}
	return err
}

// IsExportRequest is the request's deadline choice, made before routing:
// a GET that may be an export gets the export's longer bound.
func IsExportRequest(r *http.Request) bool {
	if r.Method != http.MethodGet && r.Method != http.MethodHead {
		return false
	}
	if strings.Contains(r.URL.RawQuery, "format=") || strings.HasSuffix(strings.TrimSuffix(r.URL.Path, "/"), "/"+ExportSegment) {
		return true
	}
	a := r.Header.Get("Accept")
	return strings.Contains(a, "text/csv") || strings.Contains(a, "application/x-ndjson")
}
