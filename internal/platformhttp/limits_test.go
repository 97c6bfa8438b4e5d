package platformhttp_test

import (
	"context"
	"encoding/json"
	"fmt"
	"strings"
	"testing"

	"github.com/tablesmith/tablesmith/internal/testserver"
	"github.com/tablesmith/tablesmith/schema"
)

func wideSchema(tables, columns int) map[string]any {
	var ts []any
	for i := 0; i < tables; i++ {
		var cs []any
		for j := 0; j < columns; j++ {
			cs = append(cs, map[string]any{"name": fmt.Sprintf("c%d", j), "type": "text"})
		}
		ts = append(ts, map[string]any{"name": fmt.Sprintf("t%d", i), "columns": cs})
	}
	return map[string]any{"tables": ts}
}

// A draft over the schema limits is refused when it is saved, and one that
// got into the store another way is refused at generate.
func TestASchemaOverTheLimitsIsRefusedAtSaveAndGenerate(t *testing.T) {
	t.Parallel()
	s := testserver.New(t)
	p := s.NewProject(`{"tables": [{"name": "users", "columns": [{"name": "email", "type": "email"}]}]}`)
	path := "/api/projects/" + p.ID + "/schema"

	tooMany := s.Do("PUT", path, p.Session, wideSchema(schema.MaxTables+1, 1)).Must(t, 400)
	if tooMany.ErrorCode() != "VALIDATION_ERROR" || !strings.Contains(fmt.Sprint(tooMany.Details()["tables"]), "at most 100 tables") {
		t.Fatalf("101 tables = %s", tooMany.Raw)
	}
	wide := wideSchema(2, 1)
	wide["tables"].([]any)[1] = wideSchema(1, schema.MaxColumns+1)["tables"].([]any)[0]
	tooWide := s.Do("PUT", path, p.Session, wide).Must(t, 400)
	if !strings.Contains(fmt.Sprint(tooWide.Details()["tables[1].columns"]), "at most 100 columns") {
		t.Fatalf("101 columns = %s", tooWide.Raw)
	}
	big := wideSchema(10, 10)
	for _, tb := range big["tables"].([]any) {
		tb.(map[string]any)["description"] = strings.Repeat("x", schema.MaxDocumentBytes/10)
	}
	tooBig := s.Do("PUT", path, p.Session, big).Must(t, 400)
	if !strings.Contains(fmt.Sprint(tooBig.Details()["document"]), "at most 1048576") {
		t.Fatalf("a document over 1 MiB = %s", tooBig.Raw)
	}
	// The largest shape the limits allow is saved.
	s.Do("PUT", path, p.Session, wideSchema(schema.MaxTables, schema.MaxColumns)).Must(t, 200)

	raw, _ := json.Marshal(wideSchema(schema.MaxTables+1, 1))
	if err := s.Svc.Store.PutDraft(context.Background(), p.ID, raw); err != nil {
		t.Fatal(err)
	}
	gen := s.Do("POST", "/api/projects/"+p.ID+"/generate", p.Session, map[string]any{}).Must(t, 400)
	if gen.ErrorCode() != "VALIDATION_ERROR" || gen.Details()["tables"] == nil {
		t.Fatalf("generate over the limits = %s", gen.Raw)
	}
}
