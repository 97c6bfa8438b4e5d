//go:build bench

package bench

import (
	"bufio"
	"bytes"
	"context"
	"encoding/csv"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"os"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"

	"github.com/tablesmith/tablesmith/internal/testpg"
	"github.com/tablesmith/tablesmith/internal/testserver"
	"github.com/tablesmith/tablesmith/schema"
)

// growthSchema is the table of the growth benchmark: two indexed
// columns to filter and sort by, two plain ones.
const growthSchema = `{"tables": [{"name": "events", "columns": [
	{"name": "title", "type": "text"},
	{"name": "category", "type": "enum", "values": ["red", "green", "blue", "black"], "index": true},
	{"name": "score", "type": "integer", "index": true},
	{"name": "amount", "type": "number"}]}]}`

// growthRows is the large table's size: 10,000,000 (issue 38.3), or
// TABLESMITH_BENCH_GROWTH_ROWS for a quicker try.
func growthRows(t *testing.T) int {
	if v := os.Getenv("TABLESMITH_BENCH_GROWTH_ROWS"); v != "" {
		n, err := strconv.Atoi(v)
		if err != nil || n < 200_000 {
			t.Fatalf("TABLESMITH_BENCH_GROWTH_ROWS=%q: want a number of at least 200000", v)
		}
		return n
	}
	return 10_000_000
}

// seedGrowth fills a project's events with n rows, a million per
// statement, and refreshes the statistics.
func seedGrowth(t *testing.T, p *testserver.Project, n int) {
	t.Helper()
	sch := schema.QuoteIdent(schema.ProjectSchema(p.ID))
	ctx := context.Background()
	// A connection of its own: the service's pools end a statement at
	// the request timeout, and a million rows take longer.
	conn, err := pgx.Connect(ctx, testpg.URL(t))
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close(ctx)
	start := time.Now()
	for from := 1; from <= n; from += 1_000_000 {
		to := min(from+999_999, n)
		if _, err := conn.Exec(ctx, `INSERT INTO `+sch+`.events (title, category, score, amount)
			SELECT 'event number ' || g, (ARRAY['red', 'green', 'blue', 'black'])[g % 4 + 1],
			       ((g::bigint * 7919) % 100000)::int, (g % 997) * 1.5
			FROM generate_series($1::int, $2::int) g`, from, to); err != nil {
			t.Fatal(err)
		}
	}
	// The statistics, then the seed's dirty pages written out, so that
	// a spread checkpoint does not write them during the measurements.
	for _, stmt := range []string{`VACUUM ANALYZE ` + sch + `.events`, `CHECKPOINT`} {
		if _, err := conn.Exec(ctx, stmt); err != nil {
			t.Fatal(err)
		}
	}
	t.Logf("seeded %d rows in %v", n, time.Since(start).Round(time.Second))
}

// growthClient reads a project's API and times what it reads.
type growthClient struct {
	t   *testing.T
	s   *testserver.Server
	p   *testserver.Project
	hc  *http.Client
	url string
}

func newGrowthClient(t *testing.T, s *testserver.Server, p *testserver.Project) *growthClient {
	return &growthClient{t: t, s: s, p: p, hc: &http.Client{Transport: &http.Transport{MaxIdleConnsPerHost: 4}},
		url: s.URL + "/v1/" + p.ID + "/events"}
}

// do sends one request, with headers given as name, value pairs, and
// returns its status, body and time to the last byte.
func (c *growthClient) do(method, path string, body []byte, headers ...string) (int, []byte, time.Duration) {
	c.t.Helper()
	req, err := http.NewRequest(method, c.url+path, bytes.NewReader(body))
	if err != nil {
		c.t.Fatal(err)
	}
	req.Header.Set("Authorization", "Bearer "+c.p.Key)
	for i := 0; i+1 < len(headers); i += 2 {
		req.Header.Set(headers[i], headers[i+1])
	}
	if body != nil {
		req.Header.Set("Content-Type", "application/json")
	}
	start := time.Now()
	res, err := c.hc.Do(req)
	if err != nil {
		c.t.Fatal(err)
	}
	out, err := io.ReadAll(res.Body)
	res.Body.Close()
	if err != nil {
		c.t.Fatal(err)
	}
	return res.StatusCode, out, time.Since(start)
}

