package apihttp

import (
	"bytes"
	"context"
	"crypto/sha256"
	"database/sql"
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"strings"
	"time"

	"github.com/tablesmith/tablesmith/access"
	"github.com/tablesmith/tablesmith/apierr"
	"github.com/tablesmith/tablesmith/internal/envelope"
	"github.com/tablesmith/tablesmith/internal/pgexec"
	"github.com/tablesmith/tablesmith/schema"
)

// IdempotencyTTL is how long the first answer to an Idempotency-Key is
// replayed; older records are ignored and swept.
const IdempotencyTTL = 24 * time.Hour

// MaxIdempotencyKey is the longest Idempotency-Key accepted, in bytes.
const MaxIdempotencyKey = 255

var (
	headerIdempotencyKey = http.CanonicalHeaderKey("Idempotency-Key")
	headerReplayed       = http.CanonicalHeaderKey("Idempotent-Replayed")
)

// idempotency is a write's Idempotency-Key with what it is bound to.
type idempotency struct {
	scope string // who sent it: key:<prefix>, user:<id> or none
	key   string
	sum   [sha256.Size]byte // method, path and body
}

// idempotencyOf reads a write's Idempotency-Key header; nil when the
// request has none, which leaves the write on its usual path.
func (h *Handler) idempotencyOf(r *http.Request, rt *Route) (*idempotency, error) {
	vals, ok := r.Header[headerIdempotencyKey]
	if !ok {
		return nil, nil
	}
	if len(vals) != 1 {
		return nil, keyError("must be sent once")
	}
	key := strings.TrimSpace(vals[0])
	// The IETF draft sends the key as a structured-field string ("...");
	// its quotes are not part of the key.
	if len(key) >= 2 && key[0] == '"' && key[len(key)-1] == '"' {
		key = key[1 : len(key)-1]
	}
	if key == "" || len(key) > MaxIdempotencyKey {
		return nil, keyError(fmt.Sprintf("must be 1 to %d characters", MaxIdempotencyKey))
	}
	for i := 0; i < len(key); i++ {
		if key[i] < 0x20 || key[i] > 0x7e {
			return nil, keyError("must be printable ASCII characters")
		}
	}
	// The record is written in the write's own transaction, which only
	// reaches the control schema on the managed projects' data pool.
	if h.d.Idempotency == nil || rt.Entry.Tables == nil || !h.d.Idempotency(rt.Entry.Tables.DB()) {
		return nil, apierr.Fields(apierr.CodeValidation, "Idempotency-Key is not available for projects that front an existing database",
			map[string]string{headerIdempotencyKey: "not available for fronted databases"})
	}
	k := &idempotency{key: key, scope: "none"}
	switch p := rt.Principal; p.Kind {
	case access.APIKey:
		k.scope = "key:" + p.KeyPrefix
	case access.EndUser:
		k.scope = fmt.Sprint("user:", p.UserID)
	case access.Dashboard:
		k.scope = "dashboard"
	}
	return k, nil
}

func keyError(msg string) error {
	return apierr.Fields(apierr.CodeValidation, "Invalid Idempotency-Key header: "+msg, map[string]string{headerIdempotencyKey: msg})
}

// bind fingerprints the request the key stands for: the method, the
// record's path, the query string when there is one (a write by filter
// or an upsert names its rows there) and the body as canonical JSON
// (encoding/json sorts members and drops whitespace, so neither counts;
// numbers keep their text). body is nil for a delete; a bulk create's is
// the array of its items.
func (k *idempotency) bind(r *http.Request, rt *Route, body any) error {
	d := sha256.New()
	d.Write([]byte(r.Method))
	d.Write([]byte{0})
	d.Write([]byte(rt.ProjectID + "/" + strings.Join(rt.Rest, "/")))
	d.Write([]byte{0})
	if r.URL.RawQuery != "" {
		d.Write([]byte(r.URL.RawQuery))
		d.Write([]byte{0})
	}
	if body != nil {
		enc, err := json.Marshal(body)
		if err != nil {
			return err
		}
		d.Write(enc)
	}
	d.Sum(k.sum[:0])
	return nil
}

// The record of a key: claimed (inserted, or taken over once expired)
// before the write, its answer filled in after it, in one transaction.
// A second request with the same key waits on the row until the first
// commits or rolls back.
const (
	claimKey = `INSERT INTO tablesmith.idempotency_keys AS k (project_id, scope, key, fingerprint)
		VALUES ($1, $2, $3, $4)
		ON CONFLICT (project_id, scope, key) DO UPDATE
			SET fingerprint = EXCLUDED.fingerprint, status = NULL, body = NULL, location = NULL, created_at = now()
			WHERE k.created_at <= now() - $5 * interval '1 second'
		RETURNING true`
	readKey = `SELECT fingerprint, status, body, location FROM tablesmith.idempotency_keys
		WHERE project_id = $1 AND scope = $2 AND key = $3`
	answerKey = `UPDATE tablesmith.idempotency_keys SET status = $4, body = $5, location = $6
		WHERE project_id = $1 AND scope = $2 AND key = $3`
)

