// Package loginthrottle limits failed logins, for end users of generated
// APIs and for platform accounts alike. Failures are counted per subject
// in the control schema, so every node sees the same counts:
// "email:<address>" for the account being guessed (whether or not it
// exists, so the answer reveals nothing) and "addr:<client>" for the
// guesser trying many accounts. The client is the address the server in
// front determined (clientaddr), not the peer.
package loginthrottle

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"net"
	"net/http"
	"strconv"
	"strings"
	"time"

	"github.com/tablesmith/tablesmith/apierr"
	"github.com/tablesmith/tablesmith/internal/clientaddr"
	"github.com/tablesmith/tablesmith/internal/store"
)

// Defaults of Limits.
const (
	DefaultWindow        = 15 * time.Minute
	DefaultEmailFailures = 5
	DefaultAddrFailures  = 30
)

// Limits bound failed logins in a fixed window that starts with the
// first failure: at the limit, logins for that e-mail (or from that
// client address) answer 429 until the window ends, right password or not.
type Limits struct {
	Window        time.Duration
	EmailFailures int
	AddrFailures  int
}

// WithDefaults fills the limits left zero.
func (l Limits) WithDefaults() Limits {
	if l.Window <= 0 {
		l.Window = DefaultWindow
	}
	if l.EmailFailures <= 0 {
		l.EmailFailures = DefaultEmailFailures
	}
	if l.AddrFailures <= 0 {
		l.AddrFailures = DefaultAddrFailures
	}
	return l
}

const (
	subjectEmail   = "email:"
	subjectAddr    = "addr:"
	subjectAccount = "account:"
)

// maxEmailSubject is the longest e-mail kept as is in a subject.
const maxEmailSubject = 320

// Throttle counts the failed logins of one scope: a project's end users,
// or the platform's accounts (store.PlatformLogins).
type Throttle struct {
	Limits Limits
	Store  *store.Store
	Scope  string
}

// Attempt is one login being throttled: its subjects.
type Attempt struct{ subjects []string }

// Subjects returns the attempt of a login for email from addr.
func Subjects(email, addr string) Attempt {
	if len(email) > maxEmailSubject {
		// No real address is this long; keep the row small anyway.
		sum := sha256.Sum256([]byte(email))
		email = "sha256:" + hex.EncodeToString(sum[:])
	}
	return Attempt{[]string{subjectEmail + email, subjectAddr + addr}}
}

// AccountSubjects returns the attempt of a second factor (or a password
// confirmation) for a signed-in or half-signed-in platform account: its
// own subject, counted like an e-mail's, so that a right password (which
// clears the e-mail's failures) does not clear its failures.
func AccountSubjects(accountID int64, addr string) Attempt {
	return Attempt{[]string{subjectAccount + strconv.FormatInt(accountID, 10), subjectAddr + addr}}
}

// Check answers 429 TOO_MANY_ATTEMPTS with Retry-After when the attempt
// must wait; nil lets it go ahead.
func (t Throttle) Check(ctx context.Context, w http.ResponseWriter, a Attempt, now time.Time) error {
	wait, err := t.wait(ctx, a, now)
	if err != nil || wait <= 0 {
		return err
	}
	secs := retryAfterSeconds(wait)
	w.Header().Set("Retry-After", strconv.FormatInt(secs, 10))
	return apierr.New(apierr.CodeTooManyAttempts, "Too many failed logins; try again in %d seconds", secs)
}

func (t Throttle) wait(ctx context.Context, a Attempt, now time.Time) (time.Duration, error) {
	lim := t.Limits.WithDefaults()
	windows, err := t.Store.LoginFailures(ctx, t.Scope, a.subjects, now.Add(-lim.Window))
	if err != nil {
		return 0, err
	}
	var wait time.Duration
	for subject, w := range windows {
		limit := lim.AddrFailures
		if !strings.HasPrefix(subject, subjectAddr) {
			limit = lim.EmailFailures
		}
		if w.Failures < limit {
			continue
		}
		if d := w.Start.Add(lim.Window).Sub(now); d > wait {
			wait = d
		}
	}
	return wait, nil
}

// Failed counts a failed attempt against each of its subjects.
func (t Throttle) Failed(ctx context.Context, a Attempt, now time.Time) error {
	return t.Store.RecordLoginFailure(ctx, t.Scope, a.subjects, now, t.Limits.WithDefaults().Window)
}

// Succeeded forgets the e-mail's failures (the address keeps its count:
// one right password does not excuse guessing at other accounts).
func (t Throttle) Succeeded(ctx context.Context, a Attempt) error {
	return t.Store.ClearLoginFailures(ctx, t.Scope, a.subjects[0])
}

// ClientAddr is the client address of a request as the server in front
// determined it (Caddy's client_ip, which honours trusted_proxies; else
// the peer), with IPv6 addresses reduced to their /64 (one customer
// usually holds a whole /64, so single addresses are free).
func ClientAddr(r *http.Request) string {
	host, _ := clientaddr.From(r)
	ip := net.ParseIP(host)
	if ip == nil {
		return host
	}
	if ip.To4() != nil {
		return ip.String()
	}
	return ip.Mask(net.CIDRMask(64, 128)).String() + "/64"
}

// retryAfterSeconds rounds a wait up to whole seconds, at least one.
func retryAfterSeconds(d time.Duration) int64 {
	s := int64((d + time.Second - 1) / time.Second)
	if s < 1 {
		s = 1
	}
	return s
}
