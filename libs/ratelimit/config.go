package ratelimit

import (
	"fmt"
	"net/netip"
	"strings"
	"time"
)

// Defaults for a Config whose fields are left zero (a literal Config{} in tests).
const (
	DefaultKeyPrefix     = "rl"
	DefaultTimeout       = 50 * time.Millisecond
	DefaultProbeInterval = time.Second
)

// Config says which peers may speak for clients, who is never limited, and how long to wait for
// Redis before falling back.
type Config struct {
	// TrustedProxies are the CIDRs (or single addresses) whose forwarding headers are believed.
	TrustedProxies []string `env:"TRUSTED_PROXIES" envSeparator:"," envDefault:"127.0.0.1/32,::1/128"`
	// ExemptCIDRs are clients that bypass the middleware entirely (health checkers, internal jobs).
	ExemptCIDRs []string `env:"RATELIMIT_EXEMPT_CIDRS" envSeparator:","`
	// KeyPrefix starts every Redis key; zero means DefaultKeyPrefix.
	KeyPrefix string `env:"RATELIMIT_PREFIX" envDefault:"rl"`
	// Timeout bounds one Redis call; beyond it the request is decided in memory. Zero means
	// DefaultTimeout.
	Timeout time.Duration `env:"RATELIMIT_REDIS_TIMEOUT" envDefault:"50ms"`
	// ProbeInterval is how often a background ping retries Redis while in fallback, and so about
	// how long the fallback outlasts Redis's return. Zero means DefaultProbeInterval.
	ProbeInterval time.Duration `env:"RATELIMIT_PROBE_INTERVAL" envDefault:"1s"`
	// FallbackReplicas is how many processes share the limits: while Redis is away each allows
	// 1/FallbackReplicas of every policy's rate, so together they stay within it. Zero means 1.
	FallbackReplicas int `env:"RATELIMIT_FALLBACK_REPLICAS" envDefault:"1"`
}

// Validate reports a config that cannot work, naming the offending variable and value.
func (c Config) Validate() error {
	if _, err := ParsePrefixes("TRUSTED_PROXIES", c.TrustedProxies); err != nil {
		return err
	}
	if _, err := ParsePrefixes("RATELIMIT_EXEMPT_CIDRS", c.ExemptCIDRs); err != nil {
		return err
	}
	if strings.ContainsAny(c.KeyPrefix, " \t\r\n") {
		return fmt.Errorf("RATELIMIT_PREFIX %q must not contain whitespace", c.KeyPrefix)
	}
	if c.Timeout < 0 {
		return fmt.Errorf("RATELIMIT_REDIS_TIMEOUT must not be negative, got %s", c.Timeout)
	}
	if c.ProbeInterval < 0 {
		return fmt.Errorf("RATELIMIT_PROBE_INTERVAL must not be negative, got %s", c.ProbeInterval)
	}
	if c.FallbackReplicas < 0 {
		return fmt.Errorf("RATELIMIT_FALLBACK_REPLICAS must not be negative, got %d", c.FallbackReplicas)
	}
	return nil
}

func (c Config) withDefaults() Config {
	if c.KeyPrefix == "" {
		c.KeyPrefix = DefaultKeyPrefix
	}
	if c.Timeout == 0 {
		c.Timeout = DefaultTimeout
	}
	if c.ProbeInterval == 0 {
		c.ProbeInterval = DefaultProbeInterval
	}
	if c.FallbackReplicas == 0 {
		c.FallbackReplicas = 1
	}
	return c
}

// ParsePrefixes parses a list of CIDRs or bare addresses (taken as a single host); blank entries
// are skipped. name is the setting the list came from, used in the error.
func ParsePrefixes(name string, list []string) ([]netip.Prefix, error) {
	out := make([]netip.Prefix, 0, len(list))
	for _, s := range list {
		s = strings.TrimSpace(s)
		if s == "" {
			continue
		}
		if p, err := netip.ParsePrefix(s); err == nil {
			out = append(out, p.Masked())
			continue
		}
		a, err := netip.ParseAddr(s)
		if err != nil {
			return nil, fmt.Errorf("%s: %q is not a CIDR (like 10.0.0.0/8) or an IP address", name, s)
		}
		out = append(out, netip.PrefixFrom(a, a.BitLen()))
	}
	return out, nil
}

func containsAddr(prefixes []netip.Prefix, a netip.Addr) bool {
	for _, p := range prefixes {
		if p.Contains(a) {
			return true
		}
	}
	return false
}
