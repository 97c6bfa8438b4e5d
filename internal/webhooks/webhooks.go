// Package webhooks delivers the committed changes of a project's tables to
// the project's HTTP endpoints (docs/webhooks.md): configured through the
// platform API, read from the project's change log (the one realtime
// capture writes; there is no second capture path), signed per the
// Standard Webhooks convention, in order, at least once, retried with
// backoff for a day.
package webhooks

import (
	"fmt"
	"net"
	"net/netip"
	"net/url"
	"slices"
	"strings"
	"time"
)

// The events a webhook can take, named as the change log names them.
const (
	EventInsert = "insert"
	EventUpdate = "update"
	EventDelete = "delete"
)

// Events are every event, in the order they are listed.
var Events = []string{EventInsert, EventUpdate, EventDelete}

// eventOf is the webhook event of a change log operation.
func eventOf(op string) string {
	if op == "create" {
		return EventInsert
	}
	return op
}

// Limits of a webhook's configuration.
const (
	MaxURLLength = 2048
	// RetryFor is how long a failing webhook is retried before it is
	// disabled.
	RetryFor = 24 * time.Hour
	// PreviousSecretFor is how long the secret before a rotation still
	// signs.
	PreviousSecretFor = 24 * time.Hour
	// Timeout bounds one delivery: connecting, sending and the answer.
	Timeout = 10 * time.Second
	// MaxResponseRead is how much of a receiver's answer is read; the
	// delivery log keeps MaxResponseKept of it.
	MaxResponseRead = 64 << 10
	MaxResponseKept = 2 << 10
	// KeepDeliveries is how long the delivery log keeps an attempt.
	KeepDeliveries = 7 * 24 * time.Hour
)

// Webhook is a webhook as the platform API shows it (never its secret).
type Webhook struct {
	ID        string            `json:"id"`
	ProjectID string            `json:"project_id"`
	URL       string            `json:"url"`
	Tables    []string          `json:"tables"`
	Events    []string          `json:"events"`
	Where     map[string]string `json:"where"`
	Enabled   bool              `json:"enabled"`
	// DisabledReason says why a webhook is off: empty when the owner
	// turned it off, the last error when retries ran out.
	DisabledReason string `json:"disabled_reason"`
	// AwaitingGenerate are its published tables that do not capture
	// their changes yet: the next generate switches realtime on for them,
	// and the webhook delivers their changes from that generate on.
	AwaitingGenerate []string `json:"awaiting_generate"`
	// Cursor is the id of the last change the webhook is done with.
	Cursor         int64      `json:"cursor"`
	FailingSince   *time.Time `json:"failing_since"`
	Attempts       int        `json:"attempts"`
	NextAttemptAt  time.Time  `json:"next_attempt_at"`
	SecretRotating *time.Time `json:"previous_secret_until"`
	CreatedAt      time.Time  `json:"created_at"`
	UpdatedAt      time.Time  `json:"updated_at"`

	secretGen int
}

// SecretGen is the generation of the webhook's current secret.
func (w *Webhook) SecretGen() int { return w.secretGen }

// Spec is what a create or an update sets; an update's nil fields stay.
type Spec struct {
	URL     *string            `json:"url"`
	Tables  *[]string          `json:"tables"`
	Events  *[]string          `json:"events"`
	Where   *map[string]string `json:"where"`
	Enabled *bool              `json:"enabled"`
}

// Tables is what a spec is checked against: the project's published
// tables and a check of a table's condition in the realtime filter
// grammar.
type Tables interface {
	Has(table string) bool
	CheckWhere(table, expr string) error
}

