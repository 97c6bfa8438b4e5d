package openapi

import (
	"github.com/pb33f/libopenapi/datamodel/high/base"
	v3 "github.com/pb33f/libopenapi/datamodel/high/v3"
	"github.com/pb33f/libopenapi/orderedmap"
	"go.yaml.in/yaml/v4"

	"github.com/tablesmith/tablesmith/apierr"
)

// errorCodes are the codes a generated API answers with (CONTRACT 2),
// the enum of Error.error.code.
var errorCodes = []string{
	apierr.CodeValidation, apierr.CodeInvalidJSON, apierr.CodeInvalidQuery,
	apierr.CodeUnauthorized, apierr.CodeInvalidCreds, apierr.CodeForbidden, apierr.CodeEmailNotVerified,
	apierr.CodeNotFound, apierr.CodeMethodNotAllowed, apierr.CodeConflict, apierr.CodeIdempotencyReused, apierr.CodePreconditionFailed,
	apierr.CodePayloadTooLarge, apierr.CodeUnsupportedMedia, apierr.CodeRateLimited,
	apierr.CodeTooManyAttempts, apierr.CodeInternal, apierr.CodeUnavailable,
}

// Names of the shared components.
const (
	schemaError   = "Error"
	schemaMeta    = "ListMeta"
	schemaMessage = "MessageResponse"

	respInvalidQuery = "InvalidQuery"
	respBadBody      = "InvalidBody"
	respUnauthorized = "Unauthorized"
	respForbidden    = "Forbidden"
	respNotFound     = "NotFound"
	respConflict     = "Conflict"
	respKeyReused    = "IdempotencyKeyReused"
	respPrecondition = "PreconditionFailed"
	respTooLarge     = "PayloadTooLarge"
	respMediaType    = "UnsupportedMediaType"
	respRateLimited  = "RateLimited"
	respInternal     = "InternalError"
	respUnavailable  = "ServiceUnavailable"

	headerLimit     = "X-RateLimit-Limit"
	headerRemaining = "X-RateLimit-Remaining"
	headerReset     = "X-RateLimit-Reset"
	headerRetry     = "Retry-After"
	headerRequestID = "X-Request-Id"
	headerLocation  = "Location"
	headerReplayed  = "Idempotent-Replayed"
	headerETag      = "ETag"
	headerApplied   = "Preference-Applied"

	securityBearer = "bearerAuth"
	jsonMedia      = "application/json"
)

// errorSchema is the error envelope of CONTRACT 2.
func errorSchema() *base.Schema {
	codes := make([]*yaml.Node, len(errorCodes))
	for i, c := range errorCodes {
		codes[i] = str(c)
	}
	detail := orderedmap.New[string, *base.SchemaProxy]()
	detail.Set("code", base.CreateSchemaProxy(&base.Schema{Type: types("string"), Enum: codes,
		Description: "A stable, machine-readable code; the HTTP status follows from it."}))
	detail.Set("message", base.CreateSchemaProxy(&base.Schema{Type: types("string"),
		Description: "What went wrong, for people."}))
	detail.Set("details", base.CreateSchemaProxy(&base.Schema{Type: types("object"),
		Description:          "What is wrong per field (or per query parameter), when there is something to say per field.",
		AdditionalProperties: &base.DynamicValue[*base.SchemaProxy, bool]{A: base.CreateSchemaProxy(&base.Schema{Type: types("string")})},
		Examples:             []*yaml.Node{valueNode(map[string]string{"email": "invalid e-mail format"})}}))
	// Any members: an empty object schema reads as "no members" to
	// generators (Record<string, never> in openapi-typescript).
	detail.Set("info", base.CreateSchemaProxy(&base.Schema{Type: types("object"),
		Description:          "More about the error, for the few errors that have more to say; its members depend on the error.",
		AdditionalProperties: &base.DynamicValue[*base.SchemaProxy, bool]{N: 1, B: true}}))
	props := orderedmap.New[string, *base.SchemaProxy]()
	props.Set("success", base.CreateSchemaProxy(&base.Schema{Type: types("boolean"), Const: boolNode(false)}))
	props.Set("error", base.CreateSchemaProxy(&base.Schema{Type: types("object"), Properties: detail,
		Required: []string{"code", "message"}}))
	return &base.Schema{Type: types("object"), Description: "The envelope of every error answer.",
		Properties: props, Required: []string{"success", "error"}}
}

