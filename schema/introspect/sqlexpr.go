package introspect

import (
	"encoding/json"
	"math"
	"strconv"
	"strings"

	"github.com/tablesmith/tablesmith/schema"
)

// The SQL-expression parser: a column's default expression and its check
// constraints, as pg_get_expr and pg_get_constraintdef print them, read
// into the document's default and constraints where they have an
// equivalent there (a constant, now, bounds, lengths, a list of values).

// defaultValue turns a default expression into the document's default
// when it is a constant the validators can check (or the current time),
// reporting false for expressions only the database can evaluate
// (sequences, functions).
func defaultValue(expr string, c schema.Column) (json.RawMessage, bool) {
	expr = strings.TrimSpace(expr)
	if expr == "" {
		return nil, false
	}
	var v any
	switch c.Type {
	case schema.TypeTimestamp:
		switch strings.ToLower(expr) {
		case "now()", "current_timestamp", "statement_timestamp()", "transaction_timestamp()", "localtimestamp":
			return json.RawMessage(`"now"`), true
		}
		return nil, false
	case schema.TypeDate:
		if strings.EqualFold(expr, "CURRENT_DATE") {
			return json.RawMessage(`"now"`), true
		}
		s, ok := stringLiteral(expr)
		if !ok {
			return nil, false
		}
		v = s
	case schema.TypeBoolean:
		switch expr {
		case "true":
			v = true
		case "false":
			v = false
		default:
			return nil, false
		}
	case schema.TypeInteger, schema.TypeNumber, schema.TypeDecimal:
		f, text, ok := numberLiteral(expr)
		if !ok || math.IsInf(f, 0) || math.IsNaN(f) {
			return nil, false
		}
		v = json.Number(text)
	case schema.TypeText, schema.TypeEnum, schema.TypeUUID:
		s, ok := stringLiteral(expr)
		if !ok {
			return nil, false
		}
		v = s
	case schema.TypeJSON:
		s, ok := stringLiteral(expr)
		if !ok || !json.Valid([]byte(s)) {
			return nil, false
		}
		return json.RawMessage(s), true
	default:
		return nil, false
	}
	if _, msg := schema.CheckValue(&c, v); msg != "" {
		return nil, false
	}
	raw, err := json.Marshal(v)
	if err != nil {
		return nil, false
	}
	return raw, true
}

// stripCast removes one trailing ::type cast (a type name may be quoted,
// qualified, have spaces and a [] suffix).
func stripCast(s string) string {
	cut := -1
	scanTop(s, func(i, depth int) bool {
		if s[i] == ':' && depth == 0 && i+1 < len(s) && s[i+1] == ':' && isTypeName(s[i+2:]) {
			cut = i
			return false
		}
		return true
	})
	if cut < 0 {
		return s
	}
	return strings.TrimSpace(s[:cut])
}

// scanTop calls f for each byte of s outside quotes with the nesting depth
// of parentheses and brackets after that byte; f returns false to stop.
// It returns the depth at the end.
func scanTop(s string, f func(i, depth int) bool) int {
	depth, quote := 0, byte(0)
	for i := 0; i < len(s); i++ {
		ch := s[i]
		switch {
		case quote != 0:
			if ch == quote {
				quote = 0
			}
			continue
		case ch == '\'' || ch == '"':
			quote = ch
			continue
		case ch == '(' || ch == '[':
			depth++
		case ch == ')' || ch == ']':
			depth--
		}
		if !f(i, depth) {
			break
		}
	}
	return depth
}

// isTypeName reports whether s can be the type of a cast as PostgreSQL
// prints it: lower-case words, digits, qualification, a length or
// precision, an array suffix, and anything inside double quotes.
func isTypeName(s string) bool {
	if s == "" {
		return false
	}
	quoted := false
	for i := 0; i < len(s); i++ {
		ch := s[i]
		switch {
		case ch == '"':
			quoted = !quoted
		case quoted:
		case ch >= 'a' && ch <= 'z', ch >= '0' && ch <= '9', strings.IndexByte("_ .,[]()", ch) >= 0:
		default:
			return false
		}
	}
	return !quoted
}

// unwrap strips casts and the parentheses that enclose a whole
// expression, repeatedly.
func unwrap(s string) string {
	for {
		s = strings.TrimSpace(s)
		n := stripCast(s)
		if enclosed(n) {
			n = n[1 : len(n)-1]
		}
		if n == s {
			return s
		}
		s = n
	}
}

// enclosed reports whether s is one parenthesized expression.
func enclosed(s string) bool {
	if len(s) < 2 || s[0] != '(' || s[len(s)-1] != ')' {
		return false
	}
	closedEarly := false
	end := scanTop(s, func(i, depth int) bool {
		if s[i] == ')' && depth == 0 && i != len(s)-1 {
			closedEarly = true
			return false
		}
		return true
	})
	return !closedEarly && end == 0
}

// stringLiteral reads a quoted literal (a quote inside is doubled), cast
// or not.
func stringLiteral(expr string) (string, bool) {
	s := unwrap(expr)
	if len(s) < 2 || s[0] != '\'' || s[len(s)-1] != '\'' {
		return "", false
	}
	body := s[1 : len(s)-1]
	if strings.Contains(strings.ReplaceAll(body, "''", ""), "'") {
		return "", false
	}
	return strings.ReplaceAll(body, "''", "'"), true
}

