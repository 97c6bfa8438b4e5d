package files

import (
	"bufio"
	"context"
	"encoding/json"
	"errors"
	"io"
	"mime"
	"net/http"
	"strconv"
	"strings"

	"github.com/gabriel-vasile/mimetype"

	"github.com/tablesmith/tablesmith/apierr"
	"github.com/tablesmith/tablesmith/schema"
)

// IsMultipart reports whether a request's body is multipart/form-data.
func IsMultipart(r *http.Request) bool {
	mt, _, err := mime.ParseMediaType(r.Header.Get("Content-Type"))
	return err == nil && mt == "multipart/form-data"
}

// Limits bound the files of a write or an upload.
type Limits struct {
	// MaxFileSize is the most bytes of one file whatever its column says
	// (the server's and the plan's bound); 0 means no bound beyond the
	// column's max_size.
	MaxFileSize int64
	// MaxFields is the most bytes of all the parts that are not files
	// together (the JSON body limit).
	MaxFields int64
	// Remaining is how many bytes the project may still store (its
	// plan's file_storage less what it holds); <0 means no bound.
	Remaining int64
	// Full words the refusal of a file that would pass Remaining (the
	// plan and what is used).
	Full string
	// Stored, when set, is told the size of each file stored (so that
	// the project's usage counts it before its next listing).
	Stored func(size int64)
}

// Write is a multipart write read whole: the body as a JSON write would
// give it (file columns holding schema.StoredFile or []schema.StoredFile)
// and the keys of the files stored on the way, which the caller removes if
// the write does not commit.
type Write struct {
	Body   map[string]any
	Stored []string
}

// sniffLength is how much of a file the media type is read from
// (mimetype's own default).
const sniffLength = 3072

// ReadWrite reads a multipart/form-data body of a write on table t of
// project: a part with a file name is a file of the file or files column
// it is named after, sniffed and stored as it streams; any other part is a
// field's value, as text (text-like columns, dates, UUIDs) or as JSON
// (numbers, booleans, json), an empty one meaning null. A part that names
// no writable field, a file for a column that is not a file column, or a
// file the column does not take is refused, and what was stored is
// removed before the error returns.
func ReadWrite(ctx context.Context, store Store, r *http.Request, project string, t *schema.CTable, limits Limits) (w Write, err error) {
	defer func() {
		if err != nil && len(w.Stored) > 0 {
			_ = store.Delete(context.WithoutCancel(ctx), w.Stored...)
			w.Stored = nil
		}
	}()
	mr, err := r.MultipartReader()
	if err != nil {
		return w, apierr.New(apierr.CodeValidation, "The multipart/form-data body could not be read: %v", err)
	}
	w.Body = map[string]any{}
	fieldBytes := limits.MaxFields
	problems := map[string]string{}
	for {
		part, err := mr.NextPart()
		if errors.Is(err, io.EOF) {
			break
		}
		if err != nil {
			return w, apierr.New(apierr.CodeValidation, "The multipart/form-data body could not be read: %v", err)
		}
		name := part.FormName()
		col, known := t.Inputs[name]
		switch {
		case name == "":
			return w, apierr.New(apierr.CodeValidation, "A part of the multipart/form-data body has no name")
		case !known:
			return w, apierr.Fields(apierr.CodeValidation, "Validation failed", map[string]string{name: "is not a column of " + t.Name + " a request may set"})
		case part.FileName() != "":
			if !col.Kind.Traits.Upload {
				return w, apierr.Fields(apierr.CodeValidation, "Validation failed", map[string]string{name: "is not a file column: send its value as a plain field"})
			}
			if list, _ := w.Body[name].([]schema.StoredFile); col.Kind.Traits.Many && len(list) >= schema.MaxFiles(&col.Column) {
				// Refused before the file is stored, not after all of them.
				return w, apierr.Fields(apierr.CodeValidation, "Validation failed",
					map[string]string{name: "must hold at most " + strconv.Itoa(schema.MaxFiles(&col.Column)) + " files"})
			}
			f, key, msg, err := StoreOne(ctx, store, part, part.FileName(), project, col, limits)
			if key != "" {
				w.Stored = append(w.Stored, key)
			}
			if err != nil {
				return w, err
			}
			if msg != "" {
				problems[name] = msg
				continue
			}
			if limits.Remaining >= 0 {
				limits.Remaining = max(0, limits.Remaining-f.Size)
			}
			if col.Kind.Traits.Many {
				list, _ := w.Body[name].([]schema.StoredFile)
				w.Body[name] = append(list, f)
			} else if _, twice := w.Body[name]; twice {
				return w, apierr.Fields(apierr.CodeValidation, "Validation failed", map[string]string{name: "holds one file: the body gives it more than once"})
			} else {
				w.Body[name] = f
			}
		default:
			if _, twice := w.Body[name]; twice {
				return w, apierr.Fields(apierr.CodeValidation, "Validation failed", map[string]string{name: "is given more than once"})
			}
			raw, err := io.ReadAll(io.LimitReader(part, fieldBytes+1))
			if err != nil {
				return w, apierr.New(apierr.CodeValidation, "The multipart/form-data body could not be read: %v", err)
			}
			if fieldBytes -= int64(len(raw)); fieldBytes < 0 {
				return w, apierr.New(apierr.CodePayloadTooLarge, "The fields of the body are larger than %d bytes", limits.MaxFields)
			}
			v, msg := fieldValue(col, string(raw))
			if msg != "" {
				problems[name] = msg
				continue
			}
			w.Body[name] = v
		}
	}
	if len(problems) > 0 {
		return w, apierr.Fields(apierr.CodeValidation, "Validation failed", problems)
	}
	return w, nil
}

