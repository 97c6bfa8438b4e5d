package apihttp

import (
	"net/http"
	"strconv"
	"time"

	"github.com/tablesmith/tablesmith/internal/cache"
	"github.com/tablesmith/tablesmith/translate"
)

// A list's statement is built once per query string and kept: parsing the
// query and building the statement cost a list more than its envelope
// (bench/RESULTS.md), and a front end asks for the same few lists over and
// over. The key holds everything the statement depends on: the project's
// published version, the table, who asks (kind, key, scope) and the raw
// query string. Lists of end users, whose statements carry their own id
// or rows, are built every time. Entries expire after listPlanTTL, so
// those of a replaced version do not stay.
const (
	listPlanTTL     = time.Minute
	listPlanEntries = 2000
)

// listPlan is a parsed and built list.
type listPlan struct {
	count string // the query's count mode
	ls    *translate.ListSQL
}

func newListPlans() *cache.Cache[listPlan] {
	return cache.New[listPlan](cache.Options{TTL: listPlanTTL, MaxEntries: listPlanEntries})
}

// listPlanKey is the plan cache's key of a list request, and false when
// the list is not kept.
func listPlanKey(r *http.Request, rt *Route, c *tableCall) (string, bool) {
	p := rt.Principal
	if p.UserID != nil || !c.grant.Rows.All() {
		return "", false
	}
	scope := "w"
	if p.ReadOnly {
		scope = "r"
	}
	return rt.ProjectID + "\x00" + strconv.Itoa(rt.Entry.Version) + "\x00" + c.t.Name + "\x00" +
		strconv.Itoa(int(p.Kind)) + scope + p.KeyPrefix + "\x00" + r.URL.RawQuery, true
}

// planList returns the list a request asks for: the kept one, or one
// parsed and built now (and kept when listPlanKey allows).
func (h *Handler) planList(r *http.Request, rt *Route, c *tableCall) (listPlan, error) {
	key, keep := listPlanKey(r, rt, c)
	if keep {
		if p, ok := h.lists.Lookup(key, rt.Start); ok {
			return p, nil
		}
	}
	q, err := translate.ParseListUpTo(c.req.Query, h.d.MaxPageSize)
	if err != nil {
		return listPlan{}, PlannerError(err)
	}
	q.Caller, q.Rows = rt.Principal, c.grant.Rows
	ls, err := translate.BuildList(c.pub, c.t, q)
	if err != nil {
		return listPlan{}, PlannerError(err)
	}
	p := listPlan{count: q.Count, ls: ls}
	if keep {
		h.lists.Store(key, p, rt.Start)
	}
	return p, nil
}
