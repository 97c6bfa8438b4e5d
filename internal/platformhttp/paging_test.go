package platformhttp

import (
	"errors"
	"net/http/httptest"
	"testing"

	"github.com/tablesmith/tablesmith/apierr"
)

func TestANewestFirstPageTakesLimitAndBeforeAndNamesEveryOtherProblem(t *testing.T) {
	read := func(query string) (newestFirst, *apierr.Error) {
		t.Helper()
		page, err := readNewestFirst(httptest.NewRequest("GET", "/x?"+query, nil), "the outbox", 100)
		var api *apierr.Error
		if err != nil && !errors.As(err, &api) {
			t.Fatalf("%s: %v is not the contract's error", query, err)
		}
		return page, api
	}
	if page, err := read(""); err != nil || page != (newestFirst{Limit: 50}) {
		t.Fatalf("no parameters: %+v %v, want the newest 50", page, err)
	}
	if page, err := read("limit=100&before=7"); err != nil || page != (newestFirst{Limit: 100, Before: 7}) {
		t.Fatalf("limit=100&before=7: %+v %v", page, err)
	}
	if page, _ := readNewestFirst(httptest.NewRequest("GET", "/x", nil), "x", 20); page.Limit != 20 {
		t.Fatalf("a list of at most 20 starts at %d", page.Limit)
	}
	for query, field := range map[string]string{
		"limit=0": "limit", "limit=101": "limit", "limit=ten": "limit", "before=0": "before",
		"before=x": "before", "limit=1&limit=2": "limit", "page=2": "page", "limit=5&status=sent": "status",
		"before=1;x": "",
	} {
		_, err := read(query)
		if err == nil || err.Code != apierr.CodeInvalidQuery {
			t.Errorf("%s: %v, want INVALID_QUERY", query, err)
			continue
		}
		if field != "" && err.Details[field] == "" {
			t.Errorf("%s: the error names %v, want %s", query, err.Details, field)
		}
	}
}
