// Package testproxy forwards TCP to a real server so that a test can make
// the connection fail the ways networks do: cut it (as a database or Redis
// that goes away) and bring it back on the same address, stop forwarding
// while keeping it open (a blackhole: packets dropped, not refused), reset
// it, or slow it down.
package testproxy

import (
	"bytes"
	"encoding/binary"
	"net"
	"sync"
	"testing"
	"time"
)

// Mode is how the proxy treats traffic.
type Mode int

// Modes.
const (
	// Forward passes bytes through.
	Forward Mode = iota
	// Blackhole accepts connections and keeps them open but forwards
	// nothing: reads on either side wait until the mode changes.
	Blackhole
	// Reset closes every connection with a TCP reset (RST), and each new
	// one as soon as it is accepted.
	Reset
	// Slow forwards each chunk after the delay given to SetSlow.
	Slow
)

// Proxy forwards connections from Addr to a target.
type Proxy struct {
	Addr    string
	target  string
	mu      sync.Mutex
	ln      net.Listener
	conns   []net.Conn
	mode    Mode
	delay   time.Duration
	changed chan struct{} // closed and replaced whenever the mode changes

	recording  bool     // read the statements of connections accepted from now on
	statements []string // what they sent, in order
}

// Start listens on a free loopback port and forwards to target until the
// test ends.
func Start(t testing.TB, target string) *Proxy {
	t.Helper()
	p := &Proxy{target: target, changed: make(chan struct{})}
	p.listen(t, "127.0.0.1:0")
	t.Cleanup(p.Stop)
	return p
}

// Stop refuses new connections and cuts the ones it carried.
func (p *Proxy) Stop() {
	p.mu.Lock()
	defer p.mu.Unlock()
	if p.ln != nil {
		p.ln.Close()
		p.ln = nil
	}
	for _, c := range p.conns {
		c.Close()
	}
	p.conns = nil
	p.signal()
}

// Restart listens on the same address again.
func (p *Proxy) Restart(t testing.TB) {
	t.Helper()
	p.listen(t, p.Addr)
}

// SetMode changes how traffic is treated, for the connections open now
// and the ones to come. Reset resets the open connections at once.
func (p *Proxy) SetMode(m Mode) {
	p.mu.Lock()
	defer p.mu.Unlock()
	p.mode = m
	if m == Reset {
		for _, c := range p.conns {
			reset(c)
		}
		p.conns = nil
	}
	p.signal()
}

// SetSlow switches to Slow mode with the given delay per chunk.
func (p *Proxy) SetSlow(delay time.Duration) {
	p.mu.Lock()
	p.delay = delay
	p.mu.Unlock()
	p.SetMode(Slow)
}

// signal wakes the pipes waiting in a blackhole; p.mu is held.
func (p *Proxy) signal() {
	close(p.changed)
	p.changed = make(chan struct{})
}

func reset(c net.Conn) {
	if tc, ok := c.(*net.TCPConn); ok {
		_ = tc.SetLinger(0) // Close then sends RST instead of FIN
	}
	c.Close()
}

func (p *Proxy) listen(t testing.TB, addr string) {
	t.Helper()
	var ln net.Listener
	var err error
	for range 50 { // the old socket may linger for a moment
		if ln, err = net.Listen("tcp", addr); err == nil {
			break
		}
		time.Sleep(20 * time.Millisecond)
	}
	if err != nil {
		t.Fatalf("testproxy: listen on %s: %v", addr, err)
	}
	p.mu.Lock()
	p.ln, p.Addr = ln, ln.Addr().String()
	p.mu.Unlock()
	go p.accept(ln)
}

func (p *Proxy) accept(ln net.Listener) {
	for {
		c, err := ln.Accept()
		if err != nil {
			return
		}
		p.mu.Lock()
		mode := p.mode
		p.mu.Unlock()
		if mode == Reset {
			reset(c)
			continue
		}
		up, err := net.Dial("tcp", p.target)
		if err != nil {
			c.Close()
			continue
		}
		p.mu.Lock()
		p.conns = append(p.conns, c, up)
		var watch *pgReader
		if p.recording {
			watch = &pgReader{record: p.record}
		}
		p.mu.Unlock()
		go p.pipe(up, c, watch)
		go p.pipe(c, up, nil)
	}
}

