// Package dnsresolver answers the lead-qualify DNS questions (does a domain take mail, does it
// resolve) against a configured DNS server, with timeouts and an in-process TTL cache.
package dnsresolver

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"net"
	"strings"
	"sync"
	"time"

	"github.com/miekg/dns"
	"golang.org/x/sync/singleflight"

	"github.com/bizassist/bizassist/libs/setting"
	"github.com/bizassist/bizassist/services/leads/internal/domain/qualify"
)

// Config is the resolver's environment.
type Config struct {
	// Server is host:port of the DNS server to ask; empty means the first nameserver in
	// /etc/resolv.conf.
	Server      string        `env:"LEADS_DNS_SERVER"`
	Timeout     time.Duration `env:"LEADS_DNS_TIMEOUT" envDefault:"800ms"`
	CacheSize   int           `env:"LEADS_DNS_CACHE_SIZE" envDefault:"50000"`
	MinTTL      time.Duration `env:"LEADS_DNS_MIN_TTL" envDefault:"60s"`
	MaxTTL      time.Duration `env:"LEADS_DNS_MAX_TTL" envDefault:"1h"`
	NegativeTTL time.Duration `env:"LEADS_DNS_NEGATIVE_TTL" envDefault:"5m"`
}

// Validate reports a config that cannot work.
func (c Config) Validate() error {
	if c.Server != "" {
		if _, _, err := net.SplitHostPort(c.Server); err != nil {
			return fmt.Errorf("LEADS_DNS_SERVER %q must be host:port: %w", c.Server, err)
		}
	}
	return errors.Join(setting.Positive("LEADS_DNS_TIMEOUT", c.Timeout),
		setting.Positive("LEADS_DNS_CACHE_SIZE", c.CacheSize),
		setting.Positive("LEADS_DNS_MIN_TTL", c.MinTTL),
		setting.AtLeast("LEADS_DNS_MAX_TTL", c.MaxTTL, "LEADS_DNS_MIN_TTL", c.MinTTL),
		setting.Positive("LEADS_DNS_NEGATIVE_TTL", c.NegativeTTL))
}

// Resolver implements app.Resolver.
type Resolver struct {
	cfg    Config
	server string
	udp    *dns.Client
	tcp    *dns.Client
	flight singleflight.Group

	mu    sync.Mutex
	cache map[cacheKey]cached
}

type cacheKey struct {
	name  string
	qtype uint16
}

type cached struct {
	outcome qualify.Outcome
	expires time.Time
}

// New builds a resolver; it does not contact the server.
func New(cfg Config) (*Resolver, error) {
	if err := cfg.Validate(); err != nil {
		return nil, err
	}
	server := cfg.Server
	if server == "" {
		cc, err := dns.ClientConfigFromFile("/etc/resolv.conf")
		if err != nil {
			return nil, fmt.Errorf("LEADS_DNS_SERVER is empty and /etc/resolv.conf cannot be read: %w", err)
		}
		if len(cc.Servers) == 0 {
			return nil, errors.New("LEADS_DNS_SERVER is empty and /etc/resolv.conf names no server")
		}
		server = net.JoinHostPort(cc.Servers[0], cc.Port)
	}
	return &Resolver{
		cfg: cfg, server: server,
		udp:   &dns.Client{Net: "udp", Timeout: cfg.Timeout},
		tcp:   &dns.Client{Net: "tcp", Timeout: cfg.Timeout},
		cache: make(map[cacheKey]cached),
	}, nil
}

// MX reports whether domain publishes a usable MX record (a null MX, RFC 7505, says it takes no mail).
func (r *Resolver) MX(ctx context.Context, domain string) qualify.Outcome {
	return r.lookup(ctx, domain, dns.TypeMX)
}

// Resolves reports whether domain has an A or AAAA record.
func (r *Resolver) Resolves(ctx context.Context, domain string) qualify.Outcome {
	a := r.lookup(ctx, domain, dns.TypeA)
	if a == qualify.Yes {
		return a
	}
	aaaa := r.lookup(ctx, domain, dns.TypeAAAA)
	if aaaa == qualify.Yes || (a == qualify.No && aaaa == qualify.No) {
		return aaaa
	}
	return qualify.Unknown
}

