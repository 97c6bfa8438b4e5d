package schema

import "strings"

// enumType is one of the column's values.
var enumType = &ColumnType{
	Name: TypeEnum, Label: "Enum", PG: "text", Offered: true,
	Traits: Traits{Textual: true, MinMax: true, Comparable: true, Unique: true, Indexable: true,
		Lengths: true, Enumerated: true},
	Literal: LiteralString,
	Example: "draft",

	check:      checkText,
	parseQuery: parseText,
	document: func(c *Column, _ bool) ValueSchema {
		s := ValueSchema{Types: []string{"string"}}
		for _, v := range c.Values {
			s.Enum = append(s.Enum, v)
		}
		return s
	},
	queryInline: func(c *Column) ValueSchema {
		return ValueSchema{Types: []string{"string"}, Examples: []string{c.Values[0]}}
	},
	checkSQL: func(c Column, col string) string {
		vals := make([]string, len(c.Values))
		for i, v := range c.Values {
			vals[i] = QuoteLiteral(v)
		}
		return col + " IN (" + strings.Join(vals, ", ") + ")"
	},
	checkRule: func(c Column) string { return "one of: " + strings.Join(c.Values, ", ") },
}
