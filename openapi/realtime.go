package openapi

import (
	"strings"

	"github.com/pb33f/libopenapi/datamodel/high/base"
	v3 "github.com/pb33f/libopenapi/datamodel/high/v3"
	"github.com/pb33f/libopenapi/orderedmap"
	"go.yaml.in/yaml/v4"

	"github.com/tablesmith/tablesmith/apierr"
	"github.com/tablesmith/tablesmith/schema"
)

// The realtime stream's path, tag and operation id (docs/realtime.md).
// "realtime" is a reserved table name, so no table path or tag takes them.
const (
	realtimePath = "/realtime"
	realtimeTag  = "realtime"
	opRealtime   = "openRealtimeStream"
	eventStream  = "text/event-stream"
)

// realtimeTables are the tables of c that a stream may watch, in document
// order.
func realtimeTables(c *schema.Compiled) []*schema.CTable {
	var out []*schema.CTable
	for _, t := range c.Tables {
		if t.Doc.Realtime {
			out = append(out, t)
		}
	}
	return out
}

// securityQueryToken is the credential in ?access_token=, which only the
// stream takes (EventSource cannot send headers).
const securityQueryToken = "accessTokenQuery"

// realtimeSecurity follows the loosest read rule of the watchable tables
// (a stream of public tables needs no credential), and takes the
// credential in the header or in ?access_token=.
func realtimeSecurity(tables []*schema.CTable) []*base.SecurityRequirement {
	level := schema.LevelAuthenticated
	for _, t := range tables {
		if t.Level("read") == schema.LevelPublic {
			level = schema.LevelPublic
		}
	}
	query := orderedmap.New[string, []string]()
	query.Set(securityQueryToken, []string{})
	return append(security(level), &base.SecurityRequirement{Requirements: query})
}

// realtimePaths adds GET /realtime when the project has realtime tables;
// a project without any has no stream to describe (the server answers 400).
func realtimePaths(paths *orderedmap.Map[string, *v3.PathItem], schemes *orderedmap.Map[string, *v3.SecurityScheme], c *schema.Compiled) bool {
	tables := realtimeTables(c)
	if len(tables) == 0 {
		return false
	}
	names := make([]*yaml.Node, len(tables))
	var listed []string
	for i, t := range tables {
		names[i] = str(t.Name)
		listed = append(listed, t.Name)
	}
	params := []*v3.Parameter{{Name: "tables", In: "query", Required: ptr(true),
		Description: "The tables to watch, comma-separated: tables with realtime on (" + strings.Join(listed, ", ") + "). " +
			"Repeated tables= lists are joined.",
		Style: "form", Explode: ptr(false), Example: &yaml.Node{Kind: yaml.SequenceNode, Content: names[:1]},
		Schema: base.CreateSchemaProxy(&base.Schema{Type: types("array"), MinItems: ptr(int64(1)), UniqueItems: ptr(true),
			Items: &base.DynamicValue[*base.SchemaProxy, bool]{A: base.CreateSchemaProxy(&base.Schema{Type: types("string"), Enum: names})}})}}
	for _, t := range tables {
		params = append(params, &v3.Parameter{Name: "where[" + t.Name + "]", In: "query",
			Description: "Only changes of " + t.Name + " whose row matches this condition, in the filter expression grammar " +
				"of the list's filter parameter, e.g. `status = 'published' and price > 10`. At most once; " +
				"only when tables names " + t.Name + ". An update that moves a row out of the condition is not sent.",
			Schema: base.CreateSchemaProxy(&base.Schema{Type: types("string")})})
	}
	resumeID := &base.Schema{Type: types("string"), Pattern: "^[0-9]+$"}
	params = append(params,
		&v3.Parameter{Name: "access_token", In: "query",
			Description: "The credential (API key or end-user access token) for clients that cannot send headers, " +
				"such as the browser's EventSource. The Authorization header wins when both are sent; the server removes it " +
				"from the URL before anything logs it.",
			Schema: base.CreateSchemaProxy(&base.Schema{Type: types("string"), MinLength: ptr(int64(1))})},
		&v3.Parameter{Name: "last_event_id", In: "query",
			Description: "Resume after this event id, as Last-Event-ID does (which wins), for a first EventSource connection.",
			Schema:      base.CreateSchemaProxy(resumeID)},
		&v3.Parameter{Name: "Last-Event-ID", In: "header",
			Description: "The id of the last event the client received: the stream sends every change after it that is " +
				"still within the retention window (15 minutes by default), in order, then live ones; an older id gets a reset event. " +
				"Browsers' EventSource sends it by itself when it reconnects.",
			Schema: base.CreateSchemaProxy(resumeID)})

	codes := orderedmap.New[string, *v3.Response]()
	codes.Set("200", streamResponse())
	codes.Set("400", errorResponse("The stream's parameters are invalid: no tables, an unknown table, a table without realtime, "+
		"a bad `where[<table>]` or a bad Last-Event-ID; details names the parameter.", nil,
		errorExample{"no_tables", "No tables named", apierr.CodeInvalidQuery, "Name the tables to watch: ?tables=<table>,<table>",
			map[string]string{"tables": "is required"}},
		errorExample{"bad_resume", "A malformed Last-Event-ID", apierr.CodeInvalidQuery, "Last-Event-ID must be an event id this stream sent",
			map[string]string{"last_event_id": "must be a non-negative integer"}}))
	addErrors(codes, respUnauthorized)
	codes.Set("403", errorResponse("The credential may not read a watched table, or the project's plan has no realtime streams.", nil,
		errorExample{"no_streams", "The plan has no streams", apierr.CodeForbidden, "The project's plan does not include realtime streams", nil}))
	codes.Set("429", errorResponse("The plan's hourly request limit is reached (opening a stream counts as one request), "+
		"or the project holds as many open streams as its plan allows on this node.", withRetryAfter(rateHeaders()),
		errorExample{"too_many_streams", "Too many open streams", apierr.CodeRateLimited,
			"The project has 5 open realtime streams, the most its plan allows; close one or retry later", nil},
		errorExample{"rate_limited", "Plan limit reached", apierr.CodeRateLimited,
			"Rate limit of the free plan reached (100 requests per hour); it resets at 2026-01-31T13:00:00Z", nil}))
	addErrors(codes, respInternal, respUnavailable)

	schemes.Set(securityQueryToken, &v3.SecurityScheme{Type: "apiKey", In: "query", Name: "access_token",
		Description: "The same credential as bearerAuth in the URL, for the realtime stream only: browsers' EventSource cannot send headers."})
	paths.Set(realtimePath, &v3.PathItem{
		Description: "Methods: GET. Any other method (HEAD too) is answered 405 METHOD_NOT_ALLOWED (the error envelope) with an Allow header naming GET.",
		Get: &v3.Operation{Tags: []string{realtimeTag}, OperationId: opRealtime,
			Summary: "Open a stream of changes",
			Description: "A Server-Sent Events stream of every create, update and delete of the named tables' rows that the " +
				"credential may read at that moment (the table's read rule, the key's scope and, for end users of an owner-scoped " +
				"table, their own rows), whichever node, API call or direct SQL made the change. Send `Accept: text/event-stream`. " +
				"Opening counts as one request against the plan; events do not. A revoked credential, a logged-out session or a plan " +
				"that no longer allows streams ends the stream within 5 seconds with an error event. The stream stays open until the " +
				"client closes it: a collection runner (newman, Postman's runner) should leave this operation out " +
				"(x-tablesmith-stream: true marks it; docs/openapi.md says how).",
			Parameters: params, Security: realtimeSecurity(tables), Responses: &v3.Responses{Codes: codes},
			Extensions: streamMark()}})
	return true
}