// Check fills an update's missing fields from the webhook it changes
// (nil for a create, whose url and tables are then required), checks the
// result and returns the problems per field (nil when none).
func (s *Spec) Check(old *Webhook, tables Tables, allowPrivate bool) map[string]string {
	problems := map[string]string{}
	if old != nil {
		if s.URL == nil {
			s.URL = &old.URL
		}
		if s.Tables == nil {
			s.Tables = &old.Tables
		}
		if s.Events == nil {
			s.Events = &old.Events
		}
		if s.Where == nil {
			s.Where = &old.Where
		}
	}
	if s.URL == nil {
		problems["url"] = "is required"
	} else if msg := checkURL(*s.URL, allowPrivate); msg != "" {
		problems["url"] = msg
	}
	if s.Tables == nil || len(*s.Tables) == 0 {
		problems["tables"] = "name at least one table"
	} else {
		seen := map[string]bool{}
		for _, t := range *s.Tables {
			switch {
			case seen[t]:
				problems["tables"] = fmt.Sprintf("%q is given twice", t)
			case !tables.Has(t):
				problems["tables"] = fmt.Sprintf("%q is not a published table of this project", t)
			}
			seen[t] = true
		}
	}
	if s.Events == nil || len(*s.Events) == 0 {
		all := slices.Clone(Events)
		s.Events = &all
	} else {
		for _, e := range *s.Events {
			if !slices.Contains(Events, e) {
				problems["events"] = fmt.Sprintf("%q is not an event; use insert, update or delete", e)
			}
		}
		// In the canonical order, once each.
		var ev []string
		for _, e := range Events {
			if slices.Contains(*s.Events, e) {
				ev = append(ev, e)
			}
		}
		s.Events = &ev
	}
	if s.Where == nil {
		s.Where = &map[string]string{}
	}
	for table, expr := range *s.Where {
		key := "where." + table
		if s.Tables == nil || !slices.Contains(*s.Tables, table) {
			problems[key] = "names a table the webhook does not take"
			continue
		}
		if err := tables.CheckWhere(table, expr); err != nil {
			problems[key] = err.Error()
		}
	}
	if len(problems) == 0 {
		return nil
	}
	return problems
}

// checkURL says what is wrong with a webhook's URL, or "".
func checkURL(raw string, allowPrivate bool) string {
	if len(raw) > MaxURLLength {
		return fmt.Sprintf("must be at most %d characters", MaxURLLength)
	}
	u, err := url.Parse(raw)
	if err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" || u.Opaque != "" {
		return "must be an absolute http:// or https:// URL"
	}
	if u.User != nil {
		return "must not carry a user name or password; a receiver verifies the signature instead"
	}
	if u.Fragment != "" {
		return "must not have a #fragment"
	}
	if allowPrivate {
		return ""
	}
	host := strings.ToLower(u.Hostname())
	if host == "localhost" || strings.HasSuffix(host, ".localhost") {
		return "must not point at this machine (loopback); the operator can allow private targets with webhook_allow_private"
	}
	if ip, err := netip.ParseAddr(host); err == nil && !publicAddr(ip) {
		return "must not point at a loopback, private, link-local or metadata address; the operator can allow them with webhook_allow_private"
	}
	return ""
}

// publicAddr reports whether a webhook may connect to ip without
// webhook_allow_private: not loopback, private (RFC 1918, fc00::/7),
// link-local (169.254.0.0/16 holds the cloud metadata address),
// carrier-grade NAT, unspecified or multicast.
func publicAddr(ip netip.Addr) bool {
	ip = ip.Unmap()
	if ip.IsLoopback() || ip.IsPrivate() || ip.IsLinkLocalUnicast() || ip.IsLinkLocalMulticast() ||
		ip.IsInterfaceLocalMulticast() || ip.IsMulticast() || ip.IsUnspecified() {
		return false
	}
	for _, p := range blockedPrefixes {
		if p.Contains(ip) {
			return false
		}
	}
	return true
}

// blockedPrefixes are the ranges netip's predicates do not name.
var blockedPrefixes = []netip.Prefix{
	netip.MustParsePrefix("100.64.0.0/10"),  // carrier-grade NAT
	netip.MustParsePrefix("0.0.0.0/8"),      // "this network"
	netip.MustParsePrefix("192.0.0.0/24"),   // IETF protocol assignments
	netip.MustParsePrefix("198.18.0.0/15"),  // benchmarking
	netip.MustParsePrefix("240.0.0.0/4"),    // reserved, and the broadcast address
	netip.MustParsePrefix("64:ff9b::/96"),   // NAT64 reaches IPv4 through it
	netip.MustParsePrefix("64:ff9b:1::/48"), // local-use NAT64
	netip.MustParsePrefix("2002::/16"),      // 6to4 embeds any IPv4
	netip.MustParsePrefix("fec0::/10"),      // site-local (deprecated)
	netip.MustParsePrefix("100::/64"),       // discard-only
}

// errBlocked is the dial error of a target webhook_allow_private would
// have to allow.
type errBlocked struct{ addr string }

func (e errBlocked) Error() string {
	return fmt.Sprintf("refused to connect to %s: a loopback, private, link-local or metadata address (webhook_allow_private is off)", e.addr)
}

// hostPortIP is the IP of a dialed address ("1.2.3.4:80", "[::1]:443").
func hostPortIP(address string) (netip.Addr, error) {
	host, _, err := net.SplitHostPort(address)
	if err != nil {
		return netip.Addr{}, err
	}
	return netip.ParseAddr(host)
}
