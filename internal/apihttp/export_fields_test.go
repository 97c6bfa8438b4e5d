package apihttp

import (
	"bufio"
	"bytes"
	"encoding/csv"
	"encoding/json"
	"slices"
	"strings"
	"testing"
)

// csvFieldsByEncodingJSON is what csvFields replaced: the array decoded
// by encoding/json, each element through csvField.
func csvFieldsByEncodingJSON(rec []byte) ([]string, error) {
	var vals []json.RawMessage
	if err := json.Unmarshal(rec, &vals); err != nil {
		return nil, err
	}
	out := []string{}
	for _, v := range vals {
		out = append(out, string(csvField(v)))
	}
	return out, nil
}

// csvStrings is csvFields as strings.
func csvStrings(rec []byte) ([]string, error) {
	fields, err := csvFields(rec, nil)
	out := make([]string, len(fields))
	for i, f := range fields {
		out[i] = string(f)
	}
	return out, err
}

func TestCSVFieldsAgreeWithEncodingJSON(t *testing.T) {
	rows := []string{
		`[]`, ` [ ] `,
		`[1, "abc", null, true, false, -2.5e+3]`,
		`[7, "with \"quotes\", commas, and a \\ backslash", "line\nbreak\ttab", "\u00e9t\u00e9 and été"]`,
		`[3, {"a": [1, "]", {"b": "}"}], "c": null}, [1, [2, [3]]], "x"]`,
		`[12345678901234567890123456789.000000001, "2026-01-02T03:04:05.000000Z", ""]`,
		`["a\"b", "\\", "\/", "[", "]", "{", "}", ","]`,
		`[null]`, `["only"]`,
	}
	for _, row := range rows {
		want, err := csvFieldsByEncodingJSON([]byte(row))
		if err != nil {
			t.Fatalf("%s: %v", row, err)
		}
		got, err := csvStrings([]byte(row))
		if err != nil || !slices.Equal(got, want) && !(len(got) == 0 && len(want) == 0) {
			t.Errorf("csvFields(%s) = %q, %v; want %q", row, got, err, want)
		}
	}
	for _, bad := range []string{``, `{}`, `[1,`, `[1 2]`, `["open]`, `[1] x`, `[{"a": 1]`, `[nul]`, `[1,]`} {
		if got, err := csvFields([]byte(bad), nil); err == nil {
			t.Errorf("csvFields(%s) = %q, want an error", bad, got)
		}
	}
}

func FuzzCSVFieldsAgreeWithEncodingJSON(f *testing.F) {
	f.Add(`[1, "a\"b", null, {"x": [1, "]"]}]`)
	f.Add("[\"\xff\"]")
	f.Fuzz(func(t *testing.T, row string) {
		want, err := csvFieldsByEncodingJSON([]byte(row))
		if err != nil {
			return // only what PostgreSQL writes: valid JSON arrays
		}
		got, err := csvStrings([]byte(row))
		if err != nil || !slices.Equal(got, want) && !(len(got) == 0 && len(want) == 0) {
			t.Errorf("csvFields(%q) = %q, %v; want %q", row, got, err, want)
		}
	})
}

// csvRecordByEncodingCSV is what writeCSVRecord replaced.
func csvRecordByEncodingCSV(fields []string) string {
	var b strings.Builder
	w := csv.NewWriter(&b)
	w.UseCRLF = true
	_ = w.Write(fields)
	w.Flush()
	return b.String()
}

// csvRecordWritten is writeCSVRecord's line for the fields.
func csvRecordWritten(fields []string) string {
	var b bytes.Buffer
	w := bufio.NewWriter(&b)
	raw := make([][]byte, len(fields))
	for i, f := range fields {
		raw[i] = []byte(f)
	}
	_ = writeCSVRecord(w, raw)
	_ = w.Flush()
	return b.String()
}

func TestCSVRecordsAgreeWithEncodingCSV(t *testing.T) {
	for _, fields := range [][]string{
		{}, {""}, {"", ""}, {"plain", "42", "-2.5e+3"},
		{"a,b", `say "hi"`, "line\nbreak", "cr\rhere", "crlf\r\nend", "\r\n"},
		{`\.`, `\.x`, " leading", "trailing ", "\tleading tab", "\u00a0no-break space first", "\u0085next line", "été"},
		{`"`, `""`, ",", "\n", "\r", "\xff invalid", "\xc2"},
	} {
		if got, want := csvRecordWritten(fields), csvRecordByEncodingCSV(fields); got != want {
			t.Errorf("fields %q: wrote %q, want %q", fields, got, want)
		}
	}
}

func FuzzCSVRecordsAgreeWithEncodingCSV(f *testing.F) {
	f.Add("a", " b", "c\r\nd")
	f.Add(`\.`, `"`, "\u00a0")
	f.Fuzz(func(t *testing.T, a, b, c string) {
		fields := []string{a, b, c}
		if got, want := csvRecordWritten(fields), csvRecordByEncodingCSV(fields); got != want {
			t.Errorf("fields %q: wrote %q, want %q", fields, got, want)
		}
	})
}
