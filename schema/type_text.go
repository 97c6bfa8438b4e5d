package schema

// textType is plain text: markup is stripped before it is checked and
// stored, unless the column keeps HTML.
var textType = &ColumnType{
	Name: TypeText, Label: "Text", PG: "text", Offered: true,
	Traits: Traits{Textual: true, Ordered: true, MinMax: true, Comparable: true, Unique: true, Indexable: true,
		Lengths: true, Markup: true},
	Literal: LiteralString,
	Example: "Hello world",
	Fronts:  []string{"text", "varchar", "bpchar", "citext"},

	check:      checkText,
	parseQuery: parseText,
	document: func(c *Column, forRequest bool) ValueSchema {
		s := ValueSchema{Types: []string{"string"}}
		if forRequest {
			s.MinLength, s.MaxLength = lengthsOf(c, 0)
			s.MinLength = requiredMinLength(c, s.MinLength)
			s.Patterns = patternsOf(c.Pattern)
		}
		if c.HTML {
			s.Description = "HTML: markup is kept, active content (scripts, event handlers) is removed."
		} else if forRequest {
			s.Description = "Plain text: markup is stripped before the value is checked and stored."
		}
		return s
	},
}
