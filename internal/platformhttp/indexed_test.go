package platformhttp_test

import (
	"strings"
	"testing"
)

func TestMakingATextColumnUniqueOrIndexedNamesTheRowsTooLongForItsIndex(t *testing.T) {
	t.Parallel()
	e := newEvo(t, `{"tables": [{"name": "notes", "columns": [{"name": "title", "type": "text"}, {"name": "tag", "type": "text"}]}]}`)
	// Values the old document allowed: 601 and 2,000 characters.
	e.exec(`INSERT INTO $schema.notes (title, tag) VALUES ('short', 'a'), (repeat('x', 601), 'b'), ('ok', repeat('é', 2000))`)
	before := e.rows("notes")

	res := e.generate(`{"tables": [{"name": "notes", "columns": [{"name": "title", "type": "text", "unique": true},
		{"name": "tag", "type": "text", "index": true}]}]}`, true).Must(t, 409)
	for path, ids := range map[string]string{"notes.title": "(ids 2)", "notes.tag": "(ids 3)"} {
		got, _ := res.Details()[path].(string)
		if !strings.Contains(got, "every value is at most 600 characters") || !strings.Contains(got, ids) {
			t.Errorf("details[%s] = %q, want the 600-character rule with %s", path, got, ids)
		}
	}
	if v := e.version(); v != 1 {
		t.Errorf("published version = %v, want 1: nothing may change", v)
	}
	sameRows(t, "notes", before, e.rows("notes"), keep{})

	// Shortened, the same draft goes through and the indexes are built.
	e.exec(`UPDATE $schema.notes SET title = left(title, 600), tag = left(tag, 600)`)
	e.generate(`{"tables": [{"name": "notes", "columns": [{"name": "title", "type": "text", "unique": true},
		{"name": "tag", "type": "text", "index": true}]}]}`, true).Must(t, 200)
	cat := e.catalog() // after the index builds
	e.has(cat, "index CREATE INDEX notes_tag_sort")
	e.has(cat, "constraint", "notes_title_key UNIQUE (title)")
	e.finished(cat)
}
