package main

import (
	"errors"
	"flag"
	"io"
	"os"
	"path/filepath"
	"slices"
	"sort"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"
	"gopkg.in/yaml.v3"
)

var update = flag.Bool("update", false, "rewrite testdata/env from the current charts and dev.env files")

// repoRoot is the checkout these tests read the real charts and dev.env files from.
const repoRoot = "../.."

// testInput is a service's environment input with fixed secrets, PATH and HOME.
func testInput(t *testing.T, svc string) envInput {
	t.Helper()
	devEnv, err := readKV(filepath.Join(repoRoot, "services", svc, "dev.env"))
	require.NoError(t, err)
	return envInput{
		devEnv: devEnv,
		secrets: map[string]string{
			"DEMO_PASSWORD":         "demo-test",
			"ADMIN_SECRET":          "test-admin-secret",
			"STRIPE_WEBHOOK_SECRET": "whsec_test",
			"ENCRYPTION_KEYS":       "local1:AAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA=",
		},
		path: "/usr/local/go/bin:/usr/bin:/bin",
		home: "/home/dev",
	}
}

func loadRepoChart(t *testing.T) *chart {
	t.Helper()
	c, err := loadChart(repoRoot)
	require.NoError(t, err)
	require.ElementsMatch(t, serviceOrder, c.serviceNames(), "every service has a local port")
	return c
}

func localEnvOf(t *testing.T, c *chart, svc string) serviceEnv {
	t.Helper()
	env, err := c.localEnv(svc, testInput(t, svc))
	require.NoError(t, err)
	return env
}

// renderedService is what Helm renders for one service: its ConfigMap and its container's env.
type renderedService struct {
	configMap map[string]string
	secretEnv map[string]bool // name -> optional
	plainEnv  map[string]string
}

// goldenRender reads tools/kube/testdata/golden/defaults.yaml, the chart rendered by helm with
// the default values (kept current by make test-k8s, rewritten by make k8s-golden).
func goldenRender(t *testing.T) map[string]*renderedService {
	t.Helper()
	f, err := os.Open(filepath.Join(repoRoot, "tools/kube/testdata/golden/defaults.yaml"))
	require.NoError(t, err)
	defer f.Close()
	out := map[string]*renderedService{}
	get := func(name string) *renderedService {
		svc := strings.TrimPrefix(name, releaseName+"-")
		if out[svc] == nil {
			out[svc] = &renderedService{secretEnv: map[string]bool{}, plainEnv: map[string]string{}}
		}
		return out[svc]
	}
	dec := yaml.NewDecoder(f)
	for {
		var doc struct {
			Kind     string
			Metadata struct{ Name string }
			Data     map[string]string
			Spec     struct {
				Template struct {
					Spec struct {
						Containers []struct {
							Env []struct {
								Name      string
								Value     string
								ValueFrom struct {
									SecretKeyRef struct {
										Key      string
										Optional bool
									} `yaml:"secretKeyRef"`
								} `yaml:"valueFrom"`
							}
						}
					}
				}
			}
		}
		err := dec.Decode(&doc)
		if errors.Is(err, io.EOF) {
			break
		}
		require.NoError(t, err)
		switch doc.Kind {
		case "ConfigMap":
			get(doc.Metadata.Name).configMap = doc.Data
		case "Deployment":
			r := get(doc.Metadata.Name)
			require.Len(t, doc.Spec.Template.Spec.Containers, 1, doc.Metadata.Name)
			for _, e := range doc.Spec.Template.Spec.Containers[0].Env {
				if e.ValueFrom.SecretKeyRef.Key != "" {
					r.secretEnv[e.Name] = e.ValueFrom.SecretKeyRef.Optional
				} else {
					r.plainEnv[e.Name] = e.Value
				}
			}
		}
	}
	return out
}

