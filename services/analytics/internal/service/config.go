package service

import (
	"errors"
	"time"

	"github.com/bizassist/bizassist/libs/platform"
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
	var errs []error
	if c.HealthDirtyEvery <= 0 || c.HealthSweepEvery <= 0 || c.HealthBatchSize < 1 {
		errs = append(errs, errors.New("HEALTH_DIRTY_INTERVAL, HEALTH_SWEEP_INTERVAL and HEALTH_BATCH_SIZE must be positive"))
	}
	return errors.Join(append(errs, c.Pricing.Validate(), c.Writer.Validate(), c.Config.Validate())...)
}
