package openapi

import (
	"fmt"
	"slices"
	"strings"

	"github.com/pb33f/libopenapi/datamodel/high/base"
	v3 "github.com/pb33f/libopenapi/datamodel/high/v3"
	"github.com/pb33f/libopenapi/orderedmap"
	"go.yaml.in/yaml/v4"

	"github.com/tablesmith/tablesmith/apierr"
	"github.com/tablesmith/tablesmith/schema"
	"github.com/tablesmith/tablesmith/translate"
)

// DefaultMaxBulkRows is the records one bulk create may hold when
// Options.MaxBulkRows is zero, as the server's default (Caddyfile
// max_bulk_rows).
const DefaultMaxBulkRows = 1000

// Names of the shared components of issue 19's collection operations.
const (
	schemaBulkMeta          = "BulkMeta"
	schemaAffectedResponse  = "AffectedResponse"
	schemaAggregateMeta     = "AggregateMeta"
	schemaAggregateResponse = "AggregateResponse"

	respInvalidRequest = "InvalidRequest"

	aggregateSegment = "aggregate"
	bulkSegment      = "bulk"
	exportSegment    = "export"
)

// collectionSchemas are the shared schemas of bulk writes, writes by
// filter and aggregates.
func collectionSchemas(m *orderedmap.Map[string, *base.SchemaProxy]) {
	integer := func(desc string) *base.SchemaProxy {
		return base.CreateSchemaProxy(&base.Schema{Type: types("integer"), Minimum: ptr(0.0), Description: desc})
	}
	bulk := orderedmap.New[string, *base.SchemaProxy]()
	bulk.Set("created", integer("Records created."))
	bulk.Set("updated", integer("Records an upsert updated (0 without on_conflict)."))
	bulk.Set("results", base.CreateSchemaProxy(&base.Schema{Type: types("array"),
		Description: "With on_conflict: per item, in the items' order, whether it was created or updated.",
		Items: &base.DynamicValue[*base.SchemaProxy, bool]{A: base.CreateSchemaProxy(&base.Schema{Type: types("string"),
			Enum: []*yaml.Node{str("created"), str("updated")}})}}))
	m.Set(schemaBulkMeta, base.CreateSchemaProxy(&base.Schema{Type: types("object"), Properties: bulk,
		Required: []string{"created", "updated"}, Description: "What a bulk create or an upsert did."}))

	affected := orderedmap.New[string, *base.SchemaProxy]()
	affected.Set("affected", integer("Rows changed or deleted."))
	m.Set(schemaAffectedResponse, base.CreateSchemaProxy(successSchema(base.CreateSchemaProxy(&base.Schema{Type: types("object"),
		Properties: affected, Required: []string{"affected"}}), false, "The answer of an update or delete by filter.")))

	agg := orderedmap.New[string, *base.SchemaProxy]()
	agg.Set("page", integer("The page of groups returned, from 1."))
	agg.Set("limit", integer("Groups per page."))
	agg.Set("offset", integer("Groups before this page."))
	m.Set(schemaAggregateMeta, base.CreateSchemaProxy(&base.Schema{Type: types("object"), Properties: agg,
		Required: []string{"page", "limit", "offset"}, Description: "The page of an aggregate answer; groups are not counted."}))

	// One schema for every table: a group's keys are its group_by columns
	// and <function>_<column> names the request chooses, so per-table
	// properties would describe a combinatorial set and grow the document
	// by columns x functions.
	group := &base.Schema{Type: types("object"),
		Description: "One group: its group_by columns under their names, formatted as in records, and each aggregate under " +
			"its name (count for count=*, otherwise `<function>_<column>`, e.g. sum_total). count and sums of integer columns are " +
			"integers; sums, averages, minimums and maximums of decimal columns and averages of integer columns are strings with " +
			"every digit; number columns give numbers; dates and timestamps are formatted as in records; null when no row has a value.",
		AdditionalProperties: &base.DynamicValue[*base.SchemaProxy, bool]{A: base.CreateSchemaProxy(
			baseSchema(schema.ValueSchema{Types: []string{"string", "number", "boolean", "null"}}))}}
	props := orderedmap.New[string, *base.SchemaProxy]()
	props.Set("success", base.CreateSchemaProxy(&base.Schema{Type: types("boolean"), Const: boolNode(true)}))
	props.Set("data", base.CreateSchemaProxy(&base.Schema{Type: types("array"),
		Items: &base.DynamicValue[*base.SchemaProxy, bool]{A: base.CreateSchemaProxy(group)}}))
	props.Set("message", base.CreateSchemaProxy(&base.Schema{Type: types("string")}))
	props.Set("meta", base.CreateSchemaProxyRef(schemaRef(schemaAggregateMeta)))
	m.Set(schemaAggregateResponse, base.CreateSchemaProxy(&base.Schema{Type: types("object"),
		Description: "Groups of an aggregate in the success envelope.", Properties: props, Required: []string{"success", "data", "meta"}}))
}