// The Go envMap is the chart's helper: for release "bizassist" it gives exactly the ConfigMap
// helm renders, and the secret names are the Deployment's.
func TestEnvMapIsTheChartsRender(t *testing.T) {
	c := loadRepoChart(t)
	golden := goldenRender(t)
	for _, svc := range c.serviceNames() {
		r := golden[svc]
		require.NotNil(t, r, "no render of %s in the golden file", svc)
		require.Equal(t, r.configMap, c.clusterEnv(svc), "%s: envMap differs from charts/bizassist-lib's", svc)
		secrets := map[string]bool{}
		for _, name := range c.services[svc].secretEnv {
			secrets[name] = false
		}
		for _, name := range c.services[svc].optionalSecretEnv {
			secrets[name] = true
		}
		require.Equal(t, r.secretEnv, secrets, svc)
	}
}

// notLocal are names the chart sets that the local stack leaves out on purpose.
var notLocal = map[string]string{
	"GOMEMLIMIT": "90% of the container's memory limit; local processes have no limit",
}

// localized are names whose local value differs from the chart's on purpose (besides peers and
// what a dev.env sets).
var localized = map[string]bool{
	"HTTP_ADDR": true, "JWT_JWKS_URL": true, "TRUSTED_PROXIES": true, "DATABASE_MAX_CONNS": true,
	"HTTP_DRAIN_DELAY": true, // no load balancer to drain from locally: stop at once
}

// chartDrift lists what the chart sets that the local environment lacks, or gives another value
// without a reason: a peer, a localized name or a dev.env line.
func chartDrift(r *renderedService, sc serviceChart, env serviceEnv) []string {
	var problems []string
	for k, v := range r.configMap {
		local, ok := env[k]
		switch {
		case !ok:
			problems = append(problems, k+" is missing")
		case local.Value == v, localized[k], local.Source == sourceDevEnv:
		case sc.peers[k] != "":
		default:
			problems = append(problems, k+"="+local.Value+", the chart says "+v)
		}
	}
	for k := range r.plainEnv {
		if _, ok := env[k]; !ok && notLocal[k] == "" {
			problems = append(problems, k+" is missing")
		}
	}
	for k, optional := range r.secretEnv {
		if _, ok := env[k]; !ok && !optional {
			problems = append(problems, "secret "+k+" is missing")
		}
	}
	sort.Strings(problems)
	return problems
}

// Everything the chart gives a service in Kubernetes, the local stack gives it too, with the
// same value unless the difference is a local address or a dev.env line.
func TestLocalEnvHasEverythingTheChartSets(t *testing.T) {
	c := loadRepoChart(t)
	golden := goldenRender(t)
	for _, svc := range c.serviceNames() {
		env := localEnvOf(t, c, svc)
		require.Empty(t, chartDrift(golden[svc], c.services[svc], env), svc)
	}

	// The check fails when the chart sets a name the local stack lacks, or another value.
	planted := *golden["leads"]
	planted.configMap = map[string]string{"NEW_SETTING": "x", "UPGRADE_URL": "https://elsewhere/pricing"}
	planted.secretEnv = map[string]bool{"NEW_SECRET": false, "NEW_OPTIONAL_SECRET": true}
	require.Equal(t, []string{
		"NEW_SETTING is missing", "UPGRADE_URL=https://bizassist.local/pricing, the chart says https://elsewhere/pricing",
		"secret NEW_SECRET is missing",
	}, chartDrift(&planted, c.services["leads"], localEnvOf(t, c, "leads")))
}

