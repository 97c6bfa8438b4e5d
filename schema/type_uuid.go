package schema

import "strings"

// uuidType is a UUID, stored and shown in lower case.
var uuidType = &ColumnType{
	Name: TypeUUID, Label: "UUID", PG: "uuid", Offered: true,
	Traits:  Traits{Comparable: true, Unique: true, Indexable: true, Key: true},
	Literal: LiteralString,
	Example: "3f2504e0-4f89-11d3-9a0c-0305e82c3301",
	Fronts:  []string{"uuid"},

	check: func(_ *Column, v any) (any, string) {
		s, ok := v.(string)
		if !ok || !uuidRe.MatchString(s) {
			return nil, "must be a UUID"
		}
		return strings.ToLower(s), ""
	},
	parseQuery: func(_ *Column, s string) (any, string) {
		if !uuidRe.MatchString(s) {
			return nil, "must be a UUID"
		}
		return parseText(nil, s)
	},
	document: func(*Column, bool) ValueSchema {
		return ValueSchema{Types: []string{"string"}, Format: "uuid", Patterns: []string{UUIDPattern}}
	},
	query: &NamedSchema{Name: "FilterUUID", Schema: ValueSchema{Types: []string{"string"}, Format: "uuid"}},
	fromText: &conversion{using: castTo("uuid"), narrowing: true,
		bad:  func(c string) string { return "NOT " + matches(c, uuidPattern) },
		rule: "every value is a UUID"},
}
