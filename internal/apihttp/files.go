package apihttp

import (
	"context"
	"encoding/json"
	"errors"
	"mime"
	"net/http"
	"strings"
	"time"

	"github.com/tablesmith/tablesmith/access"
	"github.com/tablesmith/tablesmith/apierr"
	"github.com/tablesmith/tablesmith/internal/apirequest"
	"github.com/tablesmith/tablesmith/internal/files"
	"github.com/tablesmith/tablesmith/internal/pgexec"
	"github.com/tablesmith/tablesmith/schema"
	"github.com/tablesmith/tablesmith/translate"
)

// FilesSegment is the path segment of a record's files:
// GET /<table>/<id>/files/<column>/<name> downloads one (docs/files.md).
const FilesSegment = "files"

// isFileTransfer reports a request whose body or answer is a file: a
// multipart write, or a download. Its bytes may take longer than the
// request deadline to cross the network, so the deadline bounds only its
// statements (fileWriteContext), and the transfer runs while the client
// keeps it going.
func isFileTransfer(r *http.Request) bool {
	switch r.Method {
	case http.MethodPost, http.MethodPut, http.MethodPatch:
		return files.IsMultipart(r)
	case http.MethodGet, http.MethodHead:
		return strings.Contains(r.URL.Path, "/"+FilesSegment+"/")
	}
	return false
}

// readWriteBody reads the body of a write of one record: JSON, or
// multipart/form-data with files, which are stored as they stream. The
// keys of the stored files come back so that a write that does not
// commit removes them (dropUploads); the request then gets its deadline
// for the statements that follow.
func (h *Handler) readWriteBody(w http.ResponseWriter, r *http.Request, rt *Route, c *tableCall) (map[string]any, []string, *http.Request, error) {
	if !files.IsMultipart(r) {
		body, err := h.readBody(w, r)
		return body, nil, r, err
	}
	if h.d.Files == nil {
		return nil, nil, r, apierr.New(apierr.CodeUnavailable, "This server keeps no files: a multipart/form-data write needs its file storage (docs/files.md)")
	}
	if c.idem != nil {
		return nil, nil, r, apierr.Fields(apierr.CodeValidation, "Validation failed",
			map[string]string{headerIdempotencyKey: "is not taken with a multipart/form-data body: send the files first (POST /<table>/files/<column>) and the record as JSON"})
	}
	in, err := files.ReadWrite(r.Context(), h.d.Files, r, rt.ProjectID, c.t, files.Limits{MaxFileSize: h.d.MaxFileSize, MaxFields: h.d.MaxBody})
	if err != nil {
		return nil, nil, r, err
	}
	ctx, cancel := context.WithTimeout(r.Context(), h.d.Timeout)
	context.AfterFunc(r.Context(), cancel)
	return in.Body, in.Stored, r.WithContext(ctx), nil
}

// dropUploads removes the files a write stored when the write was
// refused: nothing names them. After an error that leaves open whether
// the statement committed (a lost connection, a deadline), they stay, and
// the sweep removes them only if no row names them.
func (h *Handler) dropUploads(ctx context.Context, stored []string, err error) {
	var e *apierr.Error
	if len(stored) > 0 && errors.As(err, &e) && e.Code != apierr.CodeUnavailable && e.Code != apierr.CodeInternal {
		h.removeFiles(ctx, stored)
	}
}

// removeFiles deletes objects off the request's deadline; a failure is
// logged, and the sweep removes them later.
func (h *Handler) removeFiles(ctx context.Context, keys []string) {
	if len(keys) == 0 || h.d.Files == nil {
		return
	}
	ctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), 30*time.Second)
	defer cancel()
	if err := h.d.Files.Delete(ctx, keys...); err != nil {
		h.d.Logger.Warn("stored files not removed (the sweep will)", "err", err, "files", len(keys))
		if project, _, ok := strings.Cut(keys[0], "/"); ok && h.d.FilesOrphaned != nil {
			h.d.FilesOrphaned(project)
		}
	}
}

// fileNames lists the names of the files a record's JSON holds in the
// table's file columns.
func fileNames(t *schema.CTable, record []byte) []string {
	if !t.HasFiles() || len(record) == 0 {
		return nil
	}
	var fields map[string]json.RawMessage
	if json.Unmarshal(record, &fields) != nil {
		return nil
	}
	var names []string
	for _, c := range t.Columns {
		raw, ok := fields[c.Name]
		if !c.Kind.Traits.Upload || !ok {
			continue
		}
		var list []schema.StoredFile
		if c.Kind.Traits.Many {
			_ = json.Unmarshal(raw, &list)
		} else {
			var f *schema.StoredFile
			if json.Unmarshal(raw, &f) == nil && f != nil {
				list = append(list, *f)
			}
		}
		for _, f := range list {
			names = append(names, f.Name)
		}
	}
	return names
}

// replacedFiles are the keys of the files before holds that after does
// not: a write's files that nothing names once it commits.
func replacedFiles(t *schema.CTable, project string, before, after []byte) []string {
	old := fileNames(t, before)
	if len(old) == 0 {
		return nil
	}
	kept := map[string]bool{}
	for _, n := range fileNames(t, after) {
		kept[n] = true
	}
	var keys []string
	for _, n := range old {
		if !kept[n] {
			keys = append(keys, files.Key(project, n))
		}
	}
	return keys
}

