package schema

import (
	"encoding/json"
	"strings"
)

// jsonType is any JSON value, stored as jsonb.
var jsonType = &ColumnType{
	Name: TypeJSON, Label: "JSON", PG: "jsonb", Offered: true,
	Literal: LiteralString,
	Example: map[string]any{"tags": []any{"a", "b"}},
	Fronts:  []string{"json", "jsonb"},

	check:      func(_ *Column, v any) (any, string) { return checkJSON(v) },
	parseQuery: notFiltered,
	// Any JSON value: nullability is decided by Document.
	document: func(*Column, bool) ValueSchema { return ValueSchema{} },
	anyValue: true,
}

// checkJSON takes any JSON value PostgreSQL can store: jsonb refuses the NUL escape.
func checkJSON(v any) (any, string) {
	b, err := json.Marshal(v)
	if err != nil {
		return nil, "must be JSON"
	}
	if strings.Contains(string(b), `\u0000`) {
		return nil, "must not contain NUL characters"
	}
	return string(b), ""
}
