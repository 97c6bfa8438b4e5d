//go:build bench

package bench

import (
	"context"
	"database/sql"
	"fmt"
	"net/http"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/tablesmith/tablesmith/internal/move"
	"github.com/tablesmith/tablesmith/internal/service"
	"github.com/tablesmith/tablesmith/internal/testpg"
	"github.com/tablesmith/tablesmith/internal/testserver"
	"github.com/tablesmith/tablesmith/schema"
)

// TestMoveProjectPause measures move-project (issue 22 item 4): how long
// a project's writes pause while its tables move between two data
// servers, for 10,000 and 100,000 rows, with 8 clients reading and 2
// writing through the node all along: reads that failed (none may), and
// writes answered 503 (the pause) or failing otherwise (none may). Run:
//
//	go test -tags bench -run TestMoveProjectPause -v -timeout 20m ./bench/
func TestMoveProjectPause(t *testing.T) {
	for _, rows := range []int{10000, 100000} {
		t.Run(fmt.Sprint(rows), func(t *testing.T) { measureMove(t, rows) })
	}
}

func measureMove(t *testing.T, rows int) {
	control, a, b := testpg.NewDatabase(t), testpg.NewDatabase(t), testpg.NewDatabase(t)
	s := testserver.New(t, testserver.WithConfig(func(cfg *service.Config) {
		cfg.DatabaseURL = control
		cfg.DataServers = []service.DataServer{{Name: "a", URL: a}, {Name: "b", URL: b}}
	}))
	p := s.NewProject(`{"tables": [{"name": "items", "columns": [
		{"name": "name", "type": "text", "required": true},
		{"name": "price", "type": "decimal"},
		{"name": "stock", "type": "integer", "index": true}]}]}`)
	db, err := sql.Open("postgres", a)
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	if _, err := db.Exec(`INSERT INTO `+schema.ProjectSchema(p.ID)+`.items (name, price, stock)
		SELECT 'item ' || i, (i % 1000) / 10.0, i % 97 FROM generate_series(1, $1) i`, rows); err != nil {
		t.Fatal(err)
	}

	var reads, readFailures, writes, paused, writeFailures atomic.Int64
	stop := make(chan struct{})
	var wg sync.WaitGroup
	client := func(write bool) {
		defer wg.Done()
		for {
			select {
			case <-stop:
				return
			default:
			}
			if write {
				r := s.API(p, "POST", "/items", map[string]any{"name": "w", "stock": 1})
				switch r.Status {
				case http.StatusCreated:
					writes.Add(1)
				case http.StatusServiceUnavailable:
					paused.Add(1)
					time.Sleep(100 * time.Millisecond)
				default:
					writeFailures.Add(1)
				}
				continue
			}
			if r := s.API(p, "GET", "/items?filter[stock]=5&limit=20&count=none", nil); r.Status == http.StatusOK {
				reads.Add(1)
			} else {
				readFailures.Add(1)
			}
		}
	}
	for i := range 10 {
		wg.Add(1)
		go client(i < 2)
	}
	time.Sleep(time.Second)
	start := time.Now()
	res, err := move.Project(context.Background(), s.Svc.Store, p.ID, "b", move.Options{})
	took := time.Since(start)
	time.Sleep(time.Second)
	close(stop)
	wg.Wait()
	if err != nil {
		t.Fatal(err)
	}
	t.Logf("%d rows: move %s, writes paused %s (of which the 0.5 s grace), %.0f rows/s copied; during the run: %d reads, %d failed reads, %d writes, %d answered 503 (pause), %d failed writes",
		rows, took.Round(time.Millisecond), res.Paused.Round(time.Millisecond), float64(res.Rows["items"])/(res.Paused-500*time.Millisecond).Seconds(),
		reads.Load(), readFailures.Load(), writes.Load(), paused.Load(), writeFailures.Load())
	if readFailures.Load() > 0 || writeFailures.Load() > 0 {
		t.Fatalf("%d reads and %d writes failed", readFailures.Load(), writeFailures.Load())
	}
}
