package openapi

import (
	"fmt"
	"slices"
	"sort"
	"strings"

	"github.com/pb33f/libopenapi/datamodel/high/base"
	v3 "github.com/pb33f/libopenapi/datamodel/high/v3"
	"github.com/pb33f/libopenapi/orderedmap"
	"go.yaml.in/yaml/v4"

	"github.com/tablesmith/tablesmith/schema"
	"github.com/tablesmith/tablesmith/translate"
)

// Names of the shared list parameters.
const (
	paramPage   = "Page"
	paramLimit  = "Limit"
	paramOffset = "Offset"
	paramOrder  = "Order"
	paramFilter = "FilterExpression"
	paramCount  = "Count"

	paramIdempotencyKey = "IdempotencyKey"
	paramIfMatch        = "IfMatch"
	paramIfNoneMatch    = "IfNoneMatch"
	paramPrefer         = "Prefer"
)

// maxIncludeEnum bounds the enum of include paths; a richer graph gets a
// pattern instead, so the document stays readable.
const maxIncludeEnum = 200

// sharedParameters are the list parameters every table shares.
func sharedParameters(maxLimit int) *orderedmap.Map[string, *v3.Parameter] {
	m := orderedmap.New[string, *v3.Parameter]()
	m.Set(paramPage, &v3.Parameter{Name: "page", In: "query",
		Description: "Page number, from 1. Use page or offset, not both.",
		Example:     intNode(1),
		Schema: base.CreateSchemaProxy(&base.Schema{Type: types("integer"), Minimum: ptr(1.0),
			Maximum: ptr(float64(translate.MaxPage)), Default: intNode(1)})})
	m.Set(paramLimit, &v3.Parameter{Name: "limit", In: "query",
		Description: fmt.Sprintf("Records per page, 1 to %d.", maxLimit), Example: intNode(translate.DefaultLimit),
		Schema: base.CreateSchemaProxy(&base.Schema{Type: types("integer"), Minimum: ptr(1.0),
			Maximum: ptr(float64(maxLimit)), Default: intNode(translate.DefaultLimit)})})
	m.Set(paramOffset, &v3.Parameter{Name: "offset", In: "query",
		Description: "Records to skip, instead of page (with limit).",
		Schema: base.CreateSchemaProxy(&base.Schema{Type: types("integer"), Minimum: ptr(0.0),
			Maximum: ptr(float64(int64(translate.MaxPage) * int64(maxLimit)))})})
	m.Set(paramOrder, &v3.Parameter{Name: "order", In: "query",
		Description: "Direction of the sort columns written without a leading '-'.", Example: str("asc"),
		Schema: base.CreateSchemaProxy(&base.Schema{Type: types("string"), Enum: []*yaml.Node{str("asc"), str("desc")}, Default: str("asc")})})
	m.Set(paramFilter, &v3.Parameter{Name: "filter", In: "query",
		Description: "A filter expression over the table's columns, e.g. `age >= 18 and (name ~ 'ann' or is_active = true)`. " +
			"Operators: " + translate.ExprOperators() + ", and, or, not, parentheses; " +
			"values are numbers, 'strings', true, false and null.",
		Schema: base.CreateSchemaProxy(&base.Schema{Type: types("string")})})
	m.Set(paramCount, &v3.Parameter{Name: "count", In: "query",
		Description: fmt.Sprintf("How meta.total is counted: exact, estimated (exact up to %d matching records, "+
			"then the planner's estimate with meta.total_estimated) or none (no total).", translate.ExactCountCap),
		Example: str(translate.CountEstimated),
		Schema: base.CreateSchemaProxy(&base.Schema{Type: types("string"),
			Enum:    []*yaml.Node{str(translate.CountExact), str(translate.CountEstimated), str(translate.CountNone)},
			Default: str(translate.CountEstimated)})})
	m.Set(paramIdempotencyKey, &v3.Parameter{Name: "Idempotency-Key", In: "header",
		Description: "Makes a write safe to retry: the same key with the same method, path and body within 24 hours " +
			"answers the first answer again (status, body and Location, with Idempotent-Replayed: true) without writing again; " +
			"the same key with another request is answered 422 IDEMPOTENCY_KEY_REUSED. Keys are per credential. " +
			"Answers of 500 and above are not recorded. Not available for projects that front an existing database (400).",
		Schema: base.CreateSchemaProxy(&base.Schema{Type: types("string"), MinLength: ptr(int64(1)), MaxLength: ptr(int64(255)),
			Pattern: "^[ -~]+$"})})
	m.Set(paramIfMatch, &v3.Parameter{Name: "If-Match", In: "header",
		Description: "Writes only if the record is still the version this entity tag (the ETag of its GET) names, or any version for *; " +
			"otherwise answers 412 PRECONDITION_FAILED and writes nothing. Tags compare by their opaque value (W/ or not).",
		Schema: base.CreateSchemaProxy(&base.Schema{Type: types("string")})})
	m.Set(paramIfNoneMatch, &v3.Parameter{Name: "If-None-Match", In: "header",
		Description: "Only *: with on_conflict, creates every record or, if one already exists, none (412 PRECONDITION_FAILED) instead of updating it.",
		Schema:      base.CreateSchemaProxy(&base.Schema{Type: types("string"), Enum: []*yaml.Node{str("*")}})})
	m.Set(paramPrefer, &v3.Parameter{Name: "Prefer", In: "header",
		Description: "return=minimal answers without the record: 204, or 201 with Location for a create (Preference-Applied: return=minimal). " +
			"return=representation (the default) answers with it.",
		Example: str("return=representation"),
		Schema:  base.CreateSchemaProxy(&base.Schema{Type: types("string"), Enum: []*yaml.Node{str("return=minimal"), str("return=representation")}})})
	for _, name := range []string{paramAfter, paramFormat} {
		m.Set(name, pagingParameters()[name])
	}
	return m
}

