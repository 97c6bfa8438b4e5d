package schema

import (
	"encoding/json"
	"strconv"
	"strings"
)

// Column types that hold uploaded files (docs/files.md): file keeps one,
// files a list. The row stores what the file is (StoredFile, as jsonb);
// the bytes are in the project's file storage.
const (
	TypeFile  = "file"
	TypeFiles = "files"
)

// Bounds of the file columns' settings.
const (
	// DefaultMaxFiles is a files column's max_files when it sets none.
	DefaultMaxFiles = 10
	// MaxMaxFiles is the most files one files column may hold.
	MaxMaxFiles = 100
	// MaxFileNameLength bounds a stored file's name (the last segment of
	// its URL).
	MaxFileNameLength = 120
)

// StoredFile is a file a row holds: the name it is stored and served
// under (unique in the project), its size in bytes and its media type as
// sniffed from its content. Only the server makes one, from an upload it
// has stored: a request body's JSON never decodes to it, so no client can
// point a row at a file it did not upload.
type StoredFile struct {
	Name string `json:"name"`
	Size int64  `json:"size"`
	Type string `json:"type"`
}

// FileUpload is the text a multipart body gives for a file column: an
// upload token, which the server reads into a StoredFile (files.Claim)
// before the record is checked; one it did not read is refused.
type FileUpload string

// fileType holds one uploaded file.
var fileType = &ColumnType{
	Name: TypeFile, Label: "File", PG: "jsonb", Offered: true,
	Traits:  Traits{Upload: true},
	Literal: LiteralString,
	Example: nil,

	check:        func(c *Column, v any) (any, string) { return checkFile(c, v) },
	parseQuery:   notFiltered,
	recordOutput: fileOutput,
	document: func(c *Column, forRequest bool) ValueSchema {
		if forRequest {
			return ValueSchema{Types: []string{"string"}, Description: uploadNote(c)}
		}
		return ValueSchema{Types: []string{"object"}, Ref: FileSchemaName}
	},
	fixed: "file columns hold uploaded files: they cannot become another type, and no other type can become one; add a new column instead",
}

// filesType holds a list of uploaded files.
var filesType = &ColumnType{
	Name: TypeFiles, Label: "Files", PG: "jsonb", Offered: true,
	Traits:  Traits{Upload: true, Many: true},
	Literal: LiteralString,
	Example: nil,

	check:        checkFiles,
	parseQuery:   notFiltered,
	recordOutput: filesOutput,
	document: func(c *Column, forRequest bool) ValueSchema {
		if forRequest {
			return ValueSchema{Types: []string{"array"}, Items: &ValueSchema{Types: []string{"string"}},
				Description: uploadNote(c) + " At most " + strconv.Itoa(MaxFiles(c)) + " files."}
		}
		return ValueSchema{Types: []string{"array"}, Items: &ValueSchema{Types: []string{"object"}, Ref: FileSchemaName}}
	},
	fixed: fileType.fixed,
}

// fileURL is the SQL of the download URL of the file f (a jsonb
// expression) of column c in the record at alias.
func fileURL(c *CColumn, alias, f string) string {
	return QuoteLiteral(c.FileURL) + " || " + alias + "." + c.FilePK + " || " + QuoteLiteral("/files/"+c.Name+"/") + " || (" + f + " ->> 'name')"
}

// fileOutput shows a file column's value with its download URL.
func fileOutput(c *CColumn, alias string) string {
	ref := alias + "." + c.Ident
	return "CASE WHEN " + ref + " IS NULL THEN NULL ELSE " + ref + " || jsonb_build_object('url', " + fileURL(c, alias, ref) + ") END"
}

// filesOutput shows each file of a files column with its download URL,
// in the list's order.
func filesOutput(c *CColumn, alias string) string {
	ref := alias + "." + c.Ident
	return "CASE WHEN " + ref + " IS NULL THEN NULL ELSE COALESCE((SELECT jsonb_agg(_f.v || jsonb_build_object('url', " +
		fileURL(c, alias, "_f.v") + ") ORDER BY _f.n) FROM jsonb_array_elements(" + ref + ") WITH ORDINALITY AS _f(v, n)), '[]'::jsonb) END"
}

// FileSchemaName is the document's shared schema of a file in a record:
// not "File", which typed TypeScript clients would declare over the
// browser's own File (orval's upload functions take a File).
const FileSchemaName = "RecordFile"

// uploadNote says how a write sets a file column.
func uploadNote(c *Column) string {
	note := "The token of an upload (POST /{table}/files/" + c.Name + "), or the file as a part of a multipart/form-data write (docs/files.md); null removes it."
	if c.MaxSize != nil {
		note += " At most " + strconv.FormatInt(*c.MaxSize, 10) + " bytes per file."
	}
	if len(c.MimeTypes) > 0 {
		note += " Types: " + strings.Join(c.MimeTypes, ", ") + "."
	}
	return note
}

// checkFile takes a file the server stored for this request (StoredFile);
// anything else a body gives is an upload token the server did not read,
// or not a file at all.
func checkFile(c *Column, v any) (any, string) {
	f, ok := v.(StoredFile)
	if !ok {
		return nil, "must be a file: upload it as a part of a multipart/form-data body, or give the token of an earlier upload"
	}
	if msg := CheckFileFits(c, f.Size, f.Type); msg != "" {
		return nil, msg
	}
	b, err := json.Marshal(f)
	if err != nil {
		return nil, "must be a file"
	}
	return string(b), ""
}

// checkFiles takes a list of files the server stored (or kept) for this
// request.
func checkFiles(c *Column, v any) (any, string) {
	list, ok := v.([]StoredFile)
	if !ok {
		return nil, "must be a list of files: upload them as parts of a multipart/form-data body, or give the tokens of earlier uploads"
	}
	if len(list) > MaxFiles(c) {
		return nil, "must hold at most " + strconv.Itoa(MaxFiles(c)) + " files"
	}
	if c.Required && len(list) == 0 {
		return nil, MsgEmpty
	}
	for _, f := range list {
		if msg := CheckFileFits(c, f.Size, f.Type); msg != "" {
			return nil, f.Name + ": " + msg
		}
	}
	b, err := json.Marshal(list)
	if err != nil {
		return nil, "must be a list of files"
	}
	return string(b), ""
}

// CheckFileFits checks an upload's size and sniffed media type against the
// column's max_size and mime_types; it answers a problem message or "".
func CheckFileFits(c *Column, size int64, mediaType string) string {
	if c.MaxSize != nil && size > *c.MaxSize {
		return "is " + strconv.FormatInt(size, 10) + " bytes, more than the column's max_size of " + strconv.FormatInt(*c.MaxSize, 10)
	}
	if len(c.MimeTypes) > 0 && !MediaTypeAllowed(c.MimeTypes, mediaType) {
		return "is " + mediaType + ", which the column does not take (" + strings.Join(c.MimeTypes, ", ") + ")"
	}
	return ""
}

// MediaTypeAllowed reports whether mediaType matches one of allowed:
// "image/png" exactly, "image/*" any image.
func MediaTypeAllowed(allowed []string, mediaType string) bool {
	for _, a := range allowed {
		if prefix, ok := strings.CutSuffix(a, "/*"); ok {
			if strings.HasPrefix(mediaType, prefix+"/") {
				return true
			}
		} else if a == mediaType {
			return true
		}
	}
	return false
}

// MaxFiles is the most files a files column holds.
func MaxFiles(c *Column) int {
	if c.MaxFiles != nil {
		return *c.MaxFiles
	}
	return DefaultMaxFiles
}
