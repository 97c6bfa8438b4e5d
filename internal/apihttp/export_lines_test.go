package apihttp_test

import (
	"bufio"
	"bytes"
	"encoding/json"
	"testing"

	"github.com/tablesmith/tablesmith/internal/testserver"
)

// Found by internal/schemafuzz: PostgreSQL's json_agg puts a line break
// between the records of an embedded array, so a record with two
// included records spanned two lines of the NDJSON export.
func TestAnNDJSONExportWritesEveryRecordOnOneLineWhateverItEmbeds(t *testing.T) {
	t.Parallel()
	s := testserver.New(t)
	p := s.NewProject(`{"tables": [
		{"name": "authors", "columns": [{"name": "name", "type": "text"}]},
		{"name": "books", "columns": [{"name": "title", "type": "text"},
			{"name": "author_id", "type": "integer", "references": {"table": "authors"}}]}]}`)
	for _, name := range []string{"ann", "bob"} {
		id := s.API(p, "POST", "/authors", map[string]any{"name": name}).Must(t, 201).Data()["id"]
		s.API(p, "POST", "/books", []map[string]any{{"title": "one\ntwo", "author_id": id}, {"title": "three", "author_id": id}}).Must(t, 201)
	}
	r := s.API(p, "GET", "/authors?format=ndjson&include=books&sort=id", nil).Must(t, 200)
	sc := bufio.NewScanner(bytes.NewReader(r.Raw))
	var names []string
	for sc.Scan() {
		var rec struct {
			Name  string           `json:"name"`
			Books []map[string]any `json:"books"`
		}
		if err := json.Unmarshal(sc.Bytes(), &rec); err != nil {
			t.Fatalf("line %q is not a record: %v\nexport:\n%s", sc.Text(), err, r.Raw)
		}
		if len(rec.Books) != 2 || rec.Books[0]["title"] != "one\ntwo" {
			t.Errorf("%s embeds %v, want its two books with the line break of the first kept", rec.Name, rec.Books)
		}
		names = append(names, rec.Name)
	}
	if len(names) != 2 || names[0] != "ann" || names[1] != "bob" {
		t.Errorf("records %v, want ann and bob, one line each", names)
	}
}
