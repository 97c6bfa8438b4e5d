package schema

import (
	"bytes"
	"io"
	"strings"
)

func bytesReader(b []byte) io.Reader { return bytes.NewReader(b) }

// QuoteLiteral quotes a string as a PostgreSQL literal for DDL, where
// bound parameters cannot be used (defaults, check constraints).
// standard_conforming_strings is on in every supported PostgreSQL, so a
// backslash needs no escaping; E” is used anyway when one is present so
// the literal means the same under either setting.
func QuoteLiteral(s string) string {
	q := "'" + strings.ReplaceAll(s, "'", "''") + "'"
	if strings.Contains(s, `\`) {
		return "E" + strings.ReplaceAll(q, `\`, `\\`)
	}
	return q
}