// metaSchema is the meta object of a list answer.
func metaSchema() *base.Schema {
	props := orderedmap.New[string, *base.SchemaProxy]()
	integer := func(desc string) *base.SchemaProxy {
		return base.CreateSchemaProxy(&base.Schema{Type: types("integer"), Description: desc})
	}
	props.Set("page", integer("The page returned, from 1 (0 on a page read by cursor)."))
	props.Set("limit", integer("The page size."))
	props.Set("offset", integer("The number of records before this page."))
	props.Set("total", integer("Records that match (absent with count=none)."))
	props.Set("total_pages", integer("Pages of this size that hold them (absent with count=none)."))
	props.Set("total_estimated", base.CreateSchemaProxy(&base.Schema{Type: types("boolean"),
		Description: "True when total is the planner's estimate (count=estimated on more than 10,000 matching records)."}))
	props.Set("next_cursor", base.CreateSchemaProxy(nullable(&base.Schema{Type: types("string"),
		Description: "Pass as after= for the next page; null on the last page (fewer records than limit)."})))
	return &base.Schema{Type: types("object"), Properties: props, Required: []string{"page", "limit", "offset", "next_cursor"}}
}

// successSchema is the success envelope around data.
func successSchema(data *base.SchemaProxy, withMeta bool, desc string) *base.Schema {
	props := orderedmap.New[string, *base.SchemaProxy]()
	props.Set("success", base.CreateSchemaProxy(&base.Schema{Type: types("boolean"), Const: boolNode(true)}))
	props.Set("data", data)
	props.Set("message", base.CreateSchemaProxy(&base.Schema{Type: types("string")}))
	required := []string{"success", "data"}
	if withMeta {
		props.Set("meta", base.CreateSchemaProxyRef(schemaRef(schemaMeta)))
		required = append(required, "meta")
	}
	return &base.Schema{Type: types("object"), Description: desc, Properties: props, Required: required}
}

// errorExample is one example error envelope.
type errorExample struct {
	name, summary, code, message string
	details                      map[string]string
}

func (e errorExample) node() *base.Example {
	body := map[string]any{"code": e.code, "message": e.message}
	if e.details != nil {
		body["details"] = e.details
	}
	return &base.Example{Summary: e.summary, Value: valueNode(map[string]any{"success": false, "error": body})}
}

// errorResponse is a response carrying the error envelope, with examples.
func errorResponse(desc string, headers *orderedmap.Map[string, *v3.Header], examples ...errorExample) *v3.Response {
	ex := orderedmap.New[string, *base.Example]()
	for _, e := range examples {
		ex.Set(e.name, e.node())
	}
	content := orderedmap.New[string, *v3.MediaType]()
	content.Set(jsonMedia, &v3.MediaType{Schema: base.CreateSchemaProxyRef(schemaRef(schemaError)), Examples: ex})
	return &v3.Response{Description: desc, Headers: headers, Content: content}
}

