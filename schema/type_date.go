package schema

import "time"

// dateType is a calendar date, written YYYY-MM-DD.
var dateType = &ColumnType{
	Name: TypeDate, Label: "Date", PG: "date", Offered: true,
	Traits:  Traits{Ordered: true, MinMax: true, Comparable: true, Unique: true, Indexable: true},
	Literal: LiteralString,
	Example: "2026-01-31",
	Fronts:  []string{"date"},

	check: checkDate,
	parseQuery: func(_ *Column, s string) (any, string) {
		if _, err := time.Parse("2006-01-02", s); err != nil {
			return nil, "must be a date (YYYY-MM-DD)"
		}
		return parseText(nil, s)
	},
	document: func(*Column, bool) ValueSchema {
		return ValueSchema{Types: []string{"string"}, Format: "date", Patterns: []string{DatePattern},
			Examples: []string{"2026-01-31"}}
	},
	query:  &NamedSchema{Name: "FilterDate", Schema: ValueSchema{Types: []string{"string"}, Format: "date"}},
	nowSQL: "CURRENT_DATE",
	asText: func(c string) string { return "to_char(" + c + ", 'YYYY-MM-DD')" },
	// A date is valid when the first of its month plus its day minus one
	// prints as the same text: no cast that could fail.
	fromText: &conversion{using: castTo("date"), narrowing: true,
		bad: func(c string) string {
			return "CASE WHEN " + matches(c, datePattern) + " AND left(" + c + ", 4) <> '0000' THEN to_char((left(" + c + ", 7) || '-01')::date + (substr(" + c +
				", 9, 2)::int - 1), 'YYYY-MM-DD') <> " + c + " ELSE true END"
		},
		rule: "every value is a date written YYYY-MM-DD"},
	from: map[string]conversion{
		TypeTimestamp: {using: func(c string) string { return "((" + c + ") AT TIME ZONE 'UTC')::date" }, narrowing: true,
			bad:  func(c string) string { return "((" + c + ") AT TIME ZONE 'UTC')::time <> '00:00'" },
			rule: "every value is at midnight UTC"},
	},
}

// checkDate takes a calendar date written YYYY-MM-DD that exists.
func checkDate(_ *Column, v any) (any, string) {
	s, ok := v.(string)
	if !ok || !dateRe.MatchString(s) {
		return nil, "must be a date (YYYY-MM-DD)"
	}
	if _, err := time.Parse("2006-01-02", s); err != nil {
		return nil, "must be a valid date (YYYY-MM-DD)"
	}
	return s, ""
}
