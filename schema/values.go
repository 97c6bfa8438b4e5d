package schema

import (
	"encoding/json"
	"math"
	"regexp"
	"strconv"
	"strings"
	"time"
	"unicode/utf8"
)

// Problem messages shown to API users in error.details.
const (
	MsgRequired     = "is required"
	MsgInvalidEmail = "invalid e-mail format"
)

var (
	emailRe = regexp.MustCompile(`^[^\s@]+@[^\s@.]+(\.[^\s@.]+)+$`)
	uuidRe  = regexp.MustCompile(`^[0-9a-fA-F]{8}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{12}$`)
	dateRe  = regexp.MustCompile(`^\d{4}-\d{2}-\d{2}$`)
)

// MinPasswordLength applies to password columns that set no min_length.
const MinPasswordLength = 8

// CheckValue checks a JSON-decoded value (numbers as json.Number) against
// a column's type and constraints. It returns the value in the form bound
// as a SQL parameter (int64, float64, string, bool, nil) or a problem
// message. Text is expected to be sanitized by the caller already.
func CheckValue(c *Column, v any) (any, string) {
	if v == nil {
		if c.Required {
			return nil, "must not be null"
		}
		return nil, ""
	}
	switch c.Type {
	case TypeText, TypeURL, TypeEmail, TypeEnum, TypePassword:
		s, ok := v.(string)
		if !ok {
			return nil, "must be a string"
		}
		return checkString(c, s)
	case TypeInteger:
		return checkInteger(c, v)
	case TypeNumber:
		return checkNumber(c, v)
	case TypeDecimal:
		return checkDecimal(c, v)
	case TypeBoolean:
		b, ok := v.(bool)
		if !ok {
			return nil, "must be true or false"
		}
		return b, ""
	case TypeTimestamp:
		return checkTimestamp(v)
	case TypeDate:
		return checkDate(v)
	case TypeUUID:
		s, ok := v.(string)
		if !ok || !uuidRe.MatchString(s) {
			return nil, "must be a UUID"
		}
		return strings.ToLower(s), ""
	case TypeJSON:
		return checkJSON(v)
	case TypePassthrough:
		return nil, "is read-only"
	}
	return nil, "has an unknown type"
}

// checkInteger takes a JSON number that is a whole int64 within the column's bounds.
func checkInteger(c *Column, v any) (any, string) {
	n, ok := v.(json.Number)
	if !ok {
		return nil, "must be an integer"
	}
	i, err := strconv.ParseInt(string(n), 10, 64)
	if err != nil {
		return nil, "must be an integer"
	}
	if p := checkBounds(c, float64(i)); p != "" {
		return nil, p
	}
	return i, ""
}

// checkNumber takes a finite JSON number within the column's bounds.
func checkNumber(c *Column, v any) (any, string) {
	n, ok := v.(json.Number)
	if !ok {
		return nil, "must be a number"
	}
	f, err := strconv.ParseFloat(string(n), 64)
	if err != nil || math.IsInf(f, 0) {
		return nil, "must be a finite number"
	}
	if p := checkBounds(c, f); p != "" {
		return nil, p
	}
	return f, ""
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

// checkTimestamp takes an RFC 3339 date-time and answers it in UTC.
func checkTimestamp(v any) (any, string) {
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

// checkDate takes a calendar date written YYYY-MM-DD that exists.
func checkDate(v any) (any, string) {
	s, ok := v.(string)
	if !ok || !dateRe.MatchString(s) {
		return nil, "must be a date (YYYY-MM-DD)"
	}
	if _, err := time.Parse("2006-01-02", s); err != nil {
		return nil, "must be a valid date (YYYY-MM-DD)"
	}
	return s, ""
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

func checkString(c *Column, s string) (any, string) {
	if !utf8.ValidString(s) {
		return nil, "must be valid UTF-8"
	}
	if strings.ContainsRune(s, 0) {
		return nil, "must not contain NUL characters"
	}
	if c.Type == TypeEmail {
		s = strings.ToLower(strings.TrimSpace(s))
		if len(s) > 254 || !emailRe.MatchString(s) {
			return nil, MsgInvalidEmail
		}
	}
	if c.Type == TypeURL {
		// The document's pattern, so the two agree on every string.
		if !urlRe.MatchString(s) {
			return nil, "invalid URL (must be http or https)"
		}
	}
	if c.Type == TypeEnum {
		for _, v := range c.Values {
			if v == s {
				return s, ""
			}
		}
		return nil, "must be one of: " + strings.Join(c.Values, ", ")
	}
	if c.Required && s == "" && c.Type != TypeText {
		return nil, "must not be empty"
	}
	n := utf8.RuneCountInString(s)
	minLen := 0
	if c.MinLength != nil {
		minLen = *c.MinLength
	} else if c.Type == TypePassword {
		minLen = MinPasswordLength
	}
	if n < minLen {
		return nil, "must be at least " + strconv.Itoa(minLen) + " characters"
	}
	if c.MaxLength != nil && n > *c.MaxLength {
		return nil, "must be at most " + strconv.Itoa(*c.MaxLength) + " characters"
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
func ParseQueryValue(c *Column, s string) (any, string) {
	switch c.Type {
	case TypeText, TypeURL, TypeEnum, TypeUUID, TypeDate:
		if c.Type == TypeUUID && !uuidRe.MatchString(s) {
			return nil, "must be a UUID"
		}
		if c.Type == TypeDate {
			if _, err := time.Parse("2006-01-02", s); err != nil {
				return nil, "must be a date (YYYY-MM-DD)"
			}
		}
		if strings.ContainsRune(s, 0) || !utf8.ValidString(s) {
			return nil, "must be valid text"
		}
		return s, ""
	case TypeEmail:
		return strings.ToLower(strings.TrimSpace(s)), ""
	case TypeInteger:
		i, err := strconv.ParseInt(s, 10, 64)
		if err != nil {
			return nil, "must be an integer"
		}
		return i, ""
	case TypeNumber, TypeDecimal:
		f, err := strconv.ParseFloat(s, 64)
		if err != nil || math.IsInf(f, 0) || math.IsNaN(f) {
			return nil, "must be a number"
		}
		if c.Type == TypeDecimal {
			return s, ""
		}
		return f, ""
	case TypeBoolean:
		switch s {
		case "true":
			return true, ""
		case "false":
			return false, ""
		}
		return nil, "must be true or false"
	case TypeTimestamp:
		if t, err := time.Parse(time.RFC3339Nano, s); err == nil {
			return t.UTC(), ""
		}
		if t, err := time.Parse("2006-01-02", s); err == nil {
			return t.UTC(), ""
		}
		return nil, "must be an RFC 3339 date-time or a date"
	}
	return nil, "cannot be filtered"
}