func paramRef(name string) *v3.Parameter {
	return &v3.Parameter{Reference: "#/components/parameters/" + name}
}

// listParameters are the query parameters of a table's list operation.
func listParameters(sp *splicer, t *schema.CTable) []*v3.Parameter {
	params := []*v3.Parameter{paramRef(paramPage), paramRef(paramLimit), paramRef(paramOffset)}
	var sortable []string
	for _, c := range t.Columns {
		if c.Hidden {
			continue
		}
		if c.Kind.Traits.Comparable {
			sortable = append(sortable, c.Name)
		}
	}
	params = append(params, &v3.Parameter{Name: "sort", In: "query",
		Description: fmt.Sprintf("Sort columns, comma-separated; a leading '-' sorts that column descending. "+
			"At most %d columns, e.g. -created_at,id. Default: id. Columns: %s.", translate.MaxSortKeys, strings.Join(sortable, ", ")),
		Example: str(t.PK.Name),
		Schema:  base.CreateSchemaProxy(&base.Schema{Type: types("string")}),
	}, paramRef(paramOrder))
	var filterable []*schema.CColumn
	for _, c := range t.Columns {
		if !c.Hidden && c.Kind.Traits.Comparable {
			filterable = append(filterable, c)
		}
	}
	if len(filterable) > 0 {
		// No description per column: the operation's says what
		// filter[column] and filter[column][op] do.
		params = append(params, &v3.Parameter{Reference: sp.spread(func() *yaml.Node {
			seq := &yaml.Node{Kind: yaml.SequenceNode}
			for _, c := range filterable {
				seq.Content = append(seq.Content, filterParameters(c)...)
			}
			return seq
		})})
	}
	params = append(params, paramRef(paramFilter))
	if len(t.Search) > 0 {
		names := make([]string, len(t.Search))
		for i, c := range t.Search {
			names[i] = c.Name
		}
		params = append(params, &v3.Parameter{Name: "search", In: "query",
			Description: "Records with this term in any of: " + strings.Join(names, ", ") + " (case-insensitive).",
			Schema:      base.CreateSchemaProxy(&base.Schema{Type: types("string"), MaxLength: ptr(int64(translate.MaxSearchLength))})})
	}
	if len(t.RelationNames) > 0 {
		params = append(params, includeParameter(t))
	}
	params = append(params, fieldsParameter(t), paramRef(paramCount))
	if t.PK != nil {
		params = append(params, paramRef(paramAfter))
	}
	return params
}

// fieldsParameter is fields: the visible columns a record may be cut to.
func fieldsParameter(t *schema.CTable) *v3.Parameter {
	var fieldNodes []*yaml.Node
	for _, c := range t.Columns {
		if !c.Hidden {
			fieldNodes = append(fieldNodes, str(c.Name))
		}
	}
	return &v3.Parameter{Name: "fields", In: "query",
		Description: "Only these columns (the id is always returned): repeat the parameter (fields=a&fields=b) or separate them with commas.",
		Style:       "form", Explode: ptr(true),
		Schema: base.CreateSchemaProxy(&base.Schema{Type: types("array"),
			Items: &base.DynamicValue[*base.SchemaProxy, bool]{A: base.CreateSchemaProxy(&base.Schema{Type: types("string"), Enum: fieldNodes})}})}
}

