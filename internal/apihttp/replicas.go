package apihttp

import (
	"context"
	"fmt"
	"net/http"

	"github.com/tablesmith/tablesmith/access"
	"github.com/tablesmith/tablesmith/internal/pgexec"
)

// ReadRouter sends reads to read replicas (internal/replica): Deps.Replicas.
type ReadRouter interface {
	// Read runs f on the statements a read by scope should use: a fit
	// replica of primary, or primary, with the context its statements
	// must use (a replica's may be cut short). f may run twice (on a
	// replica that failed, then on the primary), so it only reads and
	// answers nothing.
	Read(ctx context.Context, primary *pgexec.Statements, scope string, f func(context.Context, *pgexec.Statements) error) error
	// Wrote records that scope's write on primary has committed; it runs
	// before the write's answer is sent.
	Wrote(ctx context.Context, primary *pgexec.Statements, scope string)
}

// read runs f, the statements of a read (get, list, aggregate, export),
// where the read router sends it: the one place that picks a replica.
// Writes, and the reads inside them, run on h.db(rt): the primary.
func (h *Handler) read(ctx context.Context, rt *Route, f func(ctx context.Context, q pgexec.Querier) error) error {
	q := h.db(rt)
	primary, ok := q.(*pgexec.Statements)
	if h.d.Replicas == nil || !ok || rt.shared { // shared answers: edgecache.go
		return f(ctx, q)
	}
	return h.d.Replicas.Read(ctx, primary, scopeOf(rt), func(ctx context.Context, s *pgexec.Statements) error { return f(ctx, s) })
}

// scopeOf names the credential whose own writes a read must see: an API
// key, an end user or the owner's dashboard (its Data page reads back
// the cell it just saved), within the project. An anonymous caller has
// none.
func scopeOf(rt *Route) string {
	switch p := rt.Principal; p.Kind {
	case access.APIKey:
		return rt.ProjectID + "/key:" + p.KeyPrefix
	case access.Dashboard:
		return rt.ProjectID + "/dashboard"
	case access.EndUser:
		return rt.ProjectID + "/user:" + fmt.Sprint(p.UserID)
	}
	return ""
}

// noteWrites makes a successful write's answer wait until its WAL
// position is recorded for its credential (ReadRouter.Wrote): the client
// can only read after it has the answer, so its next read, on any node,
// finds the position. Every write path commits before it answers.
func (h *Handler) noteWrites(sw *statusWriter, r *http.Request, rt *Route) {
	if h.d.Replicas == nil {
		return
	}
	switch r.Method {
	case http.MethodGet, http.MethodHead, http.MethodOptions:
		return
	}
	sw.beforeAnswer = func(status int) {
		if status >= 400 || rt.Entry == nil {
			return
		}
		scope := scopeOf(rt)
		if scope == "" || rt.Entry.Tables == nil {
			return
		}
		h.d.Replicas.Wrote(r.Context(), rt.Entry.Tables, scope)
	}
}
