package apihttp

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"net/http"
	"net/url"
	"strconv"
	"strings"

	"github.com/tablesmith/tablesmith/access"
	"github.com/tablesmith/tablesmith/apierr"
	"github.com/tablesmith/tablesmith/internal/apirequest"
	"github.com/tablesmith/tablesmith/internal/auth"
	"github.com/tablesmith/tablesmith/internal/envelope"
	"github.com/tablesmith/tablesmith/internal/files"
	"github.com/tablesmith/tablesmith/internal/jsonbody"
	"github.com/tablesmith/tablesmith/internal/pgexec"
	"github.com/tablesmith/tablesmith/internal/validate"
	"github.com/tablesmith/tablesmith/schema"
	"github.com/tablesmith/tablesmith/translate"
)

// actionOf maps a request's kind to the access action (and rule) that
// governs it.
func actionOf(k apirequest.Kind) access.Action {
	switch k {
	case apirequest.Create:
		return access.Create
	case apirequest.Replace, apirequest.Patch, apirequest.UpdateWhere:
		return access.Update
	case apirequest.Delete, apirequest.DeleteWhere:
		return access.Delete
	}
	return access.Read
}

// tableCall is what every operation on one table route needs once the
// request is read and admitted.
type tableCall struct {
	req   *apirequest.Request
	pub   *translate.Published
	t     *schema.CTable
	ts    *translate.TableSQL
	grant access.Grant
	owner any          // the end user whose rows alone the operation reaches, or nil
	id    any          // the record's key on an item route
	idem  *idempotency // set when a write carries an Idempotency-Key (idempotency.go)
}

// serveTable answers a request on a table: read it whole (apirequest),
// admit it, then plan, run and answer by its kind.
func (h *Handler) serveTable(w http.ResponseWriter, r *http.Request, rt *Route) error {
	pub := rt.Entry.Published
	t, ok := pub.Compiled.Table(rt.Rest[0])
	if !ok {
		return apierr.New(apierr.CodeNotFound, "Table %q not found", rt.Rest[0])
	}
	rt.Table = t.Name
	if len(rt.Rest) > 2 && rt.Rest[2] == FilesSegment {
		return h.serveFile(w, r, rt, t)
	}
	if len(rt.Rest) == 3 && rt.Rest[1] == FilesSegment {
		return h.uploadFile(w, r, rt, t)
	}
	req, err := apirequest.Parse(r, rt.Rest, t)
	if req != nil {
		rt.Operation = req.Kind.Operation()
	}
	if err != nil {
		return err
	}
	c := &tableCall{req: req, pub: pub, t: t, ts: pub.Tables[t.Name]}
	if req.Kind.Item() {
		if c.id, ok = apirequest.ParseID(t, req.ID); !ok {
			return apierr.New(apierr.CodeNotFound, "Record not found")
		}
	}
	if c.grant, err = h.Admit(w, r, rt, Admission{Credential: true, Table: t, Action: actionOf(req.Kind)}); err != nil {
		return err
	}
	if req.Kind.Write() {
		if c.idem, err = h.idempotencyOf(r, rt); err != nil {
			return err
		}
		if req.ReturnMinimal {
			w = &minimalAnswer{ResponseWriter: w}
		}
	}
	if !c.grant.Rows.All() {
		c.owner = c.grant.Rows.Value
	}
	switch req.Kind {
	case apirequest.List:
		return h.listRecords(w, r, rt, c)
	case apirequest.Export:
		return h.exportRecords(w, r, rt, c, req.Format)
	case apirequest.Aggregate:
		return h.aggregateRecords(w, r, rt, c)
	case apirequest.Get:
		return h.getRecord(w, r, rt, c)
	case apirequest.Create:
		return h.createRecords(w, r, rt, c)
	case apirequest.Delete:
		return h.deleteRecord(w, r, rt, c)
	case apirequest.UpdateWhere:
		return h.updateByFilter(w, r, rt, c)
	case apirequest.DeleteWhere:
		return h.deleteByFilter(w, r, rt, c)
	}
	return h.writeRecord(w, r, rt, c) // PUT or PATCH of one record
}