// pipe copies src to dst chunk by chunk, each chunk as the mode says;
// watch, when set, reads the statements in what the client sends.
func (p *Proxy) pipe(dst, src net.Conn, watch *pgReader) {
	defer dst.Close()
	buf := make([]byte, 32<<10)
	for {
		n, err := src.Read(buf)
		if n > 0 {
			if watch != nil {
				watch.feed(buf[:n])
			}
			delay, ok := p.pass()
			if !ok {
				return
			}
			if delay > 0 {
				time.Sleep(delay)
			}
			if _, werr := dst.Write(buf[:n]); werr != nil {
				return
			}
		}
		if err != nil {
			return
		}
	}
}

// pass waits while the proxy is a blackhole and says how long to delay a
// chunk; false when the connection is to be dropped.
func (p *Proxy) pass() (time.Duration, bool) {
	for {
		p.mu.Lock()
		mode, delay, changed, stopped := p.mode, p.delay, p.changed, p.ln == nil
		p.mu.Unlock()
		switch {
		case stopped || mode == Reset:
			return 0, false
		case mode == Slow:
			return delay, true
		case mode == Forward:
			return 0, true
		}
		<-changed
	}
}

// RecordStatements makes the proxy read PostgreSQL's protocol in what the
// clients of connections accepted from now on send, and keep the text of
// each statement: simple queries, and the statements that extended
// queries parse (a statement prepared earlier and executed again sends no
// text, so it is not counted again). Start recording before the clients
// connect; a connection that is not PostgreSQL's protocol in the clear
// (TLS, Redis) is not read.
func (p *Proxy) RecordStatements() {
	p.mu.Lock()
	p.recording = true
	p.mu.Unlock()
}

// Statements returns the statements recorded so far, in the order they
// were sent (RecordStatements).
func (p *Proxy) Statements() []string {
	p.mu.Lock()
	defer p.mu.Unlock()
	return append([]string(nil), p.statements...)
}

func (p *Proxy) record(stmt string) {
	p.mu.Lock()
	p.statements = append(p.statements, stmt)
	p.mu.Unlock()
}

// pgReader follows the messages a PostgreSQL client sends: untyped ones
// (SSL negotiation, startup) until the startup message, then a type byte
// and a length each.
type pgReader struct {
	record  func(string)
	started bool // the startup message has passed
	off     bool // not PostgreSQL's protocol in the clear
	buf     []byte
}

// protocol3 is the version of PostgreSQL's startup message.
const protocol3 = 3 << 16

func (r *pgReader) feed(b []byte) {
	if r.off {
		return
	}
	r.buf = append(r.buf, b...)
	for {
		if !r.started {
			if len(r.buf) < 8 {
				return
			}
			n := int(binary.BigEndian.Uint32(r.buf))
			if n < 8 || n > 1<<16 {
				r.off = true
				return
			}
			if len(r.buf) < n {
				return
			}
			// SSLRequest, GSSENCRequest and CancelRequest come before it
			// or alone; an accepted SSLRequest makes the rest TLS, which
			// fails the checks here and turns the reader off.
			r.started = binary.BigEndian.Uint32(r.buf[4:]) == protocol3
			r.buf = r.buf[n:]
			continue
		}
		if len(r.buf) < 5 {
			return
		}
		n := int(binary.BigEndian.Uint32(r.buf[1:]))
		if n < 4 {
			r.off = true
			return
		}
		if len(r.buf) < 1+n {
			return
		}
		body := r.buf[5 : 1+n]
		switch r.buf[0] {
		case 'Q': // the query text
			r.record(cString(body))
		case 'P': // the statement's name, then its text
			if i := bytes.IndexByte(body, 0); i >= 0 {
				r.record(cString(body[i+1:]))
			}
		}
		r.buf = r.buf[1+n:]
	}
}

func cString(b []byte) string {
	if i := bytes.IndexByte(b, 0); i >= 0 {
		b = b[:i]
	}
	return string(b)
}
