package apihttp

import (
	"context"
	"net/http"
	"time"

	"github.com/tablesmith/tablesmith/access"
	"github.com/tablesmith/tablesmith/internal/edgecache"
	"github.com/tablesmith/tablesmith/translate"
)

// ChangeAnnouncer tells every node's edge cache that a committed write
// changed tables of a project (the service sends events.CacheChanged).
type ChangeAnnouncer interface {
	Changed(ctx context.Context, projectID string, tables []string)
}

// Header values shared by every answer, never written to.
var (
	valPrivate = []string{"private, no-cache"}
	valNoStore = []string{"no-store"}
)

// defaultCacheControl keeps every answer that was not made shareable
// (shareRead) out of shared caches: a success may stay in the client's
// own cache and be revalidated with its ETag, an error is never stored.
// Answers that set their own Cache-Control (docs, exports, the realtime
// stream) keep it.
func defaultCacheControl(h http.Header, status int) {
	if len(h["Cache-Control"]) > 0 {
		return
	}
	if status >= http.StatusBadRequest {
		h["Cache-Control"] = valNoStore[:1:1]
		return
	}
	h["Cache-Control"] = valPrivate[:1:1]
}

// markShared notes, before a read of ts runs, whether its answer is for
// shared caches: a read that anyone could have made (no credential) of a
// table with a cache lifetime. Such a read runs on the primary: an
// answer from a replica that has not caught up with a write yet would be
// stored just after that write's purge, and served until max-age.
func markShared(rt *Route, ts *translate.TableSQL) {
	rt.shared = ts.CacheMaxAge > 0 && rt.Principal.Kind == access.Anonymous
}

// shareRead lets shared caches keep a read that markShared marked:
// Cache-Control public with the table's max-age, a Surrogate-Key per
// table the answer reads (so that a write to any of them purges it) and
// Vary: Authorization (so the stored answer is never handed to a request
// that carries a credential, whose answer may differ: read-your-writes,
// rate-limit headers).
func shareRead(h http.Header, rt *Route, ts *translate.TableSQL, reads []string) {
	if !rt.shared {
		return
	}
	h["Cache-Control"] = ts.CacheControl[:1:1]
	h["Surrogate-Key"] = []string{edgecache.Header(rt.ProjectID, reads)}
	h["Vary"] = append(h["Vary"], "Authorization")
}

// announceTimeout bounds the announcement of a write; it does not follow
// the request, so a client that leaves cannot keep it from every node.
const announceTimeout = 2 * time.Second

// announceWrites makes a successful write's answer wait until its change
// is announced to every node's edge cache: by the time the client can
// read again, the purge is on its way (on this node it arrives within
// milliseconds, see docs/edge-cache.md). The tables are the written one
// and, for a delete, those it reaches through cascades and set null,
// computed at publish. Projects without
// a cached table announce nothing: no answer of theirs is shared.
func (h *Handler) announceWrites(sw *statusWriter, r *http.Request, rt *Route) {
	if h.d.CacheChanges == nil {
		return
	}
	switch r.Method {
	case http.MethodGet, http.MethodHead, http.MethodOptions:
		return
	}
	next := sw.beforeAnswer
	sw.beforeAnswer = func(status int) {
		if next != nil {
			next(status)
		}
		if status >= http.StatusBadRequest || rt.Entry == nil || rt.Entry.Published == nil || !rt.Entry.Published.Cached {
			return
		}
		pub := rt.Entry.Published
		table := rt.Table
		if table == "auth" && pub.Compiled.Auth != nil { // register and login write the auth table
			table = pub.Compiled.Auth.Name
		}
		ts, ok := pub.Tables[table]
		if !ok {
			return
		}
		changed := ts.Changes
		if r.Method != http.MethodDelete {
			changed = changed[:1] // only deletes reach other tables (cascade, set null)
		}
		ctx, cancel := context.WithTimeout(context.WithoutCancel(r.Context()), announceTimeout)
		defer cancel()
		h.d.CacheChanges.Changed(ctx, rt.ProjectID, changed)
	}
}
