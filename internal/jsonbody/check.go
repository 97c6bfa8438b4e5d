package jsonbody

import (
	"bytes"
	"encoding/json"
	"strconv"
	"strings"
	"unicode/utf8"

	"github.com/tablesmith/tablesmith/apierr"
)

// Check refuses what Go's decoder accepts but changes or drops: bytes
// that are not UTF-8, \u escapes that are lone UTF-16 surrogates, and a
// key given twice in one object, at any depth. Syntax errors are left to
// the decoder: Check stops quietly where it cannot follow the syntax.
func Check(raw []byte) error { return check(raw, false) }

func check(raw []byte, noNUL bool) error {
	if !utf8.Valid(raw) {
		return apierr.New(apierr.CodeInvalidJSON, "The body is not valid UTF-8 (byte %d)", invalidUTF8At(raw))
	}
	// Room for the keys of typical bodies without allocating.
	var keys [16][]byte
	s := scanner{b: raw, noNUL: noNUL, keys: keys[:0]}
	s.space()
	if p := s.value(0); p != nil && p != errSyntax {
		return p.err()
	}
	return nil
}

func invalidUTF8At(b []byte) int {
	for i := 0; i < len(b); {
		r, n := utf8.DecodeRune(b[i:])
		if r == utf8.RuneError && n == 1 {
			return i
		}
		i += n
	}
	return len(b)
}

// maxDepth matches encoding/json's nesting limit, which refuses deeper
// bodies anyway.
const maxDepth = 10000

// dupMapAfter is the object size beyond which duplicate keys are found
// with a map rather than by comparing with each earlier key.
const dupMapAfter = 16

type problemKind int

const (
	duplicateKey problemKind = iota + 1
	loneSurrogate
	nulCharacter
)

// problem is what Check found and where: path holds the segments from
// the value out to the top (".key" or "[index]"), innermost first.
type problem struct {
	kind problemKind
	key  string
	path []string
}

// errSyntax unwinds the scan at a syntax error, which the decoder then
// reports in its own words.
var errSyntax = &problem{}

func (p *problem) where() string {
	if len(p.path) == 0 {
		return ""
	}
	var b strings.Builder
	for i := len(p.path) - 1; i >= 0; i-- {
		b.WriteString(p.path[i])
	}
	return strings.TrimPrefix(b.String(), ".")
}

func (p *problem) err() error {
	where := p.where()
	in := "the body"
	if where != "" {
		in = where
	}
	switch p.kind {
	case duplicateKey:
		return apierr.New(apierr.CodeInvalidJSON, "Duplicate key %q in %s", p.key, in)
	case loneSurrogate:
		return apierr.New(apierr.CodeInvalidJSON, "Invalid \\u escape in %s: a lone UTF-16 surrogate is not a character", in)
	default:
		if where == "" {
			where = "body"
		}
		return apierr.Fields(apierr.CodeValidation, "Validation failed", map[string]string{where: "must not contain NUL characters"})
	}
}

type scanner struct {
	b     []byte
	i     int
	noNUL bool
	// keys holds the keys of the objects being scanned, innermost last.
	keys [][]byte
}

func (s *scanner) space() { s.i = skipSpace(s.b, s.i) }

// skipSpace returns the index of the first byte at or after i in b that
// is not JSON white space.
func skipSpace(b []byte, i int) int {
	for i < len(b) {
		switch b[i] {
		case ' ', '\t', '\n', '\r':
			i++
		default:
			return i
		}
	}
	return i
}

func (s *scanner) value(depth int) *problem {
	if depth > maxDepth || s.i >= len(s.b) {
		return errSyntax
	}
	switch s.b[s.i] {
	case '{':
		return s.object(depth)
	case '[':
		return s.array(depth)
	case '"':
		_, p := s.str()
		return p
	}
	start := s.i
	for s.i < len(s.b) {
		switch s.b[s.i] {
		case ',', ']', '}', ' ', '\t', '\n', '\r':
			if s.i == start {
				return errSyntax
			}
			return nil
		}
		s.i++
	}
	return nil
}

