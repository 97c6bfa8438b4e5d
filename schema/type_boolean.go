package schema

// booleanType is true or false.
var booleanType = &ColumnType{
	Name: TypeBoolean, Label: "Boolean", PG: "boolean", Offered: true,
	Traits:  Traits{Comparable: true, Unique: true, Indexable: true},
	Literal: LiteralBool,
	Example: true,
	Fronts:  []string{"bool"},

	check: func(_ *Column, v any) (any, string) {
		b, ok := v.(bool)
		if !ok {
			return nil, "must be true or false"
		}
		return b, ""
	},
	parseQuery: func(_ *Column, s string) (any, string) {
		switch s {
		case "true":
			return true, ""
		case "false":
			return false, ""
		}
		return nil, "must be true or false"
	},
	document: func(*Column, bool) ValueSchema { return ValueSchema{Types: []string{"boolean"}} },
	query:    &NamedSchema{Name: "FilterBoolean", Schema: ValueSchema{Types: []string{"boolean"}}},
	fromText: &conversion{using: castTo("boolean"), narrowing: true,
		bad:  func(c string) string { return c + " NOT IN ('true', 'false')" },
		rule: "every value is true or false"},
}