// sharedResponses are the error answers many operations share.
func sharedResponses() *orderedmap.Map[string, *v3.Response] {
	m := orderedmap.New[string, *v3.Response]()
	m.Set(respInvalidQuery, errorResponse("A list parameter is invalid; details names the parameter.", nil,
		errorExample{"unknown_column", "Unknown column", apierr.CodeInvalidQuery,
			"Invalid query parameter sort: unknown column \"colour\"", map[string]string{"sort": "unknown column \"colour\""}},
		errorExample{"bad_limit", "Limit out of range", apierr.CodeInvalidQuery,
			"Invalid query parameter limit: must be an integer from 1 to 100", map[string]string{"limit": "must be an integer from 1 to 100"}}))
	m.Set(respBadBody, errorResponse("The body is not valid: details names each bad field.", nil,
		errorExample{"validation", "A field fails validation", apierr.CodeValidation, "Validation failed",
			map[string]string{"email": "invalid e-mail format"}},
		errorExample{"invalid_json", "The body is not a JSON object", apierr.CodeInvalidJSON, "The body must be a JSON object", nil}))
	m.Set(respUnauthorized, errorResponse("The credential is missing, malformed, expired, revoked or for another project.", nil,
		errorExample{"missing", "No credential", apierr.CodeUnauthorized,
			"Missing credential: send Authorization: Bearer <API key or access token>", nil},
		errorExample{"revoked", "Revoked API key", apierr.CodeUnauthorized, "Invalid or revoked API key", nil}))
	m.Set(respForbidden, errorResponse("The credential is valid but lacks the right for this operation.", nil,
		errorExample{"read_only_key", "A read key on a write", apierr.CodeForbidden, "This API key is read-only", nil},
		errorExample{"key_only", "An end-user token where only API keys may go", apierr.CodeForbidden,
			"This operation is only allowed with an API key", nil}))
	m.Set(respNotFound, errorResponse("The project, table or record does not exist (or is outside the caller's reach).", nil,
		errorExample{"record", "No such record", apierr.CodeNotFound, "Record not found", nil}))
	m.Set(respConflict, errorResponse("A unique value is taken, or the record is still referenced.", nil,
		errorExample{"unique", "A unique value is taken", apierr.CodeConflict, "A record with this value already exists",
			map[string]string{"email": "already exists"}}))
	m.Set(respKeyReused, errorResponse("The Idempotency-Key was used within the last 24 hours for another request (method, path or body).", nil,
		errorExample{"key_reused", "A key sent again with another body", apierr.CodeIdempotencyReused,
			"This Idempotency-Key was used for a different request (method, path or body) within the last 24 hours; use a new key", nil}))
	m.Set(respPrecondition, errorResponse("If-Match names a version the record no longer has, or If-None-Match: * met an existing record; nothing was written.", nil,
		errorExample{"stale", "The record changed since it was read", apierr.CodePreconditionFailed,
			"The record changed since the version If-Match names; nothing was written. GET it again for its current ETag",
			map[string]string{"If-Match": "does not match the record's current ETag"}}))
	m.Set(respTooLarge, errorResponse("The body is larger than the limit (1 MiB by default).", nil,
		errorExample{"too_large", "Body too large", apierr.CodePayloadTooLarge, "The body is larger than 1048576 bytes", nil}))
	m.Set(respMediaType, errorResponse("The body's Content-Type is not application/json.", nil,
		errorExample{"media_type", "Not JSON", apierr.CodeUnsupportedMedia,
			"The body must be JSON with Content-Type: application/json", nil}))
	m.Set(respRateLimited, errorResponse("The project's plan allows no more requests in this window.", withRetryAfter(rateHeaders()),
		errorExample{"rate_limited", "Plan limit reached", apierr.CodeRateLimited,
			"Rate limit of the free plan reached (100 requests per hour); it resets at 2026-01-31T13:00:00Z", nil}))
	m.Set(respInternal, errorResponse("Something unexpected happened; the message never leaks internals.", nil,
		errorExample{"internal", "Internal error", apierr.CodeInternal, "An internal error occurred", nil}))
	m.Set(respUnavailable, errorResponse("The database is unavailable or the request took too long; try again.", nil,
		errorExample{"unavailable", "Database unavailable", apierr.CodeUnavailable, "The database is unavailable; try again shortly", nil}))
	m.Set(respInvalidRequest, invalidRequestResponse())
	return m
}

// sharedHeaders are the response headers the operations refer to.
func sharedHeaders() *orderedmap.Map[string, *v3.Header] {
	m := orderedmap.New[string, *v3.Header]()
	integer := func(desc string) *v3.Header {
		return &v3.Header{Description: desc, Schema: base.CreateSchemaProxy(&base.Schema{Type: types("integer")})}
	}
	m.Set(headerLimit, integer("Requests the plan allows per window (absent on unlimited plans)."))
	m.Set(headerRemaining, integer("Requests left in this window."))
	m.Set(headerReset, integer("When the window resets, in Unix seconds."))
	m.Set(headerRetry, integer("Seconds to wait before the next request."))
	m.Set(headerRequestID, &v3.Header{Description: "The request's id, as it appears in the service's logs.",
		Schema: base.CreateSchemaProxy(&base.Schema{Type: types("string")})})
	m.Set(headerLocation, &v3.Header{Description: "The path of the created record.",
		Schema: base.CreateSchemaProxy(&base.Schema{Type: types("string")})})
	m.Set(headerETag, &v3.Header{Description: "A weak tag of the answer's content, the same on every node; send it back in If-None-Match to revalidate.",
		Schema: base.CreateSchemaProxy(&base.Schema{Type: types("string")})})
	m.Set(headerReplayed, &v3.Header{Description: "true when the answer is the recorded first answer to this Idempotency-Key, not a new write.",
		Schema: base.CreateSchemaProxy(&base.Schema{Type: types("string"), Enum: []*yaml.Node{str("true")}})})
	return m
}

// rateHeaders are the headers on every counted answer.
func rateHeaders() *orderedmap.Map[string, *v3.Header] {
	m := orderedmap.New[string, *v3.Header]()
	for _, h := range []string{headerLimit, headerRemaining, headerReset, headerRequestID} {
		m.Set(h, &v3.Header{Reference: "#/components/headers/" + h})
	}
	return m
}

// withRetryAfter adds Retry-After to headers.
func withRetryAfter(h *orderedmap.Map[string, *v3.Header]) *orderedmap.Map[string, *v3.Header] {
	h.Set(headerRetry, &v3.Header{Reference: "#/components/headers/" + headerRetry})
	return h
}

func responseRef(name string) *v3.Response {
	return &v3.Response{Reference: "#/components/responses/" + name}
}
