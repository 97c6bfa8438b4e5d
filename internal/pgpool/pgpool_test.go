package pgpool_test

import (
	"context"
	"errors"
	"net/url"
	"os"
	"runtime"
	"testing"
	"time"

	"github.com/tablesmith/tablesmith/internal/pgpool"
	"github.com/tablesmith/tablesmith/internal/testpg"
	"github.com/tablesmith/tablesmith/internal/testproxy"
)

func TestMain(m *testing.M) { testpg.Main(m, "pgpool") }

func proxied(t *testing.T) (*testproxy.Proxy, string) {
	u, err := url.Parse(testpg.URL(t))
	if err != nil {
		t.Fatal(err)
	}
	px := testproxy.Start(t, u.Host)
	u.Host = px.Addr
	return px, u.String()
}

func TestAStatementOnABlackholedDatabaseFailsAtItsDeadline(t *testing.T) {
	px, dsn := proxied(t)
	db, err := pgpool.Open(dsn, pgpool.Options{ConnectTimeout: time.Second, StatementTimeout: 2 * time.Second}, nil)
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	prepared, err := db.Prepare(`SELECT 1`)
	if err != nil {
		t.Fatal(err)
	}
	defer prepared.Close()
	var one int
	if err := prepared.QueryRow().Scan(&one); err != nil {
		t.Fatal(err)
	}
	goroutines := runtime.NumGoroutine()

	px.SetMode(testproxy.Blackhole)
	for _, name := range []string{"prepared statement", "idle connection", "new connection"} {
		ctx, cancel := context.WithTimeout(context.Background(), 500*time.Millisecond)
		start := time.Now()
		if name == "prepared statement" {
			// lib/pq's prepared statement waits for its CancelRequest,
			// which used to have the whole connect timeout.
			err = prepared.QueryRowContext(ctx).Scan(&one)
		} else {
			err = db.QueryRowContext(ctx, `SELECT 1`).Scan(&one)
		}
		took := time.Since(start)
		cancel()
		if err == nil {
			t.Fatalf("%s: a blackholed statement succeeded", name)
		}
		if !errors.Is(err, os.ErrDeadlineExceeded) && !errors.Is(err, context.DeadlineExceeded) {
			t.Errorf("%s: err = %v, want a deadline error", name, err)
		}
		// The deadline, the overshoot, and 300 ms for scheduling.
		if bound := 500*time.Millisecond + pgpool.Overshoot + 300*time.Millisecond; took > bound {
			t.Errorf("%s: the statement took %v with a 500ms deadline, want within %v", name, took, bound)
		}
	}

	// lib/pq's CancelRequests ran into the blackhole; they end within
	// their own bound, so nothing is left waiting.
	px.SetMode(testproxy.Forward)
	deadline := time.Now().Add(5 * time.Second)
	for runtime.NumGoroutine() > goroutines+2 && time.Now().Before(deadline) {
		time.Sleep(50 * time.Millisecond)
	}
	if n := runtime.NumGoroutine(); n > goroutines+2 {
		t.Errorf("%d goroutines after the outage, %d before", n, goroutines)
	}
	if err := db.QueryRow(`SELECT 1`).Scan(&one); err != nil {
		t.Fatalf("after the outage: %v", err)
	}
}

func TestConnectionsCarryTheStatementTimeoutAndConnectTimeout(t *testing.T) {
	db, err := pgpool.Open(testpg.URL(t), pgpool.Options{ConnectTimeout: time.Second, StatementTimeout: 1500 * time.Millisecond}, nil)
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	var st string
	if err := db.QueryRow(`SHOW statement_timeout`).Scan(&st); err != nil {
		t.Fatal(err)
	}
	if st != "1500ms" {
		t.Errorf("statement_timeout = %q, want 1500ms", st)
	}
	// A connection that is accepted but never answered gives up after the
	// connect timeout.
	px, dsn := proxied(t)
	px.SetMode(testproxy.Blackhole)
	db2, err := pgpool.Open(dsn, pgpool.Options{ConnectTimeout: 500 * time.Millisecond}, nil)
	if err != nil {
		t.Fatal(err)
	}
	defer db2.Close()
	start := time.Now()
	if err := db2.Ping(); err == nil {
		t.Fatal("ping through a blackhole succeeded")
	}
	if took := time.Since(start); took > 2*time.Second {
		t.Errorf("connecting took %v with a 500ms connect timeout", took)
	}
}

