package translate

import (
	"fmt"
	"strings"
	"unicode/utf8"
)

// The filter=<expr> language (docs/query-language.md has the user's view):
//
//	expr       = and { "or" and }
//	and        = unary { "and" unary }
//	unary      = "not" unary | "(" expr ")" | comparison
//	comparison = column op value
//	column     = name { "." name } | '"' name '"'
//	op         = "=" | "!=" | ">" | ">=" | "<" | "<=" | "~" | "!~"
//	value      = number | string | "true" | "false" | "null"
//	number     = [ "-" ] digits [ "." digits ] [ ( "e" | "E" ) [ "+" | "-" ] digits ]
//	string     = "'" { char | "''" | "\'" | "\\" } "'"
//
// Keywords are case-insensitive; a column whose name is a keyword is
// written in double quotes. Positions in errors count characters from 1.

// Limits of one expression.
const (
	MaxFilterLength      = 2048 // bytes
	MaxFilterDepth       = 16   // nested parentheses and nots
	MaxFilterComparisons = 64
)

// Expr is a node of a parsed filter expression.
type Expr interface {
	// Pos is where the node starts (characters from 1).
	Pos() int
}

// Logical joins two or more expressions with "and" or "or".
type Logical struct {
	Op    string // "and" or "or"
	Terms []Expr
}

// Not negates an expression.
type Not struct {
	X  Expr
	At int
}

// Comparison is column op value.
type Comparison struct {
	Column string
	Op     string // as written: = != > >= < <= ~ !~
	Value  Literal
	At     int
}

// LiteralKind tells what kind of value a literal is.
type LiteralKind int

// Literal kinds.
const (
	NumberLiteral LiteralKind = iota
	StringLiteral
	BoolLiteral
	NullLiteral
)

// Literal is a value as written: Text holds a number's digits, a string's
// content (escapes resolved), or "true"/"false"/"null".
type Literal struct {
	Kind LiteralKind
	Text string
	At   int
}

// Pos implements Expr.
func (l *Logical) Pos() int { return l.Terms[0].Pos() }

// Pos implements Expr.
func (n *Not) Pos() int { return n.At }

// Pos implements Expr.
func (c *Comparison) Pos() int { return c.At }

// SyntaxError is a filter expression that could not be parsed (or not be
// planned): Msg says what, At says where (characters from 1).
type SyntaxError struct {
	Msg string
	At  int
}

func (e *SyntaxError) Error() string { return fmt.Sprintf("%s at %d", e.Msg, e.At) }

func syntaxErr(at int, format string, args ...any) *SyntaxError {
	return &SyntaxError{Msg: fmt.Sprintf(format, args...), At: at}
}

type tokenKind int

const (
	tokEOF tokenKind = iota
	tokName
	tokQuotedName
	tokNumber
	tokString
	tokOp
	tokLParen
	tokRParen
	tokAnd
	tokOr
	tokNot
	tokTrue
	tokFalse
	tokNull
)

type token struct {
	kind tokenKind
	text string
	at   int
}

var keywords = map[string]tokenKind{"and": tokAnd, "or": tokOr, "not": tokNot, "true": tokTrue, "false": tokFalse, "null": tokNull}

// describe names a token in an error message, quoting at most a short
// piece of what the user wrote.
func (t token) describe() string {
	short := func(s string) string {
		if utf8.RuneCountInString(s) > 24 {
			s = string([]rune(s)[:24]) + "…"
		}
		return s
	}
	switch t.kind {
	case tokEOF:
		return "end of expression"
	case tokName, tokQuotedName:
		return fmt.Sprintf("name %q", short(t.text))
	case tokNumber:
		return "number " + short(t.text)
	case tokString:
		return "string"
	case tokAnd, tokOr, tokNot, tokTrue, tokFalse, tokNull:
		return "'" + strings.ToLower(t.text) + "'"
	}
	return "'" + t.text + "'"
}

// lexer turns an expression into tokens; positions count runes from 1.
type lexer struct {
	src []rune
	i   int
}

func isDigit(r rune) bool     { return r >= '0' && r <= '9' }
func isNameStart(r rune) bool { return r == '_' || (r >= 'a' && r <= 'z') || (r >= 'A' && r <= 'Z') }
func isNamePart(r rune) bool  { return isNameStart(r) || isDigit(r) }

func (l *lexer) peekAt(k int) rune {
	if l.i+k < len(l.src) {
		return l.src[l.i+k]
	}
	return 0
}

