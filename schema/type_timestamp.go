package schema

import "time"

// timestampType is a point in time, shown in RFC 3339 UTC.
var timestampType = &ColumnType{
	Name: TypeTimestamp, Label: "Timestamp", PG: "timestamptz", Offered: true,
	Traits:  Traits{Ordered: true, MinMax: true, Comparable: true, Unique: true, Indexable: true},
	Literal: LiteralString,
	Example: "2026-01-31T12:00:00Z",
	Fronts:  []string{"timestamptz", "timestamp"},

	check: checkTimestamp,
	parseQuery: func(_ *Column, s string) (any, string) {
		if t, err := time.Parse(time.RFC3339Nano, s); err == nil {
			return t.UTC(), ""
		}
		if t, err := time.Parse("2006-01-02", s); err == nil {
			return t.UTC(), ""
		}
		return nil, "must be an RFC 3339 date-time or a date"
	},
	document: func(_ *Column, forRequest bool) ValueSchema {
		s := ValueSchema{Types: []string{"string"}, Format: "date-time", Examples: []string{"2026-01-31T12:00:00Z"}}
		if forRequest {
			s.Patterns = []string{DateTimePattern}
		} else {
			s.Description = "RFC 3339, in UTC."
		}
		return s
	},
	query: &NamedSchema{Name: "FilterTimestamp", Schema: ValueSchema{Types: []string{"string"},
		Description: "An RFC 3339 date-time or a date (YYYY-MM-DD)."}},
	nowSQL: "now()",
	output: func(ref string) string {
		return "to_char(" + ref + ` AT TIME ZONE 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.US"Z"')`
	},
	asText: func(c string) string {
		return "to_char((" + c + `) AT TIME ZONE 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.US"Z"')`
	},
	from: map[string]conversion{
		TypeDate: {using: func(c string) string { return "(" + c + ")::timestamp AT TIME ZONE 'UTC'" }},
	},
}

// checkTimestamp takes an RFC 3339 date-time and answers it in UTC.
func checkTimestamp(_ *Column, v any) (any, string) {
	s, ok := v.(string)
	if !ok {
		return nil, "must be an RFC 3339 date-time string"
	}
	t, err := time.Parse(time.RFC3339Nano, s)
	if err != nil {
		return nil, "must be an RFC 3339 date-time (e.g. 2026-01-31T12:00:00Z)"
	}
	return t.UTC(), ""
}
