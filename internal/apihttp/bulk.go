package apihttp

import (
	"context"
	"database/sql"
	"fmt"
	"net/http"
	"strconv"
	"strings"
	"time"

	"github.com/tablesmith/tablesmith/access"
	"github.com/tablesmith/tablesmith/apierr"
	"github.com/tablesmith/tablesmith/internal/envelope"
	"github.com/tablesmith/tablesmith/internal/pgexec"
	"github.com/tablesmith/tablesmith/internal/validate"
	"github.com/tablesmith/tablesmith/schema"
	"github.com/tablesmith/tablesmith/translate"
)

// DefaultMaxBulkRows is how many records one bulk create may hold when
// Deps.MaxBulkRows is zero (Caddyfile: max_bulk_rows).
const DefaultMaxBulkRows = 1000

// BulkLimiter is a Limiter that can count several requests at once: a
// bulk create counts one request per record. A Limiter without it counts
// a bulk create once.
type BulkLimiter interface {
	// TakeMore counts n more requests of the project than the one
	// admission counted.
	TakeMore(ctx context.Context, projectID string, n int64, now time.Time) (Quota, error)
}

// BulkMeta is the meta object of a bulk create or an upsert: how many
// records were created and updated, and for an upsert which, in the
// order of the items.
type BulkMeta struct {
	Created int      `json:"created"`
	Updated int      `json:"updated"`
	Results []string `json:"results,omitempty"`
}

// Results of an upsert item.
const (
	ResultCreated = "created"
	ResultUpdated = "updated"
)

// bulkCreate is a bulk create or upsert, validated and ready to run.
type bulkCreate struct {
	cols  []*schema.CColumn
	items string // translate.BulkItems
	up    *translate.Upsert
	n     int
}

// createMany answers a bulk create or an upsert of items (one, when
// single: the answer is then one record, not an array). All items are
// checked before anything is written, and one statement writes them all.
func (h *Handler) createMany(w http.ResponseWriter, r *http.Request, rt *Route, c *tableCall, items []map[string]any, single bool) error {
	if len(items) == 0 {
		return apierr.Fields(apierr.CodeValidation, "Validation failed", map[string]string{"body": "must hold at least one record"})
	}
	if len(items) > h.d.MaxBulkRows {
		return apierr.Fields(apierr.CodeValidation, fmt.Sprintf("A bulk create holds at most %d records; this one holds %d", h.d.MaxBulkRows, len(items)),
			map[string]string{"body": fmt.Sprintf("holds %d records, more than %d", len(items), h.d.MaxBulkRows)})
	}
	if err := h.countItems(w, r, rt, len(items)); err != nil {
		return err
	}
	up, err := upsertOf(rt, c)
	if err != nil {
		return err
	}
	if c.idem != nil {
		var body any = items
		if single {
			body = items[0]
		}
		if err := c.idem.bind(r, rt, body); err != nil {
			return err
		}
	}
	bc, err := prepareBulk(c, rt.Principal, items, up)
	if err != nil {
		return err
	}
	insertOnly := up != nil && c.req.IfNoneMatchAny
	if insertOnly {
		// If-None-Match: * — create every record or, if one exists
		// already, none (docs/api.md, "Conditional writes").
		bc.up = nil
	}
	write := func(ctx context.Context, q pgexec.Querier, w http.ResponseWriter) error {
		err := bulkInsertOn(ctx, w, r, q, c, bc, single)
		if insertOnly {
			err = existingAsPrecondition(err, up)
		}
		if err == nil {
			rt.rows = int64(bc.n)
		}
		return err
	}
	if up == nil || insertOnly || c.idem != nil {
		return h.writeOn(w, r, rt, c, write)
	}
	// An upsert may meet rows the caller may not update; then nothing
	// it wrote may stay, which takes a transaction.
	return h.statements(w, r, rt, func(ctx context.Context) error {
		return h.inTransaction(ctx, w, rt, c, func(q pgexec.Querier, w http.ResponseWriter) error {
			return write(ctx, q, w)
		})
	})
}

// existingAsPrecondition turns the unique conflict of an insert-only
// upsert on its on_conflict column into the failed precondition it is.
func existingAsPrecondition(err error, up *translate.Upsert) error {
	e, ok := err.(*apierr.Error)
	if !ok || e.Code != apierr.CodeConflict {
		return err
	}
	if _, onKey := e.Details[up.Column.Input]; !onKey {
		return err
	}
	return apierr.Fields(apierr.CodePreconditionFailed,
		"A record with this "+up.Column.Input+" exists and If-None-Match: * forbids changing it; nothing was written",
		map[string]string{up.Column.Input: "already exists (If-None-Match: *)"})
}