// bulkResponseSchema is a bulk create's or upsert's answer of table n.
func bulkResponseSchema(t *schema.CTable, n tableNames) *base.Schema {
	s := successSchema(base.CreateSchemaProxy(&base.Schema{Type: types("array"),
		Items: &base.DynamicValue[*base.SchemaProxy, bool]{A: base.CreateSchemaProxyRef(schemaRef(n.Record))}}), false,
		"The "+t.Name+" records of a bulk create or upsert, in the items' order, with what was created and updated.")
	s.Properties.Set("meta", base.CreateSchemaProxyRef(schemaRef(schemaBulkMeta)))
	s.Required = append(s.Required, "meta")
	return s
}

// invalidRequestResponse is the 400 of operations whose query and body
// can both be wrong: the code tells which.
func invalidRequestResponse() *v3.Response {
	return errorResponse("A query parameter or the body is invalid; details names the parameter, or each bad field "+
		"(`<position>.<field>` for an item of an array body).", nil,
		errorExample{"no_filter", "An update or delete by filter without a filter", apierr.CodeInvalidQuery,
			"Invalid query parameter filter: an update or delete by filter needs at least one filter",
			map[string]string{"filter": "an update or delete by filter needs at least one filter"}},
		errorExample{"max_affected", "More rows match than max_affected", apierr.CodeInvalidQuery,
			"Invalid query parameter max_affected: 12 records match, more than max_affected=10; nothing was updated",
			map[string]string{translate.MaxAffectedParam: "12 records match, more than max_affected=10; nothing was updated"}},
		errorExample{"bulk_item", "An item of a bulk create fails validation", apierr.CodeValidation, "Validation failed",
			map[string]string{"3.email": "invalid e-mail format"}})
}

// isFilterParameter reports whether p is one of the list's filters, which
// updates and deletes by filter take as well: the filter[column][op]
// parameters, filter= and search.
func isFilterParameter(sp *splicer, p *v3.Parameter) bool {
	return strings.HasPrefix(p.Reference, sp.prefix) || p.Reference == paramRef(paramFilter).Reference || p.Name == "search"
}

// splitFilters separates the filter parameters of a list's parameters
// from the rest.
func splitFilters(sp *splicer, params []*v3.Parameter) (filters, rest []*v3.Parameter) {
	for _, p := range params {
		if isFilterParameter(sp, p) {
			filters = append(filters, p)
		} else {
			rest = append(rest, p)
		}
	}
	return filters, rest
}

