package apihttp_test

import (
	"bufio"
	"bytes"
	"context"
	"encoding/csv"
	"encoding/json"
	"io"
	"net/http"
	"reflect"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/lib/pq"

	"github.com/tablesmith/tablesmith/internal/service"
	"github.com/tablesmith/tablesmith/internal/store"
	"github.com/tablesmith/tablesmith/internal/testserver"
)

// csvIDs parses an RFC 4180 export and returns its header and the id
// column of its records.
func csvIDs(t *testing.T, raw []byte) (header []string, ids []int, records [][]string) {
	t.Helper()
	recs, err := csv.NewReader(bytes.NewReader(raw)).ReadAll()
	if err != nil {
		t.Fatalf("not CSV: %v\n%.500s", err, raw)
	}
	if len(recs) == 0 {
		t.Fatal("no header row")
	}
	header = recs[0]
	for _, rec := range recs[1:] {
		id, err := strconv.Atoi(rec[0])
		if err != nil {
			t.Fatalf("record %v: id %q", rec, rec[0])
		}
		ids = append(ids, id)
	}
	return header, ids, recs[1:]
}

// An export streams every matching row past the page cap, in the list's
// sort, with its filters and fields, as CSV (format=csv or Accept:
// text/csv) or NDJSON (format=ndjson or Accept: application/x-ndjson).
func TestExportStreamsEveryMatchingRowAsCSVOrNDJSON(t *testing.T) {
	t.Parallel()
	s := testserver.New(t)
	p := s.NewProject(cursorSchema)
	seedItems(t, s, p, 230)
	// a text that needs quoting, a NULL, and a decimal that must stay exact
	s.API(p, "POST", "/items", map[string]any{"name": "a \"quoted\", multi\nline", "label": "l0", "price": "12345678901234567890.01"}).Must(t, 201)

	for _, raw := range []string{"sort=-score", "sort=name,-score&" + query("filter[label]", "l0"), "search=n1&sort=seen", ""} {
		want := byPages(t, s, p, "/items", raw)
		r := s.API(p, "GET", "/items?format=csv&"+raw, nil).Must(t, 200)
		if ct := r.Header.Get("Content-Type"); !strings.HasPrefix(ct, "text/csv") {
			t.Errorf("Content-Type %q", ct)
		}
		if !bytes.Contains(r.Raw, []byte("\r\n")) || bytes.Count(r.Raw, []byte("\n")) != bytes.Count(r.Raw, []byte("\r\n")) {
			t.Errorf("%s: RFC 4180 ends records with CRLF, and so does the quoted newline's record", raw)
		}
		header, got, _ := csvIDs(t, r.Raw)
		if !reflect.DeepEqual(header, []string{"id", "score", "name", "label", "price", "seen", "created_at", "updated_at"}) {
			t.Errorf("header %v", header)
		}
		if !reflect.DeepEqual(got, want) {
			t.Errorf("csv ?%s: ids\n got %v\nwant %v", raw, got, want)
		}
		n := s.Do("GET", "/v1/"+p.ID+"/items?"+raw, p.Key, nil, "Accept", "application/x-ndjson").Must(t, 200)
		var nd []int
		for _, line := range strings.Split(strings.TrimSuffix(string(n.Raw), "\n"), "\n") {
			if line == "" {
				continue
			}
			var rec map[string]any
			if err := json.Unmarshal([]byte(line), &rec); err != nil {
				t.Fatalf("ndjson line %q: %v", line, err)
			}
			nd = append(nd, int(rec["id"].(float64)))
		}
		if !reflect.DeepEqual(nd, want) {
			t.Errorf("ndjson ?%s: ids\n got %v\nwant %v", raw, nd, want)
		}
	}

	// values: the quoted text survives, NULL is empty, the decimal exact
	r := s.Do("GET", "/v1/"+p.ID+"/items?"+query("filter[label]", "l0", "fields", "name,price,seen", "sort", "-id", "count", "none"), p.Key, nil, "Accept", "text/csv").Must(t, 200)
	header, _, recs := csvIDs(t, r.Raw)
	if !reflect.DeepEqual(header, []string{"id", "name", "price", "seen"}) || recs[0][1] != "a \"quoted\", multi\nline" ||
		recs[0][2] != "12345678901234567890.01" || recs[0][3] != "" {
		t.Errorf("fields=name,price,seen: header %v first record %q", header, recs[0])
	}
	// The JSON of every record is the list's: timestamps in the API's format.
	r = s.API(p, "GET", "/items?format=ndjson&fields=seen&"+query("filter[seen][null]", "false")+"&sort=id", nil).Must(t, 200)
	first := strings.SplitN(string(r.Raw), "\n", 2)[0]
	list := s.API(p, "GET", "/items?fields=seen&"+query("filter[seen][null]", "false")+"&sort=id&limit=1", nil).Must(t, 200)
	var rec map[string]any
	if err := json.Unmarshal([]byte(first), &rec); err != nil || rec["seen"] != list.List()[0]["seen"] {
		t.Errorf("ndjson record %s; the list shows %v", first, list.List()[0])
	}
	// no rows: a CSV of its header alone, an empty NDJSON
	r = s.API(p, "GET", "/tags?format=csv", nil).Must(t, 200)
	if string(r.Raw) != "id,word,created_at,updated_at\r\n" {
		t.Errorf("empty export %q", r.Raw)
	}
	if r = s.API(p, "GET", "/tags?format=ndjson", nil).Must(t, 200); len(r.Raw) != 0 {
		t.Errorf("empty ndjson %q", r.Raw)
	}
}

