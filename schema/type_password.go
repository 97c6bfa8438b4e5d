package schema

// passwordType takes a password in plain text and stores only a salted
// slow hash of it (the caller hashes): never returned.
var passwordType = &ColumnType{
	Name: TypePassword, Label: "Password", PG: "text", Offered: true,
	Traits:  Traits{Lengths: true, Secret: true},
	Literal: LiteralString,
	Example: "correct horse battery staple",

	check:      checkText,
	parseQuery: notFiltered,
	document: func(c *Column, _ bool) ValueSchema {
		s := ValueSchema{Types: []string{"string"}, Format: "password", WriteOnly: true,
			Patterns:    patternsOf(c.Pattern),
			Description: "Write-only: stored as a salted slow hash and never returned."}
		s.MinLength, s.MaxLength = lengthsOf(c, MinPasswordLength)
		s.MinLength = requiredMinLength(c, s.MinLength)
		return s
	},
	fixed:     "password columns hold only hashes: they cannot become another type, and no other type can become one; add a new column instead",
	minLength: MinPasswordLength,
}

// MinPasswordLength applies to password columns that set no min_length.
const MinPasswordLength = 8