// listRecords answers a list. One statement reads the page, its embeds and
// the bounded count; a second (EXPLAIN) runs only when an estimated count
// hits the cap.
func (h *Handler) listRecords(w http.ResponseWriter, r *http.Request, rt *Route, c *tableCall) error {
	plan, err := h.planList(r, rt, c)
	if err != nil {
		return err
	}
	ls := plan.ls
	markShared(rt, c.ts)
	run, remembered, known := h.rememberedEstimate(rt, plan.count, ls)
	var data []byte
	var meta translate.Meta
	err = h.statements(w, r, rt, func(ctx context.Context) error {
		return h.read(ctx, rt, func(ctx context.Context, db pgexec.Querier) error {
			page, err := pgexec.ReadListPage(ctx, db, run.SQL, run.Args...)
			if err != nil {
				return pgexec.MapError(err, c.t, pgexec.OpRead)
			}
			count := page.Count
			data, meta = page.Data, run.Meta(count)
			next, err := run.NextCursor(page.Next, page.Data)
			if err != nil {
				return err
			}
			if known {
				meta = meta.WithEstimatedTotal(remembered)
				meta.NextCursor = next
				return nil
			}
			defer func() { h.rememberEstimate(rt, ls, meta) }()
			if ls.NeedsEstimate(count) {
				stmt, args := ls.Estimate()
				plan, err := pgexec.ReadJSON(ctx, db, stmt, args...)
				if err != nil {
					return pgexec.MapError(err, c.t, pgexec.OpRead)
				}
				if meta, err = ls.EstimatedMeta(plan); err != nil {
					return err
				}
			}
			meta.NextCursor = next
			return nil
		})
	})
	if err != nil {
		return err
	}
	shareRead(w.Header(), rt, c.ts, ls.Reads())
	envelope.Write(w, http.StatusOK, envelope.Success{RawData: data, Meta: meta})
	return nil
}

// msgRetrieved is the message of a GET of one record (CONTRACT 5).
const msgRetrieved = "Record retrieved successfully"

// getRecord answers a GET of one record. Without include or fields it
// runs the table's prepared statement; with them, the list's statement
// narrowed to the record, so that both take the same grammar, answer the
// same errors and read their embeds in the same one statement.
func (h *Handler) getRecord(w http.ResponseWriter, r *http.Request, rt *Route, c *tableCall) error {
	markShared(rt, c.ts)
	reads := []string{c.t.Name}
	var data []byte
	var err error
	if len(c.req.Query["include"]) > 0 || len(c.req.Query["fields"]) > 0 {
		data, reads, err = h.readShapedRecord(w, r, rt, c)
	} else {
		err = h.statements(w, r, rt, func(ctx context.Context) error {
			return h.read(ctx, rt, func(ctx context.Context, q pgexec.Querier) error {
				data, err = recordOn(ctx, q, pgexec.ReadJSON, c.ts.ByID(translate.GetRecord, c.id, c.owner))
				return pgexec.MapError(err, c.t, pgexec.OpRead)
			})
		})
	}
	if err != nil {
		return err
	}
	shareRead(w.Header(), rt, c.ts, reads)
	envelope.Write(w, http.StatusOK, envelope.Success{RawData: data, Message: msgRetrieved})
	return nil
}

// readShapedRecord reads one record with the include and fields of its
// query string, as a one-record list filtered on its key; the tables it
// read come with it (shareRead).
func (h *Handler) readShapedRecord(w http.ResponseWriter, r *http.Request, rt *Route, c *tableCall) ([]byte, []string, error) {
	q, err := translate.ParseRecord(c.req.Query)
	if err != nil {
		return nil, nil, PlannerError(err)
	}
	q.Filters = append(q.Filters, translate.FieldFilter{Param: "id", Field: c.t.PK.Name, Op: "eq", Value: c.req.ID})
	q.Caller, q.Rows = rt.Principal, c.grant.Rows
	ls, err := translate.BuildList(c.pub, c.t, q)
	if err != nil {
		return nil, nil, PlannerError(err)
	}
	var data []byte
	err = h.statements(w, r, rt, func(ctx context.Context) error {
		return h.read(ctx, rt, func(ctx context.Context, q pgexec.Querier) error {
			page, err := pgexec.ReadListPage(ctx, q, ls.SQL, ls.Args...)
			if err != nil {
				return pgexec.MapError(err, c.t, pgexec.OpRead)
			}
			var ok bool
			if data, ok = onlyRecord(page.Data); !ok {
				return apierr.New(apierr.CodeNotFound, "Record not found")
			}
			return nil
		})
	})
	return data, ls.Reads(), err
}

// onlyRecord is the one record of a JSON array of at most one; false for
// an empty array.
func onlyRecord(page []byte) ([]byte, bool) {
	page = bytes.TrimSpace(page)
	if len(page) < 2 || page[0] != '[' || page[len(page)-1] != ']' {
		return nil, false
	}
	rec := bytes.TrimSpace(page[1 : len(page)-1])
	return rec, len(rec) > 0
}