// collectionOperations completes the collection path of t (whose GET and
// POST tablePaths made) with bulk create and upsert on POST, update and
// delete by filter, and adds the aggregate path.
//
// The filter parameters are on the operations that take them, not on the
// path, where POST would inherit them (issue 37: a create listed ~60
// parameters it ignores). The per-column ones (one per column and
// operator, most of a wide document's bytes) are written on GET, which
// HEAD copies; the updates and deletes by filter list filter= and search
// and say that the per-column filters of GET apply too: written on them
// as well, they would make the widest document the schema limits allow
// twice as large, past what the document cache holds (bench/RESULTS.md).
func collectionOperations(sp *splicer, paths *orderedmap.Map[string, *v3.PathItem], c *schema.Compiled, t *schema.CTable, n tableNames, collection *v3.PathItem, maxBulk int) {
	filters, _ := splitFilters(sp, collection.Get.Parameters)
	var byFilterParams []*v3.Parameter // filter= and search, without the per-column spread
	for _, p := range filters {
		if !strings.HasPrefix(p.Reference, sp.prefix) {
			byFilterParams = append(byFilterParams, p)
		}
	}
	createLevel, updateLevel, deleteLevel := t.Level("create"), t.Level("update"), t.Level("delete")
	tags := []string{t.Name}
	unique := uniqueInputs(t)

	// POST: one object; with on_conflict, an upsert of it. The server
	// also takes an array here (for clients written before /bulk), which
	// the document leaves to POST /<table>/bulk so that the body is a
	// plain object schema every generator types.
	post := collection.Post
	onConflict := &v3.Parameter{Name: "on_conflict", In: "query",
		Description: "Upsert: a unique column the body gives (every item, in a bulk create); a record whose value exists is updated " +
			"with the fields given instead of answering 409. Needs the create and the update permission.",
		Schema: base.CreateSchemaProxy(&base.Schema{Type: types("string"), Enum: strNodes(unique)})}
	desc := []string{"Creates a record and answers 201 with it (id, created_at and updated_at included) and its Location. " +
		"To create many in one statement, POST an array to /" + t.Name + "/" + bulkSegment + " (an array sent here is taken the same way)"}
	if len(unique) > 0 {
		post.Parameters = append(post.Parameters, onConflict)
		setResponse(post, "200", successResponse("An upsert that updated an existing record: the record.", n.Response, rateHeaders()))
		post.Responses.Codes.Set("400", responseRef(respInvalidRequest))
		desc = append(desc, "With on_conflict="+strings.Join(unique, "|")+" an upsert: 201 if the record was created, 200 if it updated one")
	}
	desc = append(desc, levelText(createLevel, true))
	post.Description = joinSentences(desc...)
	paths.Set("/"+t.Name+"/"+bulkSegment, bulkPath(t, n, onConflict, unique, maxBulk))

	// PATCH and DELETE by filter.
	maxAffected := &v3.Parameter{Name: translate.MaxAffectedParam, In: "query", Example: intNode(1000),
		Description: "Refuse (400 INVALID_QUERY, nothing changed) when more rows than this match; details.max_affected says how many matched.",
		Schema:      base.CreateSchemaProxy(&base.Schema{Type: types("integer"), Format: "int64", Minimum: ptr(1.0)})}
	byFilter := "Every list filter applies (filter[column], filter[column][op], filter=, search), ANDed, with the caller's owner scope; " +
		"filter[column] and filter[column][op] are the list's (GET), listed there only. " +
		"a request without any is refused with 400 INVALID_QUERY (to change every row, filter on something every row matches, " +
		"e.g. filter[id][gt]=0). page, limit, offset, sort, order, include, fields and count are refused (400). Answers {\"affected\": N}; " +
		"counts as one request."
	affected := successResponse("How many rows changed.", schemaAffectedResponse, rateHeaders())
	patchErrors := []string{respInvalidRequest, respUnauthorized, respForbidden, respNotFound}
	if hasUnique(t) {
		patchErrors = append(patchErrors, respConflict)
	}
	patchErrors = append(patchErrors, respTooLarge, respMediaType, respRateLimited, respInternal, respUnavailable)
	collection.Patch = &v3.Operation{Tags: tags, OperationId: n.UpdateManyOp, Summary: "Update records of " + t.Name + " by filter",
		Description: joinSentences("Sets the body's fields on every matching row the caller may update, in one statement.", byFilter,
			levelText(updateLevel, true)),
		Parameters:  append(slices.Clone(byFilterParams), maxAffected),
		RequestBody: jsonBodyWith("The fields to change (at least one).", n.Update, bodyExample(t, true)), Security: security(updateLevel),
		Responses: responses("200", affected, patchErrors...)}
	deleteErrs := append([]string{respInvalidQuery}, deleteErrors(c, t)...)
	collection.Delete = &v3.Operation{Tags: tags, OperationId: n.DeleteManyOp, Summary: "Delete records of " + t.Name + " by filter",
		Description: joinSentences("Deletes every matching row the caller may delete, in one statement.", byFilter,
			levelText(deleteLevel, true)),
		Parameters: append(slices.Clone(byFilterParams), maxAffected), Security: security(deleteLevel),
		Responses: responses("200", successResponse("How many rows were deleted.", schemaAffectedResponse, rateHeaders()), deleteErrs...)}
	idempotent(collection.Patch)
	idempotent(collection.Delete)

	paths.Set("/"+t.Name+"/"+aggregateSegment, aggregatePath(sp, t, n))
	paths.Set("/"+t.Name+"/"+exportSegment, exportPath(sp, t, n))
}

