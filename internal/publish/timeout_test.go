package publish_test

import (
	"context"
	"testing"
	"time"

	"github.com/tablesmith/tablesmith/internal/service"
	"github.com/tablesmith/tablesmith/internal/testserver"
)

func TestTheControlPoolEndsStatementsAtTheDeadlineButAGenerateMayTakeLonger(t *testing.T) {
	// The project is set up by a service with the default deadline, so that
	// a busy machine cannot fail the setup; only the steps under test run
	// on a second service, on the same database, with a tight one.
	setup := testserver.New(t)
	p := setup.NewProject(itemsV1)
	setup.Do("PUT", "/api/projects/"+p.ID+"/schema", p.Session, `{"tables": [{"name": "items", "columns": [{"name": "title", "type": "text"}, {"name": "score", "type": "integer"}, {"name": "extra", "type": "text"}]}]}`).Must(t, 200)

	// One second: what the generate request does besides its migration
	// (a session check, reading the draft) takes milliseconds, a hundred
	// times less, even on a loaded machine.
	const deadline = time.Second
	s := setup.Beside(testserver.WithConfig(func(c *service.Config) { c.RequestTimeout = deadline }))
	ctx := context.Background()

	// PostgreSQL itself ends an ordinary statement of the control pool.
	var shown string
	if err := s.Svc.DB.QueryRowContext(ctx, `SHOW statement_timeout`).Scan(&shown); err != nil || shown != "1s" {
		t.Fatalf("statement_timeout of the control pool = %q (%v), want 1s", shown, err)
	}
	if _, err := s.Svc.DB.ExecContext(ctx, `SELECT pg_sleep(3)`); err == nil {
		t.Fatal("a 3 s statement on the control pool outlived the 1 s statement_timeout")
	}

	// A generate whose schema change waits three deadlines on a lock the
	// test holds still goes through: its migration lifts the timeout.
	tx, err := s.Svc.DB.BeginTx(ctx, nil)
	if err != nil {
		t.Fatal(err)
	}
	exec(t, tx, `LOCK TABLE `+rel(p)+` IN ACCESS SHARE MODE`)
	time.AfterFunc(3*deadline, func() { _ = tx.Rollback() })
	s.Do("POST", "/api/projects/"+p.ID+"/generate", p.Session, map[string]any{"confirm_destructive": true}).Must(t, 200)

	// The lifted timeout does not stay with the pool's connections.
	for range 5 {
		if err := s.Svc.DB.QueryRowContext(ctx, `SHOW statement_timeout`).Scan(&shown); err != nil || shown != "1s" {
			t.Fatalf("after the generate a control connection has statement_timeout %q (%v)", shown, err)
		}
	}
}