func TestAURLsOwnStatementTimeoutStays(t *testing.T) {
	db, err := pgpool.Open(testpg.URL(t)+"&statement_timeout=700", pgpool.Options{StatementTimeout: 5 * time.Second}, nil)
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	var st string
	if err := db.QueryRow(`SHOW statement_timeout`).Scan(&st); err != nil {
		t.Fatal(err)
	}
	if st != "700ms" {
		t.Errorf("statement_timeout = %q, want 700ms", st)
	}
}

// TestEndOnCancelEndsACancelledStatementOnABlackholedDatabase: a read
// replica's caller cancels a read that hangs on a replica that stopped
// answering, to run it elsewhere; the statement must give up then, not
// at the request's deadline.
func TestEndOnCancelEndsACancelledStatementOnABlackholedDatabase(t *testing.T) {
	px, dsn := proxied(t)
	db, err := pgpool.Open(dsn, pgpool.Options{ConnectTimeout: time.Second, EndOnCancel: true}, nil)
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	var one int
	if err := db.QueryRow(`SELECT 1`).Scan(&one); err != nil {
		t.Fatal(err)
	}
	px.SetMode(testproxy.Blackhole)
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	time.AfterFunc(300*time.Millisecond, cancel)
	start := time.Now()
	err = db.QueryRowContext(ctx, `SELECT 1`).Scan(&one)
	if took := time.Since(start); err == nil || took > 2*time.Second {
		t.Fatalf("a cancelled statement on a blackholed database: err %v after %s", err, took)
	}
	px.SetMode(testproxy.Forward)
	if err := db.QueryRow(`SELECT 1`).Scan(&one); err != nil {
		t.Fatalf("after the outage: %v", err)
	}
}

// TestANewConnectionIsGivenUpWhenItsCallersContextEnds: the connect
// timeout (5 s in the service) bounds a connection that nobody waits for,
// but a request that needs a new connection a moment before its deadline
// must not wait the connect timeout past it. lib/pq bounds the startup
// exchange only by the connect timeout.
func TestANewConnectionIsGivenUpWhenItsCallersContextEnds(t *testing.T) {
	px, dsn := proxied(t)
	px.SetMode(testproxy.Blackhole) // connections are accepted, never answered
	db, err := pgpool.Open(dsn, pgpool.Options{ConnectTimeout: 20 * time.Second}, nil)
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	for _, how := range []string{"deadline", "cancel"} {
		ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
		if how == "deadline" {
			ctx, cancel = context.WithTimeout(context.Background(), 300*time.Millisecond)
		} else {
			time.AfterFunc(300*time.Millisecond, cancel)
		}
		start := time.Now()
		err := db.PingContext(ctx)
		took := time.Since(start)
		cancel()
		if err == nil {
			t.Fatalf("%s: a ping through a blackhole succeeded", how)
		}
		if ctx.Err() == nil || !errors.Is(err, ctx.Err()) {
			t.Errorf("%s: err = %v, want the context's error (%v)", how, err, ctx.Err())
		}
		// 300 ms, plus a scheduling margin far below the connect timeout.
		if took > 300*time.Millisecond+500*time.Millisecond {
			t.Errorf("%s: connecting took %v for a context of 300ms (connect timeout 20s)", how, took)
		}
	}
	px.SetMode(testproxy.Forward)
	if err := db.Ping(); err != nil {
		t.Fatalf("after the outage: %v", err)
	}
}
