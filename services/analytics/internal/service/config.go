package service

import (
	"errors"
	"time"

	"github.com/bizassist/bizassist/libs/platform"
	"github.com/bizassist/bizassist/libs/setting"
	"github.com/bizassist/bizassist/services/analytics/internal/adapters/postgres"
)

// Config is analytics' configuration.
type Config struct {
	platform.Config
	// Pricing is the page named by pql-check, reservation refusals and churn-predict's refusal.
	platform.Pricing
	Writer postgres.WriterConfig
	// HealthDirtyEvery is how often accounts whose facts changed are rescored (the debounce).
	HealthDirtyEvery time.Duration `env:"HEALTH_DIRTY_INTERVAL" envDefault:"5s"`
	// HealthSweepEvery is how often every account is rescored, so scores drift with time alone.
	HealthSweepEvery time.Duration `env:"HEALTH_SWEEP_INTERVAL" envDefault:"1h"`
	HealthBatchSize  int           `env:"HEALTH_BATCH_SIZE" envDefault:"1000"`
}

// Validate checks analytics' settings and the shared ones, and reports every one that is wrong.
func (c Config) Validate() error {
	return errors.Join(setting.Positive("HEALTH_DIRTY_INTERVAL", c.HealthDirtyEvery),
		setting.Positive("HEALTH_SWEEP_INTERVAL", c.HealthSweepEvery),
		setting.Positive("HEALTH_BATCH_SIZE", c.HealthBatchSize),
		c.Pricing.Validate(), c.Writer.Validate(), c.Config.Validate())
}
