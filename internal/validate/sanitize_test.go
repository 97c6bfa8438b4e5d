package validate

import (
	"strings"
	"testing"

	"golang.org/x/net/html"
	"golang.org/x/net/html/atom"
)

// xssVectors are known ways to run script through markup (OWASP's XSS
// filter evasion cheat sheet and html5sec.org, among others).
var xssVectors = []string{
	`<script>alert(1)</script>`,
	`<SCRIPT SRC=https://evil.example/xss.js></SCRIPT>`,
	`<ScRiPt>alert(1)</sCrIpT>`,
	`<script/xss src="https://evil.example/x.js"></script>`,
	`<<script>alert(1);//<</script>`,
	`<script>alert(1)`,
	`<img src=x onerror=alert(1)>`,
	`<IMG SRC="javascript:alert('XSS');">`,
	`<IMG SRC=JaVaScRiPt:alert('XSS')>`,
	`<IMG SRC=&#106;&#97;&#118;&#97;&#115;&#99;&#114;&#105;&#112;&#116;&#58;&#97;&#108;&#101;&#114;&#116;&#40;&#39;&#88;&#83;&#83;&#39;&#41;>`,
	`<IMG SRC=&#x6A&#x61&#x76&#x61&#x73&#x63&#x72&#x69&#x70&#x74&#x3A&#x61&#x6C&#x65&#x72&#x74&#x28&#x27&#x58&#x53&#x53&#x27&#x29>`,
	`<IMG SRC="jav	ascript:alert('XSS');">`,
	`<IMG SRC="jav&#x0A;ascript:alert('XSS');">`,
	`<IMG SRC=" &#14;  javascript:alert('XSS');">`,
	`<img src="data:image/svg+xml;base64,PHN2ZyBvbmxvYWQ9YWxlcnQoMSk+">`,
	`<a href="javascript:alert(1)">x</a>`,
	`<a href="JAVASCRIPT:alert(1)">x</a>`,
	`<a href="  javascript:alert(1)">x</a>`,
	`<a href="java&#x09;script:alert(1)">x</a>`,
	`<a href="vbscript:msgbox(1)">x</a>`,
	`<a href="data:text/html;base64,PHNjcmlwdD5hbGVydCgxKTwvc2NyaXB0Pg==">x</a>`,
	`<a href="x" onmouseover="alert(1)">x</a>`,
	`<p style="background:url(javascript:alert(1))">x</p>`,
	`<div style="width: expression(alert(1));">x</div>`,
	`<span style="behavior: url(xss.htc)">x</span>`,
	`<style>body{background:url("javascript:alert(1)")}</style>`,
	`<STYLE>@import'https://evil.example/xss.css';</STYLE>`,
	`<link rel="stylesheet" href="javascript:alert(1)">`,
	`<svg onload=alert(1)>`,
	`<svg><script>alert(1)</script></svg>`,
	`<svg><a xlink:href="javascript:alert(1)"><text x="20" y="20">x</text></a></svg>`,
	`<math><mtext><table><mglyph><style><img src=x onerror=alert(1)></style></mglyph></table></mtext></math>`,
	`<math href="javascript:alert(1)">x</math>`,
	`<iframe src="javascript:alert(1)"></iframe>`,
	`<iframe srcdoc="<script>alert(1)</script>"></iframe>`,
	`<object data="javascript:alert(1)"></object>`,
	`<embed src="data:image/svg+xml;base64,PHN2ZyBvbmxvYWQ9YWxlcnQoMSk+">`,
	`<applet code="x.class"></applet>`,
	`<frameset><frame src="javascript:alert(1)"></frameset>`,
	`<meta http-equiv="refresh" content="0;url=javascript:alert(1)">`,
	`<base href="javascript:alert(1)//">`,
	`<form action="javascript:alert(1)"><input type="submit"></form>`,
	`<button formaction="javascript:alert(1)">x</button>`,
	`<input onfocus=alert(1) autofocus>`,
	`<body onload=alert(1)>`,
	`<details open ontoggle=alert(1)>`,
	`<video><source onerror="alert(1)"></video>`,
	`<audio src=x onerror=alert(1)>`,
	`<marquee onstart=alert(1)>x</marquee>`,
	`<table background="javascript:alert(1)"><td>x</td></table>`,
	`<div><p onclick="alert(1)">nested <b onmouseover=alert(2)>bold`,
	`<img """><script>alert(1)</script>">`,
	`<!--<img src="--><img src=x onerror=alert(1)//">`,
	`<![CDATA[<script>alert(1)</script>]]>`,
	`<a href="https://ok.example" onclick="alert(1)">ok</a>`,
	`<img src="x" onerror="&#97;lert(1)">`,
	`<scr<script>ipt>alert(1)</scr</script>ipt>`,
	`<noscript><p title="</noscript><img src=x onerror=alert(1)>">`,
	`<xss id=x tabindex=1 onfocusin=alert(1)></xss>`,
	`<isindex type=image src=1 onerror=alert(1)>`,
}

