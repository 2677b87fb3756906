package service

import (
	"errors"
	"fmt"
	"net/netip"
	"time"

	"github.com/bizassist/bizassist/libs/platform"
	"github.com/bizassist/bizassist/libs/sealbox"
	"github.com/bizassist/bizassist/libs/setting"
	"github.com/bizassist/bizassist/services/integrations/internal/domain"
)

// maxDeliveryTimeout bounds one attempt, and so how long one hanging receiver holds a worker.
const maxDeliveryTimeout = time.Minute

// Config is the whole service configuration, read from the environment (see README).
type Config struct {
	platform.Config

	// DevMode is the explicit switch that the two settings below need: only a development
	// process may deliver to non-public addresses or over plain http (the chart refuses it).
	DevMode bool `env:"INTEGRATIONS_DEV_MODE" envDefault:"false"`
	// TargetAllowCIDRs are non-public ranges deliveries may still reach (development mode only).
	TargetAllowCIDRs []string `env:"INTEGRATIONS_TARGET_ALLOW_CIDRS" envSeparator:","`
	// TargetAllowHTTP accepts http:// hook URLs (development mode only).
	TargetAllowHTTP bool `env:"INTEGRATIONS_TARGET_ALLOW_HTTP" envDefault:"false"`

	DeliveryTimeout     time.Duration `env:"INTEGRATIONS_DELIVERY_TIMEOUT" envDefault:"15s"`
	DeliveryConcurrency int           `env:"INTEGRATIONS_DELIVERY_CONCURRENCY" envDefault:"50"`
	// DeliveryAccountConcurrency is one account's share of the workers: a receiver that hangs
	// holds at most this many of them, whatever its backlog; within it one subscription holds at
	// most half (rounded up), and the slow ones together at most half (ports.AccountSlots).
	DeliveryAccountConcurrency int           `env:"INTEGRATIONS_DELIVERY_ACCOUNT_CONCURRENCY" envDefault:"10"`
	DeliveryPollInterval       time.Duration `env:"INTEGRATIONS_DELIVERY_POLL_INTERVAL" envDefault:"1s"`
	DeliveryCooldown           time.Duration `env:"INTEGRATIONS_DELIVERY_FETCH_COOLDOWN" envDefault:"20ms"`

	RetryBase    time.Duration `env:"INTEGRATIONS_RETRY_BASE" envDefault:"30s"`
	RetryCap     time.Duration `env:"INTEGRATIONS_RETRY_CAP" envDefault:"6h"`
	RetryWindow  time.Duration `env:"INTEGRATIONS_RETRY_WINDOW" envDefault:"72h"`
	DisableAfter time.Duration `env:"INTEGRATIONS_DISABLE_AFTER" envDefault:"72h"`
	// LogRetention is how long finished deliveries, their attempts and payment-event ids are kept.
	LogRetention time.Duration `env:"INTEGRATIONS_LOG_RETENTION" envDefault:"720h"`

	// Sealing holds the keys that encrypt subscription signing secrets at rest (ENCRYPTION_KEYS,
	// ENCRYPTION_KEY_ID).
	Sealing sealbox.Config

	// StripeWebhookSecret is the endpoint secret (whsec_...) of the Stripe webhook; the payment
	// route answers 503 without it.
	StripeWebhookSecret string `env:"STRIPE_WEBHOOK_SECRET"`
}

// Validate checks integrations' settings and the shared ones.
func (c Config) Validate() error {
	var errs []error
	if !c.DevMode && len(c.TargetAllowCIDRs) > 0 {
		errs = append(errs, errors.New("INTEGRATIONS_TARGET_ALLOW_CIDRS opens deliveries to private addresses: it is refused unless INTEGRATIONS_DEV_MODE=true (local development only)"))
	}
	if !c.DevMode && c.TargetAllowHTTP {
		errs = append(errs, errors.New("INTEGRATIONS_TARGET_ALLOW_HTTP opens deliveries over plain http: it is refused unless INTEGRATIONS_DEV_MODE=true (local development only)"))
	}
	if _, err := c.TargetPolicy(); err != nil {
		errs = append(errs, err)
	}
	errs = append(errs, setting.Positive("INTEGRATIONS_DELIVERY_TIMEOUT", c.DeliveryTimeout),
		setting.Positive("INTEGRATIONS_DELIVERY_CONCURRENCY", c.DeliveryConcurrency),
		setting.Positive("INTEGRATIONS_DELIVERY_POLL_INTERVAL", c.DeliveryPollInterval),
		setting.Positive("INTEGRATIONS_DELIVERY_FETCH_COOLDOWN", c.DeliveryCooldown))
	if c.DeliveryTimeout > maxDeliveryTimeout {
		errs = append(errs, fmt.Errorf("INTEGRATIONS_DELIVERY_TIMEOUT may be at most %s: a slow receiver holds a worker that long", maxDeliveryTimeout))
	}
	if c.DeliveryAccountConcurrency < 1 || c.DeliveryAccountConcurrency > c.DeliveryConcurrency {
		errs = append(errs, errors.New("INTEGRATIONS_DELIVERY_ACCOUNT_CONCURRENCY must be between 1 and INTEGRATIONS_DELIVERY_CONCURRENCY"))
	}
	if c.LogRetention < c.RetryWindow {
		errs = append(errs, errors.New("INTEGRATIONS_LOG_RETENTION must be at least INTEGRATIONS_RETRY_WINDOW"))
	}
	errs = append(errs, setting.Positive("INTEGRATIONS_RETRY_BASE", c.RetryBase),
		setting.AtLeast("INTEGRATIONS_RETRY_CAP", c.RetryCap, "INTEGRATIONS_RETRY_BASE", c.RetryBase),
		setting.Positive("INTEGRATIONS_RETRY_WINDOW", c.RetryWindow),
		setting.Positive("INTEGRATIONS_DISABLE_AFTER", c.DisableAfter))
	return errors.Join(append(errs, c.Sealing.Validate(), c.Config.Validate())...)
}

// TargetPolicy is the SSRF policy the settings describe: outside development mode, https to
// public addresses only, whatever else is set.
func (c Config) TargetPolicy() (domain.TargetPolicy, error) {
	if !c.DevMode {
		return domain.TargetPolicy{}, nil
	}
	p := domain.TargetPolicy{AllowHTTP: c.TargetAllowHTTP}
	for _, s := range c.TargetAllowCIDRs {
		prefix, err := netip.ParsePrefix(s)
		if err != nil {
			return p, fmt.Errorf("INTEGRATIONS_TARGET_ALLOW_CIDRS: %q is not a CIDR: %w", s, err)
		}
		p.Allow = append(p.Allow, prefix.Masked())
	}
	return p, nil
}

// RetryPolicy is the delivery retry policy the settings describe.
func (c Config) RetryPolicy() domain.RetryPolicy {
	return domain.RetryPolicy{Base: c.RetryBase, Cap: c.RetryCap, GiveUpAfter: c.RetryWindow, DisableAfter: c.DisableAfter}
}