// filterString is the shared schema of filter values written as text.
var filterString = schema.QueryString.Name

// filterSchemas are the filter values as the server parses them from the
// URL, shared by every filter[column] parameter: each type's, from its
// registry entry.
func filterSchemas(m *orderedmap.Map[string, *base.SchemaProxy]) {
	for _, s := range schema.QuerySchemas() {
		m.Set(s.Name, base.CreateSchemaProxy(baseSchema(s.Schema)))
	}
}

// includeParameter lists the relation paths include accepts, nested up to
// translate.MaxIncludeDepth levels.
func includeParameter(t *schema.CTable) *v3.Parameter {
	var paths []string
	var walk func(from *schema.CTable, prefix string, depth int)
	walk = func(from *schema.CTable, prefix string, depth int) {
		for _, name := range from.RelationNames {
			if len(paths) > maxIncludeEnum {
				return
			}
			p := prefix + name
			paths = append(paths, p)
			if depth < translate.MaxIncludeDepth {
				walk(from.Relations[name].To, p+".", depth+1)
			}
		}
	}
	walk(t, "", 1)
	// One string schema: a pattern for every path, options included
	// (tags(sort=name;limit=5)), and the plain paths as its examples. An
	// enum beside the pattern would take anyOf of two string schemas,
	// which generators that tell variants apart by JSON type refuse
	// (ogen: "complex anyOf").
	step := `[a-z][a-z0-9_]*(\([a-z0-9_=;-]+\))?`
	item := &base.Schema{Type: types("string"), Pattern: `^` + step + `(\.` + step + `){0,` + fmt.Sprint(translate.MaxIncludeDepth-1) + `}$`,
		Description: "A relation path, with options in parentheses after a relation: fields, sort and limit, separated by semicolons."}
	if len(paths) <= maxIncludeEnum {
		sort.Strings(paths)
		item.Description += " The examples are every plain path."
		item.Examples = strNodes(paths)
	}
	return &v3.Parameter{Name: "include", In: "query", Example: &yaml.Node{Kind: yaml.SequenceNode, Content: []*yaml.Node{str(paths[0])}},
		Description: fmt.Sprintf("Related records to embed, by relation name; nest with dots (a.b) up to %d levels. "+
			"Repeat the parameter (include=a&include=b) or separate paths with commas. "+
			"A to-many relation takes options in parentheses: fields, sort and limit (1 to %d, the default), "+
			"separated by semicolons, as in posts(fields=title;sort=-created_at;limit=5). "+
			"Relations of %s: %s.", translate.MaxIncludeDepth, translate.MaxEmbeddedRows, t.Name, strings.Join(t.RelationNames, ", ")),
		// Options are written with ( ) = ; which a client may send as
		// they are: the server reads them either way.
		Style: "form", Explode: ptr(true), AllowReserved: true,
		Schema: base.CreateSchemaProxy(&base.Schema{Type: types("array"),
			Items: &base.DynamicValue[*base.SchemaProxy, bool]{A: base.CreateSchemaProxy(item)}})}
}

// idParameter is the record id in the path.
func idParameter(t *schema.CTable) *v3.Parameter {
	s := &base.Schema{Type: types("integer"), Format: "int64", Minimum: ptr(1.0)}
	switch {
	case t.PK.Type == schema.TypeUUID:
		s = &base.Schema{Type: types("string"), Format: "uuid"}
	case t.PK.Type == schema.TypeInteger && t.Doc.External != nil:
		s = &base.Schema{Type: types("integer"), Format: "int64"}
	case t.PK.Type != schema.TypeInteger:
		s = &base.Schema{Type: types("string")}
	}
	example := intNode(1)
	switch {
	case s.Format == "uuid":
		example = str("00000000-0000-4000-8000-000000000000")
	case s.Type[0] == "string":
		example = str("1")
	}
	return &v3.Parameter{Name: "id", In: "path", Required: ptr(true), Example: example,
		Description: "The record's id. A malformed or unknown id is answered 404.",
		Schema:      base.CreateSchemaProxy(s)}
}