// operator is the operator table's symbol at the lexer's position, the
// longest that matches, or "".
func (l *lexer) operator() string {
	for _, sym := range exprSymbols {
		j := l.i
		for _, r := range sym {
			if j >= len(l.src) || l.src[j] != r {
				j = -1
				break
			}
			j++
		}
		if j >= 0 {
			return sym
		}
	}
	return ""
}

func (l *lexer) next() (token, error) {
	for l.i < len(l.src) && strings.ContainsRune(" \t\r\n", l.src[l.i]) {
		l.i++
	}
	at := l.i + 1
	if l.i >= len(l.src) {
		return token{kind: tokEOF, at: at}, nil
	}
	if op := l.operator(); op != "" {
		l.i += utf8.RuneCountInString(op)
		return token{kind: tokOp, text: op, at: at}, nil
	}
	r := l.src[l.i]
	switch {
	case r == '(':
		l.i++
		return token{kind: tokLParen, text: "(", at: at}, nil
	case r == ')':
		l.i++
		return token{kind: tokRParen, text: ")", at: at}, nil
	case r == '!':
		return token{}, syntaxErr(at, "unexpected '!' (use != or !~)")
	case r == '\'':
		return l.str(at)
	case r == '"':
		return l.quotedName(at)
	case isDigit(r) || (r == '-' && isDigit(l.peekAt(1))):
		return l.number(at)
	case isNameStart(r):
		start := l.i
		for l.i < len(l.src) && isNamePart(l.src[l.i]) {
			l.i++
		}
		// A dotted name reaches a column through relations (author.name).
		dotted := false
		for l.peekAt(0) == '.' && isNameStart(l.peekAt(1)) {
			dotted = true
			l.i++
			for l.i < len(l.src) && isNamePart(l.src[l.i]) {
				l.i++
			}
		}
		word := string(l.src[start:l.i])
		if k, ok := keywords[strings.ToLower(word)]; ok && !dotted {
			return token{kind: k, text: word, at: at}, nil
		}
		return token{kind: tokName, text: word, at: at}, nil
	}
	if r == utf8.RuneError || r < ' ' {
		return token{}, syntaxErr(at, "unexpected character")
	}
	return token{}, syntaxErr(at, "unexpected character %q", string(r))
}

// str reads a single-quoted string: a quote inside is written twice or as \',
// a backslash \\; any other backslash escape is an error, so that a
// string means exactly one thing.
func (l *lexer) str(at int) (token, error) {
	var b strings.Builder
	l.i++ // opening quote
	for l.i < len(l.src) {
		r := l.src[l.i]
		switch {
		case r == '\'' && l.peekAt(1) == '\'':
			b.WriteRune('\'')
			l.i += 2
		case r == '\'':
			l.i++
			return token{kind: tokString, text: b.String(), at: at}, nil
		case r == '\\':
			n := l.peekAt(1)
			if n != '\'' && n != '\\' {
				return token{}, syntaxErr(l.i+1, `unknown escape in string (write \\ for a backslash, \' or '' for a quote)`)
			}
			b.WriteRune(n)
			l.i += 2
		default:
			b.WriteRune(r)
			l.i++
		}
	}
	return token{}, syntaxErr(at, "unterminated string")
}

// quotedName reads a double-quoted column name ("" is a quote inside).
func (l *lexer) quotedName(at int) (token, error) {
	var b strings.Builder
	l.i++
	for l.i < len(l.src) {
		r := l.src[l.i]
		if r == '"' && l.peekAt(1) == '"' {
			b.WriteRune('"')
			l.i += 2
			continue
		}
		if r == '"' {
			l.i++
			if b.Len() == 0 {
				return token{}, syntaxErr(at, "empty column name")
			}
			return token{kind: tokQuotedName, text: b.String(), at: at}, nil
		}
		b.WriteRune(r)
		l.i++
	}
	return token{}, syntaxErr(at, "unterminated quoted name")
}

func (l *lexer) number(at int) (token, error) {
	start := l.i
	if l.src[l.i] == '-' {
		l.i++
	}
	digits := func() int {
		n := 0
		for l.i < len(l.src) && isDigit(l.src[l.i]) {
			l.i++
			n++
		}
		return n
	}
	digits()
	if l.peekAt(0) == '.' {
		l.i++
		if digits() == 0 {
			return token{}, syntaxErr(at, "invalid number")
		}
	}
	if r := l.peekAt(0); r == 'e' || r == 'E' {
		l.i++
		if r := l.peekAt(0); r == '+' || r == '-' {
			l.i++
		}
		if digits() == 0 {
			return token{}, syntaxErr(at, "invalid number")
		}
	}
	if r := l.peekAt(0); isNamePart(r) || r == '.' {
		return token{}, syntaxErr(at, "invalid number")
	}
	return token{kind: tokNumber, text: string(l.src[start:l.i]), at: at}, nil
}

