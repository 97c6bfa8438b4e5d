package apihttp

import (
	"bufio"
	"context"
	"database/sql"
	"encoding/csv"
	"encoding/json"
	"fmt"
	"net/http"
	"strconv"
	"time"

	"github.com/tablesmith/tablesmith/apierr"
	"github.com/tablesmith/tablesmith/internal/pgexec"
	"github.com/tablesmith/tablesmith/internal/writedeadline"
	"github.com/tablesmith/tablesmith/translate"
)

// DefaultExportTimeout bounds an export (Deps.ExportTimeout) when unset.
const DefaultExportTimeout = 5 * time.Minute

// exportFlushRows is how many rows go out between flushes: an export
// reaches the client in chunks while the server holds one buffer.
const exportFlushRows = 500

// exportRecords streams every row a list's filters, search, sort, fields
// and owner scope select, as CSV (RFC 4180, a header row) or NDJSON (one
// record per line), with no page cap and constant memory: rows are read
// one by one from the database and flushed in chunks. It runs in one of
// the project's fair-share slots for its whole length and within the
// export bound (Deps.ExportTimeout), not the plan's statement timeout:
// its statement runs in a read-only transaction whose statement_timeout
// is that bound. Once rows are on their way, a failure can no longer
// change the status, so it aborts the response (http.ErrAbortHandler):
// the client sees a broken transfer, never a short file that looks
// complete.
func (h *Handler) exportRecords(w http.ResponseWriter, r *http.Request, rt *Route, c *tableCall, format string) error {
	vals := c.req.Query
	for _, p := range []string{"page", "offset", "limit", "after"} {
		if vals.Get(p) != "" {
			return apierr.Fields(apierr.CodeInvalidQuery, "Invalid query parameter "+p+": an export streams every matching row; page, offset, limit and after do not apply",
				map[string]string{p: "does not apply to an export, which streams every matching row"})
		}
	}
	q, err := translate.ParseList(vals)
	if err != nil {
		return PlannerError(err)
	}
	q.Caller, q.Rows = rt.Principal, c.grant.Rows
	ex, err := translate.BuildExport(c.pub, c.t, q, format)
	if err != nil {
		return PlannerError(err)
	}
	// The export bound (the request's deadline, set in ServeHTTP)
	// replaces the plan's statement timeout; the fair-share slot stays.
	rt.statementTimeout = 0
	return h.statements(w, r, rt, func(ctx context.Context) error {
		// A replica that fails before the first byte hands the export to
		// the primary; one that fails later breaks it off (streamExport).
		return h.read(ctx, rt, func(ctx context.Context, q pgexec.Querier) error {
			db := h.d.DB
			if s, ok := q.(*pgexec.Statements); ok {
				db = s.DB()
			}
			return streamExport(ctx, w, r, h, db, c, ex, format)
		})
	})
}

// streamExport runs the export statement and writes its rows.
func streamExport(ctx context.Context, w http.ResponseWriter, r *http.Request, h *Handler, db *sql.DB, c *tableCall, ex *translate.ExportSQL, format string) error {
	tx, err := db.BeginTx(ctx, &sql.TxOptions{ReadOnly: true})
	if err != nil {
		return err
	}
	defer tx.Rollback() //nolint:errcheck // read-only: nothing to undo
	bound := h.d.ExportTimeout
	if dl, ok := ctx.Deadline(); ok {
		bound = min(bound, time.Until(dl))
	}
	// The pool's connections carry the request timeout as their
	// statement_timeout; this transaction's statement may take the
	// export's.
	if _, err := tx.ExecContext(ctx, "SELECT set_config('statement_timeout', $1, true)", strconv.FormatInt(max(bound.Milliseconds(), 1), 10)); err != nil {
		return err
	}
	rows, err := tx.QueryContext(ctx, ex.SQL, ex.Args...)
	if err != nil {
		return pgexec.MapError(err, c.t, pgexec.OpRead)
	}
	defer rows.Close()

	out := newExportWriter(w, format, c.t.Name, ex.Columns)
	fail := func(err error) error {
		if !out.started { // nothing sent yet: an ordinary error answer
			return pgexec.MapError(err, c.t, pgexec.OpRead)
		}
		h.d.Logger.Warn("export ended part way", "err", err, "path", r.URL.Path)
		panic(http.ErrAbortHandler)
	}
	var rec []byte
	n := 0
	for rows.Next() {
		if err := rows.Scan(&rec); err != nil {
			return fail(err)
		}
		if err := out.record(rec); err != nil {
			return fail(err)
		}
		if n++; n%exportFlushRows == 0 {
			if err := out.flush(); err != nil {
				return fail(err)
			}
		}
	}
	if err := rows.Err(); err != nil {
		return fail(err)
	}
	if err := out.finish(); err != nil {
		return fail(err)
	}
	return nil
}

