// Package testproxy forwards TCP to a real server so that a test can make
// the connection fail the ways networks do: cut it (as a database or Redis
// that goes away) and bring it back on the same address, stop forwarding
// while keeping it open (a blackhole: packets dropped, not refused), reset
// it, or slow it down.
package testproxy

import (
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
		p.mu.Unlock()
		go p.pipe(up, c)
		go p.pipe(c, up)
	}
}

// pipe copies src to dst chunk by chunk, each chunk as the mode says.
func (p *Proxy) pipe(dst, src net.Conn) {
	defer dst.Close()
	buf := make([]byte, 32<<10)
	for {
		n, err := src.Read(buf)
		if n > 0 {
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
