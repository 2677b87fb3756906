package ratelimit

import (
	"fmt"
	"math"
	"net/http"
	"net/netip"
	"strconv"
	"time"

	"github.com/bizassist/bizassist/libs/apperr"
	"github.com/bizassist/bizassist/libs/httpx"
)

// Middleware limits requests by client IP under p. Exempt clients pass untouched; every other
// response carries the rate-limit headers (see the package comment), and a refusal is 429 with
// Retry-After. It panics on an invalid policy, which is a wiring mistake found at startup.
func (l *Limiter) Middleware(p Policy) func(http.Handler) http.Handler {
	if err := p.validate(); err != nil {
		panic(err)
	}
	return func(next http.Handler) http.Handler {
		return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			ip := l.ClientIP(r)
			if l.Exempt(ip) {
				next.ServeHTTP(w, r)
				return
			}
			res, err := l.Allow(r.Context(), p, IPKey(ip))
			if err != nil {
				httpx.Fail(w, r, err)
				return
			}
			SetHeaders(w.Header(), p, res)
			if !res.Allowed {
				httpx.Fail(w, r, Refusal(p, res))
				return
			}
			next.ServeHTTP(w, r)
		})
	}
}

// SetHeaders writes the rate-limit headers for res under p (see the package comment); callers of
// Allow use it to answer like the middleware.
func SetHeaders(h http.Header, p Policy, res Result) {
	reset := strconv.Itoa(ceilSeconds(res.ResetAfter))
	limit, remaining := strconv.Itoa(res.Limit), strconv.Itoa(res.Remaining)
	h.Set("X-RateLimit-Limit", limit)
	h.Set("X-RateLimit-Remaining", remaining)
	h.Set("X-RateLimit-Reset", reset)
	h.Set("RateLimit-Policy", limit+";w="+strconv.Itoa(ceilSeconds(p.Period)))
	h.Set("RateLimit", "limit="+limit+", remaining="+remaining+", reset="+reset)
}

// Refusal is the error for a refused res under p. Its retryAfter detail (whole seconds, at least
// 1) becomes the Retry-After header when rendered by httpx.Fail.
func Refusal(p Policy, res Result) *apperr.Error {
	retry := max(ceilSeconds(res.RetryAfter), 1)
	return apperr.New(apperr.KindRateLimited, apperr.CodeRateLimited,
		fmt.Sprintf("rate limit exceeded: %d requests per %s; retry in %d s", p.Rate, p.window(), retry)).
		With("retryAfter", retry)
}

// IPKey is the bucket key the middleware uses for a client address; use it when calling Allow
// by IP yourself. IPv6 clients are keyed by their /64, the block one subscriber is usually given,
// so that rotating addresses inside it does not multiply the limit.
func IPKey(ip netip.Addr) string {
	if ip.Is6() {
		return netip.PrefixFrom(ip, 64).Masked().String()
	}
	return ip.String()
}

func ceilSeconds(d time.Duration) int {
	if d <= 0 {
		return 0
	}
	return int(math.Ceil(d.Seconds()))
}
