package platformhttp_test

import (
	"context"
	"fmt"
	"os"
	"strconv"
	"sync"
	"testing"
	"time"

	"github.com/tablesmith/tablesmith/internal/publish"
)

// TestMeasureMigrationLocks measures, on a table of TABLESMITH_MEASURE
// rows, how long each kind of migration takes and how long reads and
// writes of that table wait meanwhile. It backs the numbers in
// docs/schema-evolution.md and runs only when asked:
//
//	TABLESMITH_MEASURE=200000 go test -count=1 -run TestMeasureMigrationLocks -v ./internal/platformhttp/
func TestMeasureMigrationLocks(t *testing.T) {
	rows, _ := strconv.Atoi(os.Getenv("TABLESMITH_MEASURE"))
	if rows <= 0 {
		t.Skip("set TABLESMITH_MEASURE=<rows> to measure")
	}
	base := `{"name": "other", "columns": [{"name": "y", "type": "text"}]}`
	e := newEvo(t, `{"tables": [{"name": "big", "columns": [{"name": "x", "type": "text"}, {"name": "n", "type": "integer"}]}, `+base+`]}`)
	e.exec(`INSERT INTO $schema.big (x, n) SELECT 'value ' || i, i FROM generate_series(1, $1) i`, rows)
	e.exec(`ANALYZE $schema.big`)
	e.s.API(e.p, "POST", "/other", map[string]any{"y": "o"}).Must(t, 201)
	e.s.API(e.p, "GET", "/big/1", nil).Must(t, 200)

	steps := []struct{ name, doc string }{
		{"x unique + required (checks, unique index in the transaction, NOT NULL after commit)",
			`{"name": "big", "columns": [{"name": "x", "type": "text", "unique": true, "required": true}, {"name": "n", "type": "integer"}]}`},
		{"n min 0 (check NOT VALID, VALIDATE after commit)",
			`{"name": "big", "columns": [{"name": "x", "type": "text", "unique": true, "required": true}, {"name": "n", "type": "integer", "min": 0}]}`},
		{"n index (CREATE INDEX CONCURRENTLY after commit)",
			`{"name": "big", "columns": [{"name": "x", "type": "text", "unique": true, "required": true}, {"name": "n", "type": "integer", "min": 0, "index": true}]}`},
		{"n integer → decimal (table rewrite)",
			`{"name": "big", "columns": [{"name": "x", "type": "text", "unique": true, "required": true}, {"name": "n", "type": "decimal", "min": 0, "index": true}]}`},
		{"x renamed (catalog only)",
			`{"name": "big", "columns": [{"name": "label", "renamed_from": "x", "type": "text", "unique": true, "required": true}, {"name": "n", "type": "decimal", "min": 0, "index": true}]}`},
	}
	ctx := context.Background()
	for _, step := range steps {
		e.s.Do("PUT", "/api/projects/"+e.p.ID+"/schema", e.p.Session, `{"tables": [`+step.doc+`, `+base+`]}`).Must(t, 200)
		stop := make(chan struct{})
		var reads, writes, others reader
		var wg sync.WaitGroup
		readCtx, cancel := context.WithCancel(ctx)
		for _, r := range []struct {
			rd  *reader
			url string
		}{{&reads, "/big/1"}, {&others, "/other/1"}} {
			wg.Add(1)
			go func() { defer wg.Done(); r.rd.run(readCtx, e.s.URL+"/v1/"+e.p.ID+r.url, e.p.Key) }()
		}
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := 0; ; i++ {
				select {
				case <-stop:
					return
				default:
				}
				start := time.Now()
				e.exec(`UPDATE $schema.big SET updated_at = now() WHERE id = 2`)
				writes.mu.Lock()
				writes.latencies = append(writes.latencies, time.Since(start))
				writes.mu.Unlock()
				time.Sleep(5 * time.Millisecond)
			}
		}()
		time.Sleep(200 * time.Millisecond)
		start := time.Now()
		var inTx time.Duration
		res, err := publish.Generate(ctx, e.s.Svc.Store, e.p.ID, publish.Options{ConfirmDestructive: true, Committed: func(int) { e.s.Svc.Registry.Invalidate(e.p.ID) }, BeforeStatement: func(i int, _ string) error {
			if i == 0 {
				inTx = time.Since(start)
			}
			return nil
		}})
		took := time.Since(start)
		time.Sleep(200 * time.Millisecond)
		close(stop)
		cancel()
		wg.Wait()
		if err != nil {
			t.Fatalf("%s: %v", step.name, err)
		}
		e.s.Svc.Registry.Invalidate(e.p.ID)
		_, maxRead, _ := reads.summary()
		_, maxWrite, _ := writes.summary()
		_, maxOther, _ := others.summary()
		t.Logf("%d rows, %s: generate %v (first statement after %v; %d after-commit steps); slowest read of the table %v, write %v, read of another table %v",
			rows, step.name, took.Round(time.Millisecond), inTx.Round(time.Millisecond), len(res.AfterCommit),
			maxRead.Round(time.Millisecond), maxWrite.Round(time.Millisecond), maxOther.Round(time.Millisecond))
	}
	// For comparison: the same check added valid, in one statement, holds
	// ACCESS EXCLUSIVE while it scans.
	start := time.Now()
	e.exec(`ALTER TABLE $schema.big ADD CONSTRAINT measure_check CHECK (n < 1e12)`)
	t.Logf("%d rows: ADD CONSTRAINT CHECK without NOT VALID holds ACCESS EXCLUSIVE for %v", rows, time.Since(start).Round(time.Millisecond))
	start = time.Now()
	e.exec(`CREATE UNIQUE INDEX measure_idx ON $schema.big (label)`)
	t.Logf("%d rows: CREATE UNIQUE INDEX (SHARE lock: reads go on, writes wait) takes %v", rows, time.Since(start).Round(time.Millisecond))
	fmt.Fprint(os.Stderr)
}