func TestLocalEnvKeyValues(t *testing.T) {
	c := loadRepoChart(t)
	cases := []struct {
		svc, key, value, source string
	}{
		{"leads", "ANALYTICS_URL", "http://127.0.0.1:8084", sourcePeer},
		{"assistant", "LEADS_URL", "http://127.0.0.1:8082", sourcePeer},
		{"assistant", "ANALYTICS_URL", "http://127.0.0.1:8084", sourcePeer},
		{"assistant", "AGENT_ADMIN_SECRET", "test-admin-secret", sourceSecret},
		{"identity", "ENCRYPTION_KEYS", "local1:AAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA=", sourceSecret},
		{"identity", "ENCRYPTION_KEY_ID", "local1", sourceSecret},
		{"integrations", "ENCRYPTION_KEYS", "local1:AAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA=", sourceSecret},
		{"integrations", "ENCRYPTION_KEY_ID", "local1", sourceSecret},
		{"integrations", "STRIPE_WEBHOOK_SECRET", "whsec_test", sourceSecret},
		{"integrations", "INTEGRATIONS_DEV_MODE", "true", sourceDevEnv},
		{"integrations", "DATABASE_MAX_CONNS", "20", sourceEnv}, // the chart's own env beats the local default
		{"identity", "DATABASE_MAX_CONNS", "5", sourceDefault},
		{"leads", "DATABASE_MAX_CONNS", "10", sourceDevEnv},
		{"analytics", "HTTP_ADDR", "127.0.0.1:8084", sourceLocal},
		{"analytics", "DATABASE_SCHEMA", "analytics", sourceChart},
		{"analytics", "DATABASE_URL", "postgres://analytics@127.0.0.1:5432/bizassist?sslmode=disable", sourceLocal},
		{"analytics", "JWT_JWKS_URL", "http://127.0.0.1:8081/api/auth/jwks.json", sourceLocal},
		{"analytics", "JWT_ISSUER", "bizassist-identity", sourceGlobal},
		{"analytics", "UPGRADE_URL", "https://bizassist.local/pricing", sourceGlobal},
		{"analytics", "TRUSTED_PROXIES", "127.0.0.1/32,::1/128", sourceLocal},
		{"analytics", "HTTP_DRAIN_DELAY", "0s", sourceLocal},
		{"analytics", "RATELIMIT_EXEMPT_CIDRS", "127.0.0.9/32", sourceStack},
		{"analytics", "REDIS_URL", "redis://127.0.0.1:6379/0", sourceLocal},
		{"analytics", "TZ", "UTC", sourceLocal},
	}
	envs := map[string]serviceEnv{}
	for _, tc := range cases {
		if envs[tc.svc] == nil {
			envs[tc.svc] = localEnvOf(t, c, tc.svc)
		}
		require.Equal(t, envVar{Value: tc.value, Source: tc.source}, envs[tc.svc][tc.key], "%s %s", tc.svc, tc.key)
	}
	// A secret goes only where the chart names it.
	for _, svc := range []string{"leads", "analytics"} {
		for _, k := range []string{"AGENT_ADMIN_SECRET", "STRIPE_WEBHOOK_SECRET", "ENCRYPTION_KEYS", "ENCRYPTION_KEY_ID"} {
			require.NotContains(t, envs[svc], k, svc)
		}
	}
	require.NotContains(t, envs["identity"], "STRIPE_WEBHOOK_SECRET")
}

// testdata/env/<svc>.env is each service's whole local environment. Its first version is what
// tools/devstack/up.sh gave (git log -p testdata/env shows what the move to Go added). Rewrite
// it with go test ./devstack -run TestLocalEnvGolden -update, and review the diff.
func TestLocalEnvGolden(t *testing.T) {
	c := loadRepoChart(t)
	for _, svc := range c.serviceNames() {
		got := strings.Join(localEnvOf(t, c, svc).environ(), "\n") + "\n"
		path := filepath.Join("testdata", "env", svc+".env")
		if *update {
			require.NoError(t, os.WriteFile(path, []byte(got), 0o644))
			continue
		}
		want, err := os.ReadFile(path)
		require.NoError(t, err)
		require.Equal(t, string(want), got, "%s: the local environment changed; if on purpose, run with -update and review the diff", svc)
	}
}

// A dev.env line that gives the value the chart and the local layer give already is a copy
// that can only drift (a peer's port, a chart setting).
func TestDevEnvRepeatsNothing(t *testing.T) {
	c := loadRepoChart(t)
	for _, svc := range c.serviceNames() {
		in := testInput(t, svc)
		devEnv := in.devEnv
		in.devEnv = nil
		without, err := c.localEnv(svc, in)
		require.NoError(t, err)
		for _, p := range devEnv {
			if v, ok := without[p.key]; ok {
				require.NotEqual(t, v.Value, p.value, "services/%s/dev.env sets %s to what the %s layer gives already", svc, p.key, v.Source)
			}
		}
	}
}

