// Package inboundlimit meters the inbound webhook in the shared limiter (Redis, with its
// in-process fallback): per account once the sender's secret is verified, with a burst a CRM
// sync fits, and per client address for requests whose secret is missing or wrong.
package inboundlimit

import (
	"context"
	"net/netip"
	"time"

	"github.com/bizassist/bizassist/libs/ratelimit"
)

var (
	// Account bounds one account's inbound events: 50 a second sustained, after a burst of 500
	// (a CRM or Zapier sync of a few hundred records at once; docs/decisions.md, "Inbound bursts").
	Account = ratelimit.Policy{Name: "inbound_account", Rate: 50, Period: time.Second, Burst: 500}
	// AddressFailures bounds requests without a valid secret from one client address: the general
	// API's 60 a minute, so guessing secrets is no cheaper than any other anonymous call.
	AddressFailures = ratelimit.Policy{Name: "inbound_failures", Rate: 60, Period: time.Minute}
)

// Throttle implements app.InboundThrottle on a limiter. Clients of RATELIMIT_EXEMPT_CIDRS (the
// stack's load generator) pass both limits, as they pass the middleware's.
type Throttle struct {
	Limiter *ratelimit.Limiter
}

// Admit refuses an address whose failures are spent, spending nothing.
func (t Throttle) Admit(ctx context.Context, ip netip.Addr) error {
	if t.exempt(ip) {
		return nil
	}
	res, err := t.Limiter.Peek(ctx, AddressFailures, ratelimit.IPKey(ip))
	if err != nil || res.Allowed {
		return err
	}
	return ratelimit.Refusal(AddressFailures, res)
}

// Failed spends one of the address's failures.
func (t Throttle) Failed(ctx context.Context, ip netip.Addr) error {
	if t.exempt(ip) {
		return nil
	}
	_, err := t.Limiter.Allow(ctx, AddressFailures, ratelimit.IPKey(ip))
	return err
}

// Accept takes one event from the account's bucket, or refuses it with a 429 and Retry-After.
func (t Throttle) Accept(ctx context.Context, ip netip.Addr, accountID string) error {
	if t.exempt(ip) {
		return nil
	}
	res, err := t.Limiter.Allow(ctx, Account, accountID)
	if err != nil || res.Allowed {
		return err
	}
	return ratelimit.Refusal(Account, res)
}

func (t Throttle) exempt(ip netip.Addr) bool { return ip.IsValid() && t.Limiter.Exempt(ip) }
