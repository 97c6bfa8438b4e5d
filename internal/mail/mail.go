// Package mail sends the service's e-mail: verification links, password
// resets, e-mail changes and invitations. A message is rendered from its
// template (the project's own or the default) and written to the outbox
// in the control schema; a worker delivers the outbox over SMTP with
// retries, off the request path. Without SMTP configured (make run's
// default) each message goes to the server log instead and stays readable
// in the dashboard's Outbox page, so a developer can click its links
// locally (docs/email.md).
package mail

import "context"

// Kind names a message and its template.
type Kind string

// The kinds of message the service sends. The first four go to the end
// users of a project (and use the project's templates); the others are the
// platform's own, to dashboard accounts.
const (
	KindVerifyEmail   Kind = "verify_email"
	KindPasswordReset Kind = "password_reset"
	KindEmailChange   Kind = "email_change"
	// KindEmailChanged tells the old address that the account moved away
	// from it, so that a stolen session cannot take an account quietly.
	KindEmailChanged Kind = "email_changed"

	KindAccountVerify Kind = "account_verify"
	KindAccountReset  Kind = "account_reset"
	KindInvite        Kind = "invite"
)

// Message is one e-mail to send.
type Message struct {
	// ProjectID is the project whose end user the message is for (its
	// templates and name apply; its Outbox page lists it); "" for the
	// platform's own mail.
	ProjectID string
	// AccountID is the dashboard account a platform message is about, if
	// any (0: none); its owner's Outbox lists it.
	AccountID int64
	Kind      Kind
	To        string
	// Data fills the template. Keys the default templates use: Link (the
	// URL to open), Email, NewEmail, ExpiresIn ("1 hour"), Inviter, Role,
	// ProjectName (filled in from the project when empty).
	Data map[string]string
}

// Sender queues messages. Send returns once the message is stored in the
// outbox (so it survives a restart); delivery happens later, with
// retries. An error means nothing was queued.
type Sender interface {
	Send(ctx context.Context, m Message) error
}
