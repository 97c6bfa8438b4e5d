package schema

import (
	"encoding/json"
	"strconv"
)

// integerType is a whole number within int64.
var integerType = &ColumnType{
	Name: TypeInteger, Label: "Integer", PG: "bigint", Offered: true,
	Traits: Traits{Ordered: true, Numeric: true, MinMax: true, Comparable: true, Unique: true, Indexable: true,
		Key: true, Whole: true},
	Literal: LiteralNumber,
	Example: json.Number("42"),
	Fronts:  []string{"int2", "int4", "int8"},

	check: checkInteger,
	parseQuery: func(_ *Column, s string) (any, string) {
		i, err := strconv.ParseInt(s, 10, 64)
		if err != nil {
			return nil, "must be an integer"
		}
		return i, ""
	},
	document: func(c *Column, forRequest bool) ValueSchema {
		s := ValueSchema{Types: []string{"integer"}, Format: "int64"}
		if forRequest {
			s.Minimum, s.Maximum = c.Min, c.Max
		}
		return s
	},
	query: &NamedSchema{Name: "FilterInteger", Schema: ValueSchema{Types: []string{"integer"}, Format: "int64"}},
	fromText: &conversion{using: castTo("bigint"), narrowing: true,
		bad: func(c string) string {
			return "CASE WHEN " + matches(c, integerPattern) + " THEN (" + c + ")::numeric NOT BETWEEN " + int64Range + " ELSE true END"
		},
		rule: "every value is a whole number (digits only) within the integer range"},
	from: map[string]conversion{
		TypeNumber: {using: castTo("bigint"), narrowing: true,
			bad: func(c string) string {
				return c + " IN ('NaN', 'Infinity', '-Infinity') OR " + c + " <> trunc(" + c + ") OR " + c +
					" < -9223372036854775808 OR " + c + " >= 9223372036854775807"
			},
			rule: "every value is a whole number within the integer range"},
		TypeDecimal: {using: castTo("bigint"), narrowing: true,
			bad: func(c string) string {
				return c + " = 'NaN' OR " + c + " <> trunc(" + c + ") OR " + c + " NOT BETWEEN " + int64Range
			},
			rule: "every value is a whole number within the integer range"},
	},
}

// checkInteger takes a JSON number that is a whole int64 within the column's bounds.
func checkInteger(c *Column, v any) (any, string) {
	n, ok := v.(json.Number)
	if !ok {
		return nil, "must be an integer"
	}
	i, err := strconv.ParseInt(string(n), 10, 64)
	if err != nil {
		return nil, "must be an integer"
	}
	if p := checkBounds(c, float64(i)); p != "" {
		return nil, p
	}
	return i, ""
}
