package service

import (
	"errors"
	"time"

	"github.com/bizassist/bizassist/libs/apiclient"
	"github.com/bizassist/bizassist/libs/platform"
	"github.com/bizassist/bizassist/libs/setting"
	"github.com/bizassist/bizassist/services/assistant/internal/adapters/openaillm"
)

// Config is the assistant's configuration.
type Config struct {
	platform.Config
	LLM openaillm.Config
	// LeadsURL and AnalyticsURL are where the tools find the caller's business and where chat
	// reserves its allowance (their /internal routes).
	LeadsURL     string        `env:"LEADS_URL" envDefault:"http://127.0.0.1:8082"`
	AnalyticsURL string        `env:"ANALYTICS_URL" envDefault:"http://127.0.0.1:8084"`
	ToolTimeout  time.Duration `env:"ASSISTANT_TOOL_TIMEOUT" envDefault:"5s"`
	// HistoryTokens is the budget of earlier messages a model is given each turn.
	HistoryTokens int `env:"ASSISTANT_HISTORY_TOKENS" envDefault:"2000"`
	// AdminSecret guards POST /api/agent-brain-seed; empty disables seeding.
	AdminSecret string `env:"AGENT_ADMIN_SECRET"`
	// Pricing is the page offered when a plan does not include something or analytics names none.
	platform.Pricing
	// CachePrefix starts the Redis keys of the feed cache.
	CachePrefix string `env:"ASSISTANT_CACHE_PREFIX" envDefault:"assistant"`
}

// Validate checks the assistant's settings and the shared ones.
func (c Config) Validate() error {
	var errs []error
	errs = append(errs, apiclient.CheckURL("LEADS_URL", c.LeadsURL), apiclient.CheckURL("ANALYTICS_URL", c.AnalyticsURL))
	errs = append(errs, setting.Positive("ASSISTANT_TOOL_TIMEOUT", c.ToolTimeout), setting.NotNegative("ASSISTANT_HISTORY_TOKENS", c.HistoryTokens))
	if c.AdminSecret != "" && len(c.AdminSecret) < 16 {
		errs = append(errs, errors.New("AGENT_ADMIN_SECRET must be at least 16 characters"))
	}
	return errors.Join(append(errs, c.Pricing.Validate(), c.LLM.Validate(), c.Config.Validate())...)
}
