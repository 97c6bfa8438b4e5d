package apihttp

import (
	"bufio"
	"bytes"
	"cmp"
	"context"
	"database/sql"
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"strconv"
	"sync/atomic"
	"time"
	"unicode"
	"unicode/utf8"

	"github.com/tablesmith/tablesmith/apierr"
	"github.com/tablesmith/tablesmith/internal/fairshare"
	"github.com/tablesmith/tablesmith/internal/pgexec"
	"github.com/tablesmith/tablesmith/internal/writedeadline"
	"github.com/tablesmith/tablesmith/schema"
	"github.com/tablesmith/tablesmith/translate"
)

// DefaultExportTimeout bounds an export (Deps.ExportTimeout) when unset.
const DefaultExportTimeout = 5 * time.Minute

// exportRecords streams every row a list's filters, search, sort, fields
// and owner scope select, as CSV (RFC 4180, a header row) or NDJSON (one
// record per line), with no page cap and bounded memory, within the export
// bound (Deps.ExportTimeout, the request's deadline).
//
// It reads a cursor in a read-only transaction, so the whole file is one
// snapshot, in batches (exportBatch). Each batch is a statement like any
// other: it takes one of the project's fair-share slots and runs within
// the plan's statement timeout. Between batches the transaction keeps its
// connection: the export holds one of the project's and the node's holds
// (fairshare.Gate.Hold) for its whole length. A batch is read whole before
// it is written, so PostgreSQL never waits on a slow client: when the
// request ends (its deadline, or the client leaving), the write under way
// is cut, the transaction rolls back, and nothing of the export goes on
// running. Once rows are on their way, a failure can no longer change the
// status, so it aborts the response (http.ErrAbortHandler): the client
// sees a broken transfer, never a short file that looks complete.
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
	hold, err := h.d.Gate.Hold(r.Context(), rt.ProjectID, rt.Start)
	if err != nil {
		return exportBusy(h.d.Gate, rt.ProjectID, err)
	}
	defer hold.Release()
	// A replica that fails before the first byte hands the export to the
	// primary; one that fails later breaks it off (streamExport).
	return h.read(r.Context(), rt, func(ctx context.Context, q pgexec.Querier) error {
		db := h.d.DB
		if s, ok := q.(*pgexec.Statements); ok {
			db = s.DB()
		}
		return h.streamExport(ctx, w, r, rt, db, c, ex, format)
	})
}

// exportBusy is the answer to an export that found no hold free.
func exportBusy(g *fairshare.Gate, project string, err error) error {
	perProject, perNode := g.HoldLimits()
	var e *apierr.Error
	switch {
	case errors.Is(err, fairshare.ErrBusy):
		e = apierr.New(apierr.CodeUnavailable, "Project %s has %d exports running, the most it runs at once on this server; retry when one has finished", project, perProject)
	case errors.Is(err, fairshare.ErrNodeBusy):
		e = apierr.New(apierr.CodeUnavailable, "This server is running %d exports, the most it runs at once; retry shortly", perNode)
	default:
		return err // the client went away
	}
	e.RetryAfter = exportRetryAfter
	return e
}

// exportRetryAfter is the Retry-After of an export that found no hold
// free: exports take seconds to minutes.
const exportRetryAfter = 5 * time.Second

// exportBatch sizes an export's batches: the first reads exportFirstRows
// rows, each later one as many rows as fit exportBatchBytes at the sizes
// seen so far, between 1 and exportBatchRows. A batch is held in memory
// while it is written, so its bytes bound the export's memory, even when
// records embed up to thousands of related rows each.
const (
	exportFirstRows  = 100
	exportBatchRows  = 1000
	exportBatchBytes = 1 << 20
)

// exportCursor names an export's cursor, the only one of its transaction:
// by its project, so that pg_stat_activity shows whose export a FETCH
// serves.
func exportCursor(projectID string) string {
	return schema.QuoteIdent("tablesmith_export_" + projectID)
}