// deleteIDParameter is the record id of DELETE when its example differs
// from the path's: on a managed integer key, 2, the record the bulk
// example creates on a fresh project after the create example made 1. A
// runner that sends the examples in the document's order then deletes
// that one and keeps record 1, which the other tables' reference
// examples name.
func deleteIDParameter(t *schema.CTable) []*v3.Parameter {
	p := idParameter(t)
	if p.Example.Tag != "!!int" || t.Doc.External != nil {
		return nil
	}
	p.Example = intNode(2)
	return []*v3.Parameter{p}
}

// security is the requirement for an operation governed by level: public
// operations take a credential optionally.
func security(level string) []*base.SecurityRequirement {
	bearer := orderedmap.New[string, []string]()
	bearer.Set(securityBearer, []string{})
	req := &base.SecurityRequirement{Requirements: bearer}
	if level == schema.LevelPublic {
		return append(anonymous(), req)
	}
	return []*base.SecurityRequirement{req}
}

// anonymous is the requirement of operations that take no credential.
func anonymous() []*base.SecurityRequirement {
	return []*base.SecurityRequirement{{Requirements: orderedmap.New[string, []string]()}}
}

// levelText says who may call an operation governed by level.
func levelText(level string, write bool) string {
	var s string
	switch level {
	case schema.LevelPublic:
		s = "Permission: public (no credential needed)."
	case schema.LevelKey:
		s = "Permission: key (project API keys only; an end-user access token is answered 403)."
	case schema.LevelOwner:
		s = "Permission: owner (API keys reach every record; an end user reaches only records they own, others answer 404)."
	default:
		s = "Permission: authenticated (any project API key or end-user access token)."
	}
	if write {
		s += " A read-scoped API key is answered 403."
	}
	return s
}

// statusOf maps the shared error responses to their status.
var statusOf = map[string]string{
	respInvalidQuery: "400", respBadBody: "400", respUnauthorized: "401", respForbidden: "403",
	respNotFound: "404", respConflict: "409", respKeyReused: "422", respTooLarge: "413", respMediaType: "415",
	respRateLimited: "429", respInternal: "500", respUnavailable: "503", respInvalidRequest: "400",
}

// responses builds an operation's responses: the success answer, then
// the error statuses that can happen, in status order.
func responses(status string, success *v3.Response, errs ...string) *v3.Responses {
	codes := orderedmap.New[string, *v3.Response]()
	codes.Set(status, success)
	addErrors(codes, errs...)
	return &v3.Responses{Codes: codes}
}

func addErrors(codes *orderedmap.Map[string, *v3.Response], errs ...string) {
	for _, e := range errs {
		codes.Set(statusOf[e], responseRef(e))
	}
}

// successResponse is a success answer whose body is the named schema.
func successResponse(desc, schemaName string, headers *orderedmap.Map[string, *v3.Header]) *v3.Response {
	content := orderedmap.New[string, *v3.MediaType]()
	content.Set(jsonMedia, &v3.MediaType{Schema: base.CreateSchemaProxyRef(schemaRef(schemaName))})
	return &v3.Response{Description: desc, Headers: headers, Content: content}
}

func jsonBody(desc, schemaName string) *v3.RequestBody { return jsonBodyWith(desc, schemaName, nil) }

// jsonBodyWith is jsonBody with an example body.
func jsonBodyWith(desc, schemaName string, example *yaml.Node) *v3.RequestBody {
	content := orderedmap.New[string, *v3.MediaType]()
	content.Set(jsonMedia, &v3.MediaType{Schema: base.CreateSchemaProxyRef(schemaRef(schemaName)), Example: example})
	return &v3.RequestBody{Description: desc, Required: ptr(true), Content: content}
}

