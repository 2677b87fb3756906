package platformtest

import (
	"context"
	"errors"
	"io"
	"net"
	"net/url"
	"sync"
	"testing"
)

// DatabaseProxy stands between a service under test and its database, so that a test can take
// the database away as an outage does: every connection cut, new ones closed on arrival.
type DatabaseProxy struct {
	target string
	ln     net.Listener
	mu     sync.Mutex
	down   bool
	conns  map[net.Conn]bool
}

// ProxyDatabase points environ's DATABASE_URL at a new proxy to the same database; call it
// before Start.
func ProxyDatabase(t testing.TB, environ map[string]string) *DatabaseProxy {
	t.Helper()
	u, err := url.Parse(environ["DATABASE_URL"])
	if err != nil {
		t.Fatalf("platformtest: DATABASE_URL: %v", err)
	}
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatalf("platformtest: listen: %v", err)
	}
	p := &DatabaseProxy{target: u.Host, ln: ln, conns: map[net.Conn]bool{}}
	u.Host = ln.Addr().String()
	environ["DATABASE_URL"] = u.String()
	go p.serve()
	t.Cleanup(func() {
		_ = ln.Close()
		p.cut()
	})
	return p
}

func (p *DatabaseProxy) serve() {
	for {
		client, err := p.ln.Accept()
		if errors.Is(err, net.ErrClosed) {
			return
		}
		if err != nil {
			continue
		}
		go p.pipe(client)
	}
}

func (p *DatabaseProxy) pipe(client net.Conn) {
	server, err := (&net.Dialer{}).DialContext(context.Background(), "tcp", p.target)
	if err != nil {
		_ = client.Close()
		return
	}
	if !p.track(client, server) {
		_ = client.Close()
		_ = server.Close()
		return
	}
	go func() { _, _ = io.Copy(server, client); _ = server.Close() }()
	_, _ = io.Copy(client, server)
	_ = client.Close()
}

// track records an open pair, or refuses it while the database is down.
func (p *DatabaseProxy) track(conns ...net.Conn) bool {
	p.mu.Lock()
	defer p.mu.Unlock()
	if p.down {
		return false
	}
	for _, c := range conns {
		p.conns[c] = true
	}
	return true
}

func (p *DatabaseProxy) cut() {
	p.mu.Lock()
	defer p.mu.Unlock()
	for c := range p.conns {
		_ = c.Close()
	}
	clear(p.conns)
}

// Outage takes the database away until restore is called: openapitest.Probe's Outage.
func (p *DatabaseProxy) Outage(testing.TB) (restore func()) {
	p.mu.Lock()
	p.down = true
	p.mu.Unlock()
	p.cut()
	return func() {
		p.mu.Lock()
		p.down = false
		p.mu.Unlock()
	}
}
