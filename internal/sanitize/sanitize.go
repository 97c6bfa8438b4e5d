// Package sanitize reduces user text to plain text, or to markup without
// active content, with goquery.
package sanitize

import (
	"strings"

	"github.com/PuerkitoBio/goquery"
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

var activeElements = "script, style, iframe, object, embed, frame, frameset, applet, base, meta, link, form"

// SafeHTML keeps markup but removes active content: script-like elements,
// event-handler attributes and javascript: URLs.
func SafeHTML(s string) string {
	if !strings.ContainsRune(s, '<') {
		return s
	}
	doc, err := goquery.NewDocumentFromReader(strings.NewReader(s))
	if err != nil {
		return PlainText(s)
	}
	body := doc.Find("body")
	body.Find(activeElements).Remove()
	body.Find("*").Each(func(_ int, sel *goquery.Selection) {
		for _, n := range sel.Nodes {
			kept := n.Attr[:0]
			for _, a := range n.Attr {
				key := strings.ToLower(a.Key)
				val := strings.ToLower(strings.Join(strings.Fields(a.Val), ""))
				if strings.HasPrefix(key, "on") || strings.HasPrefix(val, "javascript:") || strings.HasPrefix(val, "vbscript:") ||
					(strings.HasPrefix(val, "data:") && key != "src") {
					continue
				}
				kept = append(kept, a)
			}
			n.Attr = kept
		}
	})
	out, err := body.Html()
	if err != nil {
		return PlainText(s)
	}
	return out
}
