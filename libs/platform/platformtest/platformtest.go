// Package platformtest gives a service's component tests the environment of a real deployment
// in miniature: its own fresh database on the real PostgreSQL, its own key prefix on the real
// Redis, and quick event polling, with every other setting at its production default.
package platformtest

import (
	"strings"
	"testing"

	"github.com/bizassist/bizassist/libs/pgkit/pgtest"
	"github.com/bizassist/bizassist/libs/rediskit/redistest"
)

// Env returns environment variables for running service name in a test; pass them to
// svc.LoadConfigFrom. jwksURL is where the service fetches signing keys (a jwttest issuer, or
// identity itself). Add or override keys for the test's needs before loading.
func Env(t testing.TB, name, jwksURL string) map[string]string {
	t.Helper()
	db := pgtest.NewDatabase(t)
	_, prefix := redistest.New(t)
	env := map[string]string{
		"HTTP_ADDR":                  "127.0.0.1:0",
		"HTTP_DRAIN_DELAY":           "0s",
		"DATABASE_URL":               db.URL,
		"DATABASE_SCHEMA":            name,
		"REDIS_URL":                  redistest.URL(),
		"RATELIMIT_PREFIX":           prefix + "rl",
		"EVENTS_STREAM_PREFIX":       prefix + "events",
		"EVENTS_RELAY_POLL_INTERVAL": "20ms",
		"EVENTS_CONSUMER_BLOCK":      "100ms",
		"EVENTS_CONSUMER_CLAIM_IDLE": "1s",
		"JWT_JWKS_URL":               jwksURL,
		"JWT_JWKS_MIN_REFRESH":       "50ms",
		"LOG_LEVEL":                  "warn",
		"UPGRADE_URL":                "https://bizassist.test/pricing",
	}
	if addrs := redistest.Config().ClusterAddrs; len(addrs) > 0 {
		env["REDIS_CLUSTER_ADDRS"] = strings.Join(addrs, ",")
	}
	return env
}
