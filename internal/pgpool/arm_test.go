package pgpool

import (
	"context"
	"net"
	"testing"
	"time"
)

// deadlineConn records the deadlines set on it.
type deadlineConn struct {
	net.Conn
	set []time.Time
}

func (d *deadlineConn) SetDeadline(t time.Time) error {
	d.set = append(d.set, t)
	return nil
}

func TestArmSetsTheSocketDeadlineOnlyWhenItNoLongerFits(t *testing.T) {
	nc := &deadlineConn{}
	c := &conn{nc: nc}
	base := time.Now().Add(10 * time.Second)
	check := func(what string, d time.Time) {
		t.Helper()
		need := d.Add(cancelGrace)
		if c.armed.Before(need) || c.armed.After(need.Add(armSlack)) {
			t.Fatalf("%s: socket deadline %v, want within [%v, %v]", what, c.armed, need, need.Add(armSlack))
		}
		if got := nc.set[len(nc.set)-1]; !got.Equal(c.armed) {
			t.Fatalf("%s: last deadline set %v, armed %v", what, got, c.armed)
		}
	}

	// Statements of requests a millisecond apart, each with its own deadline.
	for i := 0; i < 1000; i++ {
		d := base.Add(time.Duration(i) * time.Millisecond)
		ctx, cancel := context.WithDeadline(context.Background(), d)
		c.arm(ctx)
		cancel()
		check("a later request", d)
	}
	if n, want := len(nc.set), int(time.Second/armSlack); n < want-1 || n > want+1 {
		t.Errorf("1 s of statements set the socket's deadline %d times, want one per %v (%d±1)", n, armSlack, want)
	}

	// A request with a much shorter budget gets its own, earlier deadline.
	d := base.Add(-5 * time.Second)
	ctx, cancel := context.WithDeadline(context.Background(), d)
	c.arm(ctx)
	cancel()
	check("a shorter budget", d)

	// No deadline clears it.
	c.arm(context.Background())
	if !c.armed.IsZero() || !nc.set[len(nc.set)-1].IsZero() {
		t.Fatalf("a statement without a deadline left the socket's deadline at %v", c.armed)
	}
	n := len(nc.set)
	c.arm(context.Background())
	if len(nc.set) != n {
		t.Errorf("a second statement without a deadline set it again")
	}

	// A cancel watch that moved the deadline makes the next statement set it.
	ctx, cancel = context.WithDeadline(context.Background(), base)
	defer cancel()
	c.arm(ctx)
	n = len(nc.set)
	c.rearm.Store(true)
	c.arm(ctx)
	if len(nc.set) != n+1 {
		t.Errorf("after a cancel watch fired, the deadline was not set again")
	}
}