// streamResponse is the 200 answer: the event stream, described in words
// because OpenAPI 3.1 has no schema for a stream of events.
func streamResponse() *v3.Response {
	desc := "The stream, as Server-Sent Events. It starts with `retry: 2000` and a `: connected to <project>` comment. Events:\n\n" +
		"- `create`, `update`, `delete` — `id:` the project's change sequence number (increasing, in commit order, with gaps); " +
		"`data: {\"table\", \"record\", \"id\"?}`: `record` is the row as a GET of it renders it (passwords left out) as it was " +
		"at that change (after an update, before a delete); a delete also carries the row's `id`.\n" +
		"- `reset` — `data: {\"message\", \"last_event_id\"}`: the Last-Event-ID sent is older than the retention window, " +
		"changes were lost; reload the data, then keep following the stream (its `id:` is where a reconnect resumes).\n" +
		"- `error` — `data: {\"error\": {\"code\", \"message\"}}`, then the stream ends: UNAUTHORIZED (credential revoked, " +
		"session ended), FORBIDDEN (the read rule or the plan no longer allow it), INVALID_QUERY (a table lost realtime), " +
		"or a database failure (reconnect with Last-Event-ID: nothing is lost).\n" +
		"- `reconnect` — `retry: 1000`, `data: {\"message\", \"last_event_id\"}`, then the stream ends: the node is stopping; " +
		"reconnect with Last-Event-ID set to its `id:` (an EventSource does so by itself) to go on from there on another node.\n" +
		"- `: heartbeat` comment lines every 15 seconds keep proxies from closing an idle stream."
	example := "retry: 2000\n: connected to abc123def456\n\n" +
		"id: 41\nevent: create\ndata: {\"table\":\"posts\",\"record\":{\"id\":7,\"title\":\"Hello\"}}\n\n" +
		"id: 43\nevent: delete\ndata: {\"table\":\"posts\",\"id\":7,\"record\":{\"id\":7,\"title\":\"Hello\"}}\n\n" +
		": heartbeat\n\n"
	headers := rateHeaders()
	content := orderedmap.New[string, *v3.MediaType]()
	content.Set(eventStream, &v3.MediaType{Schema: base.CreateSchemaProxy(&base.Schema{Type: types("string"),
		Description: "Lines of Server-Sent Events (text/event-stream), sent as changes happen."}),
		Example: str(example)})
	return &v3.Response{Description: desc, Headers: headers, Content: content}
}

// streamMark is the extension that marks an operation whose answer does
// not end by itself, so that tools running every request of a collection
// (newman) can leave it out rather than wait on it.
func streamMark() *orderedmap.Map[string, *yaml.Node] {
	ext := orderedmap.New[string, *yaml.Node]()
	ext.Set(extStream, boolNode(true))
	return ext
}

// extStream names streamMark's extension.
const extStream = "x-tablesmith-stream"
