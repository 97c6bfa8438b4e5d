package pgexec

import "context"

// Row runs a statement that selects one row into dest, with the same
// retry of a prepared statement the connection could not use as JSON.
// Bulk writes select more than one value (records and per-record flags,
// or counts).
func Row(ctx context.Context, q Querier, query string, args []any, dest ...any) error {
	return scanRow(ctx, q, query, args, dest...)
}
