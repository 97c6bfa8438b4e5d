package apihttp

import (
	"bytes"
	"encoding/json"
	"errors"
	"io"
	"mime"
	"net/http"
	"net/url"
	"strconv"
	"strings"

	"github.com/tablesmith/tablesmith/internal/auth"
	"github.com/tablesmith/tablesmith/internal/envelope"
	"github.com/tablesmith/tablesmith/internal/pgexec"
	"github.com/tablesmith/tablesmith/internal/validate"
	"github.com/tablesmith/tablesmith/schema"
	"github.com/tablesmith/tablesmith/translate"
)

// Operations as the permission rules and analytics name them.
const (
	OpList   = "list"
	OpGet    = "get"
	OpCreate = "create"
	OpUpdate = "update"
	OpDelete = "delete"
)

// permissionOf maps an operation to the rule that governs it.
var permissionOf = map[string]string{OpList: "read", OpGet: "read", OpCreate: "create", OpUpdate: "update", OpDelete: "delete"}

func (h *Handler) serveTable(w http.ResponseWriter, r *http.Request, rt *Route) error {
	if len(rt.Rest) > 2 {
		return envelope.New(envelope.CodeNotFound, "Not found")
	}
	pub := rt.Entry.Published
	t, ok := pub.Compiled.Table(rt.Rest[0])
	if !ok {
		return envelope.New(envelope.CodeNotFound, "Table %q not found", rt.Rest[0])
	}
	rt.Table = t.Name
	ts := pub.Tables[t.Name]
	item := len(rt.Rest) == 2
	switch {
	case !item && (r.Method == http.MethodGet || r.Method == http.MethodHead):
		rt.Operation = OpList
	case !item && r.Method == http.MethodPost:
		rt.Operation = OpCreate
	case item && (r.Method == http.MethodGet || r.Method == http.MethodHead):
		rt.Operation = OpGet
	case item && (r.Method == http.MethodPut || r.Method == http.MethodPatch):
		rt.Operation = OpUpdate
	case item && r.Method == http.MethodDelete:
		rt.Operation = OpDelete
	case item:
		w.Header().Set("Allow", "GET, PUT, PATCH, DELETE")
		return envelope.New(envelope.CodeMethodNotAllowed, "Method %s is not allowed on a record; use GET, PUT, PATCH or DELETE", r.Method)
	default:
		w.Header().Set("Allow", "GET, POST")
		return envelope.New(envelope.CodeMethodNotAllowed, "Method %s is not allowed on a collection; use GET or POST", r.Method)
	}
	var id any
	if item {
		var ok bool
		if id, ok = parseID(t, rt.Rest[1]); !ok {
			return envelope.New(envelope.CodeNotFound, "Record not found")
		}
	}
	if err := h.admit(w, r, rt, t.Level(permissionOf[rt.Operation])); err != nil {
		return err
	}
	owner, err := ownerScope(t, rt)
	if err != nil {
		return err
	}
	ctx := r.Context()
	switch rt.Operation {
	case OpList:
		// One statement reads the page, its embeds and the bounded count;
		// a second (EXPLAIN) runs only when an estimated count hits the cap.
		q, err := translate.ParseList(r.URL.Query())
		if err != nil {
			return queryError(err)
		}
		q.Reader = translate.Reader{Kind: rt.Principal.Kind, UserID: rt.Principal.UserID}
		ls, err := translate.BuildList(pub, t, q)
		if err != nil {
			return queryError(err)
		}
		count, data, err := pgexec.ReadCountAndJSON(ctx, h.db(rt), ls.SQL, ls.Args...)
		if err != nil {
			return listDBError(err, t)
		}
		meta := ls.Meta(count)
		if ls.NeedsEstimate(count) {
			stmt, args := ls.Estimate()
			plan, err := pgexec.ReadJSON(ctx, h.db(rt), stmt, args...)
			if err != nil {
				return listDBError(err, t)
			}
			if meta, err = ls.EstimatedMeta(plan); err != nil {
				return err
			}
		}
		envelope.Write(w, http.StatusOK, envelope.Success{RawData: data, Meta: meta})
		return nil
	case OpGet:
		data, err := h.one(r, rt, ts.Get, ts.GetOwned, owner, id)
		if err != nil {
			return pgexec.MapError(err, t, pgexec.OpRead)
		}
		envelope.Write(w, http.StatusOK, envelope.Success{RawData: data, Message: "Record retrieved successfully"})
		return nil
	case OpDelete:
		data, err := h.one(r, rt, ts.Delete, ts.DeleteOwned, owner, id)
		if err != nil {
			return pgexec.MapError(err, t, pgexec.OpDelete)
		}
		envelope.Write(w, http.StatusOK, envelope.Success{RawData: data, Message: "Record deleted successfully"})
		return nil
	}

	body, err := h.readBody(w, r)
	if err != nil {
		return err
	}
	mode := validate.Create
	if rt.Operation == OpUpdate {
		mode = validate.Patch
		if r.Method == http.MethodPut {
			mode = validate.Replace
		}
	}
	if owner != nil {
		// An end user's create fills the owner column with their own id,
		// and their update cannot hand the row to another user.
		body[t.Owner.Input] = jsonValue(owner)
	}
	res, problems := validate.Record(t, body, mode)
	if problems != nil {
		return envelope.Fields(envelope.CodeValidation, "Validation failed", problems)
	}
	if err := hashPasswords(res); err != nil {
		return err
	}
	if rt.Operation == OpCreate {
		data, err := pgexec.JSON(ctx, h.db(rt), ts.Insert(res.Columns), res.Values...)
		if err != nil {
			return pgexec.MapError(err, t, pgexec.OpWrite)
		}
		if loc := recordLocation(r, data, t.PK.Name); loc != "" {
			w.Header().Set("Location", loc)
		}
		envelope.Write(w, http.StatusCreated, envelope.Success{RawData: data, Message: "Record created successfully"})
		return nil
	}
	args := append(res.Values, id)
	if owner != nil {
		args = append(args, owner)
	}
	data, err := pgexec.JSON(ctx, h.db(rt), ts.Update(res.Columns, res.Reset, owner != nil), args...)
	if errors.Is(err, pgexec.ErrNoRow) {
		return envelope.New(envelope.CodeNotFound, "Record not found")
	}
	if err != nil {
		return pgexec.MapError(err, t, pgexec.OpWrite)
	}
	envelope.Write(w, http.StatusOK, envelope.Success{RawData: data, Message: "Record updated successfully"})
	return nil
}

