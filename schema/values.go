package schema

import (
	"regexp"
	"strconv"
	"strings"
	"unicode/utf8"
)

// Problem messages shown to API users in error.details.
const (
	MsgRequired     = "is required"
	MsgInvalidEmail = "invalid e-mail format"
	MsgEmpty        = "must not be empty"
)

var (
	uuidRe = regexp.MustCompile(UUIDPattern)
	dateRe = regexp.MustCompile(`^\d{4}-\d{2}-\d{2}$`)
)

// CheckValue checks a JSON-decoded value (numbers as json.Number) against
// a column's type and constraints. It returns the value in the form bound
// as a SQL parameter (int64, float64, string, bool, time.Time, nil) or a
// problem message. Text is expected to be sanitized by the caller already.
func CheckValue(c *Column, v any) (any, string) {
	if v == nil {
		if c.Required {
			return nil, "must not be null"
		}
		return nil, ""
	}
	return typeOf(c.Type).check(c, v)
}

// checkDefaultValue checks a column's default as a value of the column,
// except that a required column's default may be empty: "" as the
// default of a required text column was valid before required text
// refused "" in requests, and a published document keeps its meaning.
func checkDefaultValue(c Column, v any) (any, string) {
	c.Required = false
	return CheckValue(&c, v)
}

// checkText takes a string for a text-like column.
func checkText(c *Column, v any) (any, string) {
	s, ok := v.(string)
	if !ok {
		return nil, "must be a string"
	}
	return checkString(c, s)
}

// checkString applies the rules of text-like types in order: valid text,
// the type's shape, the enum's values, emptiness, lengths (in characters)
// and the column's pattern. The shape and the lengths are the value's as
// sent, as the document's pattern and lengths are; the type's normal form
// (a trimmed, lower-case e-mail) is what the rest checks and what is stored.
func checkString(c *Column, s string) (any, string) {
	if !utf8.ValidString(s) {
		return nil, "must be valid UTF-8"
	}
	if strings.ContainsRune(s, 0) {
		return nil, "must not contain NUL characters"
	}
	t := typeOf(c.Type)
	if t.textFormat != nil {
		if msg := t.textFormat(s); msg != "" {
			return nil, msg
		}
	}
	n := utf8.RuneCountInString(s)
	if t.normalize != nil {
		s = t.normalize(s)
	}
	if t.Traits.Enumerated {
		for _, v := range c.Values {
			if v == s {
				return s, ""
			}
		}
		return nil, "must be one of: " + strings.Join(c.Values, ", ")
	}
	if c.Required && s == "" {
		// What a person means by required in a form: text too.
		return nil, MsgEmpty
	}
	minLen := t.minLength
	if c.MinLength != nil {
		minLen = *c.MinLength
	}
	if n < minLen {
		return nil, "must be at least " + strconv.Itoa(minLen) + " characters"
	}
	if max, ok := MaxLength(c); ok && n > max {
		if c.MaxLength == nil || max < *c.MaxLength {
			return nil, "must be at most " + strconv.Itoa(max) + " characters (the values of a unique or indexed column are kept in an index)"
		}
		return nil, "must be at most " + strconv.Itoa(max) + " characters"
	}
	if c.Pattern != "" {
		// Patterns are compiled once in Compile; a document that reaches
		// here without compiling is checked directly.
		re, err := patternCache(c.Pattern)
		if err != nil || !re.MatchString(s) {
			return nil, "does not match the required pattern"
		}
	}
	return s, ""
}

func checkBounds(c *Column, f float64) string {
	if c.Min != nil && f < *c.Min {
		return "must be at least " + formatNumber(*c.Min)
	}
	if c.Max != nil && f > *c.Max {
		return "must be at most " + formatNumber(*c.Max)
	}
	return ""
}

func formatNumber(f float64) string { return strconv.FormatFloat(f, 'f', -1, 64) }

// ParseQueryValue parses a value written in a URL (a filter value) by the
// column's type, returning the bound-parameter form or a problem message.
func ParseQueryValue(c *Column, s string) (any, string) { return typeOf(c.Type).parseQuery(c, s) }

// parseText takes a filter value as text.
func parseText(_ *Column, s string) (any, string) {
	if strings.ContainsRune(s, 0) || !utf8.ValidString(s) {
		return nil, "must be valid text"
	}
	return s, ""
}

// notFiltered is the query parser of types no filter compares.
func notFiltered(*Column, string) (any, string) { return nil, "cannot be filtered" }

// lengthsOf are a column's length bounds for the document, with a
// minimum that applies when the column sets none (passwords).
func lengthsOf(c *Column, defaultMin int) (minLength, maxLength *int64) {
	switch {
	case c.MinLength != nil:
		minLength = ptrTo(int64(*c.MinLength))
	case defaultMin > 0:
		minLength = ptrTo(int64(defaultMin))
	}
	if n, ok := MaxLength(c); ok { // a unique or indexed value also fits its index
		maxLength = ptrTo(int64(n))
	}
	return minLength, maxLength
}

// requiredMinLength is a request's minLength for column c: at least 1 on
// a required column, which refuses "" (MsgEmpty).
func requiredMinLength(c *Column, minLength *int64) *int64 {
	if c.Required && (minLength == nil || *minLength < 1) {
		return ptrTo(int64(1))
	}
	return minLength
}

// patternsOf lists the patterns that are set.
func patternsOf(patterns ...string) []string {
	var out []string
	for _, p := range patterns {
		if p != "" {
			out = append(out, p)
		}
	}
	return out
}

func ptrTo[T any](v T) *T { return &v }
