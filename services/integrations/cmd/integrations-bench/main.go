// Command integrations-bench measures outbound delivery: it runs the integrations service
// in-process on a throwaway database, subscribes a loopback receiver, publishes lead.written
// events at a steady rate through the real outbox, relay, Redis stream and consumer, and reports
// deliveries per second and the latency from event to signed delivery (p50, p99, max). Events are
// spread round-robin over -accounts accounts, each with -subs subscriptions: one account's
// deliveries use at most its share of the workers (-account-workers).
//
//	go run ./cmd/integrations-bench -rate 1000 -duration 10s -subs 5 -accounts 20
package main

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"io"
	"log/slog"
	"net"
	"net/http"
	"net/url"
	"os"
	"slices"
	"sync"
	"sync/atomic"
	"time"

	"github.com/jackc/pgx/v5"

	"github.com/bizassist/bizassist/libs/contracts/leadsevents"
	"github.com/bizassist/bizassist/libs/events"
	"github.com/bizassist/bizassist/libs/isotime"
	"github.com/bizassist/bizassist/libs/pgkit"
	"github.com/bizassist/bizassist/libs/sealbox"
	"github.com/bizassist/bizassist/libs/svc"
	"github.com/bizassist/bizassist/services/integrations/internal/domain"
	"github.com/bizassist/bizassist/services/integrations/internal/service"
)

func main() {
	adminURL := flag.String("admin-url", envOr("BENCH_DATABASE_URL", "postgres://postgres@127.0.0.1:5432/postgres?sslmode=disable"), "PostgreSQL server to create the throwaway database on")
	redisURL := flag.String("redis-url", envOr("REDIS_URL", "redis://127.0.0.1:6379/0"), "Redis for the event streams")
	var o options
	flag.IntVar(&o.rate, "rate", 1000, "deliveries per second to offer (events/s = rate / subs)")
	flag.DurationVar(&o.duration, "duration", 10*time.Second, "how long to publish")
	flag.IntVar(&o.subs, "subs", 5, "subscriptions to new_lead per account (fan-out per event)")
	flag.IntVar(&o.accounts, "accounts", 20, "accounts the events are spread over")
	flag.IntVar(&o.workers, "workers", 100, "delivery workers (INTEGRATIONS_DELIVERY_CONCURRENCY)")
	flag.IntVar(&o.perAccount, "account-workers", 10, "one account's share of the workers (INTEGRATIONS_DELIVERY_ACCOUNT_CONCURRENCY)")
	flag.IntVar(&o.consumers, "consumers", 1, "event consumers (EVENTS_CONSUMERS)")
	flag.BoolVar(&o.keep, "keep", false, "keep the database afterwards, to inspect outbox, deliveries and attempts")
	flag.Parse()
	slog.SetDefault(slog.New(slog.NewTextHandler(os.Stderr, &slog.HandlerOptions{Level: slog.LevelWarn})))
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	if err := run(ctx, *adminURL, *redisURL, o); err != nil {
		fmt.Fprintln(os.Stderr, "integrations-bench:", err)
		os.Exit(1)
	}
}

func envOr(key, def string) string {
	if v := os.Getenv(key); v != "" {
		return v
	}
	return def
}

type options struct {
	rate                                           int
	duration                                       time.Duration
	subs, accounts, workers, perAccount, consumers int
	keep                                           bool
}

