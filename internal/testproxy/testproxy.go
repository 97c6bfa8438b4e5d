// Package testproxy forwards TCP to a real server so that a test can cut
// the connection (as a database or Redis that goes away) and bring it
// back on the same address.
package testproxy

import (
	"io"
	"net"
	"sync"
	"testing"
	"time"
)

// Proxy forwards connections from Addr to a target.
type Proxy struct {
	Addr   string
	target string
	mu     sync.Mutex
	ln     net.Listener
	conns  []net.Conn
}

// Start listens on a free loopback port and forwards to target until the
// test ends.
func Start(t testing.TB, target string) *Proxy {
	t.Helper()
	p := &Proxy{target: target}
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
}

// Restart listens on the same address again.
func (p *Proxy) Restart(t testing.TB) {
	t.Helper()
	p.listen(t, p.Addr)
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
		up, err := net.Dial("tcp", p.target)
		if err != nil {
			c.Close()
			continue
		}
		p.mu.Lock()
		p.conns = append(p.conns, c, up)
		p.mu.Unlock()
		go func() { io.Copy(up, c); up.Close() }()
		go func() { io.Copy(c, up); c.Close() }()
	}
}
