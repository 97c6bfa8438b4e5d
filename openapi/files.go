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

// uploadPaths adds POST /<table>/files/<column> for each file column of
// t: one media type (multipart/form-data with one part, file), so that
// every generator's default client sends it as described.
func uploadPaths(paths *orderedmap.Map[string, *v3.PathItem], t *schema.CTable, n tableNames, errs []string) {
	createLevel := t.Level("create")
	for _, c := range t.Writable {
		if !c.Kind.Traits.Upload {
			continue
		}
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