func run(ctx context.Context, adminURL, redisURL string, o options) error {
	rate, duration, subs, keep := o.rate, o.duration, o.subs, o.keep
	if rate < subs || subs < 1 || o.accounts < 1 {
		return errors.New("-rate must be at least -subs, and -subs and -accounts at least 1")
	}
	dbURL, drop, err := throwawayDatabase(ctx, adminURL)
	if err != nil {
		return err
	}
	if keep {
		fmt.Println("database:", dbURL)
	} else {
		defer drop()
	}

	rec := newReceiver()
	recLn, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return err
	}
	recSrv := &http.Server{Handler: rec, ReadHeaderTimeout: 5 * time.Second}
	go func() { _ = recSrv.Serve(recLn) }()
	defer recSrv.Close()

	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return err
	}
	prefix := "bench" + randomHex(4)
	key, err := sealbox.GenerateKey("bench")
	if err != nil {
		return err
	}
	environ := map[string]string{
		"HTTP_ADDR": ln.Addr().String(), "HTTP_DRAIN_DELAY": "0s",
		"DATABASE_URL": dbURL, "DATABASE_SCHEMA": service.Name, "DATABASE_MAX_CONNS": "40",
		"REDIS_URL": redisURL, "RATELIMIT_PREFIX": prefix + ":rl", "EVENTS_STREAM_PREFIX": prefix,
		"EVENTS_RELAY_POLL_INTERVAL": "20ms", "EVENTS_CONSUMER_BLOCK": "100ms", "EVENTS_CONSUMER_BATCH_SIZE": "10",
		"JWT_JWKS_URL": "http://127.0.0.1:1/unused", "LOG_LEVEL": "warn",
		"ENCRYPTION_KEYS": key, "ENCRYPTION_KEY_ID": "bench",
		"INTEGRATIONS_DEV_MODE": "true", "INTEGRATIONS_TARGET_ALLOW_CIDRS": "127.0.0.0/8", "INTEGRATIONS_TARGET_ALLOW_HTTP": "true",
		"INTEGRATIONS_DELIVERY_CONCURRENCY": fmt.Sprint(o.workers), "INTEGRATIONS_DELIVERY_ACCOUNT_CONCURRENCY": fmt.Sprint(o.perAccount),
		"EVENTS_CONSUMERS": fmt.Sprint(o.consumers),
	}
	var cfg service.Config
	if err := svc.LoadConfigFrom(&cfg, environ); err != nil {
		return err
	}
	s, err := service.New(ctx, cfg)
	if err != nil {
		return err
	}
	defer s.Close()
	if err := s.Migrate(ctx); err != nil {
		return err
	}
	slog.SetDefault(slog.New(slog.NewTextHandler(os.Stderr, &slog.HandlerOptions{Level: slog.LevelWarn})))
	serveCtx, stopServe := context.WithCancel(ctx)
	served := make(chan error, 1)
	go func() { served <- s.Serve(serveCtx, ln) }()
	defer func() { stopServe(); <-served }()

	policy, _ := cfg.TargetPolicy()
	for i := range subs * o.accounts {
		sub, err := domain.NewSubscription(benchAccount(i%o.accounts), domain.OutboundNewLead, fmt.Sprintf("http://%s/hook/%d", recLn.Addr(), i), policy, time.Now())
		if err != nil {
			return err
		}
		if _, _, err := s.Subscriptions.CreateSubscription(ctx, sub); err != nil {
			return err
		}
	}

	eventsPerSec := rate / subs
	total := int(duration.Seconds() * float64(eventsPerSec))
	fmt.Printf("integrations bench: %d events/s x %d subscriptions = %d deliveries/s offered for %s (%d deliveries) over %d accounts, %d workers (%d per account), %d consumers\n",
		eventsPerSec, subs, eventsPerSec*subs, duration, total*subs, o.accounts, o.workers, o.perAccount, o.consumers)
	start := time.Now()
	tick := time.NewTicker(10 * time.Millisecond)
	defer tick.Stop()
	published := 0
	for published < total {
		<-tick.C
		due := min(total, int(time.Since(start).Seconds()*float64(eventsPerSec)))
		if due > published {
			if err := publish(ctx, s, o.accounts, published, due); err != nil {
				return err
			}
			published = due
		}
	}
	want := int64(total * subs)
	deadline := time.Now().Add(2*duration + 30*time.Second)
	for rec.count.Load() < want && time.Now().Before(deadline) {
		time.Sleep(20 * time.Millisecond)
	}
	elapsed := rec.last().Sub(start)
	lat := rec.latencies()
	if int64(len(lat)) < want {
		return fmt.Errorf("only %d of %d deliveries arrived", len(lat), want)
	}
	slices.Sort(lat)
	pct := func(p float64) time.Duration { return lat[min(len(lat)-1, int(p*float64(len(lat))))] }
	fmt.Printf("delivered %d in %s: %.0f deliveries/s\n", len(lat), elapsed.Round(time.Millisecond), float64(len(lat))/elapsed.Seconds())
	fmt.Printf("event -> delivery latency: p50 %s  p99 %s  max %s\n",
		pct(0.50).Round(time.Millisecond), pct(0.99).Round(time.Millisecond), lat[len(lat)-1].Round(time.Millisecond))
	return nil
}