// parser is a recursive-descent parser over the lexer with one token of
// lookahead.
type parser struct {
	lex         lexer
	tok         token
	depth       int
	comparisons int
}

// ParseFilter parses a filter expression into its syntax tree. It knows
// no schema: column names and value types are checked by BuildList.
func ParseFilter(s string) (Expr, error) {
	if len(s) > MaxFilterLength {
		return nil, syntaxErr(1, "expression longer than %d bytes", MaxFilterLength)
	}
	if !utf8.ValidString(s) {
		return nil, syntaxErr(1, "expression is not valid UTF-8")
	}
	p := &parser{lex: lexer{src: []rune(s)}}
	if err := p.advance(); err != nil {
		return nil, err
	}
	e, err := p.or()
	if err != nil {
		return nil, err
	}
	if p.tok.kind != tokEOF {
		return nil, p.unexpected()
	}
	return e, nil
}

func (p *parser) advance() error {
	t, err := p.lex.next()
	if err != nil {
		return err
	}
	p.tok = t
	return nil
}

func (p *parser) unexpected() error {
	return syntaxErr(p.tok.at, "unexpected %s", p.tok.describe())
}

func (p *parser) or() (Expr, error) { return p.logical("or", tokOr, p.and) }

func (p *parser) and() (Expr, error) { return p.logical("and", tokAnd, p.unary) }

// logical reads operand { kw operand } into one n-ary node.
func (p *parser) logical(op string, kw tokenKind, operand func() (Expr, error)) (Expr, error) {
	first, err := operand()
	if err != nil {
		return nil, err
	}
	terms := []Expr{first}
	for p.tok.kind == kw {
		if err := p.advance(); err != nil {
			return nil, err
		}
		next, err := operand()
		if err != nil {
			return nil, err
		}
		terms = append(terms, next)
	}
	if len(terms) == 1 {
		return first, nil
	}
	return &Logical{Op: op, Terms: terms}, nil
}

func (p *parser) nest() error {
	p.depth++
	if p.depth > MaxFilterDepth {
		return syntaxErr(p.tok.at, "expression nested deeper than %d levels", MaxFilterDepth)
	}
	return nil
}

func (p *parser) unary() (Expr, error) {
	switch p.tok.kind {
	case tokNot:
		at := p.tok.at
		if err := p.nest(); err != nil {
			return nil, err
		}
		if err := p.advance(); err != nil {
			return nil, err
		}
		x, err := p.unary()
		if err != nil {
			return nil, err
		}
		p.depth--
		return &Not{X: x, At: at}, nil
	case tokLParen:
		if err := p.nest(); err != nil {
			return nil, err
		}
		if err := p.advance(); err != nil {
			return nil, err
		}
		x, err := p.or()
		if err != nil {
			return nil, err
		}
		if p.tok.kind != tokRParen {
			return nil, syntaxErr(p.tok.at, "expected ')' but found %s", p.tok.describe())
		}
		p.depth--
		return x, p.advance()
	case tokName, tokQuotedName:
		return p.comparison()
	}
	return nil, p.unexpected()
}

func (p *parser) comparison() (Expr, error) {
	p.comparisons++
	if p.comparisons > MaxFilterComparisons {
		return nil, syntaxErr(p.tok.at, "expression has more than %d comparisons", MaxFilterComparisons)
	}
	c := &Comparison{Column: p.tok.text, At: p.tok.at}
	if err := p.advance(); err != nil {
		return nil, err
	}
	if p.tok.kind != tokOp {
		return nil, syntaxErr(p.tok.at, "expected an operator (%s) after %q but found %s", exprNames, c.Column, p.tok.describe())
	}
	c.Op = p.tok.text
	if err := p.advance(); err != nil {
		return nil, err
	}
	c.Value = Literal{At: p.tok.at, Text: p.tok.text}
	switch p.tok.kind {
	case tokNumber:
		c.Value.Kind = NumberLiteral
	case tokString:
		c.Value.Kind = StringLiteral
	case tokTrue, tokFalse:
		c.Value.Kind, c.Value.Text = BoolLiteral, strings.ToLower(p.tok.text)
	case tokNull:
		c.Value.Kind, c.Value.Text = NullLiteral, "null"
	default:
		return nil, syntaxErr(p.tok.at, "expected a value (number, 'string', true, false or null) but found %s", p.tok.describe())
	}
	return c, p.advance()
}
