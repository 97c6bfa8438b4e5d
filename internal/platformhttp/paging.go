package platformhttp

import (
	"net/http"
	"strconv"

	"github.com/tablesmith/tablesmith/apierr"
	"github.com/tablesmith/tablesmith/translate"
)

// newestFirst is a page request of a list read newest first: the audit
// log, a webhook's deliveries, the outbox. They take the same two
// parameters and refuse anything else, so each is read here once.
type newestFirst struct {
	Limit  int
	Before int64 // 0: the newest page
}

// readNewestFirst reads ?limit=1..most (default 50, or most when smaller)
// and ?before=<id of the last entry of the previous page>. Every problem
// of the query is named, in the contract's INVALID_QUERY envelope; what
// names the list in the messages ("the audit log").
func readNewestFirst(r *http.Request, what string, most int) (newestFirst, error) {
	page := newestFirst{Limit: min(50, most)}
	q, err := translate.ParseQueryString(r.URL.RawQuery)
	if err != nil {
		return page, apierr.New(apierr.CodeInvalidQuery, "%s", err.Error())
	}
	problems := map[string]string{}
	for name, vals := range q {
		if len(vals) != 1 {
			problems[name] = "is given more than once"
			continue
		}
		n, err := strconv.ParseInt(vals[0], 10, 64)
		switch name {
		case "limit":
			if err != nil || n < 1 || n > int64(most) {
				problems[name] = "must be a whole number from 1 to " + strconv.Itoa(most)
				continue
			}
			page.Limit = int(n)
		case "before":
			if err != nil || n < 1 {
				problems[name] = "must be the id of the last entry of the previous page"
				continue
			}
			page.Before = n
		default:
			problems[name] = "is not a parameter of " + what + "; use limit or before"
		}
	}
	if len(problems) > 0 {
		return page, apierr.Fields(apierr.CodeInvalidQuery, "Invalid query of "+what, problems)
	}
	return page, nil
}

// Ask is how many entries to read for the page: one more than it holds,
// so that cutPage can tell whether an older page exists.
func (p newestFirst) Ask() int { return p.Limit + 1 }

// cutPage cuts a list read with page.Ask() to the page and reports
// whether an older page exists (the list had the extra entry).
func cutPage[T any](page newestFirst, list []T) ([]T, bool) {
	if len(list) > page.Limit {
		return list[:page.Limit], true
	}
	return list, false
}

// BeforeMeta is the meta of a list paged by before=<id>: the outbox and a
// webhook's deliveries.
type BeforeMeta struct {
	// NextBefore is the before= of the next (older) page; null on the last.
	NextBefore *int64 `json:"next_before"`
}

// pageByID cuts a list read with page.Ask() to the page and names the
// next page by the id of the page's last (oldest) entry.
func pageByID[T any](page newestFirst, list []T, id func(T) int64) ([]T, BeforeMeta) {
	list, more := cutPage(page, list)
	var meta BeforeMeta
	if more {
		next := id(list[len(list)-1])
		meta.NextBefore = &next
	}
	return list, meta
}