// assertInert parses out as a browser would and fails on anything that
// can run: script-like elements, event handlers, style attributes, and
// URLs with a javascript:, vbscript: or data: scheme.
func assertInert(t *testing.T, in, out string) {
	t.Helper()
	nodes, err := html.ParseFragment(strings.NewReader(out), &html.Node{Type: html.ElementNode, Data: "div", DataAtom: atom.Div})
	if err != nil {
		t.Fatalf("%s: output does not parse: %v", in, err)
	}
	var walk func(n *html.Node)
	walk = func(n *html.Node) {
		if n.Type == html.ElementNode {
			switch n.Data {
			case "script", "style", "iframe", "object", "embed", "applet", "frame", "frameset", "base", "meta", "link", "form", "svg", "math", "input", "button", "body":
				t.Errorf("%s\n  → %s\n  keeps a <%s> element", in, out, n.Data)
			}
			for _, a := range n.Attr {
				key := strings.ToLower(a.Key)
				val := strings.ToLower(strings.Map(func(r rune) rune {
					if r <= ' ' {
						return -1
					}
					return r
				}, a.Val))
				switch {
				case strings.HasPrefix(key, "on"):
					t.Errorf("%s\n  → %s\n  keeps the event handler %s", in, out, a.Key)
				case key == "style":
					t.Errorf("%s\n  → %s\n  keeps a style attribute", in, out)
				case strings.Contains(val, "javascript:"), strings.Contains(val, "vbscript:"), strings.HasPrefix(val, "data:"):
					t.Errorf("%s\n  → %s\n  keeps the URL %s=%q", in, out, a.Key, a.Val)
				}
			}
		}
		for c := n.FirstChild; c != nil; c = c.NextSibling {
			walk(c)
		}
	}
	for _, n := range nodes {
		walk(n)
	}
	if strings.Contains(strings.ToLower(out), "<script") {
		t.Errorf("%s\n  → %s\n  has <script in its text", in, out)
	}
}

func TestSafeHTMLLeavesNoExecutableContentInKnownXSSVectors(t *testing.T) {
	if len(xssVectors) < 40 {
		t.Fatalf("only %d vectors", len(xssVectors))
	}
	for _, in := range xssVectors {
		assertInert(t, in, SafeHTML(in))
		// Nor inside harmless markup, nor after a second pass.
		wrapped := SafeHTML("<p>before " + in + " after</p>")
		assertInert(t, in, wrapped)
		assertInert(t, in, SafeHTML(wrapped))
	}
}

func TestSafeHTMLDropsStyleAttributes(t *testing.T) {
	out := SafeHTML(`<p style="background:url(javascript:alert(1))">text</p>`)
	if out != `<p>text</p>` {
		t.Errorf("got %q", out)
	}
}

func TestSafeHTMLKeepsHarmlessMarkup(t *testing.T) {
	for _, c := range []struct{ in, want string }{
		{`<p>Hello <b>bold</b> and <i>italic</i></p>`, `<p>Hello <b>bold</b> and <i>italic</i></p>`},
		{`<a href="https://example.com/page?q=1">link</a>`, `<a href="https://example.com/page?q=1" rel="nofollow">link</a>`},
		{`<ul><li>one</li><li>two</li></ul><ol><li>three</li></ol>`, `<ul><li>one</li><li>two</li></ul><ol><li>three</li></ol>`},
		{`<h2>Title</h2><blockquote>quoted</blockquote><pre><code>x := 1</code></pre>`, `<h2>Title</h2><blockquote>quoted</blockquote><pre><code>x := 1</code></pre>`},
		{`<img src="https://example.com/a.png" alt="a">`, `<img src="https://example.com/a.png" alt="a">`},
		{`plain text`, `plain text`},
		{`Tom &amp; Jerry <em>again</em>`, `Tom &amp; Jerry <em>again</em>`},
	} {
		if got := SafeHTML(c.in); got != c.want {
			t.Errorf("SafeHTML(%q) = %q, want %q", c.in, got, c.want)
		}
	}
}

func TestPlainTextStripsEveryTag(t *testing.T) {
	for _, c := range []struct{ in, want string }{
		{`<p>Hi <b>there</b></p>`, `Hi there`},
		{`&lt;b&gt;bold&lt;/b&gt;`, `bold`},
		{`a < b`, `a < b`},
	} {
		if got := PlainText(c.in); got != c.want {
			t.Errorf("PlainText(%q) = %q, want %q", c.in, got, c.want)
		}
	}
}