// bulkPath is POST /<table>/bulk: an array of records created (or with
// on_conflict upserted) in one statement, all or nothing.
func bulkPath(t *schema.CTable, n tableNames, onConflict *v3.Parameter, unique []string, maxBulk int) *v3.PathItem {
	content := orderedmap.New[string, *v3.MediaType]()
	// Its item is record 2 of the examples: unique values the create
	// example took are not repeated.
	content.Set(jsonMedia, &v3.MediaType{Schema: base.CreateSchemaProxy(&base.Schema{Type: types("array"), MinItems: ptr(int64(1)),
		MaxItems: ptr(int64(maxBulk)), Items: &base.DynamicValue[*base.SchemaProxy, bool]{A: base.CreateSchemaProxyRef(schemaRef(n.Create))}}),
		Example: &yaml.Node{Kind: yaml.SequenceNode, Content: []*yaml.Node{recordExample(t, false, 1)}}})
	body := &v3.RequestBody{Description: fmt.Sprintf("1 to %d new records.", maxBulk), Required: ptr(true), Content: content}
	codes := orderedmap.New[string, *v3.Response]()
	codes.Set("201", successResponse("The records in the items' order, with meta (created, updated and, with on_conflict, results).",
		n.BulkResp, rateHeaders()))
	desc := []string{fmt.Sprintf("Creates up to %d records in one statement, all or nothing: one invalid item answers 400 "+
		"VALIDATION_ERROR with details keyed `<position>.<field>` and nothing is written; a body that is not an array answers 400 "+
		"INVALID_JSON. Each item counts as one request against the plan's rate limit", maxBulk)}
	var params []*v3.Parameter
	errs := []string{respBadBody, respUnauthorized, respForbidden, respNotFound}
	if len(unique) > 0 {
		params = append(params, onConflict)
		codes.Set("200", successResponse("An upsert that created nothing: the records with meta (created 0, results).", n.BulkResp, rateHeaders()))
		errs[0] = respInvalidRequest
		desc = append(desc, "With on_conflict="+strings.Join(unique, "|")+" an upsert: 201 if any record was created, else 200; "+
			"meta.results says per item whether it was created or updated; every item names the same fields")
	}
	if hasUnique(t) {
		errs = append(errs, respConflict)
	}
	errs = append(errs, respTooLarge, respMediaType, respRateLimited, respInternal, respUnavailable)
	level := t.Level("create")
	op := &v3.Operation{Tags: []string{t.Name}, OperationId: n.BulkCreateOp, Summary: "Create records in " + t.Name + " in bulk",
		Description: joinSentences(append(desc, levelText(level, true))...), Parameters: params, RequestBody: body,
		Security: security(level), Responses: &v3.Responses{Codes: codes}}
	addErrors(op.Responses.Codes, errs...)
	idempotent(op)
	minimal(op)
	if len(unique) > 0 {
		conditional(op, paramIfNoneMatch)
	}
	return &v3.PathItem{Post: op, Description: "Methods: POST. Any other method is answered 405 METHOD_NOT_ALLOWED " +
		"(the error envelope) with an Allow header naming the methods."}
}

// uniqueInputs are the body names of the unique columns a body may set:
// what on_conflict takes.
func uniqueInputs(t *schema.CTable) []string {
	var out []string
	for _, c := range t.Writable {
		if c.Unique {
			out = append(out, c.Input)
		}
	}
	return out
}

func strNodes(values []string) []*yaml.Node {
	out := make([]*yaml.Node, len(values))
	for i, v := range values {
		out[i] = str(v)
	}
	return out
}

