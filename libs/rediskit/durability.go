package rediskit

import (
	"context"
	"fmt"
	"log/slog"
	"strings"
	"sync"

	"github.com/prometheus/client_golang/prometheus"
	"github.com/prometheus/client_golang/prometheus/promauto"
	"github.com/redis/go-redis/v9"
)

var unsafeSetting = promauto.NewGaugeVec(prometheus.GaugeOpts{
	Name: "bizassist_redis_setting_unsafe",
	Help: "1 while Redis runs without a setting production needs (persistence: appendonly or RDB snapshots; eviction: maxmemory-policy noeviction), as last checked.",
}, []string{"setting"})

// Settings is what CheckSettings found.
type Settings struct {
	Persistent bool   // appendonly yes, or RDB snapshots configured
	Policy     string // maxmemory-policy
}

// Unsafe lists the settings that are not what production needs: "persistence" when Redis keeps
// nothing across a restart, "eviction" when it may evict keys (stream entries, rate-limit state)
// under memory pressure instead of refusing writes.
func (s Settings) Unsafe() []string {
	var out []string
	if !s.Persistent {
		out = append(out, "persistence")
	}
	if s.Policy != "noeviction" {
		out = append(out, "eviction")
	}
	return out
}

// ReadSettings asks Redis for its persistence and eviction settings: CONFIG GET where allowed,
// otherwise INFO (managed services often rename CONFIG), which shows the append-only file only.
func ReadSettings(ctx context.Context, rdb redis.UniversalClient) (Settings, error) {
	if cfg, err := rdb.ConfigGet(ctx, "*").Result(); err == nil {
		return Settings{
			Persistent: cfg["appendonly"] == "yes" || strings.TrimSpace(cfg["save"]) != "",
			Policy:     cfg["maxmemory-policy"],
		}, nil
	}
	info, err := rdb.Info(ctx, "persistence", "memory").Result()
	if err != nil {
		return Settings{}, fmt.Errorf("redis settings: %w", err)
	}
	var s Settings
	for _, line := range strings.Split(info, "\n") {
		k, v, _ := strings.Cut(strings.TrimSpace(line), ":")
		switch k {
		case "aof_enabled":
			s.Persistent = v == "1"
		case "maxmemory_policy":
			s.Policy = v
		}
	}
	return s, nil
}

// CheckSettings returns a periodic check that sets bizassist_redis_setting_unsafe and logs a
// warning whenever the unsafe settings change: Redis holds only what can be rebuilt, but a
// restart without persistence costs a rebuild of every stream, and eviction drops events.
func CheckSettings(rdb redis.UniversalClient) func(context.Context) error {
	var (
		mu   sync.Mutex
		last = "unchecked"
	)
	return func(ctx context.Context) error {
		s, err := ReadSettings(ctx, rdb)
		if err != nil {
			return err
		}
		unsafe := s.Unsafe()
		for _, name := range []string{"persistence", "eviction"} {
			v := 0.0
			if strings.Contains(strings.Join(unsafe, " "), name) {
				v = 1
			}
			unsafeSetting.WithLabelValues(name).Set(v)
		}
		mu.Lock()
		defer mu.Unlock()
		if now := strings.Join(unsafe, ","); now != last {
			last = now
			if now != "" {
				slog.WarnContext(ctx, "redis runs without settings production needs: a restart loses the streams (rebuilt from the outbox) or eviction may drop events; see docs/decisions.md, Reliability",
					"unsafe", unsafe, "maxmemory_policy", s.Policy, "persistent", s.Persistent)
			}
		}
		return nil
	}
}