func (r *Resolver) lookup(ctx context.Context, domain string, qtype uint16) qualify.Outcome {
	key := cacheKey{dns.Fqdn(strings.ToLower(domain)), qtype}
	if o, ok := r.cached(key); ok {
		return o
	}
	// Concurrent questions for one name share one query.
	v, _, _ := r.flight.Do(key.name+dns.TypeToString[qtype], func() (any, error) {
		o, ttl := r.ask(ctx, key)
		if o != qualify.Unknown {
			r.store(key, o, ttl)
		}
		return o, nil
	})
	return v.(qualify.Outcome)
}

// ask queries the server; Unknown (with no TTL) when it does not answer usefully.
func (r *Resolver) ask(ctx context.Context, key cacheKey) (qualify.Outcome, time.Duration) {
	m := new(dns.Msg)
	m.SetQuestion(key.name, key.qtype)
	m.SetEdns0(1232, false)
	resp, _, err := r.udp.ExchangeContext(ctx, m, r.server)
	if err == nil && resp.Truncated {
		resp, _, err = r.tcp.ExchangeContext(ctx, m, r.server)
	}
	if err != nil {
		slog.DebugContext(ctx, "dns query failed", "name", key.name, "type", dns.TypeToString[key.qtype], "error", err)
		return qualify.Unknown, 0
	}
	switch resp.Rcode {
	case dns.RcodeNameError:
		return qualify.No, r.negativeTTL(resp)
	case dns.RcodeSuccess:
	default:
		return qualify.Unknown, 0
	}
	var (
		found bool
		ttl   = r.cfg.MaxTTL
	)
	for _, rr := range resp.Answer {
		if rr.Header().Rrtype != key.qtype {
			continue // CNAMEs on the way
		}
		if mx, ok := rr.(*dns.MX); ok && mx.Mx == "." {
			continue
		}
		found = true
		ttl = min(ttl, time.Duration(rr.Header().Ttl)*time.Second)
	}
	if !found {
		return qualify.No, r.negativeTTL(resp)
	}
	return qualify.Yes, max(ttl, r.cfg.MinTTL)
}

// negativeTTL follows RFC 2308: the SOA's minimum bounds how long "no such record" may be kept.
func (r *Resolver) negativeTTL(resp *dns.Msg) time.Duration {
	for _, rr := range resp.Ns {
		if soa, ok := rr.(*dns.SOA); ok {
			ttl := time.Duration(min(soa.Minttl, soa.Hdr.Ttl)) * time.Second
			return min(max(ttl, r.cfg.MinTTL), r.cfg.NegativeTTL)
		}
	}
	return r.cfg.NegativeTTL
}

func (r *Resolver) cached(key cacheKey) (qualify.Outcome, bool) {
	r.mu.Lock()
	defer r.mu.Unlock()
	c, ok := r.cache[key]
	if !ok || time.Now().After(c.expires) {
		return qualify.Unknown, false
	}
	return c.outcome, true
}

func (r *Resolver) store(key cacheKey, o qualify.Outcome, ttl time.Duration) {
	r.mu.Lock()
	defer r.mu.Unlock()
	if len(r.cache) >= r.cfg.CacheSize {
		r.evict()
	}
	r.cache[key] = cached{outcome: o, expires: time.Now().Add(ttl)}
}

// evict drops expired entries and, if that frees nothing, an arbitrary tenth of the cache: cheap,
// and a full cache of live entries is rare at the configured size.
func (r *Resolver) evict() {
	now := time.Now()
	for k, c := range r.cache {
		if now.After(c.expires) {
			delete(r.cache, k)
		}
	}
	for k := range r.cache {
		if len(r.cache) < r.cfg.CacheSize*9/10 {
			break
		}
		delete(r.cache, k)
	}
}
