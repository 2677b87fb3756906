package main

import (
	"bytes"
	"fmt"
	"math"
	"os"
	"path/filepath"
	"regexp"
	"sort"
	"strconv"

	"gopkg.in/yaml.v3"

	"github.com/bizassist/bizassist/tools/routegen"
)

// chart is what the local stack takes from the Helm charts: the umbrella's route table and
// global.config, and each service chart's env, peers and secret names, with the umbrella's
// per-service section laid over the service chart's values as Helm does.
type chart struct {
	routes   routegen.Table
	global   map[string]string // global.config
	services map[string]serviceChart
}

// serviceChart is the part of a service chart's values that becomes the service's environment.
type serviceChart struct {
	containerPort     int
	drainDelay        int               // shutdown.drainDelaySeconds: HTTP_DRAIN_DELAY
	shutdownTimeout   int               // shutdown.timeoutSeconds: HTTP_SHUTDOWN_TIMEOUT
	env               map[string]string // env: overrides global.config
	peers             map[string]string // env name -> peer service
	secretEnv         []string          // required keys of the service's Secret
	optionalSecretEnv []string
}

// serviceValues is how a service section reads in YAML, in the service chart or the umbrella.
type serviceValues struct {
	ContainerPort     *int           `yaml:"containerPort"`
	Shutdown          shutdownValues `yaml:"shutdown"`
	Env               map[string]any `yaml:"env"`
	Peers             map[string]any `yaml:"peers"`
	SecretEnv         []string       `yaml:"secretEnv"`
	OptionalSecretEnv []string       `yaml:"optionalSecretEnv"`
}

const (
	umbrellaChart = "charts/bizassist"
	valuesFile    = umbrellaChart + "/values.yaml"
	// releaseName is the Helm release the golden renders (tools/kube) use.
	releaseName = "bizassist"
)

var (
	envNameRE     = regexp.MustCompile(`^[A-Z_][A-Z0-9_]*$`)
	serviceNameRE = regexp.MustCompile(`^[a-z][a-z0-9-]*$`)
)

// loadChart reads charts/bizassist/values.yaml and charts/<svc>/values.yaml of every service with
// a local port.
func loadChart(root string) (*chart, error) {
	raw, err := os.ReadFile(filepath.Join(root, valuesFile))
	if err != nil {
		return nil, err
	}
	table, err := routegen.LoadTable(bytes.NewReader(raw))
	if err != nil {
		return nil, fmt.Errorf("%s: %w", valuesFile, err)
	}
	var umbrella struct {
		Global struct {
			Config map[string]any `yaml:"config"`
		} `yaml:"global"`
	}
	if err := yaml.Unmarshal(raw, &umbrella); err != nil {
		return nil, fmt.Errorf("%s: %w", valuesFile, err)
	}
	var sections map[string]yaml.Node
	if err := yaml.Unmarshal(raw, &sections); err != nil {
		return nil, fmt.Errorf("%s: %w", valuesFile, err)
	}
	c := &chart{routes: table, services: map[string]serviceChart{}}
	if c.global, err = envStrings(umbrella.Global.Config); err != nil {
		return nil, fmt.Errorf("%s: global.config: %w", valuesFile, err)
	}
	for svc, port := range table.LocalPorts {
		if !serviceNameRE.MatchString(svc) {
			return nil, fmt.Errorf("%s: ingress.localPorts: %q is not a service name", valuesFile, svc)
		}
		if port < 1 || port > 65535 {
			return nil, fmt.Errorf("%s: ingress.localPorts.%s: %d is not a TCP port", valuesFile, svc, port)
		}
		path := filepath.Join("charts", svc, "values.yaml")
		own, err := os.ReadFile(filepath.Join(root, path))
		if err != nil {
			return nil, fmt.Errorf("service %s has a port in %s (ingress.localPorts) but no chart: %w", svc, valuesFile, err)
		}
		var base, over serviceValues
		if err := yaml.Unmarshal(own, &base); err != nil {
			return nil, fmt.Errorf("%s: %w", path, err)
		}
		if node, ok := sections[svc]; ok {
			if err := node.Decode(&over); err != nil {
				return nil, fmt.Errorf("%s: %s: %w", valuesFile, svc, err)
			}
		}
		sc, err := coalesce(base, over)
		if err != nil {
			return nil, fmt.Errorf("%s (with %s %s): %w", path, valuesFile, svc, err)
		}
		c.services[svc] = sc
	}
	return c, nil
}

type shutdownValues struct {
	DrainDelaySeconds *int `yaml:"drainDelaySeconds"`
	TimeoutSeconds    *int `yaml:"timeoutSeconds"`
}