// median GETs path n times after a warm-up (prepared statements, generic
// plans, the buffer cache) and returns the median time and the last body.
func (c *growthClient) median(path string, n int) (time.Duration, []byte) {
	c.t.Helper()
	var body []byte
	for i := 0; i < min(n/5+1, 10); i++ {
		c.get(path)
	}
	ds := make([]time.Duration, n)
	for i := range ds {
		body, ds[i] = c.get(path)
	}
	slices.Sort(ds)
	return ds[n/2], body
}

func (c *growthClient) get(path string) ([]byte, time.Duration) {
	c.t.Helper()
	status, body, d := c.do("GET", path, nil)
	if status != 200 {
		c.t.Fatalf("GET %s: %d %.300s", path, status, body)
	}
	return body, d
}

// interleaved times the same request on two tables in turns, ten of
// each per round over five rounds, so that a drift of the machine's
// speed meets both alike; it returns both medians and b's last body.
func interleaved(a, b *growthClient, path string) (time.Duration, time.Duration, []byte) {
	for range 5 { // warm: prepared statements, generic plans, the cache
		a.get(path)
		b.get(path)
	}
	var da, db []time.Duration
	var body []byte
	for range 5 {
		for range 10 {
			_, d := a.get(path)
			da = append(da, d)
			var d2 time.Duration
			body, d2 = b.get(path)
			db = append(db, d2)
		}
	}
	slices.Sort(da)
	slices.Sort(db)
	return da[len(da)/2], db[len(db)/2], body
}

// medianSQL runs query n times after a warm-up and returns the median.
func medianSQL(t *testing.T, s *testserver.Server, n int, query string) time.Duration {
	t.Helper()
	ctx := context.Background()
	run := func() time.Duration {
		start := time.Now()
		rows, err := s.Svc.DB.QueryContext(ctx, query)
		if err != nil {
			t.Fatal(err)
		}
		for rows.Next() {
		}
		if err := rows.Err(); err != nil {
			t.Fatal(err)
		}
		rows.Close()
		return time.Since(start)
	}
	run()
	ds := make([]time.Duration, n)
	for i := range ds {
		ds[i] = run()
	}
	slices.Sort(ds)
	return ds[n/2]
}

func ms(d time.Duration) string { return fmt.Sprintf("%.2f ms", float64(d.Microseconds())/1000) }

