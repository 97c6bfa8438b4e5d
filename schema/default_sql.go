package schema

// DefaultSQL renders a column's document default as an SQL expression,
// the same text its DDL declares, or "" when it has none (a nullable
// column then defaults to NULL). A bulk create uses it for the items
// that leave out a column others name: one INSERT cannot say DEFAULT
// for some rows only.
func DefaultSQL(c *CColumn) string { return defaultLiteral(c.Column) }
