package schemafuzz

import (
	"fmt"
	"math/rand"
	"strings"
	"time"

	"github.com/tablesmith/tablesmith/schema"
)

// textRunes are the characters of generated text: letters, digits, blanks
// and punctuation that sanitization leaves as they are (no markup or
// entities, no quotes an html column would escape), and multi-byte
// characters of two, three and four bytes.
var textRunes = []rune("abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789 -_.,:;!?()[]{}#@/+=*~|$%^éßñø漢字カナ😀🚀")

// valueOptions say what kind of value to make.
type valueOptions struct {
	// valid: a value the column accepts; else one it may refuse.
	valid bool
}

// genValue makes a value for a column that is not a reference, as JSON
// would carry it.
func genValue(r *rand.Rand, c schema.Column, o valueOptions) any {
	if !o.valid {
		return invalidValue(r, c)
	}
	if !c.Required && chance(r, 0.1) {
		return nil
	}
	switch c.Type {
	case schema.TypeText:
		return genText(r, c)
	case schema.TypeEmail:
		return fitLength(c, fmt.Sprintf("%s%d@example.com", pick(r, []string{"ann", "bob", "cy", "x"}), r.Intn(100000)),
			fmt.Sprintf("%d@e.io", r.Intn(100)))
	case schema.TypeURL:
		return fitLength(c, fmt.Sprintf("https://example.com/%s/%d", pick(r, namePool), r.Intn(100000)),
			fmt.Sprintf("http://e.io/%d", r.Intn(100)))
	case schema.TypeEnum:
		return pick(r, c.Values)
	case schema.TypeInteger:
		return int64(genNumber(r, c, true))
	case schema.TypeNumber:
		return genNumber(r, c, false)
	case schema.TypeDecimal:
		f := genNumber(r, c, false)
		if chance(r, 0.5) { // a string keeps every digit
			return fmt.Sprintf("%.2f", f)
		}
		return f
	case schema.TypeBoolean:
		return chance(r, 0.5)
	case schema.TypeTimestamp:
		t := time.Date(2000+r.Intn(40), time.Month(1+r.Intn(12)), 1+r.Intn(28), r.Intn(24), r.Intn(60), r.Intn(60), r.Intn(1000000)*1000, time.UTC)
		if chance(r, 0.5) {
			return t.In(time.FixedZone("", (r.Intn(25)-12)*3600)).Format(time.RFC3339Nano)
		}
		return t.Format(time.RFC3339Nano)
	case schema.TypeDate:
		return fmt.Sprintf("%04d-%02d-%02d", 1990+r.Intn(60), 1+r.Intn(12), 1+r.Intn(28))
	case schema.TypeUUID:
		return genUUID(r)
	case schema.TypeJSON:
		return genJSON(r, 2)
	case schema.TypePassword:
		n := schema.MinPasswordLength
		if c.MinLength != nil && *c.MinLength > n {
			n = *c.MinLength
		}
		return "pw-" + strings.Repeat("x", n) + fmt.Sprint(r.Intn(1000))
	}
	return nil
}

// fitLength is long unless the column's max_length needs short.
func fitLength(c schema.Column, long, short string) string {
	if c.MaxLength != nil && len(long) > *c.MaxLength {
		return short
	}
	return long
}

// genText is text within the column's lengths, made unique enough for a
// unique column.
func genText(r *rand.Rand, c schema.Column) string {
	lo, hi := 0, 12
	if c.MinLength != nil {
		lo = *c.MinLength
	}
	if c.MaxLength != nil && *c.MaxLength < hi {
		hi = *c.MaxLength
	}
	if c.Required && lo == 0 && chance(r, 0.1) {
		return "" // a required text column takes "" (docs/api.md)
	}
	n := lo + r.Intn(hi-lo+1)
	var b strings.Builder
	for range n {
		b.WriteRune(pick(r, textRunes))
	}
	s := strings.TrimSpace(b.String())
	for len([]rune(s)) < lo {
		s += "a"
	}
	return s
}

// genNumber is a number within the column's bounds: whole for integers,
// in quarters otherwise (exact in binary and in decimal).
func genNumber(r *rand.Rand, c schema.Column, whole bool) float64 {
	lo, hi := -1000.0, 1000.0
	if c.Min != nil {
		lo = *c.Min
	}
	if c.Max != nil {
		hi = *c.Max
	}
	if hi < lo {
		return lo
	}
	steps := int((hi - lo) * 4)
	if whole {
		steps = int(hi - lo)
	}
	if steps <= 0 {
		return lo
	}
	k := float64(r.Intn(steps + 1))
	if whole {
		return lo + k
	}
	return lo + k/4
}

func genUUID(r *rand.Rand) string {
	b := make([]byte, 16)
	r.Read(b)
	return fmt.Sprintf("%x-%x-%x-%x-%x", b[0:4], b[4:6], b[6:8], b[8:10], b[10:16])
}

// genJSON is a small JSON value of depth at most d (integers only, so
// that jsonb and Go agree on every number).
func genJSON(r *rand.Rand, d int) any {
	switch k := r.Intn(6); {
	case k == 0 || d == 0 && k >= 4:
		return int64(r.Intn(2000) - 1000)
	case k == 1:
		return genText(r, schema.Column{})
	case k == 2:
		return chance(r, 0.5)
	case k == 3:
		return nil
	case k == 4:
		var a []any
		for range r.Intn(4) {
			a = append(a, genJSON(r, d-1))
		}
		if a == nil {
			a = []any{}
		}
		return a
	}
	m := map[string]any{}
	for range r.Intn(4) {
		m[pick(r, namePool)] = genJSON(r, d-1)
	}
	return m
}

// invalidValue is a value the column may refuse: of another type, out of
// its bounds, too long for its index, badly formed.
func invalidValue(r *rand.Rand, c schema.Column) any {
	switch r.Intn(4) {
	case 0:
		if c.Required {
			return nil
		}
		return true
	case 1:
		// Too long for an index (and for a max_length): 700 characters
		// of four bytes, 2,800 bytes.
		var b strings.Builder
		for range 700 {
			b.WriteRune(rune(0x10000 + r.Intn(0xFFFF)))
		}
		return b.String()
	case 2:
		switch c.Type {
		case schema.TypeInteger, schema.TypeNumber, schema.TypeDecimal:
			return 1e15
		case schema.TypeDate:
			return "2026-02-30"
		case schema.TypeTimestamp:
			return "2026-01-01 10:00"
		}
		return "not a value: @@ <b>x</b>"
	}
	return map[string]any{"nested": []any{1, 2}}
}