// coalesce lays the umbrella's section over the service chart's values the way Helm does: maps
// merge key by key with the umbrella winning, lists and scalars are replaced.
func coalesce(base, over serviceValues) (serviceChart, error) {
	var sc serviceChart
	if over.ContainerPort != nil {
		base.ContainerPort = over.ContainerPort
	}
	if base.ContainerPort == nil {
		return sc, fmt.Errorf("containerPort is missing")
	}
	sc.containerPort = *base.ContainerPort
	if over.Shutdown.DrainDelaySeconds != nil {
		base.Shutdown.DrainDelaySeconds = over.Shutdown.DrainDelaySeconds
	}
	if over.Shutdown.TimeoutSeconds != nil {
		base.Shutdown.TimeoutSeconds = over.Shutdown.TimeoutSeconds
	}
	if base.Shutdown.DrainDelaySeconds == nil || base.Shutdown.TimeoutSeconds == nil {
		return sc, fmt.Errorf("shutdown.drainDelaySeconds or shutdown.timeoutSeconds is missing")
	}
	sc.drainDelay, sc.shutdownTimeout = *base.Shutdown.DrainDelaySeconds, *base.Shutdown.TimeoutSeconds
	var err error
	if sc.env, err = envStrings(mergeMaps(base.Env, over.Env)); err != nil {
		return sc, fmt.Errorf("env: %w", err)
	}
	if sc.peers, err = envStrings(mergeMaps(base.Peers, over.Peers)); err != nil {
		return sc, fmt.Errorf("peers: %w", err)
	}
	sc.secretEnv, sc.optionalSecretEnv = base.SecretEnv, base.OptionalSecretEnv
	if over.SecretEnv != nil {
		sc.secretEnv = over.SecretEnv
	}
	if over.OptionalSecretEnv != nil {
		sc.optionalSecretEnv = over.OptionalSecretEnv
	}
	return sc, nil
}

func mergeMaps(base, over map[string]any) map[string]any {
	out := make(map[string]any, len(base)+len(over))
	for k, v := range base {
		out[k] = v
	}
	for k, v := range over {
		out[k] = v
	}
	return out
}

// envStrings turns YAML scalars into the strings Helm's toString gives: Helm reads every number
// as a float64 and prints it with %v, so 10 is "10" and 1000000 is "1e+06".
func envStrings(m map[string]any) (map[string]string, error) {
	out := make(map[string]string, len(m))
	for k, v := range m {
		if !envNameRE.MatchString(k) {
			return nil, fmt.Errorf("%q is not an environment variable name", k)
		}
		switch v := v.(type) {
		case string:
			out[k] = v
		case bool:
			out[k] = strconv.FormatBool(v)
		case int:
			out[k] = fmt.Sprintf("%v", float64(v))
		case uint64:
			out[k] = fmt.Sprintf("%v", float64(v))
		case float64:
			if math.IsInf(v, 0) || math.IsNaN(v) {
				return nil, fmt.Errorf("%s: %v is not a number Helm can render", k, v)
			}
			out[k] = fmt.Sprintf("%v", v)
		default:
			return nil, fmt.Errorf("%s: want a string, number or boolean, got %T", k, v)
		}
	}
	return out, nil
}

// envMap is the chart's bizassist-lib.envMap helper (charts/bizassist-lib/templates/_helpers.tpl)
// in Go: computed defaults, overridden by global.config, overridden by the service's env; each
// peer's value is peerURL(peer). The chart passes the in-cluster Service URL
// (http://<release>-<peer>) and ":<containerPort>"; the local stack passes the peer's local
// address and its own.
func (c *chart) envMap(svc, httpAddr string, peerURL func(peer string) string) map[string]string {
	sc := c.services[svc]
	env := map[string]string{
		"HTTP_ADDR":             httpAddr,
		"HTTP_DRAIN_DELAY":      fmt.Sprintf("%ds", sc.drainDelay),
		"HTTP_SHUTDOWN_TIMEOUT": fmt.Sprintf("%ds", sc.shutdownTimeout),
		"DATABASE_SCHEMA":       svc,
		"JWT_JWKS_URL":          peerURL("identity") + jwksPath,
	}
	for name, peer := range sc.peers {
		env[name] = peerURL(peer)
	}
	for k, v := range c.global {
		env[k] = v
	}
	for k, v := range sc.env {
		env[k] = v
	}
	return env
}

const jwksPath = "/api/auth/jwks.json"

// clusterEnv is what the chart renders into the service's ConfigMap for release releaseName.
func (c *chart) clusterEnv(svc string) map[string]string {
	return c.envMap(svc, fmt.Sprintf(":%d", c.services[svc].containerPort), func(peer string) string {
		return fmt.Sprintf("http://%s-%s", releaseName, peer)
	})
}

// serviceNames lists the services with a local port: the start order first (identity leads, the
// others fetch its JWKS), then any others by name.
func (c *chart) serviceNames() []string {
	var out []string
	seen := map[string]bool{}
	for _, svc := range serviceOrder {
		if _, ok := c.routes.LocalPorts[svc]; ok {
			out = append(out, svc)
			seen[svc] = true
		}
	}
	var rest []string
	for svc := range c.routes.LocalPorts {
		if !seen[svc] {
			rest = append(rest, svc)
		}
	}
	sort.Strings(rest)
	return append(out, rest...)
}
