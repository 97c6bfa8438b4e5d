package apihttp

import (
	"context"
	"encoding/json"
	"errors"
	"io"
	"mime"
	"net/http"
	"net/url"
	"strconv"
	"strings"
	"time"

	"github.com/tablesmith/tablesmith/access"
	"github.com/tablesmith/tablesmith/apierr"
	"github.com/tablesmith/tablesmith/internal/apirequest"
	"github.com/tablesmith/tablesmith/internal/envelope"
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
	// /v1/<project>/<table>/files/<column> (an upload) and
	// /v1/<project>/<table>/<id>/files/<column>/<name> (a download).
	if r.Method == http.MethodPut || r.Method == http.MethodPatch {
		return files.IsMultipart(r)
	}
	if !strings.Contains(r.URL.Path, "/"+FilesSegment+"/") {
		// Most requests: no split of the path.
		return r.Method == http.MethodPost && files.IsMultipart(r)
	}
	segs := strings.Split(strings.TrimPrefix(r.URL.Path, "/"), "/")
	switch r.Method {
	case http.MethodPost:
		return files.IsMultipart(r) || len(segs) == 5 && segs[3] == FilesSegment
	case http.MethodGet, http.MethodHead:
		return len(segs) == 7 && segs[4] == FilesSegment
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
		if err != nil {
			return nil, nil, r, err
		}
		claimed, err := h.claimUploads(r, rt, c.t, body)
		return body, claimed, r, err
	}
	if h.d.Files == nil {
		return nil, nil, r, apierr.New(apierr.CodeUnavailable, "This server keeps no files: a multipart/form-data write needs its file storage (docs/files.md)")
	}
	if c.idem != nil {
		return nil, nil, r, apierr.Fields(apierr.CodeValidation, "Validation failed",
			map[string]string{headerIdempotencyKey: "is not taken with a multipart/form-data body: send the files first (POST /<table>/files/<column>) and the record as JSON"})
	}
	limits, err := h.fileLimits(r, rt)
	if err != nil {
		return nil, nil, r, err
	}
	in, err := files.ReadWrite(r.Context(), h.d.Files, r, rt.ProjectID, c.t, limits)
	if err != nil {
		return nil, nil, r, err
	}
	claimed, err := h.claimUploads(r, rt, c.t, in.Body)
	in.Stored = append(in.Stored, claimed...)
	if err != nil {
		h.dropUploads(r.Context(), in.Stored, err)
		return nil, nil, r, err
	}
	ctx, cancel := context.WithTimeout(r.Context(), h.d.Timeout)
	context.AfterFunc(r.Context(), cancel)
	return in.Body, in.Stored, r.WithContext(ctx), nil
}

// fileLimits bounds the files of a request: the server's max_file_size,
// and the project's plan (one file, and what is left of its storage).
func (h *Handler) fileLimits(r *http.Request, rt *Route) (files.Limits, error) {
	limits := files.Limits{MaxFileSize: h.d.MaxFileSize, MaxFields: h.d.MaxBody, Remaining: -1}
	if h.d.FileLimits == nil {
		return limits, nil
	}
	plan, err := h.d.FileLimits(r.Context(), rt.ProjectID)
	if err != nil {
		return limits, err
	}
	if plan.MaxFileSize > 0 && (limits.MaxFileSize <= 0 || plan.MaxFileSize < limits.MaxFileSize) {
		limits.MaxFileSize = plan.MaxFileSize
	}
	limits.Remaining, limits.Full, limits.Stored = plan.Remaining, plan.Full, plan.Stored
	return limits, nil
}

// claimUploads turns the upload tokens of a write's body into the files
// the row will hold (files.Claim); a body without tokens costs nothing.
func (h *Handler) claimUploads(r *http.Request, rt *Route, t *schema.CTable, body map[string]any) ([]string, error) {
	if !t.HasFiles() || !setsFiles(t, body) || h.d.Files == nil || h.d.FileTokenKey == nil {
		return nil, nil
	}
	key := h.d.FileTokenKey()
	if len(key) == 0 {
		return nil, apierr.New(apierr.CodeUnavailable, "Uploads are not ready yet")
	}
	claimed, problems, err := files.Claim(r.Context(), h.d.Files, key, rt.ProjectID, t, body, h.d.Now())
	if err == nil && problems != nil {
		err = apierr.Fields(apierr.CodeValidation, "Validation failed", problems)
	}
	if err != nil {
		h.dropUploads(r.Context(), claimed, apierr.New(apierr.CodeValidation, "refused"))
		return nil, err
	}
	return claimed, nil
}

