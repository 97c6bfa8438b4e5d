package validate

// Sanitization is the first step of checking a text column's value: the
// text is reduced to plain text (goquery), or, on a column that keeps
// HTML, to markup without active content (bluemonday's UGC policy).

import (
	"strings"

	"github.com/PuerkitoBio/goquery"
	"github.com/microcosm-cc/bluemonday"
)

// maxPasses bounds the fixed-point loop; each pass removes at least one
// layer of entity-encoded markup, and real input has one or two.
const maxPasses = 8

// PlainText strips every tag from s. goquery's Text decodes entities, so
// "&lt;b&gt;" would become "<b>" after one pass: strip again until nothing
// changes, so no tag survives in the stored value.
func PlainText(s string) string {
	for i := 0; i < maxPasses && mayHoldMarkup(s); i++ {
		doc, err := goquery.NewDocumentFromReader(strings.NewReader(s))
		if err != nil {
			return s
		}
		out := doc.Find("body").Text()
		if out == s {
			break
		}
		s = out
	}
	if strings.ContainsRune(s, '<') {
		// What is left is text the parser kept as text ("a < b"); a
		// remaining '<' followed by a letter, '/', '!' or '?' could still
		// open a tag in a careless renderer, so escape those.
		s = escapeTagOpeners(s)
	}
	return s
}

// mayHoldMarkup is the fast path: text without '<' or '&' has no markup.
func mayHoldMarkup(s string) bool { return strings.ContainsAny(s, "<&") }

func escapeTagOpeners(s string) string {
	var b strings.Builder
	for i := 0; i < len(s); i++ {
		if s[i] == '<' && i+1 < len(s) && isTagStart(s[i+1]) {
			b.WriteString("‹")
			continue
		}
		b.WriteByte(s[i])
	}
	return b.String()
}

func isTagStart(c byte) bool {
	return c == '/' || c == '!' || c == '?' || (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z')
}

// ugc is bluemonday's policy for user-generated content: formatting,
// links (http, https, mailto; given rel="nofollow"), images and tables,
// and no script, style, frame, form, event handler, style attribute or
// other URL scheme. A Policy is safe for concurrent use once built.
var ugc = bluemonday.UGCPolicy()

// SafeHTML keeps formatting markup and removes everything that could run
// or load active content, by bluemonday's UGC allowlist: what the policy
// does not name is dropped (script and style contents with their
// elements, other elements keep their text).
func SafeHTML(s string) string {
	if !mayHoldMarkup(s) {
		return s
	}
	return ugc.Sanitize(s)
}
