package service

import (
	"errors"
	"fmt"
	"net"
	"time"

	"github.com/bizassist/bizassist/libs/apiclient"
	"github.com/bizassist/bizassist/libs/pgkit"
	"github.com/bizassist/bizassist/libs/platform"
	"github.com/bizassist/bizassist/services/leads/internal/adapters/dnsresolver"
)

// Config is the whole service configuration, read from the environment (see README).
type Config struct {
	platform.Config
	DNS dnsresolver.Config
	// AnalyticsURL is where the plan allowances are reserved (libs/allowance); required.
	AnalyticsURL     string        `env:"ANALYTICS_URL"`
	AnalyticsTimeout time.Duration `env:"ANALYTICS_TIMEOUT" envDefault:"2s"`

	// Pricing is the page named in allowance refusals when analytics names none.
	platform.Pricing
	// CachePrefix starts the Redis keys of the statistics cache (tests isolate themselves with it).
	CachePrefix string `env:"LEADS_CACHE_PREFIX"`
}

// Validate checks every part before anything starts.
func (c Config) Validate() error {
	return errors.Join(c.Config.Validate(), c.Pricing.Validate(), c.DNS.Validate(), apiclient.CheckURL("ANALYTICS_URL", c.AnalyticsURL),
		positive("ANALYTICS_TIMEOUT", c.AnalyticsTimeout))
}

// DNSServeConfig configures the loopback DNS server subcommand.
type DNSServeConfig struct {
	DB   pgkit.Config
	Addr string `env:"LEADS_DNS_SERVE_ADDR" envDefault:"127.0.0.1:5354"`
}

func (c DNSServeConfig) Validate() error {
	if err := c.DB.Validate(); err != nil {
		return err
	}
	_, _, err := net.SplitHostPort(c.Addr)
	return err
}

// positive refuses a duration setting that is zero or negative.
func positive(name string, d time.Duration) error {
	if d <= 0 {
		return fmt.Errorf("%s must be positive, got %s", name, d)
	}
	return nil
}