// claimEachUploads is claimUploads for the records of a bulk create or
// an upsert; a bad token is named by its record's index ("0.cover").
func (h *Handler) claimEachUploads(r *http.Request, rt *Route, t *schema.CTable, items []map[string]any) ([]string, error) {
	var claimed []string
	for i, item := range items {
		keys, err := h.claimUploads(r, rt, t, item)
		claimed = append(claimed, keys...)
		if err == nil {
			continue
		}
		h.dropUploads(r.Context(), claimed, apierr.New(apierr.CodeValidation, "refused"))
		var e *apierr.Error
		if errors.As(err, &e) && len(e.Details) > 0 {
			details := make(map[string]string, len(e.Details))
			for k, v := range e.Details {
				details[strconv.Itoa(i)+"."+k] = v
			}
			return nil, apierr.Fields(e.Code, e.Message, details)
		}
		return nil, err
	}
	return claimed, nil
}

// uploadFile answers POST /<table>/files/<column>: it stores one file for
// the column, checked as a write would check it, and answers the upload
// token a later JSON write gives for the column (within
// files.TokenLifetime). The body is the file itself (its media type is
// sniffed, ?name= names it) or multipart/form-data with one file part.
// The caller needs the table's create or update permission.
func (h *Handler) uploadFile(w http.ResponseWriter, r *http.Request, rt *Route, t *schema.CTable) error {
	rt.Operation = apirequest.OpCreate
	if r.Method != http.MethodPost {
		e := apierr.New(apierr.CodeMethodNotAllowed, "Method %s is not allowed on an upload; use POST", r.Method)
		e.Allow = "POST"
		return e
	}
	col, ok := t.Column(rt.Rest[2])
	if !ok || !col.Kind.Traits.Upload || col.ReadOnly {
		return apierr.New(apierr.CodeNotFound, "%s has no file column %q", t.Name, rt.Rest[2])
	}
	if _, err := h.Admit(w, r, rt, Admission{Credential: true}); err != nil {
		return err
	}
	if _, err := Decide(rt.Principal, t, access.Create); err != nil {
		if _, err2 := Decide(rt.Principal, t, access.Update); err2 != nil {
			return err
		}
	}
	if h.d.Files == nil || h.d.FileTokenKey == nil || len(h.d.FileTokenKey()) == 0 {
		return apierr.New(apierr.CodeUnavailable, "This server keeps no files (docs/files.md)")
	}
	body, filename, err := uploadedFile(r)
	if err != nil {
		return err
	}
	limits, err := h.fileLimits(r, rt)
	if err != nil {
		return err
	}
	f, key, problem, err := files.StoreOne(r.Context(), h.d.Files, body, filename, rt.ProjectID, col, limits)
	if problem != "" {
		err = apierr.Fields(apierr.CodeValidation, "Validation failed", map[string]string{col.Input: problem})
	}
	if err != nil {
		if key != "" {
			h.removeFiles(r.Context(), []string{key})
		}
		return err
	}
	expires := h.d.Now().Add(files.TokenLifetime).UTC().Truncate(time.Second)
	token := files.Sign(h.d.FileTokenKey(), files.Upload{Project: rt.ProjectID, Table: t.Name, Column: col.Name, File: f, Expires: expires.Unix()})
	envelope.Write(w, http.StatusCreated, envelope.Success{Data: UploadAnswer{Token: token, Name: f.Name, Size: f.Size, Type: f.Type,
		ExpiresAt: expires.Format(time.RFC3339)}, Message: "File uploaded: give its token for " + col.Name + " in a create or update"})
	return nil
}