// tablePaths adds the collection and item paths of table t.
func tablePaths(sp *splicer, paths *orderedmap.Map[string, *v3.PathItem], c *schema.Compiled, t *schema.CTable, n tableNames, o Options) {
	readLevel, createLevel := t.Level("read"), t.Level("create")
	updateLevel, deleteLevel := t.Level("update"), t.Level("delete")
	tags := []string{t.Name}
	withLocation := rateHeaders()
	withLocation.Set(headerLocation, &v3.Header{Reference: "#/components/headers/" + headerLocation})

	readErrors := func(list bool) []string {
		errs := []string{}
		if list {
			errs = append(errs, respInvalidQuery)
		}
		errs = append(errs, respUnauthorized)
		if readLevel == schema.LevelKey || (list && len(t.RelationNames) > 0) {
			errs = append(errs, respForbidden)
		}
		return append(errs, respNotFound, respRateLimited, respInternal, respUnavailable)
	}
	writeErrors := func(conflict bool) []string {
		errs := []string{respBadBody, respUnauthorized, respForbidden, respNotFound}
		if conflict {
			errs = append(errs, respConflict)
		}
		return append(errs, respTooLarge, respMediaType, respRateLimited, respInternal, respUnavailable)
	}
	unique := hasUnique(t)

	listDesc := joinSentences(
		"Returns a page of "+t.Name+" records with paging metadata. Filter with filter[column]=value (equality) or "+
			"filter[column][op]=value, op one of eq, ne, gt, gte, lt, lte, like (contains, case-insensitive; text columns), "+
			"in (comma list) and null (true or false); several filters combine with AND. Or write a filter expression. "+
			"Search text columns with search, embed related records with include, pick columns with fields.",
		levelText(readLevel, false))
	collection := &v3.PathItem{
		Get: &v3.Operation{Tags: tags, OperationId: n.ListOp, Summary: "List " + t.Name, Description: listDesc,
			Parameters: listParameters(sp, t), Security: security(readLevel),
			Responses: responses("200", successResponse("A page of "+t.Name+" records.", n.ListResp, rateHeaders()), readErrors(true)...)},
		Post: &v3.Operation{Tags: tags, OperationId: n.CreateOp, Summary: "Create a record in " + t.Name,
			Description: joinSentences("Creates a record and answers 201 with it (id, created_at and updated_at included) and its Location.",
				levelText(createLevel, true)),
			RequestBody: jsonBodyWith("The new record.", n.Create, bodyExample(t, false)), Security: security(createLevel),
			Responses: responses("201", successResponse("The created record.", n.Response, withLocation), writeErrors(unique)...)},
	}
	paths.Set("/"+t.Name, collection)
	collectionOperations(sp, paths, c, t, n, collection, o.maxBulkRows())
	uploadPaths(paths, t, n, writeErrors(false))

	item := &v3.PathItem{
		Parameters: []*v3.Parameter{idParameter(t)},
		Get: &v3.Operation{Tags: tags, OperationId: n.GetOp, Summary: "Get a record from " + t.Name,
			Description: joinSentences("Embed related records with include and pick columns with fields, as the list does.", levelText(readLevel, false)),
			Parameters:  recordParameters(t), Security: security(readLevel),
			Responses: responses("200", successResponse("The record (message: \"Record retrieved successfully\").", n.Response, rateHeaders()), readErrors(true)...)},
		Put: &v3.Operation{Tags: tags, OperationId: n.ReplaceOp, Summary: "Replace a record in " + t.Name,
			Description: joinSentences("Every required field must be present; absent optional fields go back to their default or null.",
				levelText(updateLevel, true)),
			RequestBody: jsonBodyWith("The whole record.", n.Replace, bodyExample(t, false)), Security: security(updateLevel),
			Responses: responses("200", successResponse("The updated record.", n.Response, rateHeaders()), writeErrors(unique)...)},
		Patch: &v3.Operation{Tags: tags, OperationId: n.UpdateOp, Summary: "Update fields of a record in " + t.Name,
			Description: joinSentences("Only the fields given change.", levelText(updateLevel, true)),
			RequestBody: jsonBodyWith("The fields to change.", n.Update, bodyExample(t, true)), Security: security(updateLevel),
			Responses: responses("200", successResponse("The updated record.", n.Response, rateHeaders()), writeErrors(unique)...)},
		Delete: &v3.Operation{Tags: tags, OperationId: n.DeleteOp, Summary: "Delete a record from " + t.Name,
			Description: joinSentences("Answers with the deleted record (message: \"Record deleted successfully\").",
				levelText(deleteLevel, true)),
			Parameters: deleteIDParameter(t), Security: security(deleteLevel),
			Responses: responses("200", successResponse("The deleted record.", n.Response, rateHeaders()),
				deleteErrors(c, t)...)},
	}
	paths.Set("/"+t.Name+"/{id}", item)
	describeMethods(collection, t, n.HeadListOp, "a page of "+t.Name+" records")
	// HEAD takes GET's filter[column] parameters as GET does; listing them
	// a second time would add half again to a wide table's document.
	collection.Head.Parameters = slices.DeleteFunc(slices.Clone(collection.Head.Parameters),
		func(p *v3.Parameter) bool { return strings.HasPrefix(p.Reference, sp.prefix) })
	describeMethods(item, t, n.HeadGetOp, "a record of "+t.Name)
	for _, op := range []*v3.Operation{collection.Post, item.Put, item.Patch, item.Delete} { // collectionOperations did PATCH and DELETE
		idempotent(op)
		minimal(op)
	}
	for _, op := range []*v3.Operation{item.Put, item.Patch, item.Delete} {
		conditional(op, paramIfMatch)
	}
	if unique {
		conditional(collection.Post, paramIfNoneMatch)
	}
}

