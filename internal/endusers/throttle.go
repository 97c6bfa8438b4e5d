package endusers

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"net"
	"net/http"
	"strings"
	"time"

	"github.com/tablesmith/tablesmith/internal/clientaddr"
)

// Login throttling counts failed logins per subject in the control schema,
// so every node sees the same counts: "email:<address>" for the account
// being guessed (whether or not it exists, so the answer reveals nothing)
// and "addr:<client>" for the guesser trying many accounts.
const (
	subjectEmail = "email:"
	subjectAddr  = "addr:"
)

func loginSubjects(email, addr string) []string {
	if len(email) > maxEmailSubject {
		// No real address is this long; keep the row small anyway.
		sum := sha256.Sum256([]byte(email))
		email = "sha256:" + hex.EncodeToString(sum[:])
	}
	return []string{subjectEmail + email, subjectAddr + addr}
}

// maxEmailSubject is the longest e-mail kept as is in a throttle subject.
const maxEmailSubject = 320

// loginWait returns how long logins for these subjects must wait (zero:
// they may go ahead).
func (a *Auth) loginWait(ctx context.Context, projectID string, subjects []string, now time.Time) (time.Duration, error) {
	th := a.cfg.Throttle
	windows, err := a.cfg.Store.LoginFailures(ctx, projectID, subjects, now.Add(-th.Window))
	if err != nil {
		return 0, err
	}
	var wait time.Duration
	for subject, w := range windows {
		limit := th.AddrFailures
		if strings.HasPrefix(subject, subjectEmail) {
			limit = th.EmailFailures
		}
		if w.Failures < limit {
			continue
		}
		if d := w.Start.Add(th.Window).Sub(now); d > wait {
			wait = d
		}
	}
	return wait, nil
}

// remoteAddr is the client address of a request as the server in front
// determined it (Caddy's client_ip, which honours trusted_proxies; else
// the peer), with IPv6 addresses reduced to their /64 (one customer
// usually holds a whole /64, so single addresses are free).
func remoteAddr(r *http.Request) string {
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