// deleteRecord answers a DELETE of one record.
func (h *Handler) deleteRecord(w http.ResponseWriter, r *http.Request, rt *Route, c *tableCall) error {
	if c.idem != nil {
		if err := c.idem.bind(r, rt, nil); err != nil {
			return err
		}
	}
	var deleted []byte
	err := h.writeOn(w, r, rt, c, func(ctx context.Context, q pgexec.Querier, w http.ResponseWriter) error {
		data, err := recordOn(ctx, q, pgexec.JSON, c.ts.ByID(translate.DeleteRecord, c.id, c.owner))
		if err != nil {
			return pgexec.MapError(err, c.t, pgexec.OpDelete)
		}
		deleted = data
		envelope.Write(w, http.StatusOK, envelope.Success{RawData: data, Message: "Record deleted successfully"})
		return nil
	})
	if err == nil {
		// Committed: the record's files are no one's now.
		h.removeFiles(r.Context(), replacedFiles(c.t, rt.ProjectID, deleted, nil))
	}
	return err
}

// writeRecord answers an update of one record (PUT, PATCH): it reads and
// validates the body, then writes.
func (h *Handler) writeRecord(w http.ResponseWriter, r *http.Request, rt *Route, c *tableCall) error {
	body, stored, r, err := h.readWriteBody(w, r, rt, c)
	if err != nil {
		return err
	}
	// A PUT resets what it leaves out, files too.
	touchesFiles := c.t.HasFiles() && (c.req.Kind == apirequest.Replace || setsFiles(c.t, body))
	var replaced []string
	err = h.writeOne(w, r, rt, c, body, func(ctx context.Context, q pgexec.Querier, w http.ResponseWriter, res validate.Result) error {
		var before []byte
		if touchesFiles {
			// The files the record holds now: those the write replaces
			// are removed once it commits.
			b, err := recordOn(ctx, q, pgexec.JSON, c.ts.ByID(translate.GetRecord, c.id, c.owner))
			if err != nil {
				return pgexec.MapError(err, c.t, pgexec.OpWrite)
			}
			before = b
		}
		data, err := recordOn(ctx, q, pgexec.JSON, c.ts.UpdateRecord(res.Columns, res.Values, res.Reset, c.id, c.owner))
		if err != nil {
			return pgexec.MapError(err, c.t, pgexec.OpWrite)
		}
		replaced = replacedFiles(c.t, rt.ProjectID, before, data)
		envelope.Write(w, http.StatusOK, envelope.Success{RawData: data, Message: "Record updated successfully"})
		return nil
	})
	h.dropUploads(r.Context(), stored, err)
	if err == nil {
		h.removeFiles(r.Context(), replaced)
	}
	return err
}

// writeOne validates the body of a write of one record and runs write
// with the checked values.
func (h *Handler) writeOne(w http.ResponseWriter, r *http.Request, rt *Route, c *tableCall, body map[string]any,
	write func(ctx context.Context, q pgexec.Querier, w http.ResponseWriter, res validate.Result) error) error {
	res, err := h.validBody(r, rt, c, body, writeMode(c.req.Kind))
	if err != nil {
		return err
	}
	return h.writeOn(w, r, rt, c, func(ctx context.Context, q pgexec.Querier, w http.ResponseWriter) error {
		return write(ctx, q, w, res)
	})
}

// createRecords answers a POST on a collection: an object creates one
// record; an array (bulk.go), or on_conflict, creates or upserts many in
// one statement. POST /<table>/bulk takes only the array.
func (h *Handler) createRecords(w http.ResponseWriter, r *http.Request, rt *Route, c *tableCall) error {
	if files.IsMultipart(r) {
		if c.req.Bulk || c.req.Upsert {
			return apierr.New(apierr.CodeUnsupportedMedia, "A multipart/form-data body creates one record: POST /%s without on_conflict", c.t.Name)
		}
		body, stored, r, err := h.readWriteBody(w, r, rt, c)
		if err != nil {
			return err
		}
		err = h.writeOne(w, r, rt, c, body, h.insertOne(r, c))
		h.dropUploads(r.Context(), stored, err)
		return err
	}
	object, items, err := jsonbody.ObjectOrItems(w, r, h.d.MaxBody)
	if err != nil {
		return err
	}
	if c.req.Bulk && items == nil {
		return apierr.New(apierr.CodeInvalidJSON, "The body of POST /%s/%s must be a JSON array of records (POST /%s takes one object)",
			c.t.Name, apirequest.BulkSegment, c.t.Name)
	}
	if items != nil || c.req.Upsert {
		single := items == nil
		if single {
			items = []map[string]any{object}
		}
		claimed, err := h.claimEachUploads(r, rt, c.t, items)
		if err != nil {
			return err
		}
		err = h.createMany(w, r, rt, c, items, single)
		h.dropUploads(r.Context(), claimed, err)
		if err == nil && c.req.Upsert && c.t.HasFiles() && h.d.FilesOrphaned != nil {
			// An upsert that changed rows may have replaced their files.
			h.d.FilesOrphaned(rt.ProjectID)
		}
		return err
	}
	claimed, err := h.claimUploads(r, rt, c.t, object)
	if err != nil {
		return err
	}
	err = h.writeOne(w, r, rt, c, object, h.insertOne(r, c))
	h.dropUploads(r.Context(), claimed, err)
	return err
}

