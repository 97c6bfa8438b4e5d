package schema

// The rules below are kept private to this package's maps and helpers;
// these exports are what schema/introspect needs of them, so that
// introspection applies the same rules instead of a copy.

// ReservedTableName reports whether name is a path the generated API keeps
// for itself (auth, docs, openapi), so no table may take it.
func ReservedTableName(name string) bool { return reservedTables[name] }

// SystemColumn reports whether name is one of the columns every managed
// table has (id, created_at, updated_at).
func SystemColumn(name string) bool { return isSystemColumn(name) }

// PostgresType is the PostgreSQL type that stores a column type, or ""
// for passthrough and unknown types.
func PostgresType(columnType string) string { return typeOf(columnType).PG }
