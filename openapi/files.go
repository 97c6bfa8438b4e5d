package openapi

import (
	"github.com/pb33f/libopenapi/datamodel/high/base"
	v3 "github.com/pb33f/libopenapi/datamodel/high/v3"
	"github.com/pb33f/libopenapi/orderedmap"

	"github.com/tablesmith/tablesmith/schema"
)

// fileSchema is a file as a record shows it (docs/files.md). The writes'
// multipart/form-data rendition is not described beside their JSON body:
// with two media types on one operation, orval's default client sends the
// JSON body without its Content-Type (415). Uploads are operations of
// their own (uploadPaths), whose tokens the JSON bodies take.
func fileSchema() *base.Schema {
	props := orderedmap.New[string, *base.SchemaProxy]()
	props.Set("name", base.CreateSchemaProxy(&base.Schema{Type: types("string"),
		Description: "The stored file's name: unique in the project, the last segment of its URL."}))
	props.Set("size", base.CreateSchemaProxy(&base.Schema{Type: types("integer"), Format: "int64", Description: "Its size in bytes."}))
	props.Set("type", base.CreateSchemaProxy(&base.Schema{Type: types("string"),
		Description: "Its media type, as sniffed from its content when it was uploaded."}))
	props.Set("url", base.CreateSchemaProxy(&base.Schema{Type: types("string"),
		Description: "Where to download it (GET, with the credential that reads the record), a path on the API's host."}))
	return &base.Schema{Type: types("object"), Description: "A file a record holds.", Properties: props,
		Required: []string{"name", "size", "type", "url"}, AdditionalProperties: &base.DynamicValue[*base.SchemaProxy, bool]{N: 1, B: false}}
}

// Names of the upload parts of the document.
const (
	schemaUpload     = "Upload"
	schemaUploadResp = "UploadResponse"
	uploadMedia      = "multipart/form-data"
)

// uploadSchemas adds the answer of an upload.
func uploadSchemas(schemas *orderedmap.Map[string, *base.SchemaProxy]) {
	props := orderedmap.New[string, *base.SchemaProxy]()
	props.Set("token", base.CreateSchemaProxy(&base.Schema{Type: types("string"),
		Description: "Give it as the column's value in a JSON create or update (a files column: in its list) within 30 minutes; each use stores a copy of its own."}))
	props.Set("name", base.CreateSchemaProxy(&base.Schema{Type: types("string"), Description: "The upload's stored name."}))
	props.Set("size", base.CreateSchemaProxy(&base.Schema{Type: types("integer"), Format: "int64", Description: "Its size in bytes."}))
	props.Set("type", base.CreateSchemaProxy(&base.Schema{Type: types("string"), Description: "Its media type, sniffed from its content."}))
	props.Set("expires_at", base.CreateSchemaProxy(&base.Schema{Type: types("string"), Format: "date-time", Description: "When the token stops working."}))
	schemas.Set(schemaUpload, base.CreateSchemaProxy(&base.Schema{Type: types("object"), Description: "A stored upload and its token.",
		Properties: props, Required: []string{"token", "name", "size", "type", "expires_at"}}))
	schemas.Set(schemaUploadResp, base.CreateSchemaProxy(successSchema(base.CreateSchemaProxyRef(schemaRef(schemaUpload)), false,
		"An upload in the success envelope.")))
}

// uploadPaths adds, for each file column of t, POST
// /<table>/files/<column> (an upload: one media type, multipart/form-data
// with one part, file, so that every generator's default client sends it
// as described) and /<table>/{id}/files/<column>/{name}: GET downloads
// the file, POST answers a signed URL for it.
func uploadPaths(paths *orderedmap.Map[string, *v3.PathItem], t *schema.CTable, n tableNames, errs []string) {
	createLevel := t.Level("create")
	for _, c := range t.Writable {
		if !c.Kind.Traits.Upload {
			continue
		}
		paths.Set("/"+t.Name+"/{id}/files/"+c.Name+"/{name}", filePath(t, n, c))
		part := orderedmap.New[string, *base.SchemaProxy]()
		part.Set("file", base.CreateSchemaProxy(&base.Schema{Type: types("string"), ContentMediaType: "application/octet-stream",
			Description: "The file; its part's file name names it."}))
		content := orderedmap.New[string, *v3.MediaType]()
		content.Set(uploadMedia, &v3.MediaType{Schema: base.CreateSchemaProxy(&base.Schema{Type: types("object"), Properties: part, Required: []string{"file"}})})
		paths.Set("/"+t.Name+"/files/"+c.Name, &v3.PathItem{Post: &v3.Operation{Tags: []string{t.Name},
			OperationId: "upload" + n.Record + "_" + c.Name, Summary: "Upload a file for " + t.Name + "." + c.Name,
			Description: joinSentences("Stores one file for the column, checked as a write checks it (its type sniffed from its content, its size), "+
				"and answers a token that a JSON create or update gives as the column's value. The body may also be the file itself "+
				"(any other Content-Type, named by ?name=). Needs the table's create or update permission.", levelText(createLevel, true)),
			RequestBody: &v3.RequestBody{Required: ptr(true), Content: content}, Security: security(createLevel),
			Responses: responses("201", successResponse("The stored upload and its token.", schemaUploadResp, rateHeaders()), errs...)}})
	}
}

