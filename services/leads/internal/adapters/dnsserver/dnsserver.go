// Package dnsserver is the loopback DNS server for tests and the local stack: it answers
// authoritatively for the catalog's domains and the common mail providers, so lead-qualify's MX
// and website checks run against real DNS without the public internet.
package dnsserver

import (
	"context"
	"fmt"
	"hash/fnv"
	"log/slog"
	"net"
	"strings"
	"time"

	"github.com/miekg/dns"
)

// Host says what a domain has: Mail (MX) and Web (A/AAAA).
type Host struct{ Mail, Web bool }

// Zone looks a domain up; ok false means the name does not exist.
type Zone interface {
	Lookup(ctx context.Context, domain string) (h Host, ok bool, err error)
}

// Static is a fixed zone, keyed by lower-case domain without the trailing dot.
type Static map[string]Host

func (s Static) Lookup(_ context.Context, domain string) (Host, bool, error) {
	h, ok := s[domain]
	return h, ok, nil
}

// Zones asks each zone in turn and takes the first that knows the name.
type Zones []Zone

func (zs Zones) Lookup(ctx context.Context, domain string) (Host, bool, error) {
	for _, z := range zs {
		h, ok, err := z.Lookup(ctx, domain)
		if err != nil || ok {
			return h, ok, err
		}
	}
	return Host{}, false, nil
}

// MailProviders are the common mailbox providers, disposable ones included: they take mail and
// have websites.
func MailProviders(domains ...[]string) Static {
	s := Static{}
	for _, list := range domains {
		for _, d := range list {
			s[d] = Host{Mail: true, Web: true}
		}
	}
	return s
}

const ttl = 300

// Handler answers queries from a Zone.
type Handler struct{ Zone Zone }

func (h Handler) ServeDNS(w dns.ResponseWriter, req *dns.Msg) {
	resp := new(dns.Msg)
	resp.SetReply(req)
	resp.Authoritative = true
	if len(req.Question) != 1 {
		resp.Rcode = dns.RcodeFormatError
		_ = w.WriteMsg(resp)
		return
	}
	q := req.Question[0]
	name := strings.TrimSuffix(strings.ToLower(q.Name), ".")
	// mail.<domain> is the exchange named in MX answers; it resolves when <domain> takes mail.
	base, isExchange := strings.CutPrefix(name, "mail.")
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Second)
	defer cancel()
	host, ok, err := h.Zone.Lookup(ctx, name)
	if !ok && err == nil && isExchange {
		var bh Host
		bh, ok, err = h.Zone.Lookup(ctx, base)
		ok = ok && bh.Mail
		host = Host{Web: ok}
	}
	switch {
	case err != nil:
		slog.Warn("dns zone lookup failed", "name", name, "error", err)
		resp.Rcode = dns.RcodeServerFailure
	case !ok:
		resp.Rcode = dns.RcodeNameError
		resp.Ns = []dns.RR{soa(name)}
	default:
		resp.Answer = answers(q, name, host)
		if len(resp.Answer) == 0 {
			resp.Ns = []dns.RR{soa(name)}
		}
	}
	_ = w.WriteMsg(resp)
}

func answers(q dns.Question, name string, h Host) []dns.RR {
	hdr := dns.RR_Header{Name: q.Name, Class: dns.ClassINET, Ttl: ttl, Rrtype: q.Qtype}
	switch {
	case q.Qtype == dns.TypeMX && h.Mail:
		return []dns.RR{&dns.MX{Hdr: hdr, Preference: 10, Mx: dns.Fqdn("mail." + name)}}
	case q.Qtype == dns.TypeA && h.Web:
		return []dns.RR{&dns.A{Hdr: hdr, A: addrFor(name)}}
	case q.Qtype == dns.TypeAAAA && h.Web:
		return []dns.RR{&dns.AAAA{Hdr: hdr, AAAA: net.ParseIP(fmt.Sprintf("2001:db8::%x", addrFor(name)[3]))}}
	}
	return nil
}

// addrFor gives each name a stable address in TEST-NET-1 (RFC 5737), which routes nowhere.
func addrFor(name string) net.IP {
	h := fnv.New32a()
	_, _ = h.Write([]byte(name))
	return net.IPv4(192, 0, 2, byte(h.Sum32()%254+1))
}

func soa(name string) dns.RR {
	return &dns.SOA{Hdr: dns.RR_Header{Name: dns.Fqdn(name), Rrtype: dns.TypeSOA, Class: dns.ClassINET, Ttl: ttl},
		Ns: "ns.leads.test.", Mbox: "hostmaster.leads.test.", Serial: 1, Refresh: 3600, Retry: 600,
		Expire: 86400, Minttl: ttl}
}

// Serve answers on addr over UDP and TCP until ctx is done.
func Serve(ctx context.Context, addr string, zone Zone) error {
	pc, err := net.ListenPacket("udp", addr)
	if err != nil {
		return fmt.Errorf("listen udp %s: %w", addr, err)
	}
	ln, err := net.Listen("tcp", addr)
	if err != nil {
		pc.Close()
		return fmt.Errorf("listen tcp %s: %w", addr, err)
	}
	return ServeOn(ctx, pc, ln, zone)
}

// ServeOn answers on already-bound sockets until ctx is done; tests bind port 0 first.
func ServeOn(ctx context.Context, pc net.PacketConn, ln net.Listener, zone Zone) error {
	h := Handler{Zone: zone}
	servers := []*dns.Server{{PacketConn: pc, Handler: h}, {Listener: ln, Handler: h}}
	errc := make(chan error, len(servers))
	for _, s := range servers {
		go func() { errc <- s.ActivateAndServe() }()
	}
	slog.Info("dns server listening", "addr", pc.LocalAddr().String())
	select {
	case <-ctx.Done():
	case err := <-errc:
		for _, s := range servers {
			_ = s.Shutdown()
		}
		return fmt.Errorf("dns server: %w", err)
	}
	for _, s := range servers {
		_ = s.ShutdownContext(context.WithoutCancel(ctx))
	}
	return nil
}