// insertOne is the write of a create of one record.
func (h *Handler) insertOne(r *http.Request, c *tableCall) func(context.Context, pgexec.Querier, http.ResponseWriter, validate.Result) error {
	return func(ctx context.Context, q pgexec.Querier, w http.ResponseWriter, res validate.Result) error {
		st := c.ts.InsertRecord(res.Columns, res.Values)
		data, err := pgexec.JSON(ctx, q, st.SQL, st.Args...)
		if err != nil {
			return pgexec.MapError(err, c.t, pgexec.OpWrite)
		}
		if loc := recordLocation(r, data, c.t.PK.Name); loc != "" {
			w.Header().Set("Location", loc)
		}
		envelope.Write(w, http.StatusCreated, envelope.Success{RawData: data, Message: "Record created successfully"})
		return nil
	}
}

// validBody binds the Idempotency-Key to the body as sent, applies the
// owner rule and validates it for mode, with passwords hashed.
func (h *Handler) validBody(r *http.Request, rt *Route, c *tableCall, body map[string]any, mode validate.Mode) (validate.Result, error) {
	if c.idem != nil {
		// Before the owner column is filled in: the key binds what was sent.
		if err := c.idem.bind(r, rt, body); err != nil {
			return validate.Result{}, err
		}
	}
	if err := applyOwnerRule(c.grant.Owner, c.t, body, rt.Principal); err != nil {
		return validate.Result{}, err
	}
	res, problems := validate.Record(c.t, body, mode)
	if problems != nil {
		return validate.Result{}, apierr.Fields(apierr.CodeValidation, "Validation failed", problems)
	}
	return res, hashPasswords(res)
}

// writeMode is how validate reads the body of a write of one record: a
// POST creates, a PUT replaces, a PATCH changes only what it names.
func writeMode(k apirequest.Kind) validate.Mode {
	switch k {
	case apirequest.Replace:
		return validate.Replace
	case apirequest.Patch, apirequest.UpdateWhere:
		return validate.Patch
	}
	return validate.Create
}

// applyOwnerRule fills in or guards the owner column of a write's body by
// the grant's owner rule.
func applyOwnerRule(rule access.OwnerRule, t *schema.CTable, body map[string]any, p access.Principal) error {
	switch rule {
	case access.OwnerIsCaller:
		// An end user's create or update always makes them the owner:
		// nobody but an API key hands a row to another user.
		body[t.Owner.Input] = jsonValue(p.UserID)
	case access.OwnerForbidden:
		if _, named := body[t.Owner.Input]; named {
			return apierr.Fields(apierr.CodeValidation, "Validation failed",
				map[string]string{t.Owner.Input: "is set by the service to the signed-in user; only an API key may set it"})
		}
	}
	return nil
}

// recordOn runs a statement on one record on q; no row is a record that
// is not there (or not the caller's).
func recordOn(ctx context.Context, q pgexec.Querier, run func(context.Context, pgexec.Querier, string, ...any) ([]byte, error), st translate.Statement) ([]byte, error) {
	data, err := run(ctx, q, st.SQL, st.Args...)
	if errors.Is(err, pgexec.ErrNoRow) {
		return nil, apierr.New(apierr.CodeNotFound, "Record not found")
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

// readBody reads a JSON object body by the shared rules (jsonbody):
// media type, size, UTF-8, no duplicate keys, one object.
func (h *Handler) readBody(w http.ResponseWriter, r *http.Request) (map[string]any, error) {
	return jsonbody.Object(w, r, h.d.MaxBody)
}

// ReadBody reads a JSON object body with the same media type, size and
// shape rules as table writes, for extension routes (Deps.Routes).
func (h *Handler) ReadBody(w http.ResponseWriter, r *http.Request) (map[string]any, error) {
	return h.readBody(w, r)
}

// hashPasswords replaces plain-text password values with their hashes.
func hashPasswords(res validate.Result) error {
	for i, c := range res.Columns {
		if !c.Kind.Traits.Secret {
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

// PlannerError maps the list planner's errors to the contract: a bad
// parameter is INVALID_QUERY, an include the caller may not read FORBIDDEN;
// both name the parameter in details.
func PlannerError(err error) error {
	if e := apirequest.InvalidQuery(err); e != err {
		return e
	}
	var fe *translate.ForbiddenError
	if errors.As(err, &fe) {
		return apierr.Fields(apierr.CodeForbidden, "Forbidden "+fe.Param+": "+fe.Message, map[string]string{fe.Param: fe.Message})
	}
	return err
}