// writeChart lays out a checkout with an umbrella values file and one service chart.
func writeChart(t *testing.T, umbrella, service string) string {
	t.Helper()
	root := t.TempDir()
	require.NoError(t, os.MkdirAll(filepath.Join(root, "charts", "bizassist"), 0o755))
	require.NoError(t, os.MkdirAll(filepath.Join(root, "charts", "leads"), 0o755))
	require.NoError(t, os.WriteFile(filepath.Join(root, "charts", "bizassist", "values.yaml"), []byte(umbrella), 0o644))
	require.NoError(t, os.WriteFile(filepath.Join(root, "charts", "leads", "values.yaml"), []byte(service), 0o644))
	return root
}

const testIngress = `ingress:
  routes:
    - {path: /api/leads, pathType: Prefix, service: leads}
  localPorts: {identity: 8081, leads: 8082, analytics: 8084}
  limits: {connectionsPerAddress: 64}
`

// The umbrella's section of a service is laid over the service chart's values as Helm does;
// numbers and booleans render as Helm prints them.
func TestLoadChartCoalescesLikeHelm(t *testing.T) {
	root := writeChart(t, testIngress+`global:
  config: {LOG_LEVEL: info, DATABASE_MAX_CONNS: "10", BIG: 1000000, FLAG: true}
leads:
  env: {EXTRA: "1", OWN: overridden}
  peers: {SCORER_URL: analytics}
  secretEnv: [DATABASE_URL]
  shutdown: {timeoutSeconds: 30}
`, `containerPort: 8080
shutdown: {drainDelaySeconds: 5, timeoutSeconds: 20}
env: {OWN: own, RATE: 1.5}
peers: {ANALYTICS_URL: analytics}
secretEnv: [DATABASE_URL, REDIS_URL, MISSING]
`)
	for _, svc := range []string{"identity", "analytics"} {
		require.NoError(t, os.MkdirAll(filepath.Join(root, "charts", svc), 0o755))
		require.NoError(t, os.WriteFile(filepath.Join(root, "charts", svc, "values.yaml"), []byte("containerPort: 8080\nshutdown: {drainDelaySeconds: 5, timeoutSeconds: 20}\n"), 0o644))
	}
	c, err := loadChart(root)
	require.NoError(t, err)
	require.Equal(t, map[string]string{
		"HTTP_ADDR": ":8080", "HTTP_DRAIN_DELAY": "5s", "HTTP_SHUTDOWN_TIMEOUT": "30s", "DATABASE_SCHEMA": "leads", "JWT_JWKS_URL": "http://bizassist-identity/api/auth/jwks.json",
		"ANALYTICS_URL": "http://bizassist-analytics", "SCORER_URL": "http://bizassist-analytics",
		"LOG_LEVEL": "info", "DATABASE_MAX_CONNS": "10", "BIG": "1e+06", "FLAG": "true",
		"EXTRA": "1", "OWN": "overridden", "RATE": "1.5",
	}, c.clusterEnv("leads"))
	require.Equal(t, []string{"DATABASE_URL"}, c.services["leads"].secretEnv, "a list is replaced, not merged")

	env, err := c.localEnv("leads", envInput{})
	require.NoError(t, err)
	require.Equal(t, "http://127.0.0.1:8084", env["SCORER_URL"].Value)
	require.Equal(t, "5", env["DATABASE_MAX_CONNS"].Value)
}

