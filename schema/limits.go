package schema

import (
	"encoding/json"
	"fmt"
)

// Publish-time limits on a schema document. They bound the work that
// one project's schema can cause: its OpenAPI document (a few kilobytes
// per column, rendered on a node's request path), its compiled
// validators and its DDL. bench/RESULTS.md measures the largest document
// they allow; docs/openapi.md documents them.
const (
	// MaxTables is the number of tables a project can have.
	MaxTables = 100
	// MaxColumns is the number of columns a table can have, not counting
	// id, created_at and updated_at.
	MaxColumns = 100
	// MaxDocumentBytes is the size of the schema document written as
	// compact JSON: it bounds descriptions, enum values and patterns,
	// which the API description repeats.
	MaxDocumentBytes = 1 << 20
)

// CheckLimits reports the limits document d exceeds, by path: "tables"
// (too many tables), "tables[3].columns" (too many columns in the fourth
// table) or "document" (too large). The platform API refuses to save such
// a draft, and Validate refuses to publish it.
func CheckLimits(d Document) Problems {
	p := Problems{}
	if len(d.Tables) > MaxTables {
		p.add("tables", "at most %d tables per project (this schema has %d)", MaxTables, len(d.Tables))
	}
	for i, t := range d.Tables {
		if len(t.Columns) > MaxColumns {
			p.add(fmt.Sprintf("tables[%d].columns", i), "at most %d columns per table (%s has %d)", MaxColumns, t.Name, len(t.Columns))
		}
	}
	if len(p) > 0 {
		return p
	}
	if raw, err := json.Marshal(d); err == nil && len(raw) > MaxDocumentBytes {
		p.add("document", "the schema document is %d bytes written as JSON; at most %d (1 MiB)", len(raw), MaxDocumentBytes)
	}
	return p
}
