package platformhttp

import (
	"net/http"
	"slices"

	"github.com/tablesmith/tablesmith/apierr"
	"github.com/tablesmith/tablesmith/internal/envelope"
	"github.com/tablesmith/tablesmith/internal/mail"
	"github.com/tablesmith/tablesmith/internal/store"
)

// outbox answers GET /api/projects/{id}/outbox: the e-mail the project's
// end users were sent, newest first (docs/email.md).
func (h *Handler) outbox(w http.ResponseWriter, r *http.Request, _ store.Account, p store.Project) error {
	if h.d.Outbox == nil {
		return apierr.New(apierr.CodeNotFound, "This server sends no e-mail")
	}
	page, err := readNewestFirst(r, "the outbox", mail.MaxListed)
	if err != nil {
		return err
	}
	list, err := h.d.Outbox.List(r.Context(), p.ID, page.Before, page.Ask())
	if err != nil {
		return err
	}
	list, meta := pageByID(page, list, func(m mail.Entry) int64 { return m.ID })
	envelope.Write(w, http.StatusOK, envelope.Success{Data: list, Meta: meta})
	return nil
}

// MailTemplateView is one kind's template as the dashboard edits it.
type MailTemplateView struct {
	Kind mail.Kind `json:"kind"`
	mail.Template
	// Custom is true when the project replaced the default.
	Custom    bool     `json:"custom"`
	Variables []string `json:"variables"`
}

// mailTemplates answers GET /api/projects/{id}/mail-templates: each kind
// of end-user mail with the template in use.
func (h *Handler) mailTemplates(w http.ResponseWriter, r *http.Request, _ store.Account, p store.Project) error {
	if h.d.Outbox == nil {
		return apierr.New(apierr.CodeNotFound, "This server sends no e-mail")
	}
	custom, err := h.d.Outbox.ProjectTemplates(r.Context(), p.ID)
	if err != nil {
		return err
	}
	out := make([]MailTemplateView, 0, len(mail.ProjectKinds))
	for _, k := range mail.ProjectKinds {
		v := MailTemplateView{Kind: k, Template: mail.Defaults[k], Variables: mail.Variables}
		if t, ok := custom[k]; ok {
			v.Template, v.Custom = t, true
		}
		out = append(out, v)
	}
	envelope.OK(w, out)
	return nil
}

// templateKind reads {kind} of a template path: one of the project kinds.
func templateKind(r *http.Request) (mail.Kind, error) {
	k := mail.Kind(r.PathValue("kind"))
	if !slices.Contains(mail.ProjectKinds, k) {
		return "", apierr.New(apierr.CodeNotFound, "No e-mail template %q; the kinds are verify_email, password_reset and email_change", k)
	}
	return k, nil
}

// putMailTemplate answers PUT /api/projects/{id}/mail-templates/{kind}:
// the template is checked (parsed and rendered with sample values) before
// it is stored.
func (h *Handler) putMailTemplate(w http.ResponseWriter, r *http.Request, _ store.Account, p store.Project) error {
	if h.d.Outbox == nil {
		return apierr.New(apierr.CodeNotFound, "This server sends no e-mail")
	}
	k, err := templateKind(r)
	if err != nil {
		return err
	}
	var t mail.Template
	if err := h.decode(w, r, &t); err != nil {
		return err
	}
	if problems := t.Check(); problems != nil {
		return apierr.Fields(apierr.CodeValidation, "Invalid template", problems)
	}
	if err := h.d.Outbox.SetProjectTemplate(r.Context(), p.ID, k, t); err != nil {
		return err
	}
	envelope.OK(w, MailTemplateView{Kind: k, Template: t, Custom: true, Variables: mail.Variables})
	return nil
}

// resetMailTemplate answers DELETE /api/projects/{id}/mail-templates/{kind}:
// back to the default.
func (h *Handler) resetMailTemplate(w http.ResponseWriter, r *http.Request, _ store.Account, p store.Project) error {
	if h.d.Outbox == nil {
		return apierr.New(apierr.CodeNotFound, "This server sends no e-mail")
	}
	k, err := templateKind(r)
	if err != nil {
		return err
	}
	if err := h.d.Outbox.ResetProjectTemplate(r.Context(), p.ID, k); err != nil {
		return err
	}
	envelope.OK(w, MailTemplateView{Kind: k, Template: mail.Defaults[k], Variables: mail.Variables})
	return nil
}
