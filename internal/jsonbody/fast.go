package jsonbody

import (
	"encoding/json"
	"unicode/utf16"
	"unicode/utf8"
)

// fastObject decodes a body that Check has passed (valid UTF-8, no lone
// surrogate escapes, no duplicate keys) into what encoding/json with
// UseNumber would give for a JSON object, without its reflection and the
// copy of the input its Decoder keeps: a table write decodes one object
// per request. ok is false for anything it does not take on (not an
// object, a syntax error, deep nesting): decodeObject then asks
// encoding/json, which decides and words the error.
func fastObject(raw []byte) (obj map[string]any, ok bool) {
	v, ok := fastWhole(raw, '{')
	if !ok {
		return nil, false
	}
	return v.(map[string]any), true
}

// fastWhole decodes raw when it is one JSON value that starts with open,
// with nothing but white space around it.
func fastWhole(raw []byte, open byte) (any, bool) {
	p := fastParser{b: raw}
	p.space()
	if p.i >= len(p.b) || p.b[p.i] != open {
		return nil, false
	}
	v, ok := p.value(0)
	if !ok {
		return nil, false
	}
	p.space()
	return v, p.i == len(p.b)
}

// fastItems is fastObject for a bulk body: an array whose elements are
// all objects. ok is false for anything else, left to encoding/json.
func fastItems(raw []byte) (items []map[string]any, ok bool) {
	v, ok := fastWhole(raw, '[')
	if !ok {
		return nil, false
	}
	elems := v.([]any)
	items = make([]map[string]any, len(elems))
	for i, e := range elems {
		if items[i], ok = e.(map[string]any); !ok {
			return nil, false
		}
	}
	return items, true
}

// fastMaxDepth bounds the nesting fastObject follows; deeper bodies go to
// encoding/json.
const fastMaxDepth = 64

type fastParser struct {
	b []byte
	i int
}

func (p *fastParser) space() { p.i = skipSpace(p.b, p.i) }

func (p *fastParser) value(depth int) (any, bool) {
	if p.i >= len(p.b) || depth > fastMaxDepth {
		return nil, false
	}
	switch c := p.b[p.i]; {
	case c == '{':
		return p.object(depth)
	case c == '[':
		return p.array(depth)
	case c == '"':
		s, ok := p.str()
		return s, ok
	case c == 't':
		return true, p.literal("true")
	case c == 'f':
		return false, p.literal("false")
	case c == 'n':
		return nil, p.literal("null")
	case c == '-' || (c >= '0' && c <= '9'):
		return p.number()
	}
	return nil, false
}

func (p *fastParser) literal(word string) bool {
	if len(p.b)-p.i < len(word) || string(p.b[p.i:p.i+len(word)]) != word {
		return false
	}
	p.i += len(word)
	return true
}

func (p *fastParser) object(depth int) (any, bool) {
	obj := make(map[string]any)
	if p.opensEmpty('}') {
		return obj, true
	}
	for {
		p.space()
		if p.i >= len(p.b) || p.b[p.i] != '"' {
			return nil, false
		}
		key, ok := p.str()
		if !ok {
			return nil, false
		}
		p.space()
		if p.i >= len(p.b) || p.b[p.i] != ':' {
			return nil, false
		}
		p.i++
		p.space()
		v, ok := p.value(depth + 1)
		if !ok {
			return nil, false
		}
		obj[key] = v
		if more, ok := p.next('}'); !ok || !more {
			return obj, ok
		}
	}
}

// opensEmpty takes an object's or array's opening bracket and, when the
// closing one follows straight away, that too.
func (p *fastParser) opensEmpty(closing byte) bool {
	p.i++
	p.space()
	if p.i < len(p.b) && p.b[p.i] == closing {
		p.i++
		return true
	}
	return false
}

