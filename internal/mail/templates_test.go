package mail

import (
	"strings"
	"testing"
)

func TestEveryDefaultTemplatePassesTheChecksAProjectsTemplateMust(t *testing.T) {
	for kind, tpl := range Defaults {
		if problems := tpl.Check(); problems != nil {
			t.Errorf("%s: %v", kind, problems)
		}
	}
}

func TestATemplateMayUseOnlyNamesAndIfs(t *testing.T) {
	for src, ok := range map[string]bool{
		"Hello {{.Email}}": true,
		"{{if .NewEmail}}new: {{.NewEmail}}{{else}}none{{end}}": true,
		"{{.Nope}}":                    false,
		"{{range 1000000000}}x{{end}}": false,
		`{{printf "%s" .Link}}`:        false,
		"{{.Link | len}}":              false,
		`{{define "x"}}y{{end}}`:       false,
		"{{with .Link}}{{.}}{{end}}":   false,
		"{{$x := .Link}}{{$x}}":        false,
		"{{.Link":                      false,
	} {
		_, err := renderText("text", src, map[string]string{"Link": "l"})
		if (err == nil) != ok {
			t.Errorf("%q: err %v, want ok=%v", src, err, ok)
		}
	}
}

func TestValuesAreEscapedInHTMLAndASubjectStaysOneLine(t *testing.T) {
	tpl := Template{Subject: "Hi {{.Email}}", Text: "{{.Link}}", HTML: `<a href="{{.Link}}">{{.Email}}</a>`}
	r, err := tpl.Render(map[string]string{"Email": "a@b.c\r\nBcc: evil@x.y", "Link": "javascript:alert(1)"})
	if err != nil {
		t.Fatal(err)
	}
	if strings.ContainsAny(r.Subject, "\r\n") {
		t.Errorf("subject has a line break: %q", r.Subject)
	}
	if strings.Contains(r.HTML, "javascript:") {
		t.Errorf("an unsafe URL reached the HTML: %s", r.HTML)
	}
	r, _ = tpl.Render(map[string]string{"Email": "<script>x</script>", "Link": "https://x"})
	if strings.Contains(r.HTML, "<script>") {
		t.Errorf("a value was not escaped: %s", r.HTML)
	}
}

func TestATemplateThatRendersTooMuchIsRefused(t *testing.T) {
	big := strings.Repeat("{{.Link}}", 2000)
	problems := Template{Subject: "s", Text: big, HTML: "h"}.Check()
	if problems["text"] == "" {
		t.Fatalf("a template rendering over %d bytes passed: %v", maxRendered, problems)
	}
	if problems := (Template{Subject: "", Text: "t", HTML: "h"}).Check(); problems["subject"] == "" {
		t.Errorf("an empty subject passed")
	}
}

func TestBackoffDoublesWithJitterUpToItsCeiling(t *testing.T) {
	for n, want := range map[int]float64{1: 30, 2: 60, 3: 120, 20: 7200} {
		got := backoff(n).Seconds()
		if got < want*0.8-0.001 || got > want*1.2+0.001 {
			t.Errorf("backoff(%d) = %.0fs, want %.0fs ±20%%", n, got, want)
		}
	}
}

func TestAnSMTPSettingIsRefusedWithWhatIsWrong(t *testing.T) {
	for c, want := range map[SMTPConfig]string{
		{Host: "h", From: "a@b.c"}:                "",
		{From: "a@b.c"}:                           "host is required",
		{Host: "h"}:                               "from is required",
		{Host: "h", From: "a@b.c", TLS: "ssl"}:    "tls must be",
		{Host: "h", From: "a@b.c", Username: "u"}: "user and password go together",
		{Host: "h", From: "a@b.c", Port: 70000}:   "out of range",
	} {
		err := c.Check()
		if (want == "") != (err == nil) || err != nil && !strings.Contains(err.Error(), want) {
			t.Errorf("%+v: %v, want %q", c, err, want)
		}
	}
}
