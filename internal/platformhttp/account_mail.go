package platformhttp

import (
	"context"
	"crypto/sha256"
	"net/http"
	"strings"
	"time"

	"github.com/tablesmith/tablesmith/apierr"
	"github.com/tablesmith/tablesmith/internal/mail"
	"github.com/tablesmith/tablesmith/internal/store"
	"github.com/tablesmith/tablesmith/schema"
)

// accountMailLimits bound the links mailed per address and kind: one a
// minute and five an hour, so the reset form cannot flood a stranger's
// inbox (docs/accounts.md).
var accountMailLimits = store.MailLimits{Gap: time.Minute, Window: time.Hour, PerWindow: 5}

// How long the mailed links work, and how the mail says it.
const (
	resetTTL        = time.Hour
	resetTTLText    = "1 hour"
	verifyTTL       = 24 * time.Hour
	verifyTTLText   = "24 hours"
	mailSendTimeout = 30 * time.Second
)

// allowMail counts a message of kind to address against the limits; the
// subject is hashed, so addresses nobody registered are not kept.
func (h *Handler) allowMail(ctx context.Context, kind, address string) (bool, error) {
	subject := sha256.Sum256([]byte(kind + ":" + address))
	return h.d.Store.AllowMail(ctx, subject[:], h.d.Now(), accountMailLimits)
}

// accountLink is a dashboard page on this server with a token in its
// query: the dashboard is served from the API's origin.
func accountLink(r *http.Request, page, token string) string {
	return baseURL(r) + "/" + page + "?token=" + token
}

// sendAccountMail queues a platform message about an account. Without a
// sender it is dropped, and said so in the log.
func (h *Handler) sendAccountMail(ctx context.Context, m mail.Message) error {
	if h.d.Mail == nil {
		h.d.Logger.Warn("no mail sender configured; account mail not sent", "kind", m.Kind, "account", m.AccountID)
		return nil
	}
	return h.d.Mail.Send(ctx, m)
}

// sendLater queues a message after the request is answered, so the
// answer takes the same time whether or not there is anything to send.
func (h *Handler) sendLater(m mail.Message) {
	go func() {
		ctx, cancel := context.WithTimeout(context.Background(), mailSendTimeout)
		defer cancel()
		if err := h.sendAccountMail(ctx, m); err != nil {
			h.d.Logger.Error("queue account mail", "kind", m.Kind, "account", m.AccountID, "err", err)
		}
	}()
}

// checkEmail reads an address as signup does: trimmed, lower-cased and
// well formed.
func checkEmail(raw string) (string, error) {
	col := schema.Column{Name: "email", Type: schema.TypeEmail, Required: true}
	v, msg := schema.CheckValue(&col, strings.TrimSpace(raw))
	if msg != "" {
		return "", apierr.Fields(apierr.CodeValidation, "Validation failed", map[string]string{"email": msg})
	}
	return v.(string), nil
}