// countItems counts a bulk create's records beyond the first against the
// plan's rate limit (admission counted one) and refuses the request when
// they pass it.
func (h *Handler) countItems(w http.ResponseWriter, r *http.Request, rt *Route, n int) error {
	bl, ok := h.d.Limiter.(BulkLimiter)
	if !ok || n <= 1 || rt.Principal.Kind == access.Dashboard {
		return nil // the owner's dashboard is never counted
	}
	q, err := bl.TakeMore(r.Context(), rt.ProjectID, int64(n-1), rt.Start)
	if err != nil {
		return err
	}
	if q.Limit < 0 {
		return nil
	}
	setRateHeaders(w.Header(), q)
	if !q.Allowed {
		wait := int64(q.Reset.Sub(h.d.Now()).Seconds()) + 1
		if wait < 1 {
			wait = 1
		}
		w.Header().Set("Retry-After", strconv.FormatInt(wait, 10))
		return apierr.New(apierr.CodeRateLimited, "%s (a bulk create counts one request per record: %d)", q.Message, n)
	}
	return nil
}

// upsertOf reads on_conflict: a unique column the body may set. An
// upsert may change existing rows, so the caller needs the update rule
// too, and its owner scope limits the rows an item may update.
func upsertOf(rt *Route, c *tableCall) (*translate.Upsert, error) {
	if !c.req.Upsert {
		return nil, nil
	}
	name := c.req.OnConflict
	col, ok := c.t.Inputs[name]
	if !ok || col.ReadOnly || !col.Unique {
		var names []string
		for _, w := range c.t.Writable {
			if w.Unique {
				names = append(names, w.Input)
			}
		}
		msg := fmt.Sprintf("%q is not a unique column of %s", name, c.t.Name)
		if len(names) == 0 {
			msg += " (it has none, so it cannot be upserted)"
		} else {
			msg += " (unique columns: " + strings.Join(names, ", ") + ")"
		}
		return nil, apierr.Fields(apierr.CodeInvalidQuery, "Invalid query parameter on_conflict: "+msg, map[string]string{"on_conflict": msg})
	}
	g, err := Decide(rt.Principal, c.t, access.Update)
	if err != nil {
		return nil, err
	}
	return &translate.Upsert{Column: col, Rows: g.Rows}, nil
}

// prepareBulk validates every item as a single create would, with the
// problems keyed "<position>.<field>", and encodes them for one INSERT.
func prepareBulk(c *tableCall, p access.Principal, items []map[string]any, up *translate.Upsert) (*bulkCreate, error) {
	problems := map[string]string{}
	results := make([]validate.Result, len(items))
	for i, item := range items {
		prefix := strconv.Itoa(i) + "."
		if err := applyOwnerRule(c.grant.Owner, c.t, item, p); err != nil {
			for k, v := range apierr.As(err).Details {
				problems[prefix+k] = v
			}
			continue
		}
		res, bad := validate.Record(c.t, item, validate.Create)
		for k, v := range bad {
			problems[prefix+k] = v
		}
		results[i] = res
	}
	if len(problems) > 0 {
		return nil, apierr.Fields(apierr.CodeValidation, "Validation failed", problems)
	}
	// The columns any item sets, in the table's order.
	pos := map[*schema.CColumn]int{}
	var cols []*schema.CColumn
	for _, col := range c.t.Writable {
		for _, res := range results {
			if contains(res.Columns, col) {
				pos[col] = len(cols)
				cols = append(cols, col)
				break
			}
		}
	}
	set := make([][]bool, len(items))
	vals := make([][]any, len(items))
	for i, res := range results {
		if err := hashPasswords(res); err != nil {
			return nil, err
		}
		set[i], vals[i] = make([]bool, len(cols)), make([]any, len(cols))
		for k, col := range res.Columns {
			set[i][pos[col]], vals[i][pos[col]] = true, res.Values[k]
		}
	}
	checkBulkShape(c.t, cols, set, vals, up, problems)
	if len(problems) > 0 {
		return nil, apierr.Fields(apierr.CodeValidation, "Validation failed", problems)
	}
	enc, err := translate.BulkItems(len(cols), set, vals)
	if err != nil {
		return nil, err
	}
	return &bulkCreate{cols: cols, items: string(enc), up: up, n: len(items)}, nil
}

