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
	"github.com/tablesmith/tablesmith/internal/auth"
	"github.com/tablesmith/tablesmith/internal/envelope"
	"github.com/tablesmith/tablesmith/internal/jsonbody"
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

// actionOf maps an operation to the access action (and rule) that governs it.
var actionOf = map[string]access.Action{OpList: access.Read, OpGet: access.Read, OpCreate: access.Create, OpUpdate: access.Update, OpDelete: access.Delete}

// tableCall is what every operation on one table route needs once the
// route is resolved and admitted.
type tableCall struct {
	pub   *translate.Published
	t     *schema.CTable
	ts    *translate.TableSQL
	grant access.Grant
	owner any          // the end user whose rows alone the operation reaches, or nil
	id    any          // the record's key on an item route
	idem  *idempotency // set when a write carries an Idempotency-Key (idempotency.go)
}

func (h *Handler) serveTable(w http.ResponseWriter, r *http.Request, rt *Route) error {
	if len(rt.Rest) > 2 {
		return apierr.New(apierr.CodeNotFound, "Not found")
	}
	pub := rt.Entry.Published
	t, ok := pub.Compiled.Table(rt.Rest[0])
	if !ok {
		return apierr.New(apierr.CodeNotFound, "Table %q not found", rt.Rest[0])
	}
	rt.Table = t.Name
	c := &tableCall{pub: pub, t: t, ts: pub.Tables[t.Name]}
	if isAggregateRoute(c, r.Method, rt.Rest) {
		return h.aggregateRecords(w, r, rt, c)
	}
	item := len(rt.Rest) == 2
	op, err := tableOperation(w, r.Method, item)
	if err != nil {
		return err
	}
	rt.Operation = op
	if item {
		if c.id, ok = parseID(t, rt.Rest[1]); !ok {
			return apierr.New(apierr.CodeNotFound, "Record not found")
		}
	}
	if c.grant, err = h.admit(w, r, rt, t, actionOf[rt.Operation]); err != nil {
		return err
	}
	if rt.Operation == OpCreate || rt.Operation == OpUpdate || rt.Operation == OpDelete {
		if c.idem, err = h.idempotencyOf(r, rt); err != nil {
			return err
		}
	}
	if !c.grant.Rows.All() {
		c.owner = c.grant.Rows.Value
	}
	if !item && rt.Operation != OpList {
		return h.writeCollection(w, r, rt, c) // bulk.go
	}
	switch rt.Operation {
	case OpList:
		format, err := exportFormat(r)
		if err != nil {
			return err
		}
		if format != "" {
			return h.exportRecords(w, r, rt, c, format)
		}
		return h.listRecords(w, r, rt, c)
	case OpGet:
		return h.getRecord(w, r, rt, c)
	case OpDelete:
		return h.deleteRecord(w, r, rt, c)
	}
	return h.writeRecord(w, r, rt, c)
}

