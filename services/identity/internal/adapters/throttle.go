package adapters

import (
	"context"
	"net/netip"

	"github.com/bizassist/bizassist/libs/ratelimit"
)

// LoginThrottle limits password attempts per client IP and per email address in the shared Redis
// limiter, so guessing one account's password from many addresses is slowed as much as from one.
type LoginThrottle struct {
	limiter *ratelimit.Limiter
}

func NewLoginThrottle(l *ratelimit.Limiter) *LoginThrottle { return &LoginThrottle{limiter: l} }

func (t *LoginThrottle) AllowLogin(ctx context.Context, ip netip.Addr, email string) error {
	if ip.IsValid() {
		if err := t.check(ctx, ratelimit.Login, ratelimit.IPKey(ip)); err != nil {
			return err
		}
	}
	return t.check(ctx, ratelimit.LoginEmail, ratelimit.EmailKey(email))
}

func (t *LoginThrottle) check(ctx context.Context, p ratelimit.Policy, key string) error {
	res, err := t.limiter.Allow(ctx, p, key)
	if err != nil {
		return err
	}
	if !res.Allowed {
		return ratelimit.Refusal(p, res)
	}
	return nil
}