// checkBulkShape adds the problems that only a set of items can have:
// on a fronted table, a column some items leave out whose default only
// the database knows; with on_conflict, an item without the key or with
// the key of an earlier item (one statement cannot update a row twice),
// or an item that leaves out a field another names: the update would
// set that field of its row to the default rather than leave it alone.
func checkBulkShape(t *schema.CTable, cols []*schema.CColumn, set [][]bool, vals [][]any, up *translate.Upsert, problems map[string]string) {
	if t.Doc.External != nil {
		for k, col := range cols {
			if schema.DefaultSQL(col) != "" {
				continue
			}
			for i := range set {
				if !set[i][k] {
					problems[strconv.Itoa(i)+"."+col.Input] = "must be given in every record of this bulk create or in none (the database's default applies only to a column no record names)"
				}
			}
		}
	}
	if up == nil {
		return
	}
	key := -1
	for k, col := range cols {
		if col == up.Column {
			key = k
		}
	}
	for k, col := range cols {
		for i := range set {
			if !set[i][k] {
				problems[strconv.Itoa(i)+"."+col.Input] = "must be given: with on_conflict every record names the same fields (record " +
					strconv.Itoa(firstSetting(set, k)) + " names it), so an update never resets a field the record left out"
			}
		}
	}
	first := map[string]int{}
	for i := range set {
		field := strconv.Itoa(i) + "." + up.Column.Input
		if key < 0 || !set[i][key] || vals[i][key] == nil {
			problems[field] = "is required with on_conflict=" + up.Column.Input
			continue
		}
		v := fmt.Sprint(vals[i][key])
		if j, seen := first[v]; seen {
			problems[field] = fmt.Sprintf("repeats the value of record %d; with on_conflict each record needs its own", j)
			continue
		}
		first[v] = i
	}
}

// firstSetting is the first item that sets column k.
func firstSetting(set [][]bool, k int) int {
	for i := range set {
		if set[i][k] {
			return i
		}
	}
	return -1
}

func contains(cols []*schema.CColumn, c *schema.CColumn) bool {
	for _, x := range cols {
		if x == c {
			return true
		}
	}
	return false
}

// bulkInsertOn runs a bulk create on q and writes its answer: 201 with
// the records in the items' order when any was created, else 200 (an
// upsert that only updated).
func bulkInsertOn(ctx context.Context, w http.ResponseWriter, r *http.Request, q pgexec.Querier, c *tableCall, bc *bulkCreate, single bool) error {
	args := []any{bc.items}
	if bc.up != nil && !bc.up.Rows.All() {
		args = append(args, bc.up.Rows.Value)
	}
	// A minimal answer drops the records: the statement need not build
	// them. A single create keeps its record for Location, and a keyed
	// one for its stored answer.
	withRecords := !c.req.ReturnMinimal || single || c.idem != nil
	var data []byte
	var flags string
	if err := pgexec.Row(ctx, q, c.ts.BulkInsert(bc.cols, bc.up, withRecords), args, &data, &flags); err != nil {
		return pgexec.MapError(err, c.t, pgexec.OpWrite)
	}
	if len(flags) != bc.n {
		// Some item met a row with its key that the caller may not
		// update (another user's): the caller's transaction rolls back.
		return apierr.Fields(apierr.CodeConflict, "A record with this value already exists and you may not change it; nothing was written",
			map[string]string{bc.up.Column.Input: "already exists in a record you may not change"})
	}
	meta := BulkMeta{}
	for _, f := range flags {
		result := ResultUpdated
		if f == '1' {
			meta.Created++
			result = ResultCreated
		} else {
			meta.Updated++
		}
		if bc.up != nil {
			meta.Results = append(meta.Results, result)
		}
	}
	status := http.StatusOK
	if meta.Created > 0 {
		status = http.StatusCreated
	}
	msg := records(meta.Created) + " created"
	if bc.up != nil {
		msg += fmt.Sprintf(", %d updated", meta.Updated)
	}
	if single {
		data = data[1 : len(data)-1] // the one record of the array
		if meta.Created == 1 {
			if loc := recordLocation(r, data, c.t.PK.Name); loc != "" {
				w.Header().Set("Location", loc)
			}
		}
	}
	envelope.Write(w, status, envelope.Success{RawData: data, Message: msg, Meta: meta})
	return nil
}

// records counts records in words: "1 record", "3 records".
func records(n int) string {
	if n == 1 {
		return "1 record"
	}
	return strconv.Itoa(n) + " records"
}

// txDB is the database a route's transactions run on.
func (h *Handler) txDB(rt *Route) *sql.DB {
	if rt.Entry != nil && rt.Entry.Tables != nil {
		return rt.Entry.Tables.DB()
	}
	return h.d.DB
}