// recordParameters are the query parameters of a GET of one record.
func recordParameters(t *schema.CTable) []*v3.Parameter {
	var params []*v3.Parameter
	if len(t.RelationNames) > 0 {
		params = append(params, includeParameter(t))
	}
	return append(params, fieldsParameter(t))
}

// minimal documents Prefer: return=minimal on a write of records: the
// parameter, and for writes answered 200 the 204 it turns them into.
func minimal(op *v3.Operation) {
	op.Parameters = append(op.Parameters, paramRef(paramPrefer))
	if _, ok := op.Responses.Codes.Get("200"); ok {
		applied := orderedmap.New[string, *v3.Header]()
		applied.Set(headerApplied, &v3.Header{Description: "return=minimal when the answer left the record out.",
			Schema: base.CreateSchemaProxy(&base.Schema{Type: types("string")})})
		setResponse(op, "204", &v3.Response{Description: "Done, without the record (Prefer: return=minimal).", Headers: applied})
	}
}

// conditional documents a precondition header and its 412.
func conditional(op *v3.Operation, param string) {
	op.Parameters = append(op.Parameters, paramRef(param))
	setResponse(op, "412", responseRef(respPrecondition))
}

// setResponse adds an answer to an operation, keeping the statuses in order.
func setResponse(op *v3.Operation, status string, r *v3.Response) {
	codes := orderedmap.New[string, *v3.Response]()
	added := false
	for st := op.Responses.Codes.First(); st != nil; st = st.Next() {
		if !added && st.Key() > status {
			codes.Set(status, r)
			added = true
		}
		codes.Set(st.Key(), st.Value())
	}
	if !added {
		codes.Set(status, r)
	}
	op.Responses.Codes = codes
}

// idempotent documents the Idempotency-Key header on a write: the
// parameter, the 422 of a reused key and the header of a replayed answer.
func idempotent(op *v3.Operation) {
	op.Parameters = append(op.Parameters, paramRef(paramIdempotencyKey))
	for st := op.Responses.Codes.First(); st != nil; st = st.Next() {
		if r := st.Value(); strings.HasPrefix(st.Key(), "2") && r.Headers != nil {
			r.Headers.Set(headerReplayed, &v3.Header{Reference: "#/components/headers/" + headerReplayed})
		}
	}
	setResponse(op, "422", responseRef(respKeyReused))
}

func deleteErrors(c *schema.Compiled, t *schema.CTable) []string {
	// 400: a parameter it does not take, or a malformed If-Match.
	errs := []string{respInvalidQuery, respUnauthorized, respForbidden, respNotFound}
	if isRestricted(c, t) {
		errs = append(errs, respConflict)
	}
	return append(errs, respRateLimited, respInternal, respUnavailable)
}

// hasUnique reports whether a write can collide with a unique column.
func hasUnique(t *schema.CTable) bool {
	for _, c := range t.Columns {
		if c.Unique {
			return true
		}
	}
	return false
}

// isRestricted reports whether deleting a record of t can be refused: a
// foreign key to t restricts (on_delete restrict, the default), or one
// cascades the delete to a table whose own delete can be refused.
func isRestricted(c *schema.Compiled, t *schema.CTable) bool {
	return restricted(c, t, map[string]bool{})
}

func restricted(c *schema.Compiled, t *schema.CTable, seen map[string]bool) bool {
	if seen[t.Name] {
		return false
	}
	seen[t.Name] = true
	for _, other := range c.Tables {
		for _, col := range other.Columns {
			r := col.References
			if r == nil || r.Table != t.Name {
				continue
			}
			switch r.OnDelete {
			case "", schema.OnDeleteRestrict:
				return true
			case schema.OnDeleteCascade:
				if restricted(c, other, seen) {
					return true
				}
			}
		}
	}
	return false
}
