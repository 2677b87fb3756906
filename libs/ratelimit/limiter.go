package ratelimit

import (
	"context"
	"errors"
	"log/slog"
	"net/netip"
	"sync/atomic"
	"time"

	"github.com/go-redis/redis_rate/v10"
	"github.com/prometheus/client_golang/prometheus"
	"github.com/redis/go-redis/v9"
)

// Result is one decision.
type Result struct {
	Allowed bool
	// Limit is the policy's rate; Remaining is how many more requests would be allowed now.
	Limit, Remaining int
	// ResetAfter is the time until the bucket is full again; RetryAfter, set only when the
	// request was refused, is the time until one request will be allowed.
	ResetAfter, RetryAfter time.Duration
}

// Limiter decides requests against limits kept in Redis, or in memory while Redis is down.
//
// The fallback is a circuit breaker: the first failed Redis call opens it, and while it is open
// no request calls Redis (so none waits Config.Timeout for an absent server); a background probe
// pings Redis every Config.ProbeInterval and closes it at the first answer, whether or not
// requests arrive meanwhile.
//
// Neither side of the breaker starts from a full bucket: the process's own bucket follows every
// decision made in Redis, and what it allowed while Redis was away is charged to the shared
// bucket at the key's next decision there. A breaker that opens and closes many times (Redis
// slow under load, a failover) so grants no second budget.
type Limiter struct {
	cfg     Config
	rdb     redis.UniversalClient
	redis   *redis_rate.Limiter
	local   *memoryLimiter
	trusted []netip.Prefix
	exempt  []netip.Prefix
	metrics *metrics
	log     *slog.Logger

	inFallback atomic.Bool
}

// Option adjusts a Limiter.
type Option func(*options)

type options struct {
	reg prometheus.Registerer
	log *slog.Logger
}

// WithRegisterer registers the metrics with reg instead of the default registry.
func WithRegisterer(reg prometheus.Registerer) Option { return func(o *options) { o.reg = reg } }

// WithLogger logs fallback transitions to log instead of slog.Default().
func WithLogger(log *slog.Logger) Option { return func(o *options) { o.log = log } }

// New returns a limiter on rdb. It does not contact Redis: a limiter made while Redis is down
// starts deciding in memory on its first call.
func New(rdb redis.UniversalClient, cfg Config, opts ...Option) (*Limiter, error) {
	if rdb == nil {
		return nil, errors.New("ratelimit: nil redis client")
	}
	if err := cfg.Validate(); err != nil {
		return nil, err
	}
	o := options{reg: prometheus.DefaultRegisterer}
	for _, opt := range opts {
		opt(&o)
	}
	trusted, _ := ParsePrefixes("TRUSTED_PROXIES", cfg.TrustedProxies) // checked by Validate
	exempt, _ := ParsePrefixes("RATELIMIT_EXEMPT_CIDRS", cfg.ExemptCIDRs)
	return &Limiter{
		cfg:     cfg.withDefaults(),
		rdb:     rdb,
		redis:   redis_rate.NewLimiter(rdb),
		local:   newMemoryLimiter(),
		trusted: trusted,
		exempt:  exempt,
		metrics: newMetrics(o.reg),
		log:     o.log,
	}, nil
}

// Exempt reports whether ip is one of the clients RATELIMIT_EXEMPT_CIDRS says are never limited
// per address; callers that limit by address outside the middleware ask it too.
func (l *Limiter) Exempt(ip netip.Addr) bool { return containsAddr(l.exempt, ip) }

// Allow takes one request from key's bucket under p. It fails only for an invalid policy or when
// ctx ends first; a Redis failure is answered from the in-process limiter instead.
func (l *Limiter) Allow(ctx context.Context, p Policy, key string) (Result, error) {
	res, err := l.decide(ctx, p, key, 1)
	if err != nil {
		return Result{}, err
	}
	l.metrics.decided(p, res.Allowed)
	return res, nil
}

// Peek reports whether key's bucket under p has room for one request now, without taking it. It
// serves limits that count only some outcomes (failed sign-ins, say): peek before the attempt,
// and Allow after it when the outcome counts. Remaining is how many requests would fit now.
func (l *Limiter) Peek(ctx context.Context, p Policy, key string) (Result, error) {
	res, err := l.decide(ctx, p, key, 0)
	if err != nil {
		return Result{}, err
	}
	return peeked(p, res.ResetAfter), nil
}

// decide takes cost (0 or 1) requests from key's bucket; it refuses an invalid policy first.
func (l *Limiter) decide(ctx context.Context, p Policy, key string, cost int) (Result, error) {
	if err := p.validate(); err != nil {
		return Result{}, err
	}
	if err := ctx.Err(); err != nil { // nobody is waiting for this answer
		return Result{}, err
	}
	if l.inFallback.Load() {
		return l.decideLocally(p, key, cost), nil
	}
	res, err := l.allowRedis(ctx, p, key, cost)
	if err == nil {
		l.local.take(time.Now(), l.share(p), key, cost)
		return res, nil
	}
	if ctx.Err() != nil { // the caller gave up; that says nothing about Redis
		return Result{}, ctx.Err()
	}
	l.failed(err)
	return l.decideLocally(p, key, cost), nil
}