// streamExport opens the export's cursor and writes its rows, batch by
// batch (exportRecords).
func (h *Handler) streamExport(ctx context.Context, w http.ResponseWriter, r *http.Request, rt *Route, db *sql.DB, c *tableCall, ex *translate.ExportSQL, format string) error {
	out := newExportWriter(w, format, c.t.Name, ex.Columns)
	// The request's end (its deadline, or the client leaving) cuts a write
	// that a slow client holds up.
	stop := context.AfterFunc(ctx, out.cut)
	defer stop()
	fail := func(err error) error {
		if !out.started { // nothing sent yet: an ordinary error answer
			return pgexec.MapError(err, c.t, pgexec.OpRead)
		}
		h.d.Logger.Warn("export ended part way", "err", err, "path", r.URL.Path)
		panic(http.ErrAbortHandler)
	}
	tx, err := db.BeginTx(ctx, &sql.TxOptions{ReadOnly: true})
	if err != nil {
		return err
	}
	defer tx.Rollback() //nolint:errcheck // read-only: nothing to undo
	// PostgreSQL ends each of the transaction's statements at the plan's
	// timeout too (the pool's connections carry the request timeout),
	// also when lib/pq's cancel does not reach it; without a plan, at the
	// export's own bound.
	bound := rt.statementTimeout
	if dl, ok := ctx.Deadline(); ok && bound <= 0 {
		bound = time.Until(dl)
	}
	cursor := exportCursor(rt.ProjectID)
	// fetch reads the next batch of n rows. The first waits for a slot as
	// any request does (503 before anything is sent); later ones as long
	// as the export may last.
	fetch := func(ctx context.Context, n int, first bool) (exportBatch, error) {
		b := exportBatch{began: time.Now(), others: h.d.Gate.OthersStarted(rt.ProjectID), want: n}
		err := h.inSlot(ctx, rt, !first, func(ctx context.Context) error {
			if first {
				if bound > 0 {
					if _, err := tx.ExecContext(ctx, "SELECT set_config('statement_timeout', $1, true)", strconv.FormatInt(max(bound.Milliseconds(), 1), 10)); err != nil {
						return err
					}
				}
				if _, err := tx.ExecContext(ctx, "DECLARE "+cursor+" NO SCROLL CURSOR FOR "+ex.SQL, ex.Args...); err != nil {
					return err
				}
			}
			res, err := tx.QueryContext(ctx, "FETCH FORWARD "+strconv.Itoa(n)+" FROM "+cursor)
			if err != nil {
				return err
			}
			defer res.Close()
			b.recs = make([][]byte, 0, n)
			for res.Next() {
				var rec []byte
				if err := res.Scan(&rec); err != nil {
					return err
				}
				b.recs = append(b.recs, rec)
				b.size += len(rec)
			}
			return res.Err()
		})
		return b, err
	}
	b, err := fetch(ctx, exportFirstRows, true)
	if err != nil {
		return fail(err)
	}
	// The next batches are read while this goroutine writes the one
	// before: PostgreSQL and the encoding overlap instead of taking
	// turns, and a batch is still read whole before it is written, so
	// PostgreSQL never waits on the client. At most three batches are in
	// memory: one written, one handed over, one read. The reader ends
	// before the transaction does (deferred after its Rollback).
	next := make(chan exportFetched, 1)
	if !b.last() {
		rctx, stopReading := context.WithCancel(ctx)
		done := make(chan struct{})
		defer func() { stopReading(); <-done }()
		go func() {
			defer close(done)
			defer close(next)
			for prev := b; ; {
				if err := h.giveWay(rctx, rt.ProjectID, prev.others, prev.began); err != nil {
					return // the request ended: the writer sees the channel close
				}
				b, err := fetch(rctx, prev.nextSize(), false)
				select {
				case next <- exportFetched{b, err}:
				case <-rctx.Done():
					return
				}
				if err != nil || b.last() {
					return
				}
				prev = b
			}
		}()
	}
	for {
		for _, rec := range b.recs {
			if err := out.record(rec); err != nil {
				return fail(err)
			}
		}
		if b.last() {
			break
		}
		if err := out.flush(); err != nil {
			return fail(err)
		}
		got, more := <-next
		if !more { // the reader stopped without a last batch: the request ended
			return fail(cmp.Or(context.Cause(ctx), errExportEnded))
		}
		if got.err != nil {
			return fail(got.err)
		}
		b = got.batch
	}
	if err := out.finish(); err != nil {
		return fail(err)
	}
	return nil
}

// exportBatch is one FETCH of an export: its rows, their bytes, how
// many were asked for, and when it began with how many statements other
// projects had started then (giveWay).
type exportBatch struct {
	recs   [][]byte
	size   int
	want   int
	began  time.Time
	others uint64
}

// last reports whether the cursor had no more rows than this batch.
func (b exportBatch) last() bool { return len(b.recs) < b.want }

// nextSize is how many rows the next batch reads: as many as fit
// exportBatchBytes at this batch's row size, between 1 and
// exportBatchRows.
func (b exportBatch) nextSize() int {
	return min(max(exportBatchBytes/max(b.size/max(len(b.recs), 1), 1), 1), exportBatchRows)
}

// exportFetched is a batch handed from the reader to the writer.
type exportFetched struct {
	batch exportBatch
	err   error
}

// exportMostPause bounds one pause of giveWay: a batch that took longer
// (a slow client's write) does not stop its export for as long again.
const exportMostPause = 250 * time.Millisecond