// fieldValue reads a text part as the value a JSON body would give: an
// empty part is null, a file column's text is an upload token, numbers,
// booleans and json are JSON, everything else is the text.
func fieldValue(c *schema.CColumn, text string) (any, string) {
	if text == "" {
		return nil, ""
	}
	switch {
	case c.Kind.Traits.Upload:
		if c.Kind.Traits.Many {
			return nil, "takes files as parts with a file name"
		}
		return schema.FileUpload(text), ""
	case c.Kind.Literal == schema.LiteralString && c.Kind.Name != schema.TypeJSON:
		return text, ""
	}
	d := json.NewDecoder(strings.NewReader(text))
	d.UseNumber()
	var v any
	if err := d.Decode(&v); err != nil || d.More() {
		return nil, "must be a JSON value of the column's type (" + c.Kind.Name + ")"
	}
	return v, ""
}

// StoreOne sniffs a file's media type from its first bytes, checks it
// and then its size against the column, the server's and plan's bound and
// the project's remaining storage while it streams into the store under a
// name made from filename (the client's). A file the column does not take
// is a problem message (nothing kept); key is set once an object may
// exist.
func StoreOne(ctx context.Context, store Store, r io.Reader, filename, project string, c *schema.CColumn, limits Limits) (f schema.StoredFile, key, problem string, err error) {
	br := bufio.NewReaderSize(r, sniffLength)
	head, err := br.Peek(sniffLength)
	if err != nil && !errors.Is(err, io.EOF) && !errors.Is(err, bufio.ErrBufferFull) {
		return f, "", "", apierr.New(apierr.CodeValidation, "The multipart/form-data body could not be read: %v", err)
	}
	mediaType := mimetype.Detect(head).String()
	if i := strings.IndexByte(mediaType, ';'); i >= 0 {
		mediaType = mediaType[:i] // "text/plain; charset=utf-8": the type alone
	}
	if len(c.MimeTypes) > 0 && !schema.MediaTypeAllowed(c.MimeTypes, mediaType) {
		return f, "", schema.CheckFileFits(&c.Column, 0, mediaType), nil
	}
	limit := int64(-1) // the bound a file's size meets first; <0: none
	if limits.MaxFileSize > 0 {
		limit = limits.MaxFileSize
	}
	if c.MaxSize != nil && (limit < 0 || *c.MaxSize < limit) {
		limit = *c.MaxSize
	}
	quota := limits.Remaining >= 0 && (limit < 0 || limits.Remaining < limit)
	if quota {
		limit = limits.Remaining
	}
	name := NewName(filename, mediaType)
	key = Key(project, name)
	var src io.Reader = br
	if limit >= 0 {
		src = io.LimitReader(br, limit+1)
	}
	n, err := store.Put(ctx, key, src)
	if err != nil {
		return f, key, "", apierr.New(apierr.CodeUnavailable, "The file %q could not be stored", filename)
	}
	switch {
	case limit < 0 || n <= limit:
	case quota:
		return f, key, "", apierr.Fields(apierr.CodePlanLimit, "The project's file storage is full: "+limits.Full,
			map[string]string{c.Input: "does not fit in what is left of the project's file storage (" + strconv.FormatInt(limits.Remaining, 10) + " bytes)"})
	default:
		return f, key, "", apierr.Fields(apierr.CodePayloadTooLarge, "A file is too large",
			map[string]string{c.Input: "is larger than " + strconv.FormatInt(limit, 10) + " bytes"})
	}
	if limits.Stored != nil {
		limits.Stored(n)
	}
	return schema.StoredFile{Name: name, Size: n, Type: mediaType}, key, "", nil
}