// exportWriter writes an export's records to the response through one
// buffer; the headers and status go out with the first bytes.
type exportWriter struct {
	w       http.ResponseWriter
	rc      *http.ResponseController
	buf     *bufio.Writer
	csv     *csv.Writer
	header  []string
	started bool
	fields  []string
}

func newExportWriter(w http.ResponseWriter, format, table string, columns []string) *exportWriter {
	ew := &exportWriter{w: w, rc: http.NewResponseController(w)}
	ew.buf = bufio.NewWriterSize(exportStarter{ew}, 32<<10)
	if format == translate.FormatCSV {
		ew.csv = csv.NewWriter(ew.buf)
		ew.csv.UseCRLF = true // RFC 4180
		ew.header = columns
		w.Header().Set("Content-Type", "text/csv; charset=utf-8; header=present")
		w.Header().Set("Content-Disposition", `attachment; filename="`+table+`.csv"`)
	} else {
		w.Header().Set("Content-Type", "application/x-ndjson")
		w.Header().Set("Content-Disposition", `attachment; filename="`+table+`.ndjson"`)
	}
	w.Header().Set("Cache-Control", "no-store")
	return ew
}

// exportStarter sends the status before the first bytes of the body.
type exportStarter struct{ ew *exportWriter }

func (s exportStarter) Write(b []byte) (int, error) {
	s.ew.start()
	// An export may take longer than the server's write timeout.
	writedeadline.Renew(s.ew.rc)
	return s.ew.w.Write(b)
}

func (ew *exportWriter) start() {
	if !ew.started {
		ew.started = true
		ew.w.WriteHeader(http.StatusOK)
	}
}

// record writes one row: NDJSON as it came, CSV as its values, the
// header before the first.
func (ew *exportWriter) record(rec []byte) error {
	if ew.csv == nil {
		if _, err := ew.buf.Write(rec); err != nil {
			return err
		}
		return ew.buf.WriteByte('\n')
	}
	if ew.header != nil {
		if err := ew.csv.Write(ew.header); err != nil {
			return err
		}
		ew.header = nil
	}
	var vals []json.RawMessage
	if err := json.Unmarshal(rec, &vals); err != nil {
		return fmt.Errorf("export row: %w", err)
	}
	ew.fields = ew.fields[:0]
	for _, v := range vals {
		ew.fields = append(ew.fields, csvField(v))
	}
	return ew.csv.Write(ew.fields)
}

// csvField is one value as CSV text: strings as they are, NULL empty,
// numbers and booleans as JSON writes them, JSON values as compact JSON.
func csvField(v json.RawMessage) string {
	switch {
	case len(v) == 0 || string(v) == "null":
		return ""
	case v[0] == '"':
		var s string
		if json.Unmarshal(v, &s) == nil {
			return s
		}
	}
	return string(v)
}

func (ew *exportWriter) flush() error {
	if ew.csv != nil {
		ew.csv.Flush()
		if err := ew.csv.Error(); err != nil {
			return err
		}
	}
	if err := ew.buf.Flush(); err != nil {
		return err
	}
	if ew.started {
		return ew.rc.Flush()
	}
	return nil
}

// finish writes what is left; an export of no rows is its header alone
// (CSV) or an empty body (NDJSON).
func (ew *exportWriter) finish() error {
	if ew.csv != nil && ew.header != nil {
		if err := ew.csv.Write(ew.header); err != nil {
			return err
		}
		ew.header = nil
	}
	ew.start()
	return ew.flush()
}
