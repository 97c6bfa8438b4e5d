package envelope

import (
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	"github.com/tablesmith/tablesmith/apierr"
)

func TestAppendStringWritesWhatMarshalWrites(t *testing.T) {
	for _, s := range []string{"Record retrieved successfully", `a "quoted" <b> & c\d`, "tab\tnew\nline", "naïve ☃", "bad \xff utf-8", "\u2028"} {
		want, _ := json.Marshal(s)
		if got := appendString(nil, s); string(got) != string(want) {
			t.Errorf("appendString(%q) = %s, json.Marshal = %s", s, got, want)
		}
	}
}

func TestAnUnavailableErrorIs503WithRetryAfterUnlessTheHandlerSetOne(t *testing.T) {
	w := httptest.NewRecorder()
	WriteError(w, fmt.Errorf("load: %w", context.DeadlineExceeded))
	if w.Code != 503 || w.Header().Get("Retry-After") != RetryAfterUnavailable || !strings.Contains(w.Body.String(), `"SERVICE_UNAVAILABLE"`) {
		t.Errorf("deadline: %d %s Retry-After %q, want 503 SERVICE_UNAVAILABLE with Retry-After %s", w.Code, w.Body, w.Header().Get("Retry-After"), RetryAfterUnavailable)
	}
	w = httptest.NewRecorder()
	w.Header().Set("Retry-After", "1")
	WriteError(w, apierr.New(apierr.CodeUnavailable, "x"))
	if w.Header().Get("Retry-After") != "1" {
		t.Errorf("a Retry-After set by the handler was replaced: %q", w.Header().Get("Retry-After"))
	}
}

func TestEveryCodeHasItsStatus(t *testing.T) {
	for code, want := range map[string]int{apierr.CodeValidation: 400, apierr.CodeInvalidQuery: 400, apierr.CodeUnauthorized: 401,
		apierr.CodeForbidden: 403, apierr.CodeNotFound: 404, apierr.CodeConflict: 409, apierr.CodeIdempotencyReused: 422,
		apierr.CodeRateLimited: 429, apierr.CodeInternal: 500, apierr.CodeUnavailable: 503, "NO_SUCH_CODE": 500} {
		if got := Status(code); got != want {
			t.Errorf("Status(%s) = %d, want %d", code, got, want)
		}
	}
}

func TestAnErrorsOwnRetryAfterIsWrittenInWholeSecondsRoundedUp(t *testing.T) {
	for d, want := range map[time.Duration]string{time.Second: "1", 1500 * time.Millisecond: "2", 30 * time.Second: "30"} {
		e := apierr.New(apierr.CodeUnavailable, "busy")
		e.RetryAfter = d
		w := httptest.NewRecorder()
		WriteError(w, fmt.Errorf("wrapped: %w", e))
		if got := w.Header().Get("Retry-After"); got != want || w.Code != 503 {
			t.Errorf("RetryAfter %v: %d Retry-After %q, want 503 and %q", d, w.Code, got, want)
		}
	}
}

// discardBody takes a whole answer and keeps nothing.
type discardBody struct{ h http.Header }

func (d *discardBody) Header() http.Header         { return d.h }
func (d *discardBody) Write(b []byte) (int, error) { return len(b), nil }
func (d *discardBody) WriteHeader(int)             {}
func (d *discardBody) WriteBody(int, []byte)       {}

type fixedMeta string

func (m fixedMeta) AppendJSON(b []byte) []byte { return append(b, m...) }

// A page goes into its envelope with one allocation: the buffer has room
// for the wrapper, the meta object and the newline, so no append grows it
// (and copies the page again).
func TestAPageIsCopiedIntoItsEnvelopeOnce(t *testing.T) {
	page := []byte(`[` + strings.Repeat(`{"id":1,"name":"a record of a page"},`, 200) + `{"id":2}]`)
	meta := fixedMeta(`{"page":1,"limit":20,"offset":0,"total":10001,"total_pages":501,"total_estimated":true,"next_cursor":"eyJ2IjoxLCJzIjoiYWJjZGVmIiwiayI6WzgwLDk5NjE2XX0"}`)
	w := &discardBody{h: http.Header{}}
	allocs := testing.AllocsPerRun(50, func() {
		Write(w, http.StatusOK, Success{RawData: page, Meta: meta, Message: "Records retrieved"})
	})
	if allocs > 1 {
		t.Fatalf("%v allocations per envelope, want 1", allocs)
	}
}