// publish puts lead.written events [from, to) in the outbox in one transaction, as leads would,
// round-robin over the accounts; each carries its publish time so the receiver can measure
// event-to-delivery latency.
func publish(ctx context.Context, s *service.Service, accounts, from, to int) error {
	envs := make([]events.Envelope, 0, to-from)
	now := isotime.Of(time.Now())
	for i := from; i < to; i++ {
		env, err := events.New(ctx, leadsevents.LeadWritten, benchAccount(i%accounts), leadsevents.LeadWrittenData{
			LeadID: fmt.Sprintf("lead_%d", i), Name: "Bench Lead", Email: "bench@example.com",
			Phone: "+15125550100", Source: "bench", Timestamp: now,
		})
		if err != nil {
			return err
		}
		envs = append(envs, env)
	}
	return pgkit.InTx(ctx, s.Runtime.Pool, func(tx pgx.Tx) error { return events.Enqueue(ctx, tx, envs...) })
}

func benchAccount(i int) string { return fmt.Sprintf("acc_bench%d", i) }

// receiver accepts every delivery and records how long after its event it arrived.
type receiver struct {
	count  atomic.Int64
	mu     sync.Mutex
	lat    []time.Duration
	lastAt time.Time
}

func newReceiver() *receiver { return &receiver{lat: make([]time.Duration, 0, 1<<16)} }

func (rc *receiver) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	var body struct {
		Timestamp string `json:"timestamp"`
	}
	raw, _ := io.ReadAll(r.Body)
	now := time.Now()
	if json.Unmarshal(raw, &body) != nil || r.Header.Get("webhook-signature") == "" {
		w.WriteHeader(http.StatusBadRequest)
		return
	}
	sent, err := time.Parse(time.RFC3339Nano, body.Timestamp)
	if err != nil {
		w.WriteHeader(http.StatusBadRequest)
		return
	}
	rc.mu.Lock()
	rc.lat = append(rc.lat, now.Sub(sent))
	rc.lastAt = now
	rc.mu.Unlock()
	rc.count.Add(1)
	w.WriteHeader(http.StatusNoContent)
}

func (rc *receiver) latencies() []time.Duration {
	rc.mu.Lock()
	defer rc.mu.Unlock()
	return slices.Clone(rc.lat)
}

func (rc *receiver) last() time.Time {
	rc.mu.Lock()
	defer rc.mu.Unlock()
	return rc.lastAt
}

func randomHex(n int) string {
	b := make([]byte, n)
	_, _ = rand.Read(b)
	return hex.EncodeToString(b)
}

// throwawayDatabase creates a fresh database on the admin server and returns its URL and a
// function that drops it.
func throwawayDatabase(ctx context.Context, adminURL string) (string, func(), error) {
	admin, err := pgx.Connect(ctx, adminURL)
	if err != nil {
		return "", nil, fmt.Errorf("connect %s: %w", adminURL, err)
	}
	name := "bench_" + randomHex(6)
	if _, err := admin.Exec(ctx, "CREATE DATABASE "+name); err != nil {
		_ = admin.Close(ctx)
		return "", nil, err
	}
	u, err := url.Parse(adminURL)
	if err != nil {
		_ = admin.Close(ctx)
		return "", nil, err
	}
	u.Path = "/" + name
	drop := func() {
		ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
		defer cancel()
		_, _ = admin.Exec(ctx, "DROP DATABASE IF EXISTS "+name+" WITH (FORCE)")
		_ = admin.Close(ctx)
	}
	return u.String(), drop, nil
}