// aggregatePath is GET and HEAD /<table>/aggregate. Every parameter is
// at path level: the two operations share them, written once.
func aggregatePath(sp *splicer, t *schema.CTable, n tableNames) *v3.PathItem {
	filters, _ := splitFilters(sp, listParameters(sp, t))
	var groupable, numeric, ordered []string
	for _, c := range t.Columns {
		traits := c.Kind.Traits
		if c.Hidden || !traits.Comparable {
			continue
		}
		groupable = append(groupable, c.Name)
		if traits.Numeric {
			numeric = append(numeric, c.Name)
		}
		if traits.MinMax {
			ordered = append(ordered, c.Name)
		}
	}
	list := func(name, desc string, columns []string, max int) *v3.Parameter {
		s := &base.Schema{Type: types("array"), MaxItems: ptr(int64(max)),
			Items: &base.DynamicValue[*base.SchemaProxy, bool]{A: base.CreateSchemaProxy(&base.Schema{Type: types("string"), Enum: strNodes(columns)})}}
		return &v3.Parameter{Name: name, In: "query", Description: desc, Style: "form", Explode: ptr(false), Schema: base.CreateSchemaProxy(s),
			Example: &yaml.Node{Kind: yaml.SequenceNode, Content: []*yaml.Node{str(columns[0])}}}
	}
	params := []*v3.Parameter{
		list("group_by", fmt.Sprintf("Group columns, comma-separated, at most %d; without group_by the answer is one group of every matching row.",
			translate.MaxGroupBy), groupable, translate.MaxGroupBy),
		list("count", "count=* counts the rows of each group (count); count=col its non-null values of col (count_col).",
			append([]string{"*"}, groupable...), translate.MaxAggregates),
	}
	if len(numeric) > 0 {
		params = append(params,
			list("sum", "Sums (sum_col) of numeric columns.", numeric, translate.MaxAggregates),
			list("avg", "Averages (avg_col) of numeric columns.", numeric, translate.MaxAggregates))
	}
	if len(ordered) > 0 {
		params = append(params,
			list("min", "Smallest values (min_col).", ordered, translate.MaxAggregates),
			list("max", "Largest values (max_col).", ordered, translate.MaxAggregates))
	}
	params = append(params,
		&v3.Parameter{Name: "sort", In: "query",
			Description: "Group columns or aggregate names (count, sum_total...), comma-separated; a leading '-' sorts descending. " +
				"Group columns that sort does not name follow the named keys.",
			Schema: base.CreateSchemaProxy(&base.Schema{Type: types("string")})},
		paramRef(paramOrder),
		&v3.Parameter{Name: "limit", In: "query", Description: fmt.Sprintf("Groups per page, 1 to %d.", translate.MaxAggregateLimit),
			Example: intNode(translate.DefaultAggregateLimit),
			Schema: base.CreateSchemaProxy(&base.Schema{Type: types("integer"), Minimum: ptr(1.0),
				Maximum: ptr(float64(translate.MaxAggregateLimit)), Default: intNode(translate.DefaultAggregateLimit)})},
		paramRef(paramPage),
		&v3.Parameter{Name: "offset", In: "query", Description: "Groups to skip, instead of page (with limit).",
			Schema: base.CreateSchemaProxy(&base.Schema{Type: types("integer"), Minimum: ptr(0.0),
				Maximum: ptr(float64(int64(translate.MaxPage) * int64(translate.MaxAggregateLimit)))})})
	readLevel := t.Level("read")
	errs := []string{respInvalidQuery, respUnauthorized}
	if readLevel == schema.LevelKey || len(t.RelationNames) > 0 {
		errs = append(errs, respForbidden)
	}
	errs = append(errs, respNotFound, respRateLimited, respInternal, respUnavailable)
	p := &v3.PathItem{Parameters: append(filters, params...),
		Get: &v3.Operation{Tags: []string{t.Name}, OperationId: n.AggregateOp, Summary: "Aggregate " + t.Name,
			Description: joinSentences("Groups the rows a list with the same filters would return and computes count, sum, avg, min "+
				"and max per group, in one statement. Each function takes a comma list; at most "+fmt.Sprint(translate.MaxAggregates)+
				" values in all. fields and include are refused (400). Counts as one request",
				levelText(readLevel, false)),
			Security:  security(readLevel),
			Responses: responses("200", successResponse("A page of groups.", schemaAggregateResponse, rateHeaders()), errs...)},
	}
	describeMethods(p, t, n.HeadAggregateOp, "the groups of "+t.Name)
	return p
}