// numberLiteral reads 12, -1.5, (-3) or '7'::integer.
func numberLiteral(expr string) (float64, string, bool) {
	s := unwrap(expr)
	if lit, ok := stringLiteral(s); ok {
		s = lit
	}
	s = strings.TrimSpace(s)
	if s == "" || strings.ContainsAny(s, "eExXpPnN_ ") {
		return 0, "", false
	}
	f, err := strconv.ParseFloat(s, 64)
	if err != nil {
		return 0, "", false
	}
	return f, s, true
}

// splitTop splits s at sep where sep stands outside parentheses, brackets
// and quotes.
func splitTop(s, sep string) []string {
	var out []string
	start := 0
	scanTop(s, func(i, depth int) bool {
		if depth == 0 && i >= start && strings.HasPrefix(s[i:], sep) {
			out = append(out, s[start:i])
			start = i + len(sep)
		}
		return true
	})
	return append(out, s[start:])
}

// applyCheck reads a single-column check constraint into the column's
// bounds, lengths or enum values, reporting whether every part of it was
// understood. Parts that are understood apply even when others are not:
// the database enforces the whole check anyway.
func applyCheck(c *schema.Column, def string) bool {
	body, ok := strings.CutPrefix(strings.TrimSuffix(strings.TrimSpace(def), " NOT VALID"), "CHECK ")
	if !ok {
		return false
	}
	all := true
	for _, part := range splitTop(unwrap(body), " AND ") {
		if !applyCheckPart(c, unwrap(part)) {
			all = false
		}
	}
	return all
}

var checkOps = []string{" >= ", " <= ", " <> ", " = ", " > ", " < "}

func applyCheckPart(c *schema.Column, part string) bool {
	var lhs, op, rhs string
	for _, o := range checkOps {
		if pieces := splitTop(part, o); len(pieces) == 2 {
			lhs, op, rhs = unwrap(pieces[0]), strings.TrimSpace(o), strings.TrimSpace(pieces[1])
			break
		}
	}
	if op == "" {
		return false
	}
	if isColumnRef(lhs, c.Name) {
		if op == "=" && strings.HasPrefix(rhs, "ANY ") {
			return applyInList(c, strings.TrimPrefix(rhs, "ANY "))
		}
		f, _, ok := numberLiteral(rhs)
		if !ok {
			return false
		}
		switch c.Type {
		case schema.TypeInteger, schema.TypeNumber, schema.TypeDecimal:
			return applyBound(c, op, f)
		}
		return false
	}
	if arg, ok := lengthOf(lhs); ok && isColumnRef(arg, c.Name) && c.Type == schema.TypeText {
		f, _, ok := numberLiteral(rhs)
		if !ok || f != math.Trunc(f) || f < 0 || f > math.MaxInt32 {
			return false
		}
		return applyLength(c, op, int(f))
	}
	return false
}

// isColumnRef reports whether s names the column: name, "name", or
// either cast (the cast was stripped by unwrap).
func isColumnRef(s, name string) bool {
	s = unwrap(s)
	return s == name || s == `"`+name+`"`
}

func lengthOf(s string) (string, bool) {
	for _, fn := range []string{"char_length(", "character_length(", "length("} {
		if strings.HasPrefix(s, fn) && strings.HasSuffix(s, ")") && enclosed(s[len(fn)-1:]) {
			return s[len(fn) : len(s)-1], true
		}
	}
	return "", false
}

func applyBound(c *schema.Column, op string, f float64) bool {
	integral := c.Type == schema.TypeInteger
	switch op {
	case ">=":
	case "<=":
	case ">", "<":
		if !integral || f != math.Trunc(f) {
			return false
		}
		if op == ">" {
			f, op = f+1, ">="
		} else {
			f, op = f-1, "<="
		}
	default:
		return false
	}
	if op == ">=" {
		if c.Min == nil || f > *c.Min {
			c.Min = floatPtr(f)
		}
	} else if c.Max == nil || f < *c.Max {
		c.Max = floatPtr(f)
	}
	return true
}

func applyLength(c *schema.Column, op string, n int) bool {
	switch op {
	case ">":
		n, op = n+1, ">="
	case "<":
		n, op = n-1, "<="
	}
	switch op {
	case ">=":
		if c.MinLength == nil || n > *c.MinLength {
			c.MinLength = intPtr(n)
		}
	case "<=":
		if n < 1 {
			return false
		}
		if c.MaxLength == nil || n < *c.MaxLength {
			c.MaxLength = intPtr(n)
		}
	default:
		return false
	}
	return true
}

// applyInList reads (ARRAY['a'::text, 'b'::text]) into enum values.
func applyInList(c *schema.Column, rhs string) bool {
	if c.Type != schema.TypeText {
		return false
	}
	arr := unwrap(rhs)
	inner, ok := strings.CutPrefix(arr, "ARRAY[")
	if !ok || !strings.HasSuffix(inner, "]") {
		return false
	}
	var values []string
	seen := map[string]bool{}
	for _, item := range splitTop(inner[:len(inner)-1], ", ") {
		v, ok := stringLiteral(item)
		if !ok || v == "" || seen[v] {
			return false
		}
		seen[v] = true
		values = append(values, v)
	}
	if len(values) == 0 {
		return false
	}
	c.Type, c.Values = schema.TypeEnum, values
	c.MinLength, c.MaxLength = nil, nil
	return true
}