// giveWay pauses an export's reader, before its next batch, for as long
// as the last batch took from the start of its read (at most
// exportMostPause), when another project started a statement meanwhile:
// an export keeps a PostgreSQL backend and the handler busy for as long
// as it lasts, and on a node with few cores those are the CPU the other
// projects' requests wait for (issue 35.9; bench/RESULTS.md). Alone on
// the node an export runs at full speed; beside others, at least half.
func (h *Handler) giveWay(ctx context.Context, project string, others uint64, began time.Time) error {
	if h.d.Gate.OthersStarted(project) == others {
		return nil
	}
	h.exportPauses.Add(1)
	t := time.NewTimer(min(time.Since(began), exportMostPause))
	defer t.Stop()
	select {
	case <-t.C:
		return nil
	case <-ctx.Done():
		return ctx.Err()
	}
}

// ExportPauses counts the pauses exports made for other projects' statements (giveWay).
func (h *Handler) ExportPauses() uint64 { return h.exportPauses.Load() }

// exportWriter writes an export's records to the response through one
// buffer; the headers and status go out with the first bytes.
type exportWriter struct {
	w       http.ResponseWriter
	rc      *http.ResponseController
	buf     *bufio.Writer
	csv     bool
	header  [][]byte
	started bool
	fields  [][]byte
	// ended is set when the request ended (cut): no write may wait on the
	// client any longer.
	ended atomic.Bool
}

// errExportEnded is a write after the export's request ended.
var errExportEnded = errors.New("the export's request has ended")

// cut ends the write under way, if any, and refuses the next ones: the
// request ended. It runs on another goroutine than the writes.
func (ew *exportWriter) cut() {
	ew.ended.Store(true)
	_ = ew.rc.SetWriteDeadline(time.Now())
}

