package mail

import (
	"cmp"
	"context"
	"errors"
	"log/slog"
	"math/rand/v2"
	"slices"
	"time"
)

// Transport hands a rendered message to the world.
type Transport interface {
	Deliver(ctx context.Context, to string, r Rendered) error
	// Delivered is the status a delivered message gets: "sent" or "logged".
	Delivered() string
}

// Delivery's pacing. A claimed message is leased for leaseFor, so a node
// that dies mid-send leaves it to be sent again (at least once); a failed
// attempt waits backoff(attempts) and the message fails after MaxAttempts
// (about 9 hours of trying).
const (
	MaxAttempts  = 10
	leaseFor     = 2 * time.Minute
	pollEvery    = 5 * time.Second
	claimBatch   = 20
	keepFor      = 7 * 24 * time.Hour
	firstBackoff = 30 * time.Second
	maxBackoff   = 2 * time.Hour
)

// backoff is the wait after the n-th failed attempt: doubling from 30 s
// up to 2 h, with ±20 % jitter so that a recovered server is not met by
// every node at once.
func backoff(n int) time.Duration {
	d := firstBackoff
	for i := 1; i < n && d < maxBackoff; i++ {
		d *= 2
	}
	d = min(d, maxBackoff)
	return time.Duration(float64(d) * (0.8 + 0.4*rand.Float64()))
}

// Deliverer sends the outbox's due messages, off the request path.
type Deliverer struct {
	Outbox    *Outbox
	Transport Transport
	// KeepBodies keeps a delivered message's text in the outbox. Without
	// SMTP (messages logged) it is on, so the Outbox page can show the
	// links; with SMTP the bodies, which carry single-use tokens, are
	// cleared once the server took them.
	KeepBodies bool
	Logger     *slog.Logger
}

// Run delivers until ctx ends: at once when this node queued a message,
// and every pollEvery for messages other nodes queued or that are due
// again.
func (d *Deliverer) Run(ctx context.Context) {
	t := time.NewTicker(pollEvery)
	defer t.Stop()
	for {
		for {
			n, err := d.DeliverDue(ctx)
			if err != nil && !errors.Is(err, context.Canceled) {
				d.Logger.Warn("mail delivery", "err", err)
			}
			if n < claimBatch {
				break
			}
		}
		select {
		case <-ctx.Done():
			return
		case <-d.Outbox.wake:
		case <-t.C:
		}
	}
}

type claimed struct {
	id       int64
	to       string
	r        Rendered
	attempts int
}

// DeliverDue claims up to claimBatch due messages and delivers them; it
// returns how many it claimed.
func (d *Deliverer) DeliverDue(ctx context.Context) (int, error) {
	now := d.Outbox.Now()
	rows, err := d.Outbox.DB.QueryContext(ctx, `UPDATE tablesmith.mail_outbox
		SET attempts = attempts + 1, next_attempt_at = $2
		WHERE id IN (SELECT id FROM tablesmith.mail_outbox WHERE status = 'queued' AND scope = $4 AND next_attempt_at <= $1
		             ORDER BY next_attempt_at LIMIT $3 FOR UPDATE SKIP LOCKED)
		RETURNING id, to_address, subject, text_body, html_body, attempts`, now, now.Add(leaseFor), claimBatch, d.Outbox.Scope)
	if err != nil {
		return 0, err
	}
	var batch []claimed
	for rows.Next() {
		var c claimed
		if err := rows.Scan(&c.id, &c.to, &c.r.Subject, &c.r.Text, &c.r.HTML, &c.attempts); err != nil {
			rows.Close()
			return 0, err
		}
		batch = append(batch, c)
	}
	rows.Close()
	if err := rows.Err(); err != nil {
		return 0, err
	}
	// RETURNING gives the claimed rows in no set order; one node's mail
	// leaves in the order it was queued (a second reset link after the
	// first, as the person asked for them).
	slices.SortFunc(batch, func(a, b claimed) int { return cmp.Compare(a.id, b.id) })
	for _, c := range batch {
		if err := d.deliver(ctx, c); err != nil {
			return len(batch), err
		}
	}
	return len(batch), nil
}

func (d *Deliverer) deliver(ctx context.Context, c claimed) error {
	sendErr := d.Transport.Deliver(ctx, c.to, c.r)
	now := d.Outbox.Now()
	db := d.Outbox.DB
	var err error
	switch {
	case sendErr == nil:
		_, err = db.ExecContext(ctx, `UPDATE tablesmith.mail_outbox SET status = $2, sent_at = $3, last_error = '',
			text_body = CASE WHEN $4 THEN text_body ELSE '' END, html_body = CASE WHEN $4 THEN html_body ELSE '' END
			WHERE id = $1`, c.id, d.Transport.Delivered(), now, d.KeepBodies)
	case c.attempts >= MaxAttempts:
		d.Logger.Warn("mail failed for good", "id", c.id, "attempts", c.attempts, "err", sendErr)
		_, err = db.ExecContext(ctx, `UPDATE tablesmith.mail_outbox SET status = 'failed', last_error = $2,
			text_body = '', html_body = '' WHERE id = $1`, c.id, sendErr.Error())
	default:
		d.Logger.Info("mail delivery will be retried", "id", c.id, "attempts", c.attempts, "err", sendErr)
		_, err = db.ExecContext(ctx, `UPDATE tablesmith.mail_outbox SET next_attempt_at = $2, last_error = $3
			WHERE id = $1`, c.id, now.Add(backoff(c.attempts)), sendErr.Error())
	}
	return err
}

// Prune deletes what delivery finished with more than a week ago.
func (d *Deliverer) Prune(ctx context.Context) error {
	_, err := d.Outbox.DB.ExecContext(ctx, `DELETE FROM tablesmith.mail_outbox
		WHERE status <> 'queued' AND created_at < $1`, d.Outbox.Now().Add(-keepFor))
	return err
}

// LogTransport writes each message to the server log: make run's default,
// so a developer can follow a link without a mail server.
type LogTransport struct{ Logger *slog.Logger }

// Deliver logs the message.
func (l LogTransport) Deliver(_ context.Context, to string, r Rendered) error {
	l.Logger.Info("mail", "to", to, "subject", r.Subject, "text", r.Text)
	return nil
}

// Delivered is "logged".
func (LogTransport) Delivered() string { return "logged" }
