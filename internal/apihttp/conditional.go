package apihttp

import (
	"context"
	"net/http"

	"github.com/tablesmith/tablesmith/apierr"
	"github.com/tablesmith/tablesmith/internal/apirequest"
	"github.com/tablesmith/tablesmith/internal/envelope"
	"github.com/tablesmith/tablesmith/internal/pgexec"
	"github.com/tablesmith/tablesmith/translate"
)

// writeOn runs a write: inside the transaction of its Idempotency-Key when
// it has one, in a transaction of its own when an If-Match must hold until
// it writes, else straight on the project's pool. The If-Match is checked
// first, on the same transaction (docs/api.md, "Conditional writes").
func (h *Handler) writeOn(w http.ResponseWriter, r *http.Request, rt *Route, c *tableCall,
	write func(ctx context.Context, q pgexec.Querier, w http.ResponseWriter) error) error {
	return h.statements(w, r, rt, func(ctx context.Context) error {
		run := func(q pgexec.Querier, w http.ResponseWriter) error {
			if err := ifMatch(ctx, q, c); err != nil {
				return err
			}
			return write(ctx, q, w)
		}
		switch {
		case c.idem != nil:
			return h.once(ctx, w, r, rt, c.t, c.idem, run)
		case c.req.IfMatch != nil:
			return h.inTransaction(ctx, w, rt, c, run)
		}
		return write(ctx, h.db(rt), w)
	})
}

// inTransaction runs a write in a transaction; its answer waits for the
// commit, so that nothing tells the client (or records its write position
// for the replicas) before it.
func (h *Handler) inTransaction(ctx context.Context, w http.ResponseWriter, rt *Route, c *tableCall,
	run func(q pgexec.Querier, w http.ResponseWriter) error) error {
	tx, err := h.txDB(rt).BeginTx(ctx, nil)
	if err != nil {
		return pgexec.MapError(err, c.t, pgexec.OpWrite)
	}
	defer tx.Rollback() // no-op after Commit
	a := &answer{header: w.Header()}
	if err := run(tx, a); err != nil {
		return err
	}
	if err := tx.Commit(); err != nil {
		return pgexec.MapError(err, c.t, pgexec.OpWrite)
	}
	a.to(w)
	return nil
}

// ifMatch checks a write's If-Match against the record as a GET would
// answer it now, and locks the row until the write's transaction ends. A
// record that is not there is NOT_FOUND; a tag that no longer matches is
// PRECONDITION_FAILED, and nothing is written.
func ifMatch(ctx context.Context, q pgexec.Querier, c *tableCall) error {
	if c.req.IfMatch == nil {
		return nil
	}
	data, err := recordOn(ctx, q, pgexec.JSON, c.ts.ByID(translate.LockRecord, c.id, c.owner))
	if err != nil {
		return pgexec.MapError(err, c.t, pgexec.OpRead)
	}
	body, err := envelope.Bytes(envelope.Success{RawData: data, Message: msgRetrieved})
	if err != nil {
		return err
	}
	if !c.req.MatchesTag(weakETag(body)) {
		return apierr.Fields(apierr.CodePreconditionFailed,
			"The record changed since the version If-Match names; nothing was written. GET it again for its current ETag",
			map[string]string{apirequest.HeaderIfMatch: "does not match the record's current ETag"})
	}
	return nil
}

// minimalAnswer carries out Prefer: return=minimal: a successful write
// answers without its record, 204, or 201 (with Location) for a create,
// and says so in Preference-Applied. Errors pass through whole.
type minimalAnswer struct {
	http.ResponseWriter
	dropBody bool
}

func (m *minimalAnswer) WriteHeader(code int) {
	if code == http.StatusOK || code == http.StatusCreated {
		h := m.Header()
		h.Set(apirequest.HeaderPreferenceApplied, "return=minimal")
		h.Del("Content-Type")
		h.Del("Content-Length")
		m.dropBody = true
		if code == http.StatusOK {
			code = http.StatusNoContent
		}
	}
	m.ResponseWriter.WriteHeader(code)
}

func (m *minimalAnswer) Write(b []byte) (int, error) {
	if m.dropBody {
		return len(b), nil
	}
	return m.ResponseWriter.Write(b)
}

// WriteBody takes the envelope's whole answer (envelope.BodyWriter).
func (m *minimalAnswer) WriteBody(status int, body []byte) {
	if status == http.StatusOK || status == http.StatusCreated {
		m.WriteHeader(status)
		return
	}
	if bw, ok := m.ResponseWriter.(envelope.BodyWriter); ok {
		bw.WriteBody(status, body)
		return
	}
	m.ResponseWriter.WriteHeader(status)
	_, _ = m.ResponseWriter.Write(body)
}

// Unwrap lets http.ResponseController reach the underlying writer.
func (m *minimalAnswer) Unwrap() http.ResponseWriter { return m.ResponseWriter }
