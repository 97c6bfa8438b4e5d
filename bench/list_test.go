//go:build bench

// Benchmarks of the list endpoint on a seeded 100,000-row table, through
// the whole HTTP pipeline and, for comparison, the same statement alone.
// Built only with -tags bench (make bench), so go test ./... never seeds.
package bench

import (
	"context"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"testing"

	"github.com/tablesmith/tablesmith/access"
	"github.com/tablesmith/tablesmith/schema"

	"github.com/tablesmith/tablesmith/internal/testpg"
	"github.com/tablesmith/tablesmith/internal/testserver"
	"github.com/tablesmith/tablesmith/translate"
)

func TestMain(m *testing.M) { testpg.Main(m, "bench") }

// Rows is the size of the benchmarked table.
const Rows = 100_000

const eventsSchema = `{"tables": [
	{"name": "users", "columns": [{"name": "name", "type": "text"}]},
	{"name": "events", "columns": [
		{"name": "title", "type": "text", "searchable": true},
		{"name": "category", "type": "enum", "values": ["red", "green", "blue", "black"], "searchable": true},
		{"name": "score", "type": "integer", "index": true},
		{"name": "amount", "type": "number"},
		{"name": "user_id", "type": "integer", "references": {"table": "users"}}]}]}`

// seed fills 1,000 users and Rows events and refreshes the statistics.
func seed(b *testing.B, s *testserver.Server, p *testserver.Project) {
	sch := schema.QuoteIdent(schema.ProjectSchema(p.ID))
	for _, stmt := range []string{
		`INSERT INTO ` + sch + `.users (name) SELECT 'user ' || g FROM generate_series(1, 1000) g`,
		fmt.Sprintf(`INSERT INTO %s.events (title, category, score, amount, user_id)
			SELECT CASE WHEN g %% 5000 = 0 THEN 'zebra sighting ' || g
			            ELSE (ARRAY['meeting', 'deploy', 'review', 'lunch', 'release'])[g %% 5 + 1] || ' number ' || g END,
			       (ARRAY['red', 'green', 'blue', 'black'])[g %% 4 + 1], g %% 1000, (g %% 997) * 1.5, g %% 1000 + 1
			FROM generate_series(1, %d) g`, sch, Rows),
		`VACUUM ANALYZE ` + sch + `.users`,
		`VACUUM ANALYZE ` + sch + `.events`,
	} {
		if _, err := s.Svc.DB.ExecContext(context.Background(), stmt); err != nil {
			b.Fatal(err)
		}
	}
}

// lists are the benchmarked requests on /events. Every text-like column
// of events is searchable, so search can use the trigram indexes.
var lists = []struct{ name, query string }{
	{"page", "limit=20"},
	{"filtered_sorted_page", "filter[score][gte]=500&sort=-score&page=3&limit=20"},
	{"filtered_sorted_page_count_none", "filter[score][gte]=500&sort=-score&page=3&limit=20&count=none"},
	{"filter_expression", "filter=" + url.QueryEscape("score >= 100 and (category = 'red' or title ~ 'zebra')") + "&sort=-amount"},
	{"search", "search=zebra"},
	{"include_100", "include=user&limit=100"},
	{"deep_page", "sort=score&page=2000&limit=20"},
	{"count_estimated", "limit=20&count=estimated"},
	{"count_exact", "limit=20&count=exact"},
	{"count_none", "limit=20&count=none"},
}

func BenchmarkList(b *testing.B) {
	s := testserver.New(b)
	p := s.NewProject(eventsSchema)
	seed(b, s, p)
	entry, err := s.Svc.Registry.Get(context.Background(), p.ID)
	if err != nil {
		b.Fatal(err)
	}
	events, _ := entry.Published.Compiled.Table("events")

	for _, l := range lists {
		b.Run("http/"+l.name, func(b *testing.B) {
			req, err := http.NewRequest("GET", s.URL+"/v1/"+p.ID+"/events?"+l.query, nil)
			if err != nil {
				b.Fatal(err)
			}
			req.Header.Set("Authorization", "Bearer "+p.Key)
			b.ReportAllocs()
			for b.Loop() {
				res, err := http.DefaultClient.Do(req)
				if err != nil {
					b.Fatal(err)
				}
				body, _ := io.ReadAll(res.Body)
				res.Body.Close()
				if res.StatusCode != 200 {
					b.Fatalf("%s: %d %s", l.query, res.StatusCode, body)
				}
			}
		})
		// the list statement alone, on the same pool: what the pipeline
		// adds is the difference
		b.Run("sql/"+l.name, func(b *testing.B) {
			vals, _ := url.ParseQuery(l.query)
			q, err := translate.ParseList(vals)
			if err != nil {
				b.Fatal(err)
			}
			q.Caller = access.Key("", false)
			ls, err := translate.BuildList(entry.Published, events, q)
			if err != nil {
				b.Fatal(err)
			}
			ctx := context.Background()
			for b.Loop() {
				var count *int64
				var data []byte
				if err := s.Svc.DB.QueryRowContext(ctx, ls.SQL, ls.Args...).Scan(&count, &data); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}
