package mail

import (
	"bytes"
	"errors"
	"fmt"
	htmltemplate "html/template"
	"io"
	"slices"
	"strings"
	"text/template"
	"text/template/parse"
)

// Template is the wording of one kind of message: a subject and a plain
// text body (Go text/template syntax) and an HTML body (html/template, so
// every value is escaped for where it appears).
type Template struct {
	Subject string `json:"subject"`
	Text    string `json:"text"`
	HTML    string `json:"html"`
}

// Rendered is a message ready to send.
type Rendered struct {
	Subject, Text, HTML string
}

// Variables are the names a template may use, as {{.Name}}.
var Variables = []string{"ProjectName", "Link", "Email", "NewEmail", "ExpiresIn", "Inviter", "Role"}

// ProjectKinds are the kinds a project may reword: its end users' mail.
var ProjectKinds = []Kind{KindVerifyEmail, KindPasswordReset, KindEmailChange, KindEmailChanged}

// OutboxKinds are the kinds a project's outbox lists: its end users' mail
// and invitations to it (the platform's own mail to accounts has no project).
var OutboxKinds = append(slices.Clone(ProjectKinds), KindInvite)

// maxRendered bounds a rendered part; beyond it rendering fails (a
// template that multiplies its text cannot fill the outbox).
const maxRendered = 64 << 10

// MaxTemplate bounds each part of a project's template as stored.
const MaxTemplate = 32 << 10

// Render fills t with data.
func (t Template) Render(data map[string]string) (Rendered, error) {
	var out Rendered
	var err error
	if out.Subject, err = renderText("subject", t.Subject, data); err != nil {
		return out, err
	}
	// Header injection: a subject is one line whatever the values hold.
	out.Subject = strings.Join(strings.Fields(out.Subject), " ")
	if out.Text, err = renderText("text", t.Text, data); err != nil {
		return out, err
	}
	out.HTML, err = renderHTML(t.HTML, data)
	return out, err
}

// Check parses and renders t with sample values, as a project's template
// is checked before it is stored; the problems are keyed by part.
func (t Template) Check() map[string]string {
	problems := map[string]string{}
	sample := map[string]string{}
	for _, v := range Variables {
		sample[v] = "sample " + v
	}
	sample["Link"] = "https://app.example.com/reset?token=sample"
	for part, src := range map[string]string{"subject": t.Subject, "text": t.Text, "html": t.HTML} {
		switch {
		case strings.TrimSpace(src) == "":
			problems[part] = "is required"
		case len(src) > MaxTemplate:
			problems[part] = fmt.Sprintf("must be at most %d bytes", MaxTemplate)
		}
	}
	if len(problems) > 0 {
		return problems
	}
	if _, err := renderText("subject", t.Subject, sample); err != nil {
		problems["subject"] = err.Error()
	}
	if _, err := renderText("text", t.Text, sample); err != nil {
		problems["text"] = err.Error()
	}
	if _, err := renderHTML(t.HTML, sample); err != nil {
		problems["html"] = err.Error()
	}
	if len(problems) > 0 {
		return problems
	}
	return nil
}

func renderText(name, src string, data map[string]string) (string, error) {
	t, err := template.New(name).Option("missingkey=zero").Parse(src)
	if err != nil {
		return "", cleanErr(err)
	}
	if err := allowed(t.Tree, len(t.Templates())); err != nil {
		return "", err
	}
	return execute(t.Execute, data)
}

func renderHTML(src string, data map[string]string) (string, error) {
	t, err := htmltemplate.New("html").Option("missingkey=zero").Parse(src)
	if err != nil {
		return "", cleanErr(err)
	}
	if err := allowed(t.Tree, len(t.Templates())); err != nil {
		return "", err
	}
	return execute(t.Execute, data)
}

func execute(run func(w io.Writer, data any) error, data map[string]string) (string, error) {
	var b capped
	if err := run(&b, data); err != nil {
		return "", cleanErr(err)
	}
	return b.String(), nil
}

// capped is a buffer that refuses to grow past maxRendered.
type capped struct{ bytes.Buffer }

var errTooLong = fmt.Errorf("renders to more than %d bytes", maxRendered)

func (c *capped) Write(p []byte) (int, error) {
	if c.Len()+len(p) > maxRendered {
		return 0, errTooLong
	}
	return c.Buffer.Write(p)
}

// allowed keeps templates to text, {{.Variable}} and {{if .Variable}}
// … {{else}} … {{end}}: no range, with, define, template or function
// calls, so a project's template renders in time linear in its length
// and reaches nothing but the message's values.
func allowed(tree *parse.Tree, templates int) error {
	if templates > 1 {
		return errors.New("define and block are not allowed")
	}
	if tree == nil || tree.Root == nil {
		return nil
	}
	return allowedList(tree.Root)
}

func allowedList(l *parse.ListNode) error {
	if l == nil {
		return nil
	}
	for _, n := range l.Nodes {
		switch n := n.(type) {
		case *parse.TextNode, *parse.CommentNode:
		case *parse.ActionNode:
			if err := allowedPipe(n.Pipe); err != nil {
				return err
			}
		case *parse.IfNode:
			if err := allowedPipe(n.Pipe); err != nil {
				return err
			}
			if err := allowedList(n.List); err != nil {
				return err
			}
			if err := allowedList(n.ElseList); err != nil {
				return err
			}
		default:
			return fmt.Errorf("only {{.Name}} and {{if .Name}}…{{else}}…{{end}} are allowed, not %q; names: %s", n.String(), strings.Join(Variables, ", "))
		}
	}
	return nil
}

func allowedPipe(p *parse.PipeNode) error {
	if p == nil || len(p.Decl) > 0 || len(p.Cmds) != 1 || len(p.Cmds[0].Args) != 1 {
		return errors.New("only a single name such as {{.Link}} is allowed inside {{ }}")
	}
	f, ok := p.Cmds[0].Args[0].(*parse.FieldNode)
	if !ok || len(f.Ident) != 1 || !slices.Contains(Variables, f.Ident[0]) {
		return fmt.Errorf("unknown name %s; names: %s", p.String(), strings.Join(Variables, ", "))
	}
	return nil
}

// cleanErr drops the template package's "template: name:" prefix.
func cleanErr(err error) error {
	msg := err.Error()
	msg = strings.TrimPrefix(msg, "template: ")
	if i := strings.Index(msg, ": "); i >= 0 && i < 24 {
		msg = msg[i+2:]
	}
	return errors.New(msg)
}