// setsFiles reports whether a write's body names a file column.
func setsFiles(t *schema.CTable, body map[string]any) bool {
	for _, c := range t.Columns {
		if c.Kind.Traits.Upload {
			if _, ok := body[c.Input]; ok {
				return true
			}
		}
	}
	return false
}

// serveFile answers GET /<table>/<id>/files/<column>/<name>: the file, if
// the caller may read the record (its read rule, its owner) and the
// record holds a file of that name in that column. Range, If-None-Match
// and If-Modified-Since are net/http's ServeContent's; a stored name never
// changes content, so its tag is the name.
func (h *Handler) serveFile(w http.ResponseWriter, r *http.Request, rt *Route, t *schema.CTable) error {
	rest := rt.Rest
	if len(rest) != 5 || rest[2] != FilesSegment {
		return apierr.New(apierr.CodeNotFound, "Not found")
	}
	rt.Operation = apirequest.OpGet
	if r.Method != http.MethodGet && r.Method != http.MethodHead {
		e := apierr.New(apierr.CodeMethodNotAllowed, "Method %s is not allowed on a file; use GET or HEAD", r.Method)
		e.Allow = "GET, HEAD"
		return e
	}
	col, ok := t.Column(rest[3])
	if !ok || !col.Kind.Traits.Upload {
		return apierr.New(apierr.CodeNotFound, "%s has no file column %q", t.Name, rest[3])
	}
	name := rest[4]
	id, ok := apirequest.ParseID(t, rest[1])
	if !ok || !files.ValidName(name) {
		return apierr.New(apierr.CodeNotFound, "File not found")
	}
	grant, err := h.Admit(w, r, rt, Admission{Credential: true, Table: t, Action: access.Read})
	if err != nil {
		return err
	}
	var owner any
	if !grant.Rows.All() {
		owner = grant.Rows.Value
	}
	ts := rt.Entry.Published.Tables[t.Name]
	var record []byte
	err = h.statements(w, r, rt, func(ctx context.Context) error {
		return h.read(ctx, rt, func(ctx context.Context, q pgexec.Querier) error {
			record, err = recordOn(ctx, q, pgexec.ReadJSON, ts.ByID(translate.GetRecord, id, owner))
			return pgexec.MapError(err, t, pgexec.OpRead)
		})
	})
	if err != nil {
		return err
	}
	f, held := heldFile(col, record, name)
	if !held {
		return apierr.New(apierr.CodeNotFound, "File not found")
	}
	if h.d.Files == nil {
		return apierr.New(apierr.CodeUnavailable, "This server keeps no files (docs/files.md)")
	}
	obj, err := h.d.Files.Open(context.WithoutCancel(r.Context()), files.Key(rt.ProjectID, name))
	if errors.Is(err, files.ErrNotFound) {
		return apierr.New(apierr.CodeNotFound, "File not found")
	}
	if err != nil {
		return err
	}
	defer obj.Close()
	hdr := w.Header()
	hdr.Set("Content-Type", f.Type)
	hdr.Set("Content-Disposition", disposition(f.Type, name))
	hdr.Set("X-Content-Type-Options", "nosniff")
	// A file that a browser would render as a page (HTML, SVG) is served
	// as an attachment and sandboxed all the same: it runs no script on
	// the API's origin.
	hdr.Set("Content-Security-Policy", "sandbox; default-src 'none'; img-src 'self'; media-src 'self'; style-src 'unsafe-inline'")
	hdr.Set("ETag", `"`+name+`"`)
	if ts.CacheMaxAge > 0 && grant.Rows.All() && rt.Principal.Kind == access.Anonymous {
		hdr["Cache-Control"] = ts.CacheControl
	} else {
		hdr.Set("Cache-Control", "private, max-age=3600")
	}
	rt.rows = 1
	http.ServeContent(w, r, "", obj.ModTime(), obj)
	return nil
}

// heldFile finds the file called name among those the record's column holds.
func heldFile(col *schema.CColumn, record []byte, name string) (schema.StoredFile, bool) {
	var fields map[string]json.RawMessage
	if json.Unmarshal(record, &fields) != nil {
		return schema.StoredFile{}, false
	}
	raw := fields[col.Name]
	var list []schema.StoredFile
	if col.Kind.Traits.Many {
		_ = json.Unmarshal(raw, &list)
	} else {
		var f *schema.StoredFile
		if json.Unmarshal(raw, &f) == nil && f != nil {
			list = append(list, *f)
		}
	}
	for _, f := range list {
		if f.Name == name {
			return f, true
		}
	}
	return schema.StoredFile{}, false
}

// disposition shows images, audio, video, PDF and plain text in the
// browser and has every other type downloaded, under its stored name.
func disposition(mediaType, name string) string {
	kind := "attachment"
	switch {
	case mediaType == "image/svg+xml":
	case strings.HasPrefix(mediaType, "image/"), strings.HasPrefix(mediaType, "audio/"), strings.HasPrefix(mediaType, "video/"),
		mediaType == "application/pdf", mediaType == "text/plain":
		kind = "inline"
	}
	return mime.FormatMediaType(kind, map[string]string{"filename": name})
}
