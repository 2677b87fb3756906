package postgres

import (
	"context"
	"fmt"

	"github.com/jackc/pgx/v5/pgxpool"

	"github.com/bizassist/bizassist/services/leads/internal/adapters/dnsserver"
)

// DNSZone serves the catalog's domains to the loopback DNS server: a domain of a listed email
// takes mail, a domain of a listed website has an address.
type DNSZone struct{ pool *pgxpool.Pool }

func NewDNSZone(pool *pgxpool.Pool) *DNSZone { return &DNSZone{pool: pool} }

func (z *DNSZone) Lookup(ctx context.Context, domain string) (dnsserver.Host, bool, error) {
	var h dnsserver.Host
	err := z.pool.QueryRow(ctx, `SELECT
			EXISTS (SELECT 1 FROM businesses WHERE email_domain = $1),
			EXISTS (SELECT 1 FROM businesses WHERE website_domain = $1)`, domain).Scan(&h.Mail, &h.Web)
	if err != nil {
		return h, false, fmt.Errorf("look up %s: %w", domain, err)
	}
	return h, h.Mail || h.Web, nil
}