// once runs a keyed write: in one transaction on the project's data pool
// it claims the key, runs the write and records its answer, so that the
// write and its record commit together or not at all. A key with a live
// record replays that answer instead (422 if it was for another
// request). Answers of 500 and above are not recorded: the transaction
// rolls back, the key is free again and a retry runs the write anew.
func (h *Handler) once(ctx context.Context, w http.ResponseWriter, r *http.Request, rt *Route, t *schema.CTable, k *idempotency,
	run func(q pgexec.Querier, w http.ResponseWriter) error) error {
	fail := func(err error) error { return pgexec.MapError(err, t, pgexec.OpWrite) }
	tx, err := rt.Entry.Tables.DB().BeginTx(ctx, nil)
	if err != nil {
		return fail(err)
	}
	defer tx.Rollback() // no-op after Commit
	var claimed bool
	err = tx.QueryRowContext(ctx, claimKey, rt.ProjectID, k.scope, k.key, k.sum[:], IdempotencyTTL.Seconds()).Scan(&claimed)
	if errors.Is(err, sql.ErrNoRows) {
		return h.replay(ctx, w, tx, rt, k, fail)
	}
	if err != nil {
		return fail(err)
	}
	// A failed write statement aborts the transaction; the savepoint
	// keeps the claim so that its 4xx answer can still be recorded.
	if _, err := tx.ExecContext(ctx, "SAVEPOINT write"); err != nil {
		return fail(err)
	}
	a := &answer{header: w.Header()}
	if err := run(tx, a); err != nil {
		if envelope.Status(apierr.As(err).Code) >= 500 {
			return err
		}
		if _, err := tx.ExecContext(ctx, "ROLLBACK TO SAVEPOINT write"); err != nil {
			return fail(err)
		}
		envelope.WriteError(a, err)
	}
	if a.status >= 500 {
		_ = tx.Rollback()
		a.to(w)
		return nil
	}
	loc := sql.NullString{String: w.Header().Get("Location")}
	loc.Valid = loc.String != ""
	if _, err := tx.ExecContext(ctx, answerKey, rt.ProjectID, k.scope, k.key, a.status, a.body.Bytes(), loc); err != nil {
		return fail(err)
	}
	if err := tx.Commit(); err != nil {
		// Whether it committed is unknown: a retry with the key finds out.
		return fail(err)
	}
	a.to(w)
	return nil
}

// replay answers a key that has a live record with the recorded answer.
func (h *Handler) replay(ctx context.Context, w http.ResponseWriter, tx *sql.Tx, rt *Route, k *idempotency, fail func(error) error) error {
	var (
		sum    []byte
		status sql.NullInt32
		body   []byte
		loc    sql.NullString
	)
	if err := tx.QueryRowContext(ctx, readKey, rt.ProjectID, k.scope, k.key).Scan(&sum, &status, &body, &loc); err != nil {
		return fail(err)
	}
	// The claim locked the row: let it go before writing to a client
	// that may read slowly, as others with the key wait on it.
	_ = tx.Rollback()
	if !bytes.Equal(sum, k.sum[:]) {
		return apierr.New(apierr.CodeIdempotencyReused,
			"This Idempotency-Key was used for a different request (method, path or body) within the last 24 hours; use a new key")
	}
	if !status.Valid { // not reached: the claim waits for the first request to end
		return apierr.New(apierr.CodeConflict, "A request with this Idempotency-Key is in progress")
	}
	hd := w.Header()
	if loc.Valid {
		hd.Set("Location", loc.String)
	}
	hd.Set("Content-Type", "application/json; charset=utf-8")
	hd.Set("X-Content-Type-Options", "nosniff")
	hd[headerReplayed] = []string{"true"}
	w.WriteHeader(int(status.Int32))
	_, _ = w.Write(body)
	return nil
}

// answer holds a keyed write's answer until its record commits. Headers
// go straight to the real writer's; status and body wait.
type answer struct {
	header http.Header
	status int
	body   bytes.Buffer
}

func (a *answer) Header() http.Header { return a.header }

func (a *answer) WriteHeader(code int) {
	if a.status == 0 {
		a.status = code
	}
}

func (a *answer) Write(b []byte) (int, error) {
	if a.status == 0 {
		a.status = http.StatusOK
	}
	return a.body.Write(b)
}

func (a *answer) to(w http.ResponseWriter) {
	w.WriteHeader(a.status)
	_, _ = w.Write(a.body.Bytes())
}