func (s *scanner) object(depth int) *problem {
	s.i++
	base := len(s.keys)
	var seen map[string]struct{}
	fail := func(p *problem, seg string) *problem {
		s.keys = s.keys[:base]
		if p != errSyntax && seg != "" {
			p.path = append(p.path, seg)
		}
		return p
	}
	s.space()
	if s.i < len(s.b) && s.b[s.i] == '}' {
		s.i++
		return nil
	}
	for {
		if s.i >= len(s.b) || s.b[s.i] != '"' {
			return fail(errSyntax, "")
		}
		key, p := s.str()
		if p != nil {
			return fail(p, "")
		}
		if seen != nil {
			if _, dup := seen[string(key)]; dup {
				return fail(&problem{kind: duplicateKey, key: string(key)}, "")
			}
			seen[string(key)] = struct{}{}
		} else {
			for _, k := range s.keys[base:] {
				if bytes.Equal(k, key) {
					return fail(&problem{kind: duplicateKey, key: string(key)}, "")
				}
			}
			s.keys = append(s.keys, key)
			if len(s.keys)-base > dupMapAfter {
				seen = make(map[string]struct{}, 2*dupMapAfter)
				for _, k := range s.keys[base:] {
					seen[string(k)] = struct{}{}
				}
			}
		}
		s.space()
		if s.i >= len(s.b) || s.b[s.i] != ':' {
			return fail(errSyntax, "")
		}
		s.i++
		s.space()
		if p := s.value(depth + 1); p != nil {
			return fail(p, "."+string(key))
		}
		s.space()
		if s.i >= len(s.b) {
			return fail(errSyntax, "")
		}
		switch s.b[s.i] {
		case ',':
			s.i++
			s.space()
		case '}':
			s.i++
			s.keys = s.keys[:base]
			return nil
		default:
			return fail(errSyntax, "")
		}
	}
}

func (s *scanner) array(depth int) *problem {
	s.i++
	s.space()
	if s.i < len(s.b) && s.b[s.i] == ']' {
		s.i++
		return nil
	}
	for n := 0; ; n++ {
		if p := s.value(depth + 1); p != nil {
			if p != errSyntax {
				p.path = append(p.path, "["+strconv.Itoa(n)+"]")
			}
			return p
		}
		s.space()
		if s.i >= len(s.b) {
			return errSyntax
		}
		switch s.b[s.i] {
		case ',':
			s.i++
			s.space()
		case ']':
			s.i++
			return nil
		default:
			return errSyntax
		}
	}
}

// str scans a string at s.i (its opening quote) and returns its content:
// the raw bytes, or the decoded text when it has escapes, so that keys
// compare by what they mean ("a" and "\u0061" are the same key).
func (s *scanner) str() ([]byte, *problem) {
	s.i++
	start := s.i
	escaped := false
	for s.i < len(s.b) {
		c := s.b[s.i]
		switch {
		case c == '"':
			content := s.b[start:s.i]
			s.i++
			if escaped {
				var text string
				if json.Unmarshal(s.b[start-1:s.i], &text) != nil {
					return nil, errSyntax
				}
				content = []byte(text)
			}
			return content, nil
		case c == '\\':
			escaped = true
			if s.i+1 >= len(s.b) {
				return nil, errSyntax
			}
			if s.b[s.i+1] != 'u' {
				s.i += 2
				continue
			}
			r, ok := hex4(s.b, s.i+2)
			if !ok {
				return nil, errSyntax
			}
			s.i += 6
			switch {
			case r == 0 && s.noNUL:
				return nil, &problem{kind: nulCharacter}
			case r >= 0xD800 && r < 0xDC00:
				if s.i+1 < len(s.b) && s.b[s.i] == '\\' && s.b[s.i+1] == 'u' {
					if low, ok := hex4(s.b, s.i+2); ok && low >= 0xDC00 && low < 0xE000 {
						s.i += 6
						continue
					}
				}
				return nil, &problem{kind: loneSurrogate}
			case r >= 0xDC00 && r < 0xE000:
				return nil, &problem{kind: loneSurrogate}
			}
		case c < 0x20:
			return nil, errSyntax
		default:
			s.i++
		}
	}
	return nil, errSyntax
}

// hex4 reads the four hex digits of a \u escape at b[i:].
func hex4(b []byte, i int) (rune, bool) {
	if i+4 > len(b) {
		return 0, false
	}
	var r rune
	for _, c := range b[i : i+4] {
		switch {
		case c >= '0' && c <= '9':
			r = r<<4 | rune(c-'0')
		case c >= 'a' && c <= 'f':
			r = r<<4 | rune(c-'a'+10)
		case c >= 'A' && c <= 'F':
			r = r<<4 | rune(c-'A'+10)
		default:
			return 0, false
		}
	}
	return r, true
}
