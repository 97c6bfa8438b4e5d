package apihttp

import (
	"strconv"
	"time"

	"github.com/tablesmith/tablesmith/internal/cache"
	"github.com/tablesmith/tablesmith/translate"
)

// Estimated totals are remembered for a short while. A list's default
// count (count=estimated) counts up to ExactCountCap matching rows and
// gives the planner's estimate above that: on a big result every request
// would count 10,001 rows, far more than reading its page, only to answer
// an estimate. Once a list's rows (table, conditions, values and row scope:
// translate.ListSQL.CountKey) have been found past the cap, the lists of
// the same rows within estimateMemoTTL run without the count and report
// the remembered estimate, still flagged total_estimated. Totals at or
// under the cap are exact and never remembered.
const (
	estimateMemoTTL     = 10 * time.Second
	estimateMemoEntries = 10000
)

func newEstimateMemo() *cache.Cache[int64] {
	return cache.New[int64](cache.Options{TTL: estimateMemoTTL, MaxEntries: estimateMemoEntries})
}

// estimateKey is the memo's key of a list: the project's version and the
// rows it counts.
func estimateKey(rt *Route, ls *translate.ListSQL) string {
	return rt.ProjectID + "\x00" + strconv.Itoa(rt.Entry.Version) + "\x00" + ls.CountKey()
}

// rememberedEstimate returns the list to run and, when its total is
// remembered, that total: the same list without its count.
func (h *Handler) rememberedEstimate(rt *Route, countMode string, ls *translate.ListSQL) (*translate.ListSQL, int64, bool) {
	if countMode != translate.CountEstimated {
		return ls, 0, false
	}
	total, ok := h.estimates.Lookup(estimateKey(rt, ls), rt.Start)
	if !ok {
		return ls, 0, false
	}
	return ls.Uncounted(), total, true
}

// rememberEstimate keeps a total that passed the cap.
func (h *Handler) rememberEstimate(rt *Route, ls *translate.ListSQL, meta translate.Meta) {
	if total, ok := meta.EstimatedTotal(); ok {
		h.estimates.Store(estimateKey(rt, ls), total, rt.Start)
	}
}