// one runs a by-id statement, the owner-scoped variant when owner is set.
func (h *Handler) one(r *http.Request, rt *Route, plain, owned string, owner, id any) ([]byte, error) {
	run := pgexec.JSON
	if rt.Operation == OpGet {
		run = pgexec.ReadJSON // a read runs again if its connection broke
	}
	data, err := func() ([]byte, error) {
		if owner != nil {
			return run(r.Context(), h.db(rt), owned, id, owner)
		}
		return run(r.Context(), h.db(rt), plain, id)
	}()
	if errors.Is(err, pgexec.ErrNoRow) {
		return nil, envelope.New(envelope.CodeNotFound, "Record not found")
	}
	return data, err
}

// db is where the route's project statements run: the prepared
// statements of the pool that holds its tables.
func (h *Handler) db(rt *Route) pgexec.Querier {
	if rt.Entry != nil && rt.Entry.Tables != nil {
		return rt.Entry.Tables
	}
	return h.d.DB
}

// parseID parses a path id by the table's key type; a malformed id is
// simply a record that does not exist.
func parseID(t *schema.CTable, s string) (any, bool) {
	switch t.PK.Type {
	case schema.TypeUUID:
		v, msg := schema.ParseQueryValue(&t.PK.Column, s)
		return v, msg == ""
	case schema.TypeInteger:
		n, err := strconv.ParseInt(s, 10, 64)
		return n, err == nil && n > 0 || err == nil && t.Doc.External != nil
	default:
		v, msg := schema.ParseQueryValue(&t.PK.Column, s)
		return v, msg == "" && s != ""
	}
}

// readBody enforces the media type and size and decodes a JSON object.
func (h *Handler) readBody(w http.ResponseWriter, r *http.Request) (map[string]any, error) {
	ct := r.Header.Get("Content-Type")
	if mt, _, err := mime.ParseMediaType(ct); err != nil || mt != "application/json" {
		return nil, envelope.New(envelope.CodeUnsupportedMedia, "The body must be JSON with Content-Type: application/json")
	}
	raw, err := io.ReadAll(http.MaxBytesReader(w, r.Body, h.d.MaxBody))
	if err != nil {
		var mbe *http.MaxBytesError
		if errors.As(err, &mbe) {
			return nil, envelope.New(envelope.CodePayloadTooLarge, "The body is larger than %d bytes", h.d.MaxBody)
		}
		return nil, envelope.New(envelope.CodeInvalidJSON, "The body could not be read")
	}
	dec := json.NewDecoder(bytes.NewReader(raw))
	dec.UseNumber()
	var body map[string]any
	if err := dec.Decode(&body); err != nil || body == nil {
		return nil, envelope.New(envelope.CodeInvalidJSON, "The body must be a JSON object")
	}
	if _, err := dec.Token(); err != io.EOF {
		return nil, envelope.New(envelope.CodeInvalidJSON, "The body must be a single JSON object")
	}
	return body, nil
}

