package mail

// Defaults are the templates of every kind; a project may replace those of
// ProjectKinds with its own.
var Defaults = map[Kind]Template{
	KindVerifyEmail: page("Confirm your e-mail for {{.ProjectName}}",
		"Confirm that {{.Email}} is your e-mail address for {{.ProjectName}}.",
		"Confirm e-mail", "The link works once{{if .ExpiresIn}} and for {{.ExpiresIn}}{{end}}. If you did not sign up, ignore this message."),
	KindPasswordReset: page("Reset your {{.ProjectName}} password",
		"Someone asked to reset the password of {{.Email}} for {{.ProjectName}}.",
		"Choose a new password", "The link works once{{if .ExpiresIn}} and for {{.ExpiresIn}}{{end}}; using it signs out every other session. If you did not ask, ignore this message: your password stays as it is."),
	KindEmailChange: page("Confirm your new e-mail for {{.ProjectName}}",
		"Confirm {{.NewEmail}} as the new e-mail address of your {{.ProjectName}} account (now {{.Email}}).",
		"Confirm new e-mail", "The link works once{{if .ExpiresIn}} and for {{.ExpiresIn}}{{end}}. If you did not ask for this change, ignore this message."),
	KindEmailChanged: notice("The e-mail of your {{.ProjectName}} account was changed",
		"The e-mail address of your {{.ProjectName}} account is now {{.NewEmail}}; it was {{.Email}}, where this message goes.",
		"If you made this change, there is nothing to do. If you did not, someone else can sign in to your account: contact {{.ProjectName}} at once."),
	KindAccountVerify: page("Confirm your Tablesmith e-mail",
		"Confirm that {{.Email}} is the e-mail address of your Tablesmith account.",
		"Confirm e-mail", "The link works once{{if .ExpiresIn}} and for {{.ExpiresIn}}{{end}}."),
	KindAccountReset: page("Reset your Tablesmith password",
		"Someone asked to reset the password of the Tablesmith account {{.Email}}.",
		"Choose a new password", "The link works once{{if .ExpiresIn}} and for {{.ExpiresIn}}{{end}}; using it signs out every other session. If you did not ask, ignore this message."),
	KindInvite: page("{{.Inviter}} invited you to {{.ProjectName}} on Tablesmith",
		"{{.Inviter}} invited you to join the project {{.ProjectName}} as {{.Role}}.",
		"Accept the invitation", "The invitation works once{{if .ExpiresIn}} and for {{.ExpiresIn}}{{end}}, for the account with this e-mail address."),
}

// notice builds a template of the house layout without a link: a sentence
// and a note.
func notice(subject, lead, note string) Template {
	return Template{
		Subject: subject,
		Text:    lead + "\n\n" + note + "\n",
		HTML: `<!doctype html><html><body style="font-family: system-ui, sans-serif; line-height: 1.5; color: #1f2933">` +
			`<p>` + lead + `</p>` +
			`<p style="font-size: 13px; color: #52606d">` + note + `</p>` +
			`</body></html>`,
	}
}

// page builds a template of the house layout: a sentence, a link as a
// button, a note.
func page(subject, lead, action, note string) Template {
	return Template{
		Subject: subject,
		Text:    lead + "\n\n" + action + ":\n{{.Link}}\n\n" + note + "\n",
		HTML: `<!doctype html><html><body style="font-family: system-ui, sans-serif; line-height: 1.5; color: #1f2933">` +
			`<p>` + lead + `</p>` +
			`<p><a href="{{.Link}}" style="display: inline-block; padding: 10px 16px; background: #2563eb; color: #fff; border-radius: 6px; text-decoration: none">` + action + `</a></p>` +
			`<p style="font-size: 13px; color: #52606d">` + note + `</p>` +
			`<p style="font-size: 13px; color: #52606d">Or open this address: {{.Link}}</p>` +
			`</body></html>`,
	}
}
