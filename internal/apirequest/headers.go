package apirequest

import (
	"mime"
	"net/http"
	"net/url"
	"strings"

	"github.com/tablesmith/tablesmith/apierr"
	"github.com/tablesmith/tablesmith/schema"
	"github.com/tablesmith/tablesmith/translate"
)

// ParseID parses a path id by the table's key type (its registry entry's
// query-string reading); a malformed id is simply a record that does not
// exist. A managed table's integer keys count from 1.
func ParseID(t *schema.CTable, s string) (any, bool) {
	if s == "" {
		return nil, false
	}
	v, msg := schema.ParseQueryValue(&t.PK.Column, s)
	if msg != "" {
		return nil, false
	}
	if n, ok := v.(int64); ok && n < 1 && t.Doc.External == nil {
		return nil, false
	}
	return v, true
}

// exportFormat reads which export a list asks for: format=csv or
// format=ndjson, else an Accept of text/csv or application/x-ndjson; ""
// for the JSON list. format=json asks for the list whatever Accept says.
func exportFormat(q url.Values, accept string) (string, error) {
	if len(q["format"]) > 1 {
		return "", queryError("format", "is given more than once")
	}
	switch f := q.Get("format"); f {
	case translate.FormatCSV, translate.FormatNDJSON:
		return f, nil
	case "json":
		return "", nil
	case "":
	default:
		return "", queryError("format", "must be json, csv or ndjson")
	}
	for _, part := range strings.Split(accept, ",") {
		mt, _, err := mime.ParseMediaType(strings.TrimSpace(part))
		if err != nil {
			continue
		}
		switch mt {
		case "text/csv":
			return translate.FormatCSV, nil
		case "application/x-ndjson":
			return translate.FormatNDJSON, nil
		}
	}
	return "", nil
}

// Header names of the write preferences and preconditions.
const (
	HeaderIfMatch           = "If-Match"
	HeaderIfNoneMatch       = "If-None-Match"
	HeaderPrefer            = "Prefer"
	HeaderPreferenceApplied = "Preference-Applied"
)

// readWriteHeaders reads If-Match, If-None-Match and Prefer where they
// change what a write does (docs/api.md, "Conditional writes" and
// "Minimal answers"). A precondition the request's kind cannot honour is
// refused rather than ignored: a client that sends one relies on it.
func (req *Request) readWriteHeaders(h http.Header) error {
	if vals := h.Values(HeaderIfMatch); len(vals) > 0 {
		if !req.Kind.Item() || req.Kind == Get {
			return headerError(HeaderIfMatch, "applies to PUT, PATCH and DELETE of one record")
		}
		tags, ok := entityTags(vals)
		if !ok {
			return headerError(HeaderIfMatch, `must be * or a list of entity tags ("..." or W/"..."), as the ETag header of the record's GET gives them`)
		}
		req.IfMatch = tags
	}
	if vals := h.Values(HeaderIfNoneMatch); len(vals) > 0 && req.Kind.Write() {
		if req.Kind != Create || strings.TrimSpace(strings.Join(vals, ",")) != "*" {
			return headerError(HeaderIfNoneMatch, "on a write, only If-None-Match: * on a create is taken (an upsert then changes no existing row)")
		}
		req.IfNoneMatchAny = true
	}
	if req.Kind.Write() && req.Kind != UpdateWhere && req.Kind != DeleteWhere {
		req.ReturnMinimal = preference(h.Values(HeaderPrefer), "return") == "minimal"
	}
	return nil
}

func headerError(name, msg string) error {
	return apierr.Fields(apierr.CodeValidation, "Invalid "+name+" header: "+msg, map[string]string{name: msg})
}

// entityTags splits If-Match values into their tags ("*" alone, or
// quoted tags with an optional W/ prefix).
func entityTags(vals []string) ([]string, bool) {
	var tags []string
	for _, v := range vals {
		for _, t := range strings.Split(v, ",") {
			t = strings.TrimSpace(t)
			if t == "" {
				continue
			}
			opaque := strings.TrimPrefix(t, "W/")
			if t != "*" && (len(opaque) < 2 || opaque[0] != '"' || opaque[len(opaque)-1] != '"') {
				return nil, false
			}
			tags = append(tags, t)
		}
	}
	if len(tags) == 0 || len(tags) > 1 && containsStar(tags) {
		return nil, false
	}
	return tags, true
}

func containsStar(tags []string) bool {
	for _, t := range tags {
		if t == "*" {
			return true
		}
	}
	return false
}

// MatchesTag reports whether an entity tag (as the ETag header gives
// it) is one of the request's If-Match tags. Tablesmith's tags are weak
// (the same record may go out compressed or not), so they compare by
// their opaque value, the way clients send back what they were given.
func (req *Request) MatchesTag(etag string) bool {
	want := strings.TrimPrefix(etag, "W/")
	for _, t := range req.IfMatch {
		if t == "*" || strings.TrimPrefix(t, "W/") == want {
			return true
		}
	}
	return false
}

// preference returns the value of the first preference named name in the
// Prefer header values (RFC 7240: "return=minimal, count=exact"; a
// preference given twice counts the first time); "" when absent.
// Preferences Tablesmith does not know are ignored, as the RFC asks.
func preference(vals []string, name string) string {
	for _, v := range vals {
		for _, p := range strings.Split(v, ",") {
			p, _, _ = strings.Cut(p, ";") // parameters of a preference
			k, val, _ := strings.Cut(strings.TrimSpace(p), "=")
			if strings.EqualFold(strings.TrimSpace(k), name) {
				return strings.ToLower(strings.Trim(strings.TrimSpace(val), `"`))
			}
		}
	}
	return ""
}
