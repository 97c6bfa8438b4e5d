package schema

// urlType is an absolute http or https URL.
var urlType = &ColumnType{
	Name: TypeURL, Label: "URL", PG: "text", Offered: true,
	Traits: Traits{Textual: true, Ordered: true, MinMax: true, Comparable: true, Unique: true, Indexable: true,
		Lengths: true},
	Literal: LiteralString,
	Example: "https://example.com/",

	check:      checkText,
	parseQuery: parseText,
	document: func(c *Column, forRequest bool) ValueSchema {
		s := ValueSchema{Types: []string{"string"}, Format: "uri", Examples: []string{"https://example.com/"}}
		if forRequest {
			s.Patterns = patternsOf(URLPattern, c.Pattern)
			s.MinLength, s.MaxLength = lengthsOf(c, 0)
		}
		return s
	},
	format: &sqlFormat{rule: "http or https URL", cond: func(v string) string {
		return "(" + v + " ~ " + QuoteLiteral(urlPattern) + ")"
	}},
	textFormat: func(s string) string {
		// The document's pattern, so the two agree on every string.
		if !urlRe.MatchString(s) {
			return "invalid URL (must be http or https)"
		}
		return ""
	},
}
