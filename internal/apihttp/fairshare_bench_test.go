package apihttp

import (
	"context"
	"net/http"
	"net/http/httptest"
	"testing"
	"time"

	"github.com/tablesmith/tablesmith/internal/fairshare"
)

// BenchmarkStatementsWrapper is what the fair share adds to every table
// request around its statements: the gate alone, and the gate with the
// plan's timeout (a context with a deadline, made and cancelled).
func BenchmarkStatementsWrapper(b *testing.B) {
	// net/http gives each request a cancellable context.
	reqCtx, cancel := context.WithCancel(context.Background())
	defer cancel()
	r := httptest.NewRequest("GET", "/v1/p1234567/items/1", nil).WithContext(reqCtx)
	soon, cancelSoon := context.WithTimeout(reqCtx, time.Second)
	defer cancelSoon()
	rSoon := r.WithContext(soon)
	w := httptest.NewRecorder()
	noop := func(context.Context) error { return nil }
	for _, c := range []struct {
		name    string
		r       *http.Request
		timeout time.Duration
	}{
		{"gate", r, 0},
		{"gate_and_timeout", r, 5 * time.Second},
		// A request deadline sooner than the plan's: no context of our own.
		{"gate_and_timeout_behind_request_deadline", rSoon, 5 * time.Second},
	} {
		b.Run(c.name, func(b *testing.B) {
			h := New(Deps{Gate: fairshare.New(5, 0, 0)})
			rt := &Route{ProjectID: "p1234567", statementTimeout: c.timeout}
			b.ReportAllocs()
			for b.Loop() {
				if err := h.statements(w, c.r, rt, noop); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}
