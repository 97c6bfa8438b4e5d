package schema

import (
	"encoding/json"
	"math"
	"strconv"
	"strings"
)

// decimalType is an exact decimal, kept as its text so no digit is lost.
var decimalType = &ColumnType{
	Name: TypeDecimal, Label: "Decimal", PG: "numeric", Offered: true,
	Traits: Traits{Ordered: true, Numeric: true, MinMax: true, Comparable: true, Unique: true, Indexable: true,
		Exact: true},
	Literal: LiteralNumber,
	Example: "12.50",
	Fronts:  []string{"numeric"},

	check: checkDecimal,
	parseQuery: func(_ *Column, s string) (any, string) {
		if _, msg := parseFloat(s); msg != "" {
			return nil, msg
		}
		return s, ""
	},
	document: func(c *Column, forRequest bool) ValueSchema {
		if !forRequest {
			return ValueSchema{Types: []string{"number"}}
		}
		// A JSON number, or a string for exact values beyond double
		// precision; bounds (minimum, maximum) apply to the number form
		// here, and the server checks both forms.
		return ValueSchema{Types: []string{"number", "string"}, Patterns: []string{DecimalPattern},
			Description: "A decimal number, or a string holding one for exact values; either way at most 200 digits " +
				"before and after the point and an exponent of at most two digits (the pattern, which applies to the string form).",
			Minimum: c.Min, Maximum: c.Max}
	},
	query: queryNumber,
	fromText: &conversion{using: castTo("numeric"), narrowing: true,
		bad:  func(c string) string { return "NOT " + matches(c, numberPattern) },
		rule: "every value is a decimal number"},
	from: map[string]conversion{
		TypeInteger: {using: castTo("numeric")},
		TypeNumber: {using: func(c string) string { return "(" + c + ")::text::numeric" },
			bad:  func(c string) string { return c + " IN ('NaN', 'Infinity', '-Infinity')" },
			rule: "every value is a finite number"},
	},
}

// checkDecimal takes a plain decimal as a JSON number or string and keeps its text, so no
// digit is lost to float rounding.
func checkDecimal(c *Column, v any) (any, string) {
	var s string
	switch x := v.(type) {
	case json.Number:
		s = string(x)
	case string:
		s = x
	default:
		return nil, "must be a decimal number"
	}
	// The pattern is the document's: it bounds the digits and the
	// exponent, so the value is always a finite double.
	if !decimalRe.MatchString(s) {
		return nil, "must be a decimal number (at most 200 digits before and after the point, an exponent of at most two digits)"
	}
	s = strings.Trim(s, decimalBlanks)
	f, err := strconv.ParseFloat(s, 64)
	if err != nil || math.IsInf(f, 0) {
		return nil, "must be a decimal number"
	}
	if p := checkBounds(c, f); p != "" {
		return nil, p
	}
	return s, ""
}