// Affected is the answer of an update or delete by filter.
type Affected struct {
	Affected int64 `json:"affected"`
}

// updateByFilter answers PATCH on a collection: the body's fields are set
// on every row that matches the filters and that the caller may update.
func (h *Handler) updateByFilter(w http.ResponseWriter, r *http.Request, rt *Route, c *tableCall) error {
	fw, err := h.filterWriteQuery(r, rt, c)
	if err != nil {
		return err
	}
	body, err := h.readBody(w, r)
	if err != nil {
		return err
	}
	if c.idem != nil {
		if err := c.idem.bind(r, rt, body); err != nil {
			return err
		}
	}
	if err := applyOwnerRule(c.grant.Owner, c.t, body, rt.Principal); err != nil {
		return err
	}
	res, problems := validate.Record(c.t, body, validate.Patch)
	if problems != nil {
		return apierr.Fields(apierr.CodeValidation, "Validation failed", problems)
	}
	if len(res.Columns) == 0 || (c.grant.Owner == access.OwnerIsCaller && len(res.Columns) == 1 && res.Columns[0] == c.t.Owner) {
		return apierr.Fields(apierr.CodeValidation, "Validation failed", map[string]string{"body": "names no field to change"})
	}
	if err := hashPasswords(res); err != nil {
		return err
	}
	ws, err := translate.BuildFilterUpdate(c.pub, c.t, fw, res.Columns, res.Values)
	if err != nil {
		return PlannerError(err)
	}
	return h.runFilterWrite(w, r, rt, c, fw, ws, pgexec.OpWrite, "updated")
}

// deleteByFilter answers DELETE on a collection: every row that matches
// the filters and that the caller may delete goes.
func (h *Handler) deleteByFilter(w http.ResponseWriter, r *http.Request, rt *Route, c *tableCall) error {
	fw, err := h.filterWriteQuery(r, rt, c)
	if err != nil {
		return err
	}
	if c.idem != nil {
		if err := c.idem.bind(r, rt, nil); err != nil {
			return err
		}
	}
	ws, err := translate.BuildFilterDelete(c.pub, c.t, fw)
	if err != nil {
		return PlannerError(err)
	}
	return h.runFilterWrite(w, r, rt, c, fw, ws, pgexec.OpDelete, "deleted")
}

func (h *Handler) filterWriteQuery(r *http.Request, rt *Route, c *tableCall) (*translate.FilterWriteQuery, error) {
	fw, err := translate.ParseFilterWrite(c.req.Query)
	if err != nil {
		return nil, PlannerError(err)
	}
	fw.Caller, fw.Rows = rt.Principal, c.grant.Rows
	return fw, nil
}

// runFilterWrite runs an update or delete by filter and answers
// {"affected": N}, or 400 when more rows match than max_affected allows
// (the statement then changed none).
func (h *Handler) runFilterWrite(w http.ResponseWriter, r *http.Request, rt *Route, c *tableCall, fw *translate.FilterWriteQuery, ws *translate.FilterWriteSQL, op pgexec.Op, verb string) error {
	run := func(ctx context.Context, q pgexec.Querier, w http.ResponseWriter) error {
		var matched, affected int64
		if err := pgexec.Row(ctx, q, ws.SQL, ws.Args, &matched, &affected); err != nil {
			return pgexec.MapError(err, c.t, op)
		}
		if fw.MaxAffected > 0 && matched > fw.MaxAffected {
			msg := fmt.Sprintf("%d records match, more than max_affected=%d; nothing was %s", matched, fw.MaxAffected, verb)
			return apierr.Fields(apierr.CodeInvalidQuery, "Invalid query parameter max_affected: "+msg, map[string]string{translate.MaxAffectedParam: msg})
		}
		rt.rows = affected
		if affected > 0 && c.t.HasFiles() && h.d.FilesOrphaned != nil {
			// The rows' files are not read back one by one: the sweep
			// removes those no row names now.
			defer h.d.FilesOrphaned(rt.ProjectID)
		}
		envelope.Write(w, http.StatusOK, envelope.Success{Data: Affected{Affected: affected}, Message: records(int(affected)) + " " + verb})
		return nil
	}
	return h.statements(w, r, rt, func(ctx context.Context) error {
		if c.idem != nil {
			return h.once(ctx, w, r, rt, c.t, c.idem, func(q pgexec.Querier, w http.ResponseWriter) error {
				return run(ctx, q, w)
			})
		}
		return run(ctx, h.db(rt), w)
	})
}
