package translate

import "fmt"

// Reading the next cursor's keys from a page (ListSQL.recordKeys). The
// page is PostgreSQL's json_agg of the records, so the last record ends
// the text: it is found by reading backwards from the end, and its cost is
// one record's whatever the page's size. Only string, object and array
// boundaries matter here; json.Compact validates the keys afterwards, when
// the cursor is encoded. The members are taken raw, as PostgreSQL wrote
// them (the cursor must keep their exact JSON); json.Unmarshal of the
// record into a map of json.RawMessage does the same in 1.9 µs and 29
// allocations against 0.2 µs and 2 here. Member names are schema names
// (schema.ValidName), which JSON never escapes.

// lastRecordKeys returns, as a JSON array, the values of the members
// names (in that order) of the last record of page.
func lastRecordKeys(page []byte, names []string) ([]byte, error) {
	rec := lastObject(page)
	if rec == nil {
		return nil, fmt.Errorf("next cursor: the page does not end with a record: %.80q", page[max(0, len(page)-80):])
	}
	values := make([][]byte, len(names))
	if !eachMember(rec, func(key, value []byte) {
		for i, name := range names {
			if values[i] == nil && string(key) == name {
				values[i] = value
			}
		}
	}) {
		return nil, fmt.Errorf("next cursor: the last record is not a JSON object: %.200q", rec)
	}
	out := append(make([]byte, 0, 64), '[')
	for i, v := range values {
		if v == nil {
			return nil, fmt.Errorf("next cursor: the last record has no %q", names[i])
		}
		if i > 0 {
			out = append(out, ',')
		}
		out = append(out, v...)
	}
	return append(out, ']'), nil
}

// lastObject returns the last element of the JSON array a when it is an
// object, else nil.
func lastObject(a []byte) []byte {
	end := lastNonSpace(a, len(a)-1)
	if end < 0 || a[end] != ']' {
		return nil
	}
	end = lastNonSpace(a, end-1)
	if end < 0 || a[end] != '}' {
		return nil
	}
	depth := 0
	for i := end; i >= 0; i-- {
		switch a[i] {
		case '"':
			if i = openingQuote(a, i); i < 0 {
				return nil
			}
		case '}', ']':
			depth++
		case '{', '[':
			depth--
			if depth == 0 {
				if a[i] != '{' {
					return nil
				}
				return a[i : end+1]
			}
		}
	}
	return nil
}

func lastNonSpace(a []byte, i int) int {
	for i >= 0 && isSpace(a[i]) {
		i--
	}
	return i
}

func isSpace(c byte) bool { return c == ' ' || c == '\n' || c == '\t' || c == '\r' }

// openingQuote is the index of the quote that opens the string a[close]
// closes: the nearest quote before it not escaped by an odd run of
// backslashes (inside a JSON string a quote is always escaped, and a
// backslash always doubled); -1 when there is none.
func openingQuote(a []byte, close int) int {
	for i := close - 1; i >= 0; i-- {
		if a[i] != '"' {
			continue
		}
		n := 0
		for j := i - 1; j >= 0 && a[j] == '\\'; j-- {
			n++
		}
		if n%2 == 0 {
			return i
		}
	}
	return -1
}

// closingQuote is the index of the quote that closes the string opened at
// a[open]; -1 when there is none.
func closingQuote(a []byte, open int) int {
	for i := open + 1; i < len(a); i++ {
		switch a[i] {
		case '\\':
			i++
		case '"':
			return i
		}
	}
	return -1
}

// eachMember calls f with the raw key (between its quotes) and the raw
// value of each member of the object obj; false when obj is not an object.
func eachMember(obj []byte, f func(key, value []byte)) bool {
	if len(obj) < 2 || obj[0] != '{' {
		return false
	}
	i := 1
	for {
		i = nextNonSpace(obj, i)
		switch {
		case i >= len(obj):
			return false
		case obj[i] == '}':
			return true
		case obj[i] == ',':
			i++
			continue
		case obj[i] != '"':
			return false
		}
		keyEnd := closingQuote(obj, i)
		if keyEnd < 0 {
			return false
		}
		key := obj[i+1 : keyEnd]
		i = nextNonSpace(obj, keyEnd+1)
		if i >= len(obj) || obj[i] != ':' {
			return false
		}
		i = nextNonSpace(obj, i+1)
		end := valueEnd(obj, i)
		if end < 0 {
			return false
		}
		f(key, obj[i:end])
		i = end
	}
}

func nextNonSpace(a []byte, i int) int {
	for i < len(a) && isSpace(a[i]) {
		i++
	}
	return i
}

// valueEnd is the index just after the JSON value that starts at a[i];
// -1 when it does not end.
func valueEnd(a []byte, i int) int {
	if i >= len(a) {
		return -1
	}
	switch a[i] {
	case '"':
		if e := closingQuote(a, i); e >= 0 {
			return e + 1
		}
		return -1
	case '{', '[':
		depth := 0
		for j := i; j < len(a); j++ {
			switch a[j] {
			case '"':
				if j = closingQuote(a, j); j < 0 {
					return -1
				}
			case '{', '[':
				depth++
			case '}', ']':
				depth--
				if depth == 0 {
					return j + 1
				}
			}
		}
		return -1
	default: // a number, true, false or null
		j := i
		for j < len(a) && a[j] != ',' && a[j] != '}' && a[j] != ']' && !isSpace(a[j]) {
			j++
		}
		if j == i {
			return -1
		}
		return j
	}
}
