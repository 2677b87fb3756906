package platform

import (
	"fmt"
	"net/url"
)

// Pricing is UPGRADE_URL, the pricing page a service names when a plan limit refuses or warns
// (`upgradeUrl`). Every service that names it embeds this type, so the setting has one contract:
// required, and an absolute https URL, since clients show it to people as a link.
type Pricing struct {
	UpgradeURL string `env:"UPGRADE_URL,required"`
}

// Validate reports an UPGRADE_URL that is not an absolute https URL.
func (p Pricing) Validate() error {
	u, err := url.Parse(p.UpgradeURL)
	if err != nil || u.Scheme != "https" || u.Host == "" {
		return fmt.Errorf("UPGRADE_URL %q must be an absolute https URL", p.UpgradeURL)
	}
	return nil
}
