package schema

import (
	"strings"
	"unicode/utf8"
)

// emailType is an e-mail address, trimmed and lower-cased before it is
// checked and stored.
var emailType = &ColumnType{
	Name: TypeEmail, Label: "E-mail", PG: "text", Offered: true,
	Traits: Traits{Textual: true, Ordered: true, MinMax: true, Comparable: true, Unique: true, Indexable: true,
		Lengths: true},
	Literal: LiteralString,
	Example: "user@example.com",

	check: checkText,
	parseQuery: func(_ *Column, s string) (any, string) {
		return strings.ToLower(strings.TrimSpace(s)), ""
	},
	document: func(c *Column, forRequest bool) ValueSchema {
		s := ValueSchema{Types: []string{"string"}, Format: "email", Examples: []string{"user@example.com"}}
		if forRequest {
			// The e-mail shape and the column's own pattern both apply.
			s.Patterns = patternsOf(EmailPattern, c.Pattern)
			s.MinLength, s.MaxLength = lengthsOf(c, 0)
			if s.MaxLength == nil || *s.MaxLength > EmailMaxLength {
				s.MaxLength = ptrTo(int64(EmailMaxLength))
			}
			s.Description = "Trimmed and lower-cased before it is stored."
		}
		return s
	},
	checkSQL:  func(_ Column, col string) string { return "position('@' in " + col + ") > 1" },
	checkRule: func(Column) string { return "contains @" },
	format: &sqlFormat{rule: "e-mail address in lower case", cond: func(v string) string {
		return "(octet_length(" + v + ") <= 254 AND " + v + " = lower(" + v + ") AND " + v + " ~ " + QuoteLiteral(emailPattern) + ")"
	}},
	normalize: func(s string) string { return strings.ToLower(strings.Trim(s, emailBlanks)) },
	// The one e-mail rule (EmailPattern), on the value as sent.
	textFormat: func(s string) string {
		if utf8.RuneCountInString(s) > EmailMaxLength || !emailRe.MatchString(s) {
			return MsgInvalidEmail
		}
		return ""
	},
}