// What an export cannot do is refused before anything streams.
func TestExportRefusesPagesAndBadFormats(t *testing.T) {
	t.Parallel()
	s := testserver.New(t)
	p := s.NewProject(cursorSchema)
	for path, param := range map[string]string{
		"/items?format=xml":                    "format",
		"/items?format=csv&page=2":             "page",
		"/items?format=ndjson&limit=5":         "limit",
		"/items?format=csv&offset=5":           "offset",
		"/items?format=csv&after=x":            "after",
		"/items?format=csv&include=whatever":   "include",
		"/items?format=ndjson&sort=nope":       "sort",
		"/items?format=csv&filter[nope][eq]=1": "filter[nope][eq]",
	} {
		r := s.API(p, "GET", path, nil).Must(t, 400)
		if r.ErrorCode() != "INVALID_QUERY" || r.Details()[param] == nil {
			t.Errorf("%s: %s %v; want INVALID_QUERY naming %s", path, r.ErrorCode(), r.Details(), param)
		}
	}
	// format=json is the ordinary list whatever Accept says
	r := s.Do("GET", "/v1/"+p.ID+"/items?format=json", p.Key, nil, "Accept", "text/csv").Must(t, 200)
	if r.Body["success"] != true {
		t.Errorf("format=json: %s", r.Raw)
	}
}

// An end user's export holds their own rows only: the owner scope
// applies as it does to lists.
func TestExportKeepsTheOwnerScope(t *testing.T) {
	t.Parallel()
	e := newPermsEnv(t)
	for i := 0; i < 3; i++ {
		e.row(t, "own_notes", e.annID)
	}
	e.row(t, "own_notes", e.bobID)
	r := e.do("GET", "/own_notes?format=csv&fields=author_id", e.bob, nil).Must(t, 200)
	_, ids, recs := csvIDs(t, r.Raw)
	if len(ids) != 1 || recs[0][1] != strconv.Itoa(int(e.bobID)) {
		t.Errorf("bob's export: %q", r.Raw)
	}
	r = e.do("GET", "/own_notes?format=ndjson", e.ann, nil).Must(t, 200)
	if n := strings.Count(string(r.Raw), "\n"); n != 3 {
		t.Errorf("ann's export has %d records, want 3:\n%s", n, r.Raw)
	}
}

// An export may outlast the request timeout (and the plan's statement
// timeout): it is bounded by export_timeout instead, and reaches the
// client in chunks while the client is still reading.
func TestExportOutlastsTheRequestTimeout(t *testing.T) {
	t.Parallel()
	s := testserver.New(t, testserver.WithConfig(func(c *service.Config) {
		c.RequestTimeout = time.Second // the platform's generate needs this much
		c.ExportTimeout = time.Minute
	}))
	p := s.NewProject(cursorSchema)
	ns := pq.QuoteIdentifier(store.SchemaName(p.ID))
	for from := 1; from <= 150000; from += 30000 { // each within the 1s statement_timeout
		if _, err := s.Svc.DB.ExecContext(context.Background(), `INSERT INTO `+ns+`.items (score, name, label)
			SELECT g % 100, repeat('x', 100) || g, 'l' FROM generate_series($1::int, $1::int + 29999) g`, from); err != nil {
			t.Fatal(err)
		}
	}
	req, _ := http.NewRequest("GET", s.URL+"/v1/"+p.ID+"/items?format=ndjson&sort=score", nil)
	req.Header.Set("Authorization", "Bearer "+p.Key)
	res, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer res.Body.Close()
	if res.StatusCode != 200 {
		t.Fatalf("status %d", res.StatusCode)
	}
	// read slowly: the server waits on the client, well past the second
	br := bufio.NewReader(res.Body)
	lines := 0
	start := time.Now()
	for {
		_, err := br.ReadBytes('\n')
		if err == io.EOF {
			break
		}
		if err != nil {
			t.Fatalf("after %d lines, %v: %v", lines, time.Since(start), err)
		}
		if lines++; lines%30000 == 0 {
			time.Sleep(500 * time.Millisecond)
		}
	}
	if lines != 150000 || time.Since(start) < 2*time.Second {
		t.Errorf("read %d lines in %v; want all 150000, over more than the request timeout", lines, time.Since(start))
	}
}
