package schema

import (
	"encoding/json"
	"math"
	"strconv"
)

// numberType is a double-precision number.
var numberType = &ColumnType{
	Name: TypeNumber, Label: "Number", PG: "double precision", Offered: true,
	Traits: Traits{Ordered: true, Numeric: true, MinMax: true, Comparable: true, Unique: true, Indexable: true,
		Float: true},
	Literal: LiteralNumber,
	Example: json.Number("2.5"),
	Fronts:  []string{"float4", "float8"},

	check: checkNumber,
	parseQuery: func(_ *Column, s string) (any, string) {
		f, msg := parseFloat(s)
		if msg != "" {
			return nil, msg
		}
		return f, ""
	},
	document: func(c *Column, forRequest bool) ValueSchema {
		s := ValueSchema{Types: []string{"number"}, Format: "double"}
		if forRequest {
			s.Minimum, s.Maximum = c.Min, c.Max
		}
		return s
	},
	query: queryNumber,
	fromText: &conversion{using: castTo("double precision"), narrowing: true,
		bad: func(c string) string {
			n := "(" + c + ")::numeric"
			return "CASE WHEN NOT " + matches(c, numberPattern) + " THEN true WHEN " + n + " = 0 OR abs(" + n + ") BETWEEN " + doubleRange +
				" THEN " + n + "::float8::text::numeric <> " + n + " ELSE true END"
		},
		rule: "every value is a number that double precision holds exactly"},
	from: map[string]conversion{
		TypeInteger: {using: castTo("double precision"),
			bad:  func(c string) string { return "abs(" + c + ") > 9007199254740992" },
			rule: "every value is within ±2^53, where a number (double precision) is exact"},
		TypeDecimal: {using: castTo("double precision"), narrowing: true,
			bad: func(c string) string {
				return "CASE WHEN " + c + " = 'NaN' THEN true WHEN " + c + " = 0 OR abs(" + c + ") BETWEEN " + doubleRange +
					" THEN (" + c + ")::float8::text::numeric <> " + c + " ELSE true END"
			},
			rule: "every value fits a number (double precision) exactly"},
	},
}

// queryNumber is the filter value of number and decimal columns.
var queryNumber = &NamedSchema{Name: "FilterNumber", Schema: ValueSchema{Types: []string{"number"}}}

// checkNumber takes a finite JSON number within the column's bounds.
func checkNumber(c *Column, v any) (any, string) {
	n, ok := v.(json.Number)
	if !ok {
		return nil, "must be a number"
	}
	f, err := strconv.ParseFloat(string(n), 64)
	if err != nil || math.IsInf(f, 0) {
		return nil, "must be a finite number"
	}
	if p := checkBounds(c, f); p != "" {
		return nil, p
	}
	return f, ""
}

// parseFloat reads a finite number written in a URL.
func parseFloat(s string) (float64, string) {
	f, err := strconv.ParseFloat(s, 64)
	if err != nil || math.IsInf(f, 0) || math.IsNaN(f) {
		return 0, "must be a number"
	}
	return f, ""
}
