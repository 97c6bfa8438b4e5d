package publish_test

import (
	"context"
	"testing"
	"time"

	"github.com/tablesmith/tablesmith/internal/service"
	"github.com/tablesmith/tablesmith/internal/testserver"
)

func TestTheControlPoolEndsStatementsAtTheDeadlineButAGenerateMayTakeLonger(t *testing.T) {
	const deadline = 300 * time.Millisecond
	s := testserver.New(t, testserver.WithConfig(func(c *service.Config) { c.RequestTimeout = deadline }))
	ctx := context.Background()

	// PostgreSQL itself ends an ordinary statement of the control pool.
	var shown string
	if err := s.Svc.DB.QueryRowContext(ctx, `SHOW statement_timeout`).Scan(&shown); err != nil || shown != "300ms" {
		t.Fatalf("statement_timeout of the control pool = %q (%v), want 300ms", shown, err)
	}
	if _, err := s.Svc.DB.ExecContext(ctx, `SELECT pg_sleep(1)`); err == nil {
		t.Fatal("a 1 s statement on the control pool outlived the 300 ms statement_timeout")
	}

	// A generate whose schema change waits past that on a lock the test
	// holds still goes through: its migration lifts the timeout.
	p := s.NewProject(itemsV1)
	tx, err := s.Svc.DB.BeginTx(ctx, nil)
	if err != nil {
		t.Fatal(err)
	}
	exec(t, tx, `LOCK TABLE `+rel(p)+` IN ACCESS SHARE MODE`)
	time.AfterFunc(time.Second, func() { _ = tx.Rollback() })
	s.Publish(p.Session, p.ID, `{"tables": [{"name": "items", "columns": [{"name": "title", "type": "text"}, {"name": "score", "type": "integer"}, {"name": "extra", "type": "text"}]}]}`).Must(t, 200)

	// The lifted timeout does not stay with the pool's connections.
	for range 5 {
		if err := s.Svc.DB.QueryRowContext(ctx, `SHOW statement_timeout`).Scan(&shown); err != nil || shown != "300ms" {
			t.Fatalf("after the generate a control connection has statement_timeout %q (%v)", shown, err)
		}
	}
}