// UploadAnswer is the data of an upload's answer.
type UploadAnswer struct {
	Token     string `json:"token"`
	Name      string `json:"name"`
	Size      int64  `json:"size"`
	Type      string `json:"type"`
	ExpiresAt string `json:"expires_at"`
}

// uploadedFile is an upload's file: the body itself (named by ?name=),
// or the one file part of a multipart body.
func uploadedFile(r *http.Request) (io.Reader, string, error) {
	q, err := url.ParseQuery(r.URL.RawQuery)
	if err != nil {
		return nil, "", apierr.New(apierr.CodeInvalidQuery, "The query string could not be read: %v", err)
	}
	for k, vs := range q {
		if len(vs) > 1 {
			return nil, "", apierr.Fields(apierr.CodeInvalidQuery, "Invalid query parameter "+k, map[string]string{k: "is given more than once"})
		}
		if k != "name" && k != "_" {
			return nil, "", apierr.Fields(apierr.CodeInvalidQuery, "Unknown query parameter "+k, map[string]string{k: "is not a parameter of an upload (name is)"})
		}
	}
	if !files.IsMultipart(r) {
		return r.Body, q.Get("name"), nil
	}
	mr, err := r.MultipartReader()
	if err != nil {
		return nil, "", apierr.New(apierr.CodeValidation, "The multipart/form-data body could not be read: %v", err)
	}
	part, err := mr.NextPart()
	if err != nil {
		return nil, "", apierr.New(apierr.CodeValidation, "The multipart/form-data body has no file part")
	}
	if part.FileName() == "" {
		return nil, "", apierr.Fields(apierr.CodeValidation, "Validation failed", map[string]string{part.FormName(): "an upload takes one file part and nothing else"})
	}
	// The first part is the file; what may follow it is not read.
	return part, part.FileName(), nil
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
		for _, f := range filesIn(c, raw) {
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
	if r.Method != http.MethodGet && r.Method != http.MethodHead && r.Method != http.MethodPost {
		e := apierr.New(apierr.CodeMethodNotAllowed, "Method %s is not allowed on a file; use GET or HEAD, or POST for a signed URL", r.Method)
		e.Allow = "GET, HEAD, POST"
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
	// The path a signed URL signs: the file, whatever the query says.
	path := "/v1/" + rt.ProjectID + "/" + t.Name + "/" + rest[1] + "/" + FilesSegment + "/" + col.Name + "/" + name
	if r.Method == http.MethodPost {
		return h.signFileURL(w, r, rt, t, col, id, name, path)
	}
	dq, err := readDownloadQuery(r, col)
	if err != nil {
		return err
	}
	var owner any
	shared := false
	if dq.signature != "" {
		// A signed URL opens this one file without a credential: the
		// request is counted as the project's, and the record is read
		// whoever owns it (the URL's maker could read it).
		if _, err := h.Admit(w, r, rt, Admission{}); err != nil {
			return err
		}
		key := h.fileKey()
		if len(key) == 0 || !files.ValidURLSignature(key, path, dq.expires, dq.signature, h.d.Now()) {
			return apierr.New(apierr.CodeForbidden, "The signed URL is not valid, or has expired: ask for a new one (POST to the file's URL)")
		}
	} else {
		grant, err := h.Admit(w, r, rt, Admission{Credential: true, Table: t, Action: access.Read})
		if err != nil {
			return err
		}
		if !grant.Rows.All() {
			owner = grant.Rows.Value
		}
		shared = grant.Rows.All() && rt.Principal.Kind == access.Anonymous
	}
	record, err := h.fileRecord(w, r, rt, t, id, owner)
	if err != nil {
		return err
	}
	thumbW, thumbH := dq.thumbW, dq.thumbH
	ts := rt.Entry.Published.Tables[t.Name]
	f, held := heldFile(col, record, name)
	if !held {
		return apierr.New(apierr.CodeNotFound, "File not found")
	}
	if h.d.Files == nil {
		return apierr.New(apierr.CodeUnavailable, "This server keeps no files (docs/files.md)")
	}
	var obj files.Object
	tag := name
	if thumbW > 0 {
		if !files.ThumbTypes[f.Type] {
			return apierr.Fields(apierr.CodeInvalidQuery, "Invalid query parameter thumb: "+f.Type+" has no thumbnails",
				map[string]string{"thumb": "applies to PNG, JPEG, GIF and WebP images"})
		}
		obj, f.Type, err = files.Thumbnail(context.WithoutCancel(r.Context()), h.d.Files, files.Key(rt.ProjectID, name),
			files.ThumbKey(rt.ProjectID, name, thumbW, thumbH), f.Type, thumbW, thumbH)
		if errors.Is(err, files.ErrNotAnImage) {
			return apierr.Fields(apierr.CodeInvalidQuery, "Invalid query parameter thumb: the file does not decode as an image, or has more than 50 megapixels",
				map[string]string{"thumb": "applies to images the server can decode"})
		}
		tag = name + "@" + strconv.Itoa(thumbW) + "x" + strconv.Itoa(thumbH)
	} else {
		obj, err = h.d.Files.Open(context.WithoutCancel(r.Context()), files.Key(rt.ProjectID, name))
	}
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
	hdr.Set("ETag", `"`+tag+`"`)
	switch {
	case ts.CacheMaxAge > 0 && shared:
		hdr["Cache-Control"] = ts.CacheControl
	case dq.signature != "":
		// Until the URL expires, and no longer.
		hdr.Set("Cache-Control", "private, max-age="+strconv.FormatInt(max(0, dq.expires-h.d.Now().Unix()), 10))
	default:
		hdr.Set("Cache-Control", "private, max-age=3600")
	}
	rt.rows = 1
	http.ServeContent(w, r, "", obj.ModTime(), obj)
	return nil
}

// downloadQuery is what a download's query string may say: a thumbnail's
// box, and a signed URL's expiry and signature.
type downloadQuery struct {
	thumbW, thumbH int
	expires        int64
	signature      string
}

// readDownloadQuery reads a download's query string: thumb=WxH (on a
// column with thumbnails), expires and signature (a signed URL, both or
// neither) and the cache buster _; anything else is refused.
func readDownloadQuery(r *http.Request, col *schema.CColumn) (downloadQuery, error) {
	var dq downloadQuery
	q, err := url.ParseQuery(r.URL.RawQuery)
	if err != nil {
		return dq, apierr.New(apierr.CodeInvalidQuery, "The query string could not be read: %v", err)
	}
	invalid := func(k, why string) error {
		return apierr.Fields(apierr.CodeInvalidQuery, "Invalid query parameter "+k+": "+why, map[string]string{k: why})
	}
	for k, vs := range q {
		if len(vs) != 1 {
			return dq, invalid(k, "is given more than once")
		}
		v := vs[0]
		switch k {
		case "_":
		case "thumb":
			if !col.Thumbnails {
				return dq, invalid(k, "applies to file columns with \"thumbnails\": true")
			}
			var ok bool
			if dq.thumbW, dq.thumbH, ok = files.ParseThumb(v); !ok {
				return dq, invalid(k, "must be WxH, each side 1 to "+strconv.Itoa(files.MaxThumbSide)+" pixels")
			}
		case "expires":
			if dq.expires, err = strconv.ParseInt(v, 10, 64); err != nil {
				return dq, invalid(k, "must be a Unix time in seconds")
			}
		case "signature":
			if v == "" {
				return dq, invalid(k, "must not be empty")
			}
			dq.signature = v
		default:
			return dq, apierr.Fields(apierr.CodeInvalidQuery, "Unknown query parameter "+k,
				map[string]string{k: "is not a parameter of a download (thumb, expires and signature are)"})
		}
	}
	if (dq.signature == "") != !q.Has("expires") {
		return dq, invalid("signature", "a signed URL has both expires and signature")
	}
	return dq, nil
}

// fileRecord reads the record whose file is asked for (owner: an end
// user's owner-scoped read).
func (h *Handler) fileRecord(w http.ResponseWriter, r *http.Request, rt *Route, t *schema.CTable, id, owner any) ([]byte, error) {
	ts := rt.Entry.Published.Tables[t.Name]
	var record []byte
	err := h.statements(w, r, rt, func(ctx context.Context) error {
		return h.read(ctx, rt, func(ctx context.Context, q pgexec.Querier) error {
			var err error
			record, err = recordOn(ctx, q, pgexec.ReadJSON, ts.ByID(translate.GetRecord, id, owner))
			return pgexec.MapError(err, t, pgexec.OpRead)
		})
	})
	return record, err
}

// signFileURL answers POST on a file's URL: a signed URL that opens the
// file without a credential until it expires (?expires_in=<seconds>,
// default an hour, at most a week), for a caller who may read the record
// now.
func (h *Handler) signFileURL(w http.ResponseWriter, r *http.Request, rt *Route, t *schema.CTable, col *schema.CColumn, id any, name, path string) error {
	lifetime := files.DefaultURLLifetime
	q, err := url.ParseQuery(r.URL.RawQuery)
	if err != nil {
		return apierr.New(apierr.CodeInvalidQuery, "The query string could not be read: %v", err)
	}
	for k, vs := range q {
		n, err := strconv.Atoi(vs[0])
		switch {
		case k != "expires_in":
			return apierr.Fields(apierr.CodeInvalidQuery, "Unknown query parameter "+k, map[string]string{k: "is not a parameter of a signed URL (expires_in is)"})
		case len(vs) != 1 || err != nil || n < 1 || time.Duration(n)*time.Second > files.MaxURLLifetime:
			return apierr.Fields(apierr.CodeInvalidQuery, "Invalid query parameter expires_in",
				map[string]string{k: "must be a number of seconds from 1 to " + strconv.Itoa(int(files.MaxURLLifetime/time.Second))})
		}
		lifetime = time.Duration(n) * time.Second
	}
	grant, err := h.Admit(w, r, rt, Admission{Credential: true, Table: t, Action: access.Read})
	if err != nil {
		return err
	}
	var owner any
	if !grant.Rows.All() {
		owner = grant.Rows.Value
	}
	record, err := h.fileRecord(w, r, rt, t, id, owner)
	if err != nil {
		return err
	}
	if _, held := heldFile(col, record, name); !held {
		return apierr.New(apierr.CodeNotFound, "File not found")
	}
	key := h.fileKey()
	if len(key) == 0 {
		return apierr.New(apierr.CodeUnavailable, "Signed URLs are not ready yet")
	}
	expires := h.d.Now().Add(lifetime).Unix()
	signed := path + "?expires=" + strconv.FormatInt(expires, 10) + "&signature=" + files.URLSignature(key, path, expires)
	envelope.Write(w, http.StatusOK, envelope.Success{Data: SignedURL{URL: signed, ExpiresAt: time.Unix(expires, 0).UTC().Format(time.RFC3339)},
		Message: "Signed URL created"})
	return nil
}

// SignedURL is the data of a signed URL's answer.
type SignedURL struct {
	URL       string `json:"url"`
	ExpiresAt string `json:"expires_at"`
}

// fileKey is the key of upload tokens and signed URLs; nil before the
// service has its secret.
func (h *Handler) fileKey() []byte {
	if h.d.FileTokenKey == nil {
		return nil
	}
	return h.d.FileTokenKey()
}

// filesIn reads the files a record's value of column c holds: none for
// null, one for a file column, the list for a files column.
func filesIn(c *schema.CColumn, raw json.RawMessage) []schema.StoredFile {
	var list []schema.StoredFile
	if c.Kind.Traits.Many {
		_ = json.Unmarshal(raw, &list)
		return list
	}
	var f *schema.StoredFile
	if json.Unmarshal(raw, &f) == nil && f != nil {
		list = append(list, *f)
	}
	return list
}

// heldFile finds the file called name among those the record's column holds.
func heldFile(col *schema.CColumn, record []byte, name string) (schema.StoredFile, bool) {
	var fields map[string]json.RawMessage
	if json.Unmarshal(record, &fields) != nil {
		return schema.StoredFile{}, false
	}
	for _, f := range filesIn(col, fields[col.Name]) {
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