// Names of the signed URL's parts of the document.
const (
	schemaSignedURL     = "SignedURL"
	schemaSignedURLResp = "SignedURLResponse"
)

// signedURLSchemas adds the answer of a signed URL.
func signedURLSchemas(schemas *orderedmap.Map[string, *base.SchemaProxy]) {
	props := orderedmap.New[string, *base.SchemaProxy]()
	props.Set("url", base.CreateSchemaProxy(&base.Schema{Type: types("string"),
		Description: "The file's path with expires and signature: it opens the file without a credential until expires_at."}))
	props.Set("expires_at", base.CreateSchemaProxy(&base.Schema{Type: types("string"), Format: "date-time"}))
	schemas.Set(schemaSignedURL, base.CreateSchemaProxy(&base.Schema{Type: types("object"), Description: "A signed download URL.",
		Properties: props, Required: []string{"url", "expires_at"}}))
	schemas.Set(schemaSignedURLResp, base.CreateSchemaProxy(successSchema(base.CreateSchemaProxyRef(schemaRef(schemaSignedURL)), false,
		"A signed URL in the success envelope.")))
}

// filePath is /<table>/{id}/files/<column>/{name}: the download of a
// file the record holds in column c, and its signed URL.
func filePath(t *schema.CTable, n tableNames, c *schema.CColumn) *v3.PathItem {
	readLevel := t.Level("read")
	name := &v3.Parameter{Name: "name", In: "path", Required: ptr(true), Example: str("cover_4kq7m2x9wrt3hz5a.png"),
		Description: "The file's stored name (its name in the record).", Schema: base.CreateSchemaProxy(&base.Schema{Type: types("string")})}
	query := func(name, desc string, s *base.Schema) *v3.Parameter {
		return &v3.Parameter{Name: name, In: "query", Description: desc, Schema: base.CreateSchemaProxy(s)}
	}
	params := []*v3.Parameter{}
	if c.Thumbnails {
		params = append(params, query("thumb", "WxH: the image scaled to fit that box (each side 1 to 1024), proportions kept, never enlarged.",
			&base.Schema{Type: types("string"), Pattern: `^[1-9][0-9]{0,3}x[1-9][0-9]{0,3}$`}))
	}
	params = append(params,
		query("expires", "With signature: a signed URL's expiry (Unix seconds), as POST on this path answers it.", &base.Schema{Type: types("integer"), Format: "int64"}),
		query("signature", "With expires: a signed URL's signature; the file then needs no credential.", &base.Schema{Type: types("string")}))
	binary := orderedmap.New[string, *v3.MediaType]()
	binary.Set("application/octet-stream", &v3.MediaType{Schema: base.CreateSchemaProxy(&base.Schema{Type: types("string"), ContentMediaType: "application/octet-stream"})})
	readErrors := []string{respInvalidQuery, respUnauthorized, respForbidden, respNotFound, respRateLimited, respInternal, respUnavailable}
	return &v3.PathItem{
		Parameters: []*v3.Parameter{idParameter(t), name},
		Get: &v3.Operation{Tags: []string{t.Name}, OperationId: "download" + n.Record + "_" + c.Name, Summary: "Download a file of " + t.Name + "." + c.Name,
			Description: joinSentences("The file as uploaded, with its sniffed Content-Type, Range (206), ETag and Content-Disposition (docs/files.md). "+
				"Needs a credential that may read the record, or a signed URL's expires and signature.", levelText(readLevel, false)),
			Parameters: params, Security: security(readLevel),
			Responses: responses("200", &v3.Response{Description: "The file's bytes.", Content: binary}, readErrors...)},
		Post: &v3.Operation{Tags: []string{t.Name}, OperationId: "signUrl" + n.Record + "_" + c.Name, Summary: "A signed URL of a file of " + t.Name + "." + c.Name,
			Description: joinSentences("Answers a URL that opens the file without a credential until it expires (expires_in seconds, 1 to 604800; default 3600).",
				levelText(readLevel, false)),
			Parameters: []*v3.Parameter{query("expires_in", "Seconds the URL works, 1 to 604800 (a week); default 3600.",
				&base.Schema{Type: types("integer"), Minimum: ptr(1.0), Maximum: ptr(604800.0)})},
			Security:  security(readLevel),
			Responses: responses("200", successResponse("The signed URL.", schemaSignedURLResp, rateHeaders()), readErrors...)},
	}
}