// next takes what follows a member or element: a comma (more follow) or
// the closing bracket; ok is false for anything else.
func (p *fastParser) next(closing byte) (more, ok bool) {
	p.space()
	if p.i >= len(p.b) {
		return false, false
	}
	switch p.b[p.i] {
	case ',':
		p.i++
		return true, true
	case closing:
		p.i++
		return false, true
	}
	return false, false
}

func (p *fastParser) array(depth int) (any, bool) {
	arr := []any{}
	if p.opensEmpty(']') {
		return arr, true
	}
	for {
		p.space()
		v, ok := p.value(depth + 1)
		if !ok {
			return nil, false
		}
		arr = append(arr, v)
		if more, ok := p.next(']'); !ok || !more {
			return arr, ok
		}
	}
}

// number takes a number by JSON's grammar and keeps its text, as
// UseNumber does.
func (p *fastParser) number() (any, bool) {
	start := p.i
	if p.b[p.i] == '-' {
		p.i++
	}
	switch {
	case p.i < len(p.b) && p.b[p.i] == '0':
		p.i++
	case p.i < len(p.b) && p.b[p.i] >= '1' && p.b[p.i] <= '9':
		p.digits()
	default:
		return nil, false
	}
	if p.i < len(p.b) && p.b[p.i] == '.' {
		p.i++
		if !p.digits() {
			return nil, false
		}
	}
	if p.i < len(p.b) && (p.b[p.i] == 'e' || p.b[p.i] == 'E') {
		p.i++
		if p.i < len(p.b) && (p.b[p.i] == '+' || p.b[p.i] == '-') {
			p.i++
		}
		if !p.digits() {
			return nil, false
		}
	}
	return json.Number(p.b[start:p.i]), true
}

// digits takes one or more decimal digits.
func (p *fastParser) digits() bool {
	start := p.i
	for p.i < len(p.b) && p.b[p.i] >= '0' && p.b[p.i] <= '9' {
		p.i++
	}
	return p.i > start
}

// str takes a string: plain ones are one conversion, escapes are
// decoded as encoding/json does (Check has refused lone surrogates).
func (p *fastParser) str() (string, bool) {
	p.i++ // "
	start := p.i
	for p.i < len(p.b) {
		switch c := p.b[p.i]; {
		case c == '"':
			s := string(p.b[start:p.i])
			p.i++
			return s, true
		case c == '\\':
			return p.escapedStr(start)
		case c < 0x20:
			return "", false
		default:
			p.i++
		}
	}
	return "", false
}

func (p *fastParser) escapedStr(start int) (string, bool) {
	out := make([]byte, 0, p.i-start+16)
	out = append(out, p.b[start:p.i]...)
	for p.i < len(p.b) {
		c := p.b[p.i]
		switch {
		case c == '"':
			p.i++
			return string(out), true
		case c < 0x20:
			return "", false
		case c != '\\':
			out = append(out, c)
			p.i++
			continue
		}
		if p.i+1 >= len(p.b) {
			return "", false
		}
		switch e := p.b[p.i+1]; e {
		case '"', '\\', '/':
			out = append(out, e)
		case 'b':
			out = append(out, '\b')
		case 'f':
			out = append(out, '\f')
		case 'n':
			out = append(out, '\n')
		case 'r':
			out = append(out, '\r')
		case 't':
			out = append(out, '\t')
		case 'u':
			r, ok := hex4(p.b, p.i+2)
			if !ok {
				return "", false
			}
			p.i += 6
			if utf16.IsSurrogate(r) {
				// Check passed only pairs: a high half followed by \u and a low half.
				if p.i+1 >= len(p.b) || p.b[p.i] != '\\' || p.b[p.i+1] != 'u' {
					return "", false
				}
				lo, ok := hex4(p.b, p.i+2)
				r = utf16.DecodeRune(r, lo)
				if !ok || r == utf8.RuneError {
					return "", false
				}
				p.i += 6
			}
			out = utf8.AppendRune(out, r)
			continue
		default:
			return "", false
		}
		p.i += 2
	}
	return "", false
}
