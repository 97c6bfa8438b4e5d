package openapi

import (
	"github.com/pb33f/libopenapi/datamodel/high/base"
	v3 "github.com/pb33f/libopenapi/datamodel/high/v3"
	"github.com/pb33f/libopenapi/orderedmap"

	"github.com/tablesmith/tablesmith/schema"
)

// formMedia is the media type of a write that carries files.
const formMedia = "multipart/form-data"

// fileSchema is a file as a record shows it (docs/files.md).
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

// withForm is body with formBody's rendition added.
func withForm(body *v3.RequestBody, t *schema.CTable, required []string) *v3.RequestBody {
	formBody(body, t, required)
	return body
}

// formBody adds, for a table with file columns, the multipart/form-data
// rendition of a write's body beside its JSON one: a part per field, file
// columns as the files themselves. required lists the fields a create or
// replace must give.
func formBody(body *v3.RequestBody, t *schema.CTable, required []string) {
	if !t.HasFiles() {
		return
	}
	props := orderedmap.New[string, *base.SchemaProxy]()
	for _, c := range t.Writable {
		switch {
		case c.Kind.Traits.Upload && c.Kind.Traits.Many:
			props.Set(c.Input, base.CreateSchemaProxy(&base.Schema{Type: types("array"), Description: c.Description,
				Items: &base.DynamicValue[*base.SchemaProxy, bool]{A: base.CreateSchemaProxy(binarySchema())}}))
		case c.Kind.Traits.Upload:
			s := binarySchema()
			s.Description = c.Description
			props.Set(c.Input, base.CreateSchemaProxy(s))
		default:
			props.Set(c.Input, base.CreateSchemaProxy(columnSchema(c, true)))
		}
	}
	body.Content.Set(formMedia, &v3.MediaType{Schema: base.CreateSchemaProxy(&base.Schema{Type: types("object"),
		Description: "The record as form fields, with the files of its file columns as parts (a file's own name is kept in its stored name).",
		Properties:  props, Required: required})})
}

// binarySchema is a file's bytes in a multipart body (3.1's form; the
// 3.0 rendition says format: binary).
func binarySchema() *base.Schema {
	return &base.Schema{Type: types("string"), ContentMediaType: "application/octet-stream"}
}
