package translate

import (
	"strings"

	"github.com/tablesmith/tablesmith/schema"
)

// Export formats: every matching row, streamed, one record per row of
// the statement.
const (
	FormatCSV    = "csv"
	FormatNDJSON = "ndjson"
)

// ExportSQL is the statement of an export: every row the list's filters,
// search and owner scope match, in the list's sort, no page. Each row of
// its result is one JSON text: for NDJSON the record as the list shows
// it, for CSV the array of its Columns' values.
type ExportSQL struct {
	SQL     string
	Args    []any
	Columns []string
}

// BuildExport plans q like BuildList and renders the export statement.
// Page position, limit and cursors do not apply (the handler refuses
// them); a CSV export cannot hold include's nested records.
func BuildExport(p *Published, t *schema.CTable, q *ListQuery, format string) (*ExportSQL, error) {
	if format == FormatCSV && len(q.Include) > 0 {
		return nil, queryErr("include", "a CSV export has one column per field and cannot hold included records; use format=ndjson")
	}
	q.After = ""
	pl, err := planList(p, t, q)
	if err != nil {
		return nil, err
	}
	r := &renderer{pub: p}
	rows := "SELECT " + columns(pl.output, "t") + r.embeds(pl.embeds, "t") + " FROM " + pl.table.Rel + " t"
	if cond := r.where(pl.where, "t"); cond != "" {
		rows += " WHERE " + cond
	}
	rows += orderBy(pl.order, "t")
	names := make([]string, len(pl.output))
	refs := make([]string, len(pl.output))
	for i, c := range pl.output {
		names[i] = c.Name
		refs[i] = "_r." + c.Ident
	}
	var stmt string
	if format == FormatCSV {
		stmt = "SELECT json_build_array(" + strings.Join(refs, ", ") + ")::text FROM (" + rows + ") _r"
	} else {
		// json_agg separates the records of an embedded array with a
		// line break, which would split the record over lines of the
		// NDJSON. A raw line break in JSON text can only be whitespace
		// between tokens (one inside a string is written \n), so
		// removing them all changes no value.
		stmt = "SELECT replace(row_to_json(_r)::text, E'\\n', '') FROM (" + rows + ") _r"
	}
	return &ExportSQL{SQL: stmt, Args: r.args, Columns: names}, nil
}
