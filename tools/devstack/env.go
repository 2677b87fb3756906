package main

import (
	"bufio"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"sort"
	"strings"
)

// A service's environment in the local stack is built in layers, each later one winning:
//
//  1. the chart's: envMap over the chart values (computed defaults, global.config, the service
//     chart's env), with every peer at its local address, and with the local defaults in
//     place of global.config's (a pool of 5: five services share one PostgreSQL), so that a
//     service chart's own env (integrations' larger pool) holds locally too;
//  2. the local stack's addresses, whatever the chart says: loopback, the local database role,
//     Redis, the local identity's JWKS, every peer at its local port, loopback as the only
//     trusted proxy, no drain delay;
//  3. services/<svc>/dev.env;
//  4. stack-wide settings and the generated secrets, each given to the services whose chart names
//     it in secretEnv or optionalSecretEnv.
//
// Nothing else of the caller's environment leaks in, except PATH and HOME.
const (
	sourceChart   = "chart"         // bizassist-lib.envMap's computed defaults
	sourceGlobal  = "global.config" // charts/bizassist/values.yaml
	sourceEnv     = "chart env"     // charts/<svc>/values.yaml env
	sourcePeer    = "chart peer"    // charts/<svc>/values.yaml peers, at the peer's local port
	sourceDefault = "local default" // in place of global.config's
	sourceLocal   = "local"
	sourceDevEnv  = "dev.env"
	sourceStack   = "stack"
	sourceSecret  = "secret"  // generated, in .devstack/state/secrets.env
	sourceReplica = "replica" // make up REPLICAS=2: a replica's own addresses, the drain delay
	trustedLocal  = "127.0.0.1/32,::1/128"
	benchExemptIP = "127.0.0.9" // make bench dials from here; e2e clients use other 127.x addresses
)

// localDefaults replace global.config's values in the local stack.
var localDefaults = map[string]string{"DATABASE_MAX_CONNS": "5"}

// envVar is one variable of a service's environment and the layer that set it.
type envVar struct {
	Value  string
	Source string
}

type serviceEnv map[string]envVar

func (e serviceEnv) set(source string, vars map[string]string) {
	for k, v := range vars {
		e[k] = envVar{Value: v, Source: source}
	}
}

