package schema

// passthroughType is a column of a fronted database whose type the API
// does not model: read-only, never altered, its database type in
// Column.PGType. Only introspection writes it.
var passthroughType = &ColumnType{
	Name:    TypePassthrough,
	Traits:  Traits{ReadOnly: true},
	Literal: LiteralString,

	check:      func(*Column, any) (any, string) { return nil, "is read-only" },
	parseQuery: notFiltered,
	document: func(c *Column, _ bool) ValueSchema {
		return ValueSchema{Description: "Database type " + c.PGType + " (read-only)."}
	},
	fixed: "columns of an existing database are not altered",
}