func TestLocalEnvRefuses(t *testing.T) {
	// A required secret the local stack has no value for.
	root := writeChart(t, testIngress, "containerPort: 8080\nshutdown: {drainDelaySeconds: 5, timeoutSeconds: 20}\nsecretEnv: [DATABASE_URL, SIGNING_KEY]\n")
	for _, svc := range []string{"identity", "analytics"} {
		require.NoError(t, os.MkdirAll(filepath.Join(root, "charts", svc), 0o755))
		require.NoError(t, os.WriteFile(filepath.Join(root, "charts", svc, "values.yaml"), []byte("containerPort: 8080\nshutdown: {drainDelaySeconds: 5, timeoutSeconds: 20}\n"), 0o644))
	}
	c, err := loadChart(root)
	require.NoError(t, err)
	_, err = c.localEnv("leads", envInput{})
	require.ErrorContains(t, err, "secretEnv SIGNING_KEY has no value in the local stack")

	// A peer without a local port.
	root = writeChart(t, testIngress, "containerPort: 8080\nshutdown: {drainDelaySeconds: 5, timeoutSeconds: 20}\npeers: {BILLING_URL: billing}\n")
	for _, svc := range []string{"identity", "analytics"} {
		require.NoError(t, os.MkdirAll(filepath.Join(root, "charts", svc), 0o755))
		require.NoError(t, os.WriteFile(filepath.Join(root, "charts", svc, "values.yaml"), []byte("containerPort: 8080\nshutdown: {drainDelaySeconds: 5, timeoutSeconds: 20}\n"), 0o644))
	}
	c, err = loadChart(root)
	require.NoError(t, err)
	_, err = c.localEnv("leads", envInput{})
	require.ErrorContains(t, err, `service "billing" has no port`)

	// A service with a port and no chart; a value that is not a scalar.
	root = writeChart(t, testIngress, "containerPort: 8080\nshutdown: {drainDelaySeconds: 5, timeoutSeconds: 20}\n")
	_, err = loadChart(root)
	require.ErrorContains(t, err, "has a port in charts/bizassist/values.yaml (ingress.localPorts) but no chart")
	_, err = envStrings(map[string]any{"LIST": []any{"a"}})
	require.ErrorContains(t, err, "want a string, number or boolean")
	_, err = envStrings(map[string]any{"lower": "a"})
	require.ErrorContains(t, err, "not an environment variable name")
}

func TestReadKV(t *testing.T) {
	path := filepath.Join(t.TempDir(), "dev.env")
	require.NoError(t, os.WriteFile(path, []byte(`# comment
  INDENTED=yes
SINGLE='a b'
DOUBLE="c d"
HALF='e
EQUALS=f=g
EMPTY=
TRAILING=h # kept

`), 0o644))
	got, err := readKV(path)
	require.NoError(t, err)
	require.Equal(t, []kv{
		{"INDENTED", "yes"}, {"SINGLE", "a b"}, {"DOUBLE", "c d"}, {"HALF", "'e"},
		{"EQUALS", "f=g"}, {"EMPTY", ""}, {"TRAILING", "h # kept"},
	}, got)

	missing, err := readKV(filepath.Join(t.TempDir(), "none"))
	require.NoError(t, err)
	require.Empty(t, missing)

	for _, bad := range []string{"no equals", "1KEY=x", "export K=v"} {
		require.NoError(t, os.WriteFile(path, []byte(bad+"\n"), 0o644))
		_, err := readKV(path)
		require.ErrorContains(t, err, "not a KEY=value line", bad)
	}
}

func TestMergeKV(t *testing.T) {
	got := mergeKV([]kv{{"A", "1"}, {"B", "2"}}, []kv{{"B", "3"}, {"C", "4"}, {"A", "5"}})
	require.Equal(t, []kv{{"A", "5"}, {"B", "3"}, {"C", "4"}}, got)
}

func TestEnvironIsSortedAndComplete(t *testing.T) {
	env := serviceEnv{}
	env.set("x", map[string]string{"B": "2", "A": "1=1"})
	require.Equal(t, []string{"A=1=1", "B=2"}, env.environ())
}

// The scale-out shape points every service at the Redis Cluster, and the services whose chart
// takes a read replica at the local one, each with its own role.
func TestLocalEnvScaleOutShape(t *testing.T) {
	c := loadRepoChart(t)
	for _, svc := range c.serviceNames() {
		in := testInput(t, svc)
		in.shape = shape{redisCluster: true, pgReplica: true}
		env, err := c.localEnv(svc, in)
		require.NoError(t, err)
		require.Equal(t, strings.Join(redisClusterAddrs, ","), env["REDIS_CLUSTER_ADDRS"].Value, svc)
		require.Equal(t, "1", env["EVENTS_RELAY_MIN_REPLICAS"].Value, svc)
		replica, ok := env["DATABASE_REPLICA_URL"]
		if slices.Contains([]string{"leads", "analytics", "integrations"}, svc) {
			require.True(t, ok, svc)
			require.Equal(t, "postgres://"+svc+"@127.0.0.1:5442/bizassist?sslmode=disable", replica.Value)
		} else {
			require.False(t, ok, "%s reads no lag-tolerant data", svc)
		}
	}
}
