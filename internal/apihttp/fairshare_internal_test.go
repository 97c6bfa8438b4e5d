package apihttp

import (
	"context"
	"errors"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	"github.com/tablesmith/tablesmith/apierr"
)

// TestOnlyAStatementCutByThePlansTimeoutIsReportedAsThePlans: a request
// whose own deadline or client ends it keeps its own error, for the
// generic mapping; only the plan's deadline gives the plan's message.
func TestOnlyAStatementCutByThePlansTimeoutIsReportedAsThePlans(t *testing.T) {
	// waits stands for a statement that runs until its context ends.
	waits := func(ctx context.Context) error {
		<-ctx.Done()
		return ctx.Err()
	}
	run := func(ctx context.Context, plan time.Duration) error {
		h := New(Deps{})
		rt := &Route{ProjectID: "p1", statementTimeout: plan}
		return h.statements(httptest.NewRecorder(), httptest.NewRequest("GET", "/", nil).WithContext(ctx), rt, waits)
	}

	err := run(context.Background(), 20*time.Millisecond)
	if e := apierr.As(err); e.Code != apierr.CodeUnavailable || !strings.Contains(e.Message, "20ms its plan allows") {
		t.Fatalf("cut by the plan: %v", err)
	}

	soon, cancel := context.WithTimeout(context.Background(), 20*time.Millisecond)
	defer cancel()
	if err := run(soon, time.Minute); !errors.Is(err, context.DeadlineExceeded) {
		t.Fatalf("cut by the request's own deadline: %v, want its context error", err)
	}

	gone, leave := context.WithCancel(context.Background())
	time.AfterFunc(20*time.Millisecond, leave)
	if err := run(gone, time.Minute); !errors.Is(err, context.Canceled) {
		t.Fatalf("client went away: %v, want context.Canceled", err)
	}
}
