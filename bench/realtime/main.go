// Command realtime measures what realtime capture costs a table's writes
// (issue 21 item 6): the insert rate of a realtime table against the same
// table without it, both driven by pgbench (prepared single-row inserts,
// 8 clients) on the local PostgreSQL, alternating rounds, while the
// sequencer numbers the captured changes every 100 ms as a node with
// subscribers would. The capture's objects come from schema.DDL, so this
// measures what generate creates.
//
//	go run ./bench/realtime [-rounds 3] [-d 10s] [-c 8]
package main

import (
	"context"
	"database/sql"
	"flag"
	"fmt"
	"log"
	"os"
	"os/exec"
	"regexp"
	"slices"
	"strconv"
	"time"

	_ "github.com/lib/pq"

	"github.com/tablesmith/tablesmith/internal/events"
	"github.com/tablesmith/tablesmith/schema"
)

func main() {
	rounds := flag.Int("rounds", 3, "rounds of each table")
	d := flag.Duration("d", 10*time.Second, "length of one pgbench run")
	clients := flag.Int("c", 8, "pgbench clients")
	noSequencer := flag.Bool("no-sequencer", false, "measure the capture alone")
	flag.Parse()
	url := os.Getenv("TABLESMITH_TEST_DATABASE_URL")
	if url == "" {
		url = "postgres://postgres@127.0.0.1:5432/postgres?sslmode=disable"
	}
	db, err := sql.Open("postgres", url)
	if err != nil {
		log.Fatal(err)
	}
	defer db.Close()
	ctx := context.Background()
	g := schema.DDL{Schema: "p_rtbench" + strconv.FormatInt(time.Now().Unix()%100000, 10)}
	q := schema.QuoteIdent(g.Schema)
	setup := []string{"CREATE SCHEMA " + q}
	for _, t := range []string{"plain", "live"} {
		setup = append(setup, "CREATE TABLE "+q+"."+t+` (id bigint GENERATED ALWAYS AS IDENTITY PRIMARY KEY, title text NOT NULL,
			n bigint, created_at timestamptz NOT NULL DEFAULT now(), updated_at timestamptz NOT NULL DEFAULT now())`)
	}
	setup = append(setup, g.RealtimeSetup()...)
	setup = append(setup, g.RealtimeOn("live")...)
	for _, s := range setup {
		if _, err := db.ExecContext(ctx, s); err != nil {
			log.Fatalf("%s: %v", s, err)
		}
	}
	defer db.ExecContext(ctx, "DROP SCHEMA "+q+" CASCADE") //nolint:errcheck

	// The sequencer of a node with subscribers of the project.
	stop := make(chan struct{})
	numbered := make(chan int64, 1)
	go func() {
		var last int64
		t := time.NewTicker(100 * time.Millisecond)
		defer t.Stop()
		for {
			select {
			case <-stop:
				numbered <- last
				return
			case <-t.C:
				if *noSequencer {
					continue
				}
				var head sql.NullInt64
				var n sql.NullString
				if err := db.QueryRowContext(ctx, g.RealtimeSequence(), g.Schema, events.Channel+"_bench", "bench").Scan(&head, &n); err != nil {
					log.Fatal(err)
				}
				if head.Valid {
					last = head.Int64
				}
			}
		}
	}()

	tps := map[string][]float64{}
	for r := 0; r < *rounds; r++ {
		for _, t := range []string{"plain", "live"} {
			v := pgbench(url, g.Schema, t, *clients, *d)
			tps[t] = append(tps[t], v)
			fmt.Printf("round %d %-5s %8.0f inserts/s\n", r+1, t, v)
		}
	}
	close(stop)
	last := <-numbered
	var unnumbered int64
	if err := db.QueryRowContext(ctx, `SELECT count(*) FROM `+q+`."_realtime_pending"`).Scan(&unnumbered); err != nil {
		log.Fatal(err)
	}
	p, l := median(tps["plain"]), median(tps["live"])
	fmt.Printf("\nmedian: plain %.0f/s, realtime %.0f/s, ratio %.2f (target >= 0.85); last number given %d, %d changes left to number\n",
		p, l, l/p, last, unnumbered)
}

var tpsRe = regexp.MustCompile(`tps = ([0-9.]+) \(without initial connection time\)`)

// pgbench runs single-row prepared inserts into table and returns the rate.
func pgbench(url, schemaName, table string, clients int, d time.Duration) float64 {
	script, err := os.CreateTemp("", "rt-*.sql")
	if err != nil {
		log.Fatal(err)
	}
	defer os.Remove(script.Name())
	fmt.Fprintf(script, "INSERT INTO %s.%s (title, n) VALUES ('a title of some length', 42) RETURNING *;\n", schema.QuoteIdent(schemaName), table)
	script.Close()
	out, err := exec.Command("pgbench", "-n", "-M", "prepared", "-c", strconv.Itoa(clients), "-j", "2",
		"-T", strconv.Itoa(int(d.Seconds())), "-f", script.Name(), url).CombinedOutput()
	if err != nil {
		log.Fatalf("pgbench: %v\n%s", err, out)
	}
	m := tpsRe.FindSubmatch(out)
	if m == nil {
		log.Fatalf("pgbench said:\n%s", out)
	}
	v, _ := strconv.ParseFloat(string(m[1]), 64)
	return v
}

func median(v []float64) float64 {
	s := slices.Clone(v)
	slices.Sort(s)
	return s[len(s)/2]
}
