package service

import (
	"errors"
	"net"

	"github.com/bizassist/bizassist/libs/authjwt"
	"github.com/bizassist/bizassist/libs/events"
	"github.com/bizassist/bizassist/libs/httpx"
	"github.com/bizassist/bizassist/libs/pgkit"
	"github.com/bizassist/bizassist/libs/ratelimit"
	"github.com/bizassist/bizassist/libs/rediskit"
	"github.com/bizassist/bizassist/libs/telemetry"
	"github.com/bizassist/bizassist/services/leads/internal/adapters/dnsresolver"
)

// Config is the whole service configuration, read from the environment (see README).
type Config struct {
	HTTP      httpx.ServerConfig
	DB        pgkit.Config
	Redis     rediskit.Config
	JWT       authjwt.Config
	RateLimit ratelimit.Config
	Telemetry telemetry.Config
	Relay     events.RelayConfig
	Consumer  events.ConsumerConfig
	DNS       dnsresolver.Config

	// UpgradeURL is the pricing page named in allowance refusals.
	UpgradeURL string `env:"UPGRADE_URL" envDefault:"https://bizassist.example/pricing"`
}

// Validate checks every part before anything starts.
func (c Config) Validate() error {
	c.Consumer.Group = consumerGroup
	for _, v := range []interface{ Validate() error }{c.HTTP, c.DB, c.Redis, c.JWT, c.RateLimit, c.Telemetry, c.Relay, c.Consumer, c.DNS} {
		if err := v.Validate(); err != nil {
			return err
		}
	}
	if c.UpgradeURL == "" {
		return errors.New("UPGRADE_URL must not be empty")
	}
	return nil
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
