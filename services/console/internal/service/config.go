package service

import (
	"errors"
	"time"

	"github.com/bizassist/bizassist/libs/platform"
	"github.com/bizassist/bizassist/services/console/internal/adapters/api"
)

// Config is the console's configuration.
type Config struct {
	platform.Config
	API api.Config
	// SessionMaxAge bounds a session; it also ends when its API token expires (24 h).
	SessionMaxAge time.Duration `env:"CONSOLE_SESSION_MAX_AGE" envDefault:"12h"`
}

// Validate checks the console's settings and the shared ones, and reports every one that is wrong.
func (c Config) Validate() error {
	var errs []error
	if c.SessionMaxAge <= 0 || c.SessionMaxAge > 24*time.Hour {
		errs = append(errs, errors.New("CONSOLE_SESSION_MAX_AGE must be positive and at most 24h (the API token's lifetime)"))
	}
	return errors.Join(append(errs, c.API.Validate(), c.Config.Validate())...)
}
