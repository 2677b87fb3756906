// Package throttle bounds login failures per account and address (in Redis, with the limiter's
// fallback).
package throttle

import (
	"context"
	"errors"
	"fmt"
	"net/netip"
	"time"

	"github.com/redis/go-redis/v9"

	"github.com/bizassist/bizassist/libs/ratelimit"
)

var (
	// LoginFailures bounds failed sign-ins for one email from one client address.
	LoginFailures = ratelimit.Policy{Name: "login_failures", Rate: 5, Period: time.Minute}
	// LoginAddressFailures bounds them per hour, a fifth of LoginEmailFailures: one address
	// cannot spend the account-wide bound, it takes five (or five IPv6 /64s).
	LoginAddressFailures = ratelimit.Policy{Name: "login_address_failures", Rate: 10, Period: time.Hour}
	// LoginEmailFailures bounds failed sign-ins for one email from all addresses together; it
	// refuses only addresses the email has not signed in from (see KnownAddressTTL).
	LoginEmailFailures = ratelimit.Policy{Name: "login_email_failures", Rate: 50, Period: time.Hour}
)

// KnownAddressTTL is how long after a successful sign-in its client address counts as the
// owner's own, exempt from LoginEmailFailures.
const KnownAddressTTL = 30 * 24 * time.Hour

// Login keeps sign-in limits in the shared Redis limiter: every attempt counts against
// the client address (ratelimit.Login), and only failures count against the email, so that an
// attacker's failures cannot refuse the owner: per email and address (LoginFailures a minute,
// LoginAddressFailures an hour), and per email over every address the owner has not signed in
// from (LoginEmailFailures). Failure
// buckets are peeked before the password is checked and spent after a failure, so concurrent
// attempts may overshoot a bound by the attempts in flight.
type Login struct {
	limiter *ratelimit.Limiter
	rdb     redis.UniversalClient
	prefix  string
	timeout time.Duration
}

// NewLogin remembers known addresses in rdb under keys starting with prefix, waiting at
// most timeout for each Redis call (like the limiter, so a Redis outage does not stall sign-in).
func NewLogin(l *ratelimit.Limiter, rdb redis.UniversalClient, prefix string, timeout time.Duration) *Login {
	if timeout <= 0 {
		timeout = ratelimit.DefaultTimeout
	}
	return &Login{limiter: l, rdb: rdb, prefix: prefix, timeout: timeout}
}

func (t *Login) Admit(ctx context.Context, ip netip.Addr, email string) error {
	// An exempt address (RATELIMIT_EXEMPT_CIDRS) is spared the attempts limit, as the middleware
	// spares it every other; its failures still count against the email below.
	if ip.IsValid() && !t.limiter.Exempt(ip) {
		res, err := t.limiter.Allow(ctx, ratelimit.Login, ratelimit.IPKey(ip))
		if err != nil {
			return err
		}
		if !res.Allowed {
			return ratelimit.Refusal(ratelimit.Login, res)
		}
	}
	for _, p := range []ratelimit.Policy{LoginFailures, LoginAddressFailures} {
		if err := t.peek(ctx, p, pairKey(ip, email)); err != nil {
			return err
		}
	}
	known, err := t.known(ctx, ip, email)
	if err != nil {
		return err
	}
	if known {
		return nil
	}
	return t.peek(ctx, LoginEmailFailures, ratelimit.EmailKey(email))
}

func (t *Login) Failed(ctx context.Context, ip netip.Addr, email string) error {
	_, errPair := t.limiter.Allow(ctx, LoginFailures, pairKey(ip, email))
	_, errHour := t.limiter.Allow(ctx, LoginAddressFailures, pairKey(ip, email))
	_, errEmail := t.limiter.Allow(ctx, LoginEmailFailures, ratelimit.EmailKey(email))
	return errors.Join(errPair, errHour, errEmail)
}

func (t *Login) Succeeded(ctx context.Context, ip netip.Addr, email string) error {
	if !t.limiter.RedisAvailable() {
		return nil // the address is remembered at a later sign-in; this one does not wait for Redis
	}
	rctx, cancel := context.WithTimeout(ctx, t.timeout)
	defer cancel()
	return t.rdb.Set(rctx, t.knownKey(ip, email), 1, KnownAddressTTL).Err()
}

// known reports whether email signed in from ip lately. When Redis cannot say, the address is
// taken as unknown: the account-wide bound then applies, which errs towards refusing guesses.
// While the limiter's breaker is open Redis is not asked at all, so sign-ins do not each wait
// for its timeout.
func (t *Login) known(ctx context.Context, ip netip.Addr, email string) (bool, error) {
	if !t.limiter.RedisAvailable() {
		return false, nil
	}
	rctx, cancel := context.WithTimeout(ctx, t.timeout)
	defer cancel()
	n, err := t.rdb.Exists(rctx, t.knownKey(ip, email)).Result()
	if err != nil && ctx.Err() != nil {
		return false, ctx.Err()
	}
	return err == nil && n > 0, nil
}

func (t *Login) knownKey(ip netip.Addr, email string) string {
	return t.prefix + ":login_known:" + pairKey(ip, email)
}

// peek refuses when the failure bucket p has no room left, spending nothing.
func (t *Login) peek(ctx context.Context, p ratelimit.Policy, key string) error {
	res, err := t.limiter.Peek(ctx, p, key)
	if err != nil {
		return err
	}
	if res.Allowed {
		return nil
	}
	refusal := ratelimit.Refusal(p, res)
	refusal.Message = fmt.Sprintf("too many failed sign-ins; retry in %d s", refusal.Details["retryAfter"])
	return refusal
}

// pairKey names an email as tried from one client address (an IPv6 client by its /64); the
// address part never contains "|", so no two pairs share a key.
func pairKey(ip netip.Addr, email string) string {
	client := "unknown"
	if ip.IsValid() {
		client = ratelimit.IPKey(ip)
	}
	return client + "|" + ratelimit.EmailKey(email)
}
