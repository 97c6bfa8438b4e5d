package pgexec

import (
	"context"
	"database/sql"
)

// ListPage is what a list statement selects: the count (NULL when not
// counted), the page as a JSON array, and, NULL on the last page, the
// next page's cursor keys or the mark that the records hold them
// (translate.ListSQL.NextCursor reads both).
type ListPage struct {
	Count sql.NullInt64
	Data  []byte
	Next  []byte
}

// ReadListPage runs a list statement, once more on a broken connection
// like ReadJSON.
func ReadListPage(ctx context.Context, q Querier, query string, args ...any) (ListPage, error) {
	var p ListPage
	err := scanRow(ctx, q, query, args, &p.Count, &p.Data, &p.Next)
	if retryRead(ctx, q, err) {
		p = ListPage{}
		err = scanRow(ctx, q, query, args, &p.Count, &p.Data, &p.Next)
	}
	return p, err
}