// TestCostStaysFlatAsTheTableGrows (issue 38.3) times, through the whole
// HTTP pipeline, what a client does with a table of 100,000 rows and of
// 10,000,000, each beside its SQL baseline, and prints one line per
// figure. It asserts only what must hold however fast the machine is
// (every answer right, an export's memory flat); the ratios are the
// figures bench/RESULTS.md records. Run:
//
//	go test -tags bench -run TestCostStaysFlat -v -timeout 60m ./bench/
func TestCostStaysFlatAsTheTableGrows(t *testing.T) {
	big := growthRows(t)
	const small = 100_000
	s := testserver.New(t)
	ps, pb := s.NewProject(growthSchema), s.NewProject(growthSchema)
	seedGrowth(t, ps, small)
	seedGrowth(t, pb, big)
	cs, cb := newGrowthClient(t, s, ps), newGrowthClient(t, s, pb)
	bigSchema := schema.QuoteIdent(schema.ProjectSchema(pb.ID))
	report := func(figure, target string, value float64, detail string) {
		t.Logf("%-62s %7.2f  (target %s; %s)", figure, value, target, detail)
	}

	// Keyset paging: page 10,000 of 100 (rows 999,901-1,000,000) by the
	// cursor that page 9,999 names, against page 1; offset for comparison.
	{
		first, _ := cb.median("?sort=id&limit=100", 50)
		_, body := cb.median("?sort=id&limit=100&offset=999800", 3)
		var env struct {
			Meta struct {
				Next *string `json:"next_cursor"`
			} `json:"meta"`
			Data []map[string]any `json:"data"`
		}
		if err := json.Unmarshal(body, &env); err != nil || env.Meta.Next == nil {
			t.Fatalf("page 9,999 names no next cursor: %v %.300s", err, body)
		}
		keyset, kbody := cb.median("?sort=id&limit=100&after="+*env.Meta.Next, 50)
		if err := json.Unmarshal(kbody, &env); err != nil || len(env.Data) != 100 || env.Data[0]["id"] != float64(999_901) {
			t.Fatalf("page 10,000 by cursor: %v %.300s", err, kbody)
		}
		offset, _ := cb.median("?sort=id&limit=100&offset=999900", 10)
		report(fmt.Sprintf("keyset page 10,000 ÷ page 1 (%d rows)", big), "≤ 1.2", keyset.Seconds()/first.Seconds(),
			fmt.Sprintf("%s against %s; offset page 10,000 %s", ms(keyset), ms(first), ms(offset)))
	}

	// A page with the default count, and with a filter and a sort on the
	// indexed columns, on both tables.
	for _, q := range []struct{ name, query string }{
		{"list with the default count", "?limit=20"},
		{"filter and sort on indexed columns, default count", "?filter[category]=red&sort=-score&limit=20"},
		{"filter and sort on indexed columns, count=none", "?filter[category]=red&sort=-score&limit=20&count=none"},
		{"range filter on an indexed column, default count", "?filter[score][gte]=99000&sort=score&limit=20"},
	} {
		small, large, body := interleaved(cs, cb, q.query)
		if !bytes.Contains(body, []byte(`"data":[{`)) {
			t.Fatalf("%s: no rows: %.300s", q.query, body)
		}
		report(q.name+" ÷ 100,000 rows", "≤ 1.2", large.Seconds()/small.Seconds(), ms(large)+" against "+ms(small))
	}

	// count=exact counts every row: it must end within the plan's
	// statement timeout (the free plan's 5 s is the shortest) or be
	// refused with the envelope.
	{
		status, body, d := cb.do("GET", "?limit=20&count=exact", nil)
		var env struct {
			Meta struct {
				Total int `json:"total"`
			} `json:"meta"`
		}
		_ = json.Unmarshal(body, &env)
		if status == 200 && env.Meta.Total != big {
			t.Fatalf("count=exact total %d, want %d", env.Meta.Total, big)
		}
		exact, _ := cb.median("?limit=20&count=exact", 5)
		bare := medianSQL(t, s, 5, `SELECT count(*) FROM `+bigSchema+`.events`)
		report(fmt.Sprintf("count=exact on %d rows, seconds (status %d)", big, status), "≤ 5 s, the free plan's statement timeout",
			exact.Seconds(), fmt.Sprintf("first %s; SELECT count(*) alone %s", ms(d), ms(bare)))
	}

	// An aggregate with group by against the same SQL run bare.
	{
		api, body := cb.median("/aggregate?group_by=category&count=*&sum=amount&avg=score", 5)
		var env struct {
			Data []map[string]any `json:"data"`
		}
		if err := json.Unmarshal(body, &env); err != nil || len(env.Data) != 4 {
			t.Fatalf("aggregate: %v %.300s", err, body)
		}
		bare := medianSQL(t, s, 5, `SELECT category, count(*), sum(amount), avg(score) FROM `+bigSchema+`.events
			GROUP BY category ORDER BY category LIMIT 100`)
		report("aggregate with group by, bare SQL's time ÷ the API's", "≥ 0.9", bare.Seconds()/api.Seconds(),
			ms(api)+" against "+ms(bare)+" bare")
	}

	// A CSV export of every row against COPY (SELECT ...) TO STDOUT of the
	// same columns in the same order, rows/s; the process's RSS sampled
	// meanwhile.
	{
		conn, err := pgx.Connect(context.Background(), testpg.URL(t))
		if err != nil {
			t.Fatal(err)
		}
		defer conn.Close(context.Background())

		rss := startRSSSampler()
		req, _ := http.NewRequest("GET", cb.url+"/export?format=csv", nil)
		req.Header.Set("Authorization", "Bearer "+pb.Key)
		start := time.Now()
		res, err := cb.hc.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		r := bufio.NewReaderSize(res.Body, 1<<20)
		header, err := r.ReadString('\n')
		if err != nil || res.StatusCode != 200 {
			t.Fatalf("export: %d %v %q", res.StatusCode, err, header)
		}
		lines := 0
		for {
			_, err := r.ReadSlice('\n')
			if err == bufio.ErrBufferFull {
				continue
			}
			if err == io.EOF {
				break
			}
			if err != nil {
				t.Fatal(err)
			}
			lines++
		}
		res.Body.Close()
		export := time.Since(start)
		base, peak := rss.stop()
		if lines != big {
			t.Fatalf("the export sent %d rows, want %d", lines, big)
		}
		cols, err := csv.NewReader(strings.NewReader(header)).Read()
		if err != nil {
			t.Fatal(err)
		}
		quoted := make([]string, len(cols))
		for i, c := range cols {
			quoted[i] = schema.QuoteIdent(c)
		}
		start = time.Now()
		tag, err := conn.PgConn().CopyTo(context.Background(), io.Discard, `COPY (SELECT `+strings.Join(quoted, ", ")+
			` FROM `+bigSchema+`.events ORDER BY id) TO STDOUT WITH (FORMAT csv, HEADER)`)
		if err != nil {
			t.Fatal(err)
		}
		copyTook := time.Since(start)
		if tag.RowsAffected() != int64(big) {
			t.Fatalf("COPY read %d rows", tag.RowsAffected())
		}
		apiRate, copyRate := float64(big)/export.Seconds(), float64(big)/copyTook.Seconds()
		report("CSV export ÷ COPY (SELECT …) TO STDOUT, rows/s", "≥ 0.8", apiRate/copyRate,
			fmt.Sprintf("%.0f against %.0f rows/s; columns %s", apiRate, copyRate, strings.Join(cols, ",")))
		report("the process's RSS rise during the export, MiB", "flat", float64(peak-base)/(1<<20),
			fmt.Sprintf("%.1f → %.1f MiB peak", float64(base)/(1<<20), float64(peak)/(1<<20)))
		if peak-base > 64<<20 {
			t.Errorf("the export raised the process's RSS by %d MiB", (peak-base)>>20)
		}

		// 10,000 rows: ten bulk creates of 1,000 (the most one takes),
		// one after another, with the records in the answer (the
		// default) and without (Prefer: return=minimal), against one
		// COPY FROM of 10,000.
		const bulkRows = 10_000
		var api, minimal, bare []time.Duration
		bulk := func(round int, headers ...string) time.Duration {
			// The bodies are made before the clock starts, as COPY's rows are.
			bodies := make([][]byte, bulkRows/1000)
			for b := range bodies {
				recs := make([]map[string]any, 1000)
				for i := range recs {
					g := round*bulkRows + b*1000 + i
					recs[i] = map[string]any{"title": "bulk " + strconv.Itoa(g), "category": "green", "score": g % 100000, "amount": float64(g%997) * 1.5}
				}
				bodies[b], _ = json.Marshal(recs)
			}
			start := time.Now()
			for _, body := range bodies {
				if status, out, _ := cb.do("POST", "", body, headers...); status != 201 {
					t.Fatalf("bulk create: %d %.300s", status, out)
				}
			}
			return time.Since(start)
		}
		for round := range 5 {
			api = append(api, bulk(2*round))
			minimal = append(minimal, bulk(2*round+1, "Prefer", "return=minimal"))
			rows := make([][]any, bulkRows)
			for i := range rows {
				g := round*bulkRows + i
				rows[i] = []any{"copy " + strconv.Itoa(g), "green", g % 100000, float64(g%997) * 1.5}
			}
			start = time.Now()
			n, err := conn.CopyFrom(context.Background(), pgx.Identifier{schema.ProjectSchema(pb.ID), "events"},
				[]string{"title", "category", "score", "amount"}, pgx.CopyFromRows(rows))
			if err != nil || n != bulkRows {
				t.Fatalf("COPY FROM: %d rows, %v", n, err)
			}
			bare = append(bare, time.Since(start))
		}
		slices.Sort(api)
		slices.Sort(minimal)
		slices.Sort(bare)
		report("10,000-row bulk insert ÷ COPY FROM, rows/s", "≥ 0.6", bare[2].Seconds()/api[2].Seconds(),
			fmt.Sprintf("%.0f against %.0f rows/s (medians of 5)", bulkRows/api[2].Seconds(), bulkRows/bare[2].Seconds()))
		report("the same with Prefer: return=minimal", "≥ 0.6", bare[2].Seconds()/minimal[2].Seconds(),
			fmt.Sprintf("%.0f rows/s", bulkRows/minimal[2].Seconds()))
	}
}