// ReadBody reads a JSON object body with the same media type, size and
// shape rules as table writes, for extension routes (Deps.Routes).
func (h *Handler) ReadBody(w http.ResponseWriter, r *http.Request) (map[string]any, error) {
	return h.readBody(w, r)
}

// hashPasswords replaces plain-text password values with their hashes.
func hashPasswords(res validate.Result) error {
	for i, c := range res.Columns {
		if c.Type != schema.TypePassword {
			continue
		}
		if s, ok := res.Values[i].(string); ok {
			h, err := auth.HashPassword(s)
			if err != nil {
				return err
			}
			res.Values[i] = h
		}
	}
	return nil
}

// recordLocation builds the Location of a created record from its key.
func recordLocation(r *http.Request, data []byte, key string) string {
	id, ok := leadingKey(data, key)
	if !ok {
		var rec map[string]json.RawMessage
		if json.Unmarshal(data, &rec) != nil || len(rec[key]) == 0 {
			return ""
		}
		id = strings.Trim(string(rec[key]), `"`)
	}
	return strings.TrimSuffix(r.URL.Path, "/") + "/" + url.PathEscape(id)
}

// leadingKey reads key's value without decoding the record when it is the
// object's first member, as row_to_json writes a managed table's records
// (id first): decoding every created record just for its id cost 7% of
// the module's CPU on creates (bench/RESULTS.md). ok is false for any
// other shape, and for values other than a number or an unescaped string.
func leadingKey(data []byte, key string) (id string, ok bool) {
	rest, found := bytes.CutPrefix(data, []byte(`{"`))
	if !found {
		return "", false
	}
	if rest, found = bytes.CutPrefix(rest, []byte(key)); !found {
		return "", false
	}
	if rest, found = bytes.CutPrefix(rest, []byte(`":`)); !found || len(rest) == 0 {
		return "", false
	}
	if rest[0] == '"' {
		end := bytes.IndexByte(rest[1:], '"')
		if end < 0 || bytes.IndexByte(rest[1:end+1], '\\') >= 0 {
			return "", false
		}
		return string(rest[1 : end+1]), true
	}
	end := bytes.IndexAny(rest, ",}")
	if end <= 0 {
		return "", false
	}
	for _, c := range rest[:end] {
		if (c < '0' || c > '9') && c != '-' {
			return "", false
		}
	}
	return string(rest[:end]), true
}

// jsonValue converts an owner id to the form a decoded body holds.
func jsonValue(v any) any {
	switch x := v.(type) {
	case int64:
		return json.Number(strconv.FormatInt(x, 10))
	}
	return v
}

// queryError maps the list planner's errors to the contract: a bad
// parameter is INVALID_QUERY, an include the caller may not read FORBIDDEN;
// both name the parameter in details.
func queryError(err error) error {
	var qe *translate.QueryError
	if errors.As(err, &qe) {
		return envelope.Fields(envelope.CodeInvalidQuery, "Invalid query parameter "+qe.Param+": "+qe.Message, map[string]string{qe.Param: qe.Message})
	}
	var fe *translate.ForbiddenError
	if errors.As(err, &fe) {
		return envelope.Fields(envelope.CodeForbidden, "Forbidden "+fe.Param+": "+fe.Message, map[string]string{fe.Param: fe.Message})
	}
	return err
}

// listDBError maps a failed list statement: a value the database refuses
// (a date out of its range) is a bad query parameter, not a bad body.
func listDBError(err error, t *schema.CTable) error {
	err = pgexec.MapError(err, t, pgexec.OpRead)
	var ee *envelope.Error
	if errors.As(err, &ee) && ee.Code == envelope.CodeValidation {
		return envelope.New(envelope.CodeInvalidQuery, "A filter value is out of range for its column")
	}
	return err
}