// keys lists the variable names in order.
func (e serviceEnv) keys() []string {
	keys := make([]string, 0, len(e))
	for k := range e {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	return keys
}

// environ is the environment as KEY=value strings, sorted by name.
func (e serviceEnv) environ() []string {
	out := make([]string, 0, len(e))
	for _, k := range e.keys() {
		out = append(out, k+"="+e[k].Value)
	}
	return out
}

// envInput is what a service's environment is made from besides the chart.
type envInput struct {
	devEnv  []kv              // services/<svc>/dev.env
	secrets map[string]string // .devstack/state/secrets.env
	path    string            // PATH and HOME of the caller
	home    string
	shape   shape // the scale-out shape, if asked for
}

// localURL is where a service answers plain HTTP in the local stack.
func (c *chart) localURL(svc string) (string, error) {
	port, ok := c.routes.LocalPorts[svc]
	if !ok {
		return "", fmt.Errorf("service %q has no port in %s (ingress.localPorts)", svc, valuesFile)
	}
	return fmt.Sprintf("http://127.0.0.1:%d", port), nil
}

// localEnv builds svc's environment in the local stack (see the layers above).
func (c *chart) localEnv(svc string, in envInput) (serviceEnv, error) {
	sc, ok := c.services[svc]
	if !ok {
		return nil, fmt.Errorf("service %q has no chart", svc)
	}
	var urlErr error
	peerURL := func(peer string) string {
		u, err := c.localURL(peer)
		if err != nil && urlErr == nil {
			urlErr = fmt.Errorf("%s: %w", svc, err)
		}
		return u
	}
	port := c.routes.LocalPorts[svc]
	httpAddr := fmt.Sprintf("127.0.0.1:%d", port)
	// pprof (libs/httpx ServeDebug) a thousand ports above the service: make bench profiles it.
	debugAddr := fmt.Sprintf("127.0.0.1:%d", port+debugPortOffset)

	local := *c
	local.global = map[string]string{}
	for k, v := range c.global {
		local.global[k] = v
	}
	for k, v := range localDefaults {
		local.global[k] = v
	}
	env := serviceEnv{}
	for k, v := range local.envMap(svc, httpAddr, peerURL) {
		source := sourceChart
		if _, ok := sc.env[k]; ok {
			source = sourceEnv
		} else if _, ok := localDefaults[k]; ok {
			source = sourceDefault
		} else if _, ok := c.global[k]; ok {
			source = sourceGlobal
		} else if _, ok := sc.peers[k]; ok {
			source = sourcePeer
		}
		env[k] = envVar{Value: v, Source: source}
	}

	env.set(sourceLocal, map[string]string{
		"PATH":             in.path,
		"HOME":             in.home,
		"TZ":               "UTC",
		"HTTP_ADDR":        httpAddr,
		"DATABASE_URL":     fmt.Sprintf("postgres://%s@%s:%d/%s?sslmode=disable", svc, pgHost, pgPort, dbName),
		"REDIS_URL":        redisURL(),
		"JWT_JWKS_URL":     peerURL("identity") + jwksPath,
		"TRUSTED_PROXIES":  trustedLocal,
		"HTTP_DRAIN_DELAY": "0s",
		"DEBUG_ADDR":       debugAddr,
	})
	env.set(sourceLocal, in.shape.serviceEnv(svc, slices.Contains(sc.optionalSecretEnv, "DATABASE_REPLICA_URL")))
	// A peer is always the local instance, whatever the chart's env says about the name.
	peers := map[string]string{}
	for name, peer := range sc.peers {
		peers[name] = peerURL(peer)
	}
	env.set(sourcePeer, peers)
	if urlErr != nil {
		return nil, urlErr
	}

	for _, p := range in.devEnv {
		env[p.key] = envVar{Value: p.value, Source: sourceDevEnv}
	}

	// One process per service unless make up REPLICAS=n, whose replicaShare sets n.
	env.set(sourceStack, map[string]string{"RATELIMIT_EXEMPT_CIDRS": benchExemptIP + "/32", "RATELIMIT_FALLBACK_REPLICAS": "1"})
	have := stackSecrets(in.secrets)
	for _, name := range append(append([]string{}, sc.secretEnv...), sc.optionalSecretEnv...) {
		if v, ok := have[name]; ok {
			env[name] = envVar{Value: v, Source: sourceSecret}
		}
	}
	for _, name := range sc.secretEnv {
		if _, ok := env[name]; !ok {
			return nil, fmt.Errorf("charts/%s/values.yaml: secretEnv %s has no value in the local stack (tools/devstack/env.go, stackSecrets)", svc, name)
		}
	}
	return env, nil
}

// stackSecrets maps the Secret keys the charts name to the local stack's generated values.
// DATABASE_URL and REDIS_URL are not secret locally: the local layer sets them.
func stackSecrets(generated map[string]string) map[string]string {
	out := map[string]string{}
	if v := generated["ADMIN_SECRET"]; v != "" {
		out["AGENT_ADMIN_SECRET"] = v
	}
	if v := generated["STRIPE_WEBHOOK_SECRET"]; v != "" {
		out["STRIPE_WEBHOOK_SECRET"] = v
	}
	if v := generated["ENCRYPTION_KEYS"]; v != "" {
		out["ENCRYPTION_KEYS"] = v
		kid, _, _ := strings.Cut(v, ":") // the first key seals
		out["ENCRYPTION_KEY_ID"] = kid
	}
	return out
}

// kv is one KEY=value line of a file, in file order.
type kv struct{ key, value string }

var (
	kvKeyRE  = regexp.MustCompile(`^[A-Za-z_][A-Za-z0-9_]*$`)
	quotedRE = regexp.MustCompile(`^'(.*)'$|^"(.*)"$`)
)

// configLines reads the lines of a file a service or the stack may provide (dev.env, dev-procs,
// the state files) with leading blanks dropped, less blank lines and comments. A missing file
// has no lines.
func configLines(path string) ([]string, error) {
	f, err := os.Open(path)
	if os.IsNotExist(err) {
		return nil, nil
	}
	if err != nil {
		return nil, err
	}
	defer f.Close()
	var out []string
	sc := bufio.NewScanner(f)
	sc.Buffer(make([]byte, 64*1024), 1024*1024)
	for sc.Scan() {
		line := strings.TrimLeft(sc.Text(), " \t\r\v\f")
		if line != "" && !strings.HasPrefix(line, "#") {
			out = append(out, line)
		}
	}
	if err := sc.Err(); err != nil {
		return nil, fmt.Errorf("%s: %w", path, err)
	}
	return out, nil
}

// readKV reads the KEY=value lines of path: one pair of surrounding quotes is removed from a
// value; nothing else is interpreted.
func readKV(path string) ([]kv, error) {
	lines, err := configLines(path)
	if err != nil {
		return nil, err
	}
	var out []kv
	for _, line := range lines {
		key, value, ok := strings.Cut(line, "=")
		if !ok || !kvKeyRE.MatchString(key) {
			return nil, fmt.Errorf("%s: not a KEY=value line: %s", path, line)
		}
		if m := quotedRE.FindStringSubmatch(value); m != nil {
			value = m[1] + m[2]
		}
		out = append(out, kv{key, value})
	}
	return out, nil
}

func kvMap(lines []kv) map[string]string {
	m := make(map[string]string, len(lines))
	for _, p := range lines {
		m[p.key] = p.value
	}
	return m
}

// mergeKV is old then new, a key keeping its first position and its newest value.
func mergeKV(old, new []kv) []kv {
	pos := map[string]int{}
	var out []kv
	for _, p := range append(append([]kv{}, old...), new...) {
		if i, ok := pos[p.key]; ok {
			out[i].value = p.value
			continue
		}
		pos[p.key] = len(out)
		out = append(out, p)
	}
	return out
}

// writeKV writes lines as KEY=value, atomically, with mode perm.
func writeKV(path string, lines []kv, perm os.FileMode) error {
	var b strings.Builder
	for _, p := range lines {
		b.WriteString(p.key + "=" + p.value + "\n")
	}
	return writeFileAtomic(path, []byte(b.String()), perm)
}

// writeFileAtomic writes through a temporary file and a rename, so a reader never sees half a file.
func writeFileAtomic(path string, data []byte, perm os.FileMode) error {
	tmp, err := os.CreateTemp(filepath.Dir(path), "."+filepath.Base(path)+".*")
	if err != nil {
		return err
	}
	defer os.Remove(tmp.Name())
	if err := tmp.Chmod(perm); err != nil {
		tmp.Close()
		return err
	}
	if _, err := tmp.Write(data); err != nil {
		tmp.Close()
		return err
	}
	if err := tmp.Close(); err != nil {
		return err
	}
	return os.Rename(tmp.Name(), path)
}
