package apihttp_test

import (
	"fmt"
	"math/rand"
	"strings"
	"testing"

	"github.com/tablesmith/tablesmith/internal/testserver"
	"github.com/tablesmith/tablesmith/schema"
)

// pagesSchema has every kind of column whose values are keys of a btree
// index: unique (slug, link, the required code) and indexed (title), and
// one that is neither (body).
const pagesSchema = `{"tables": [{"name": "pages", "columns": [
	{"name": "code", "type": "text", "required": true, "unique": true},
	{"name": "slug", "type": "text", "unique": true},
	{"name": "link", "type": "url", "unique": true},
	{"name": "title", "type": "text", "index": true},
	{"name": "body", "type": "text"}]}]}`

// wide is n characters of four bytes each, drawn at random so that
// PostgreSQL cannot compress them: the worst case for an index entry.
func wide(seed int64, n int) string {
	r := rand.New(rand.NewSource(seed))
	var b strings.Builder
	for range n {
		b.WriteRune(rune(0x10000 + r.Intn(0xFFFF)))
	}
	return b.String()
}

func TestValuesTooLongForAnIndexAreRefusedOnEveryWritePathNamingTheColumn(t *testing.T) {
	t.Parallel()
	s := testserver.New(t)
	p := s.NewProject(pagesSchema)
	// 700 characters of four bytes: 2,800 bytes, over PostgreSQL's 2,704
	// for an index entry (before, the write answered 500).
	long := wide(1, 700)
	fits := wide(2, schema.MaxIndexedLength)

	id := s.API(p, "POST", "/pages", map[string]any{"code": "c1", "slug": fits, "title": fits, "link": "https://example.com/" + fits[:4*580],
		"body": wide(3, 5000)}).Must(t, 201).Data()["id"]
	path := fmt.Sprintf("/pages/%v", id)
	before := s.API(p, "GET", path, nil).Must(t, 200).Raw

	refused := func(r *testserver.Response, field string) {
		t.Helper()
		msg, _ := r.Details()[field].(string)
		if r.Status != 400 || r.ErrorCode() != "VALIDATION_ERROR" || !strings.Contains(msg, "at most 600 characters") {
			t.Errorf("want 400 VALIDATION_ERROR naming %s (at most 600 characters), got %d %s", field, r.Status, r.Raw)
		}
	}
	refused(s.API(p, "POST", "/pages", map[string]any{"code": "c2", "slug": long}), "slug")
	refused(s.API(p, "POST", "/pages", map[string]any{"code": long}), "code")
	refused(s.API(p, "POST", "/pages", map[string]any{"code": "c2", "link": "https://example.com/" + long}), "link")
	refused(s.API(p, "PUT", path, map[string]any{"code": "c1", "slug": long}), "slug")
	refused(s.API(p, "PATCH", path, map[string]any{"title": long}), "title")
	refused(s.API(p, "POST", "/pages", []map[string]any{{"code": "c2"}, {"code": "c3", "slug": long}}), "1.slug")
	refused(s.API(p, "POST", "/pages?on_conflict=code", []map[string]any{{"code": "c1", "title": long}}), "0.title")
	refused(s.API(p, "POST", "/pages?on_conflict=code", map[string]any{"code": "c1", "slug": long}), "0.slug")
	refused(s.API(p, "PATCH", "/pages?filter[code]=c1", map[string]any{"slug": long}), "slug")
	// One past the bound counts characters, whatever their bytes.
	refused(s.API(p, "PATCH", path, map[string]any{"slug": strings.Repeat("a", schema.MaxIndexedLength+1)}), "slug")

	if n := countRows(t, s, p, "pages", "true"); n != 1 {
		t.Errorf("%d rows after the refused writes, want the first one only", n)
	}
	if after := s.API(p, "GET", path, nil).Must(t, 200).Raw; string(after) != string(before) {
		t.Errorf("the record changed under refused writes:\n%s\nwant\n%s", after, before)
	}

	// Unique values at the bound keep their meaning: a second create is a
	// conflict, and an upsert on such a key finds the row.
	if r := s.API(p, "POST", "/pages", map[string]any{"code": "c2", "slug": fits}); r.Status != 409 {
		t.Errorf("a duplicate slug at the bound: %d %s, want 409", r.Status, r.Raw)
	}
	up := s.API(p, "POST", "/pages?on_conflict=slug", map[string]any{"slug": fits, "code": "c1", "body": "upserted"}).Must(t, 200)
	if up.Data()["body"] != "upserted" || up.Body["meta"].(map[string]any)["updated"] != float64(1) {
		t.Errorf("upsert on a slug at the bound: %s, want the existing row updated", up.Raw)
	}
	// A column that is neither unique nor indexed takes any length.
	s.API(p, "PATCH", path, map[string]any{"body": long + long}).Must(t, 200)
}