// decideLocally decides in this process's bucket, and owes what it allows to the shared one.
func (l *Limiter) decideLocally(p Policy, key string, cost int) Result {
	now := time.Now()
	res := l.local.take(now, l.share(p), key, cost)
	if res.Allowed && cost > 0 {
		l.local.owe(now, p, key, cost)
	}
	return res
}

// share is this process's part of p while Redis is away: 1/Config.FallbackReplicas of the rate
// and of the burst (at least one request each), so the replicas together stay within p.
func (l *Limiter) share(p Policy) Policy {
	p.Rate, p.Burst = max(1, p.Rate/l.cfg.FallbackReplicas), max(1, p.burst()/l.cfg.FallbackReplicas)
	return p
}

// peeked answers a peek from how far the bucket is ahead of now: one request fits while taking
// it would leave the bucket at most Period ahead.
func peeked(p Policy, resetAfter time.Duration) Result {
	interval := p.interval()
	room := p.depth() - resetAfter
	if room < interval {
		return Result{Limit: p.Rate, ResetAfter: resetAfter, RetryAfter: interval - room}
	}
	return Result{Allowed: true, Limit: p.Rate, Remaining: int(room / interval), ResetAfter: resetAfter}
}

// allowRedis bounds the call itself, since go-redis ignores context deadlines on an established
// connection unless the client was built with ContextTimeoutEnabled.
func (l *Limiter) allowRedis(ctx context.Context, p Policy, key string, cost int) (Result, error) {
	ctx, cancel := context.WithTimeout(ctx, l.cfg.Timeout)
	defer cancel()
	type outcome struct {
		res *redis_rate.Result
		err error
	}
	done := make(chan outcome, 1)
	go func() {
		rkey, limit := l.cfg.KeyPrefix+":"+p.Name+":"+key, redis_rate.Limit{Rate: p.Rate, Burst: p.burst(), Period: p.Period}
		if d := l.local.settle(p, key); d.n > 0 {
			// As many of the requests allowed here as still fit; the bucket cannot go further.
			if _, err := l.redis.AllowAtMost(ctx, rkey, limit, d.n); err != nil {
				l.local.owe(d.since, p, key, d.n)
				done <- outcome{nil, err}
				return
			}
		}
		res, err := l.redis.AllowN(ctx, rkey, limit, cost)
		done <- outcome{res, err}
	}()
	var o outcome
	select {
	case o = <-done:
	case <-ctx.Done():
		return Result{}, ctx.Err()
	}
	if o.err != nil {
		return Result{}, o.err
	}
	res := Result{Allowed: o.res.Allowed > 0, Limit: p.Rate, Remaining: o.res.Remaining, ResetAfter: o.res.ResetAfter}
	if !res.Allowed {
		res.RetryAfter = o.res.RetryAfter
	}
	return res, nil
}

// RedisAvailable reports whether the breaker is closed: false while the limiter decides in memory
// because Redis failed and has not answered a probe since. Callers with Redis calls of their own
// next to the limiter's skip them meanwhile rather than each wait for a timeout.
func (l *Limiter) RedisAvailable() bool { return !l.inFallback.Load() }

// failed opens the breaker and starts the one probe that will close it.
func (l *Limiter) failed(err error) {
	l.metrics.backendErrors.Inc()
	if l.inFallback.CompareAndSwap(false, true) {
		l.metrics.fallback.Inc()
		l.logger().Warn("rate limiter falling back to per-process limits: redis unavailable",
			"error", err, "probe_interval", l.cfg.ProbeInterval.String())
		go l.probe()
	}
}

// probe pings Redis every ProbeInterval until it answers, then closes the breaker. It ends early
// when the client is closed (the process is stopping).
func (l *Limiter) probe() {
	t := time.NewTicker(l.cfg.ProbeInterval)
	defer t.Stop()
	for range t.C {
		ctx, cancel := context.WithTimeout(context.Background(), l.cfg.Timeout)
		err := l.rdb.Ping(ctx).Err()
		cancel()
		switch {
		case err == nil:
			l.logger().Info("rate limiter back on redis: limits are shared again")
			l.metrics.fallback.Dec()
			l.inFallback.Store(false)
			return
		case errors.Is(err, redis.ErrClosed):
			return
		}
	}
}

func (l *Limiter) logger() *slog.Logger {
	if l.log != nil {
		return l.log
	}
	return slog.Default() // looked up late so the service's logger, set up after New, applies
}