// tableOperation names the operation of method on a collection or (item)
// a record route, or answers 405 with the methods the route allows.
func tableOperation(w http.ResponseWriter, method string, item bool) (string, error) {
	switch {
	case !item && (method == http.MethodGet || method == http.MethodHead):
		return OpList, nil
	case !item && method == http.MethodPost:
		return OpCreate, nil
	case item && (method == http.MethodGet || method == http.MethodHead):
		return OpGet, nil
	case item && (method == http.MethodPut || method == http.MethodPatch):
		return OpUpdate, nil
	case item && method == http.MethodDelete:
		return OpDelete, nil
	case !item && method == http.MethodPatch:
		return OpUpdate, nil // every row that matches the filters (bulk.go)
	case !item && method == http.MethodDelete:
		return OpDelete, nil
	case item:
		w.Header().Set("Allow", "GET, PUT, PATCH, DELETE")
		return "", apierr.New(apierr.CodeMethodNotAllowed, "Method %s is not allowed on a record; use GET, PUT, PATCH or DELETE", method)
	default:
		w.Header().Set("Allow", "GET, POST, PATCH, DELETE")
		return "", apierr.New(apierr.CodeMethodNotAllowed, "Method %s is not allowed on a collection; use GET, POST, PATCH or DELETE", method)
	}
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

// getRecord answers a GET of one record.
func (h *Handler) getRecord(w http.ResponseWriter, r *http.Request, rt *Route, c *tableCall) error {
	markShared(rt, c.ts)
	data, err := h.one(w, r, rt, c.t, pgexec.OpRead, c.ts.Get, c.ts.GetOwned, c.owner, c.id)
	if err != nil {
		return err
	}
	shareRead(w.Header(), rt, c.ts, []string{c.t.Name})
	envelope.Write(w, http.StatusOK, envelope.Success{RawData: data, Message: "Record retrieved successfully"})
	return nil
}

// deleteRecord answers a DELETE, once per Idempotency-Key when it has one.
func (h *Handler) deleteRecord(w http.ResponseWriter, r *http.Request, rt *Route, c *tableCall) error {
	if c.idem == nil {
		data, err := h.one(w, r, rt, c.t, pgexec.OpDelete, c.ts.Delete, c.ts.DeleteOwned, c.owner, c.id)
		if err != nil {
			return err
		}
		envelope.Write(w, http.StatusOK, envelope.Success{RawData: data, Message: "Record deleted successfully"})
		return nil
	}
	if err := c.idem.bind(r, rt, nil); err != nil {
		return err
	}
	return h.statements(w, r, rt, func(ctx context.Context) error {
		return h.once(ctx, w, r, rt, c.t, c.idem, func(q pgexec.Querier, w http.ResponseWriter) error {
			return deleteOn(ctx, w, q, c.t, c.ts, c.owner, c.id)
		})
	})
}

// writeRecord answers a create (POST) or an update (PUT, PATCH): it reads
// and validates the body, then writes, once per Idempotency-Key when it
// has one.
func (h *Handler) writeRecord(w http.ResponseWriter, r *http.Request, rt *Route, c *tableCall) error {
	body, err := h.readBody(w, r)
	if err != nil {
		return err
	}
	return h.writeBody(w, r, rt, c, body)
}

// writeBody is writeRecord once the body is read.
func (h *Handler) writeBody(w http.ResponseWriter, r *http.Request, rt *Route, c *tableCall, body map[string]any) error {
	if c.idem != nil {
		// Before the owner column is filled in: the key binds what was sent.
		if err := c.idem.bind(r, rt, body); err != nil {
			return err
		}
	}
	if err := applyOwnerRule(c.grant.Owner, c.t, body, rt.Principal); err != nil {
		return err
	}
	res, problems := validate.Record(c.t, body, writeMode(rt.Operation, r.Method))
	if problems != nil {
		return apierr.Fields(apierr.CodeValidation, "Validation failed", problems)
	}
	if err := hashPasswords(res); err != nil {
		return err
	}
	if rt.Operation == OpCreate {
		return h.statements(w, r, rt, func(ctx context.Context) error {
			if c.idem != nil {
				return h.once(ctx, w, r, rt, c.t, c.idem, func(q pgexec.Querier, w http.ResponseWriter) error {
					return insertOn(ctx, w, r, q, c.t, c.ts, res)
				})
			}
			return insertOn(ctx, w, r, h.db(rt), c.t, c.ts, res)
		})
	}
	return h.statements(w, r, rt, func(ctx context.Context) error {
		if c.idem != nil {
			return h.once(ctx, w, r, rt, c.t, c.idem, func(q pgexec.Querier, w http.ResponseWriter) error {
				return updateOn(ctx, w, q, c.t, c.ts, res, c.owner, c.id)
			})
		}
		return updateOn(ctx, w, h.db(rt), c.t, c.ts, res, c.owner, c.id)
	})
}

// writeMode is how validate reads the body of a write: a POST creates, a
// PUT replaces, a PATCH changes only what it names.
func writeMode(op, method string) validate.Mode {
	mode := validate.Create
	if op == OpUpdate {
		mode = validate.Patch
		if method == http.MethodPut {
			mode = validate.Replace
		}
	}
	return mode
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

// insertOn runs a create on q and writes its answer.
func insertOn(ctx context.Context, w http.ResponseWriter, r *http.Request, q pgexec.Querier, t *schema.CTable, ts *translate.TableSQL, res validate.Result) error {
	data, err := pgexec.JSON(ctx, q, ts.Insert(res.Columns), res.Values...)
	if err != nil {
		return pgexec.MapError(err, t, pgexec.OpWrite)
	}
	if loc := recordLocation(r, data, t.PK.Name); loc != "" {
		w.Header().Set("Location", loc)
	}
	envelope.Write(w, http.StatusCreated, envelope.Success{RawData: data, Message: "Record created successfully"})
	return nil
}

// updateOn runs a PUT or PATCH on q and writes its answer.
func updateOn(ctx context.Context, w http.ResponseWriter, q pgexec.Querier, t *schema.CTable, ts *translate.TableSQL, res validate.Result, owner, id any) error {
	args := append(res.Values, id)
	if owner != nil {
		args = append(args, owner)
	}
	data, err := pgexec.JSON(ctx, q, ts.Update(res.Columns, res.Reset, owner != nil), args...)
	if errors.Is(err, pgexec.ErrNoRow) {
		return apierr.New(apierr.CodeNotFound, "Record not found")
	}
	if err != nil {
		return pgexec.MapError(err, t, pgexec.OpWrite)
	}
	envelope.Write(w, http.StatusOK, envelope.Success{RawData: data, Message: "Record updated successfully"})
	return nil
}

// one runs a by-id statement of table t, the owner-scoped variant when
// owner is set, and maps its error as op.
func (h *Handler) one(w http.ResponseWriter, r *http.Request, rt *Route, t *schema.CTable, op pgexec.Op, plain, owned string, owner, id any) ([]byte, error) {
	run := pgexec.JSON
	on := func(ctx context.Context, rt *Route, f func(ctx context.Context, q pgexec.Querier) error) error {
		return f(ctx, h.db(rt))
	}
	if rt.Operation == OpGet {
		run = pgexec.ReadJSON // a read runs again if its connection broke
		on = h.read
	}
	var data []byte
	err := h.statements(w, r, rt, func(ctx context.Context) error {
		return on(ctx, rt, func(ctx context.Context, q pgexec.Querier) error {
			var err error
			if owner != nil {
				data, err = run(ctx, q, owned, id, owner)
			} else {
				data, err = run(ctx, q, plain, id)
			}
			if errors.Is(err, pgexec.ErrNoRow) {
				return apierr.New(apierr.CodeNotFound, "Record not found")
			}
			return pgexec.MapError(err, t, op)
		})
	})
	return data, err
}

// deleteOn runs a delete on q and writes its answer.
func deleteOn(ctx context.Context, w http.ResponseWriter, q pgexec.Querier, t *schema.CTable, ts *translate.TableSQL, owner, id any) error {
	data, err := oneOn(ctx, q, ts.Delete, ts.DeleteOwned, owner, id)
	if err != nil {
		return pgexec.MapError(err, t, pgexec.OpDelete)
	}
	envelope.Write(w, http.StatusOK, envelope.Success{RawData: data, Message: "Record deleted successfully"})
	return nil
}

// oneOn is one on q.
func oneOn(ctx context.Context, q pgexec.Querier, plain, owned string, owner, id any) ([]byte, error) {
	data, err := func() ([]byte, error) {
		if owner != nil {
			return pgexec.JSON(ctx, q, owned, id, owner)
		}
		return pgexec.JSON(ctx, q, plain, id)
	}()
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

// PlannerError maps the list planner's errors to the contract: a bad
// parameter is INVALID_QUERY, an include the caller may not read FORBIDDEN;
// both name the parameter in details.
func PlannerError(err error) error {
	var qe *translate.QueryError
	if errors.As(err, &qe) {
		return apierr.Fields(apierr.CodeInvalidQuery, "Invalid query parameter "+qe.Param+": "+qe.Message, map[string]string{qe.Param: qe.Message})
	}
	var fe *translate.ForbiddenError
	if errors.As(err, &fe) {
		return apierr.Fields(apierr.CodeForbidden, "Forbidden "+fe.Param+": "+fe.Message, map[string]string{fe.Param: fe.Message})
	}
	return err
}