func newExportWriter(w http.ResponseWriter, format, table string, columns []string) *exportWriter {
	ew := &exportWriter{w: w, rc: http.NewResponseController(w)}
	ew.buf = bufio.NewWriterSize(exportStarter{ew}, 32<<10)
	if format == translate.FormatCSV {
		ew.csv = true
		for _, c := range columns {
			ew.header = append(ew.header, []byte(c))
		}
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
	if s.ew.ended.Load() {
		return 0, errExportEnded
	}
	s.ew.start()
	// An export may take longer than the server's write timeout.
	writedeadline.Renew(s.ew.rc)
	if s.ew.ended.Load() { // cut between the check and the renewal
		_ = s.ew.rc.SetWriteDeadline(time.Now())
	}
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
	if !ew.csv {
		if _, err := ew.buf.Write(rec); err != nil {
			return err
		}
		return ew.buf.WriteByte('\n')
	}
	if ew.header != nil {
		if err := writeCSVRecord(ew.buf, ew.header); err != nil {
			return err
		}
		ew.header = nil
	}
	fields, err := csvFields(rec, ew.fields[:0])
	if err != nil {
		return fmt.Errorf("export row: %w", err)
	}
	ew.fields = fields
	return writeCSVRecord(ew.buf, ew.fields)
}

// csvFields appends the CSV fields of one row, a JSON array as
// PostgreSQL's json_build_array writes it, to dst (csvField for each
// element). It splits the array itself rather than decoding it with
// encoding/json, which took a third of an export's CPU (bench/RESULTS.md,
// "One tenant's streams and exports beside another's reads"): elements
// are found by their brackets and quotes, and only strings with escapes
// are decoded. The answers are encoding/json's (TestCSVFieldsAgreeWithEncodingJSON).
func csvFields(rec []byte, dst [][]byte) ([][]byte, error) {
	i := skipJSONSpace(rec, 0)
	if i >= len(rec) || rec[i] != '[' {
		return nil, errors.New("not a JSON array")
	}
	i = skipJSONSpace(rec, i+1)
	if i < len(rec) && rec[i] == ']' {
		return dst, trailing(rec, i+1)
	}
	for {
		end, err := jsonValueEnd(rec, i)
		if err != nil {
			return nil, err
		}
		dst = append(dst, csvField(rec[i:end]))
		i = skipJSONSpace(rec, end)
		if i >= len(rec) {
			return nil, errors.New("unterminated JSON array")
		}
		switch rec[i] {
		case ',':
			i = skipJSONSpace(rec, i+1)
		case ']':
			return dst, trailing(rec, i+1)
		default:
			return nil, fmt.Errorf("unexpected %q in a JSON array", rec[i])
		}
	}
}

// trailing refuses anything but blanks after the array.
func trailing(rec []byte, i int) error {
	if skipJSONSpace(rec, i) != len(rec) {
		return errors.New("data after a JSON array")
	}
	return nil
}

func skipJSONSpace(b []byte, i int) int {
	for i < len(b) && (b[i] == ' ' || b[i] == '\t' || b[i] == '\n' || b[i] == '\r') {
		i++
	}
	return i
}

// jsonValueEnd is where the JSON value starting at b[i] ends: after its
// closing quote or bracket, or before the delimiter after a literal. The
// value is checked by encoding/json only when it is an object or array
// (csvField copies those as they are).
func jsonValueEnd(b []byte, i int) (int, error) {
	if i >= len(b) {
		return 0, errors.New("missing JSON value")
	}
	switch b[i] {
	case '"':
		return jsonStringEnd(b, i)
	case '{', '[':
		depth := 0
		for j := i; j < len(b); j++ {
			switch b[j] {
			case '"':
				end, err := jsonStringEnd(b, j)
				if err != nil {
					return 0, err
				}
				j = end - 1
			case '{', '[':
				depth++
			case '}', ']':
				if depth--; depth == 0 {
					if !json.Valid(b[i : j+1]) {
						return 0, errors.New("invalid JSON value in an array")
					}
					return j + 1, nil
				}
			}
		}
		return 0, errors.New("unterminated JSON value")
	}
	j := i
	for j < len(b) && b[j] != ',' && b[j] != ']' && b[j] != ' ' && b[j] != '\t' && b[j] != '\n' && b[j] != '\r' {
		j++
	}
	if !jsonLiteral(b[i:j]) {
		return 0, fmt.Errorf("invalid JSON literal %q", b[i:j])
	}
	return j, nil
}

// jsonLiteral reports whether b is null, true, false or made of a
// number's characters (PostgreSQL writes numbers that JSON reads).
func jsonLiteral(b []byte) bool {
	switch string(b) {
	case "null", "true", "false":
		return true
	case "":
		return false
	}
	for _, c := range b {
		if (c < '0' || c > '9') && c != '-' && c != '+' && c != '.' && c != 'e' && c != 'E' {
			return false
		}
	}
	return true
}

// jsonStringEnd is the index after the closing quote of the string that
// starts at b[i].
func jsonStringEnd(b []byte, i int) (int, error) {
	for j := i + 1; j < len(b); j++ {
		switch b[j] {
		case '\\':
			j++
		case '"':
			return j + 1, nil
		}
	}
	return 0, errors.New("unterminated JSON string")
}

// csvField is one value as CSV text: strings as they are, NULL empty,
// numbers and booleans as JSON writes them, JSON values as compact JSON.
// A string without escapes is a slice of v, not a copy.
func csvField(v json.RawMessage) []byte {
	switch {
	case len(v) == 0 || string(v) == "null":
		return nil
	case v[0] == '"':
		if len(v) >= 2 && bytes.IndexByte(v, '\\') < 0 && utf8.Valid(v) {
			return v[1 : len(v)-1] // no escapes: the text as it is
		}
		var s string
		if json.Unmarshal(v, &s) == nil {
			return []byte(s)
		}
	}
	return v
}

// writeCSVRecord writes one CSV line as encoding/csv's Writer with
// UseCRLF writes it (TestCSVRecordsAgreeWithEncodingCSV), from bytes
// rather than strings: a field is quoted when it holds a comma, quote or
// line break, is \. or begins with a space; a quote inside is doubled,
// a line feed written CRLF and a carriage return dropped.
func writeCSVRecord(w *bufio.Writer, fields [][]byte) error {
	for n, f := range fields {
		if n > 0 {
			_ = w.WriteByte(',')
		}
		if !csvNeedsQuotes(f) {
			_, _ = w.Write(f)
			continue
		}
		_ = w.WriteByte('"')
		for len(f) > 0 {
			i := bytes.IndexAny(f, "\"\r\n")
			if i < 0 {
				i = len(f)
			}
			_, _ = w.Write(f[:i])
			f = f[i:]
			if len(f) > 0 {
				switch f[0] {
				case '"':
					_, _ = w.WriteString(`""`)
				case '\n':
					_, _ = w.WriteString("\r\n")
				}
				f = f[1:]
			}
		}
		_ = w.WriteByte('"')
	}
	_, err := w.WriteString("\r\n")
	return err
}

// csvNeedsQuotes is encoding/csv's rule for a comma-separated field.
func csvNeedsQuotes(f []byte) bool {
	if len(f) == 0 {
		return false
	}
	if string(f) == `\.` || bytes.ContainsAny(f, ",\"\r\n") {
		return true
	}
	r, _ := utf8.DecodeRune(f)
	return unicode.IsSpace(r)
}

func (ew *exportWriter) flush() error {
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
	if ew.csv && ew.header != nil {
		if err := writeCSVRecord(ew.buf, ew.header); err != nil {
			return err
		}
		ew.header = nil
	}
	ew.start()
	return ew.flush()
}
