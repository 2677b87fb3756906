package main

import (
	"bytes"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/bizassist/bizassist/tools/internal/devenv"
)

// Secrets are made once and kept; ENCRYPTION_KEYS is added to older state without touching the rest.
func TestEnsureSecrets(t *testing.T) {
	s, out := testStack(t)
	seedEnv := filepath.Join(s.state, "seed.env")
	require.NoError(t, os.WriteFile(seedEnv, []byte("EXT_SECRET=old\n"), 0o600))

	first, err := s.ensureSecrets()
	require.NoError(t, err)
	require.Equal(t, "==> generating local secrets in "+s.state+"\n", out.String())
	require.Regexp(t, `^demo-[0-9a-f]{16}$`, first["DEMO_PASSWORD"])
	require.Regexp(t, `^[0-9a-f]{48}$`, first["ADMIN_SECRET"])
	require.Regexp(t, `^whsec_[0-9a-f]{48}$`, first["STRIPE_WEBHOOK_SECRET"])
	require.Regexp(t, `^local1:[A-Za-z0-9+/]{43}=$`, first["ENCRYPTION_KEYS"])
	require.NoFileExists(t, seedEnv, "new secrets on old seed output would disagree")
	fi, err := os.Stat(filepath.Join(s.state, "secrets.env"))
	require.NoError(t, err)
	require.Equal(t, os.FileMode(0o600), fi.Mode().Perm())

	out.Reset()
	again, err := s.ensureSecrets()
	require.NoError(t, err)
	require.Equal(t, first, again)
	require.Empty(t, out.String())

	// State from before ENCRYPTION_KEYS existed.
	require.NoError(t, os.WriteFile(filepath.Join(s.state, "secrets.env"), []byte("DEMO_PASSWORD=demo-1\nADMIN_SECRET=a\nSTRIPE_WEBHOOK_SECRET=whsec_b\n"), 0o600))
	older, err := s.ensureSecrets()
	require.NoError(t, err)
	require.Equal(t, "demo-1", older["DEMO_PASSWORD"])
	require.Regexp(t, `^local1:`, older["ENCRYPTION_KEYS"])
	lines, err := readKV(filepath.Join(s.state, "secrets.env"))
	require.NoError(t, err)
	require.Equal(t, []kv{
		{"DEMO_PASSWORD", "demo-1"}, {"ADMIN_SECRET", "a"}, {"STRIPE_WEBHOOK_SECRET", "whsec_b"},
		{"ENCRYPTION_KEYS", older["ENCRYPTION_KEYS"]},
	}, lines)
}

// The seeds run in the checkout with .devstack/env's settings and the service's environment;
// what they print to DEVSTACK_ENV_OUT lands in .devstack/env and survives later runs.
func TestSeedWritesTheStackEnv(t *testing.T) {
	ctx := t.Context()
	s, out := testStack(t)
	require.NoError(t, os.MkdirAll(filepath.Join(s.root, "services", "svc"), 0o755))
	require.NoError(t, os.WriteFile(filepath.Join(s.root, "services", "svc", "dev-seed.sh"), []byte(`set -eu
echo "seeding from $PWD with $BASE_URL $DATABASE_SCHEMA $DEVSTACK_BIN"
printf 'EXT_SECRET=%s\nRUN=%s\n' "$NEXT" "$NEXT" >>"$DEVSTACK_ENV_OUT"
`), 0o644))
	secrets := map[string]string{"DEMO_PASSWORD": "demo-x", "ADMIN_SECRET": "adm", "STRIPE_WEBHOOK_SECRET": "whsec_y"}
	svc := &service{name: "svc", env: serviceEnv{}, seed: filepath.Join("services", "svc", "dev-seed.sh")}
	svc.env.set(sourceLocal, map[string]string{"PATH": os.Getenv("PATH"), "DATABASE_SCHEMA": "svc", "NEXT": "first"})
	p := &plan{running: []*service{svc, {name: "quiet", env: serviceEnv{}}}, absent: []string{"later"}}

	require.NoError(t, s.seed(ctx, p, secrets))
	require.Equal(t, "==> seeding svc\n", out.String())
	require.Equal(t, "seeding from "+s.root+" with https://127.0.0.1:8443 svc "+s.bin+"\n", readLog(t, filepath.Join(s.logs, "svc-seed.log")))
	env, err := devenv.Load(filepath.Join(s.dir, "env"))
	require.NoError(t, err)
	require.Equal(t, map[string]string{
		"BASE_URL": "https://127.0.0.1:8443", "HTTP_URL": "http://127.0.0.1:8080", "CONSOLE_URL": "https://127.0.0.1:8443/",
		"CA_CERT": filepath.Join(s.tls, "ca.crt"), "REDIS_URL": "redis://127.0.0.1:6379/0",
		"DEMO_PASSWORD": "demo-x", "DEMO_FREE_EMAIL": "demo-free@bizassist.local",
		"DEMO_GROWTH_EMAIL": "demo-growth@bizassist.local", "DEMO_FULL_STACK_EMAIL": "demo-fullstack@bizassist.local",
		"ADMIN_SECRET": "adm", "STRIPE_WEBHOOK_SECRET": "whsec_y", "BENCH_SOURCE_IP": "127.0.0.9",
		"SERVICES_RUNNING": "svc quiet", "SERVICES_ABSENT": "later", "REPLICAS": "1",
		"EXT_SECRET": "first", "RUN": "first",
	}, env)
	raw := readLog(t, filepath.Join(s.dir, "env"))
	require.True(t, strings.HasPrefix(raw, "# Written by make up; source it: set -a; . .devstack/env; set +a\nBASE_URL='https://127.0.0.1:8443'\n"), raw)

	// A later run that prints a new value replaces the old one; one that prints nothing keeps it.
	svc.env.set(sourceLocal, map[string]string{"NEXT": "second"})
	require.NoError(t, s.seed(ctx, p, secrets))
	env, err = devenv.Load(filepath.Join(s.dir, "env"))
	require.NoError(t, err)
	require.Equal(t, "second", env["EXT_SECRET"])
	require.NoError(t, os.WriteFile(filepath.Join(s.root, "services", "svc", "dev-seed.sh"), []byte("true\n"), 0o644))
	require.NoError(t, s.seed(ctx, p, secrets))
	env, err = devenv.Load(filepath.Join(s.dir, "env"))
	require.NoError(t, err)
	require.Equal(t, "second", env["EXT_SECRET"])
	stateLines, err := readKV(filepath.Join(s.state, "seed.env"))
	require.NoError(t, err)
	require.Equal(t, []kv{{"EXT_SECRET", "second"}, {"RUN", "second"}}, stateLines)

	// A failing seed stops make up with its log's tail.
	require.NoError(t, os.WriteFile(filepath.Join(s.root, "services", "svc", "dev-seed.sh"), []byte("echo broken >&2; exit 1\n"), 0o644))
	out.Reset()
	err = s.seed(ctx, p, secrets)
	require.EqualError(t, err, "services/svc/dev-seed.sh failed; see "+filepath.Join(s.logs, "svc-seed.log"))
	require.Equal(t, "==> seeding svc\n    | broken\n", out.String())
}

// up -dry-run on the real checkout: the plan, and nothing written.
func TestUpDryRun(t *testing.T) {
	ctx := t.Context()
	root, err := devenv.Root(".")
	require.NoError(t, err)
	var out bytes.Buffer
	s := newStack(root, &out, io.Discard)
	_, statErr := os.Stat(s.dir)
	require.NoError(t, s.up(ctx, upOptions{dryRun: true, skip: map[string]bool{"analytics": true}, path: "/usr/bin", home: "/home/dev"}))
	_, after := os.Stat(s.dir)
	require.Equal(t, os.IsNotExist(statErr), os.IsNotExist(after), "a dry run creates no .devstack")

	plan := out.String()
	for _, want := range []string{
		"    skipping analytics (DEVSTACK_SKIP)\n",
		"==> plan (dry run: nothing is built, stopped, started or written)\n",
		"==> identity on 127.0.0.1:8081: migrate, serve, wait for /readyz, seed services/identity/dev-seed.sh\n",
		"==> leads on 127.0.0.1:8082: migrate, helper dns ($DEVSTACK_BIN/leads dns-serve), serve, wait for /readyz, seed services/leads/dev-seed.sh\n",
		"    chart peer     ANALYTICS_URL=http://127.0.0.1:8084\n",
		"    secret         AGENT_ADMIN_SECRET=<generated>\n",
		"    dev.env        INTEGRATIONS_DEV_MODE=true\n",
		"    chart env      DATABASE_MAX_CONNS=20\n",
		"==> not running (no services/<svc>/cmd yet, or DEVSTACK_SKIP), their routes answer 503: analytics\n",
	} {
		require.Contains(t, plan, want)
	}
	require.NotRegexp(t, regexp.MustCompile(`[0-9a-f]{48}`), plan, "no real secret is printed")
}

func TestDatabaseSQL(t *testing.T) {
	sql := databaseSQL([]string{"identity", "leads"})
	require.Equal(t, `REVOKE ALL ON DATABASE bizassist FROM PUBLIC;
REVOKE CREATE ON SCHEMA public FROM PUBLIC;
DO $$ BEGIN
  IF NOT EXISTS (SELECT FROM pg_roles WHERE rolname = 'identity') THEN CREATE ROLE "identity" LOGIN; END IF;
END $$;
GRANT CONNECT, CREATE ON DATABASE bizassist TO "identity";
CREATE SCHEMA IF NOT EXISTS "identity" AUTHORIZATION "identity";
DO $$ BEGIN
  IF NOT EXISTS (SELECT FROM pg_roles WHERE rolname = 'leads') THEN CREATE ROLE "leads" LOGIN; END IF;
END $$;
GRANT CONNECT, CREATE ON DATABASE bizassist TO "leads";
CREATE SCHEMA IF NOT EXISTS "leads" AUTHORIZATION "leads";
`, sql)
}

// The ingress config is the route table of the real values file through the embedded template.
func TestRenderNginx(t *testing.T) {
	c := loadRepoChart(t)
	s := newStack("/x", io.Discard, io.Discard)
	conf, err := s.renderNginx(c, false)
	require.NoError(t, err)
	require.Contains(t, string(conf), "pid /x/.devstack/nginx/run/nginx.pid;")
	require.Contains(t, string(conf), "ssl_certificate /x/.devstack/tls/server.crt;")
	require.Contains(t, string(conf), "upstream leads {\n        server 127.0.0.1:8082 max_fails=0;")
	require.Contains(t, string(conf), "location = /api/lead-finder {\n            proxy_pass http://leads;")
	require.NotContains(t, string(conf), "[::1]")
	withV6, err := s.renderNginx(c, true)
	require.NoError(t, err)
	require.Contains(t, string(withV6), "listen [::1]:8443 ssl http2 default_server;")
}

// Services come from the port table: the start order first, then the others by name.
func TestServiceNames(t *testing.T) {
	c := &chart{}
	c.routes.LocalPorts = map[string]int{"zeta": 1, "leads": 2, "identity": 3, "alpha": 4}
	require.Equal(t, []string{"identity", "leads", "alpha", "zeta"}, c.serviceNames())
}

// deps.sh and tls.sh read the stack's addresses from lib.sh: they are this program's.
func TestLibShAgreesWithTheTool(t *testing.T) {
	lib, err := os.ReadFile("lib.sh")
	require.NoError(t, err)
	m := map[string]string{}
	for _, match := range regexp.MustCompile(`(?m)^([A-Z_]+)=(.*)$`).FindAllStringSubmatch(string(lib), -1) {
		m[match[1]] = match[2]
	}
	require.Equal(t, pgHost, m["PG_HOST"])
	require.Equal(t, "${"+envPGPort+":-"+strconv.Itoa(defaultPGPort)+"}", m["PG_PORT"])
	require.Equal(t, dbName, m["DB_NAME"])
	require.Equal(t, redisHost, m["REDIS_HOST"])
	require.Equal(t, "${"+envRedisPort+":-"+strconv.Itoa(defaultRedisPort)+"}", m["REDIS_PORT"])
	require.Equal(t, `"$ROOT/.devstack"`, m["DEVSTACK_DIR"])
	require.Equal(t, `"$DEVSTACK_DIR/tls"`, m["TLS_DIR"])
}

// make up REPLICAS=2: each service's second process listens 100 ports up (its debug port too),
// both drain for a second on SIGTERM, they share one process's connection pool, and the ingress balances over both and retries a
// connection error on the other.
func TestReplicas(t *testing.T) {
	c := loadRepoChart(t)
	s := newStack("/x", io.Discard, io.Discard)
	svc, err := s.planService(c, "leads", map[string]string{}, upOptions{replicas: 2})
	require.NoError(t, err)
	rs := svc.replicaList()
	require.Len(t, rs, 2)
	require.Equal(t, []string{"leads", "leads.2"}, []string{rs[0].name("leads"), rs[1].name("leads")})
	require.Equal(t, "127.0.0.1:8082", rs[0].env["HTTP_ADDR"].Value)
	require.Equal(t, "127.0.0.1:8182", rs[1].env["HTTP_ADDR"].Value)
	require.Equal(t, "127.0.0.1:9182", rs[1].env["DEBUG_ADDR"].Value)
	require.Equal(t, replicaDrainDelay, rs[1].env["HTTP_DRAIN_DELAY"].Value)
	require.Equal(t, rs[0].env["DATABASE_URL"], rs[1].env["DATABASE_URL"], "replicas share the database")
	one, err := s.planService(c, "leads", map[string]string{}, upOptions{replicas: 1})
	require.NoError(t, err)
	pool, err := strconv.Atoi(one.env["DATABASE_MAX_CONNS"].Value)
	require.NoError(t, err)
	for _, r := range rs {
		require.Equal(t, strconv.Itoa((pool+1)/2), r.env["DATABASE_MAX_CONNS"].Value, "and the pool of one")
	}

	c.routes.Replicas = 2
	conf, err := s.renderNginx(c, false)
	require.NoError(t, err)
	require.Contains(t, string(conf), "upstream leads {\n        server 127.0.0.1:8082 max_fails=0;\n        server 127.0.0.1:8182 max_fails=0;")
	require.Contains(t, string(conf), "proxy_next_upstream error timeout;")
}

// Every service is migrated first; then identity starts alone and is ready before any other
// service starts (they fetch its JWKS), whatever the plan's order.
func TestStartServicesIdentityFirst(t *testing.T) {
	ctx := t.Context()
	s, out := testStack(t, "identity", "svc")
	identity, svc := fakeService(s, "identity", freeTCPPort(t)), fakeService(s, "svc", freeTCPPort(t))
	p := &plan{running: []*service{svc, identity}}

	require.NoError(t, s.startServices(ctx, p, time.Minute))
	lines := regexp.MustCompile(`(?m)^.*(migrating|starting|is ready).*$`).FindAllString(out.String(), -1)
	require.Equal(t, []string{
		"==> migrating svc", "==> migrating identity",
		fmt.Sprintf("==> starting identity on 127.0.0.1:%d", identity.port), "    identity is ready",
		fmt.Sprintf("==> starting svc on 127.0.0.1:%d", svc.port), "    svc is ready",
	}, lines)
	require.Equal(t, "migrated\n", readLog(t, filepath.Join(s.logs, "svc-migrate.log")))
	require.FileExists(t, s.envFile("svc"), "migrate records the environment make restart reuses")
	s.stop(false)

	// An identity that never gets ready stops make up before anything else starts.
	out.Reset()
	identity.env.set(sourceLocal, map[string]string{"HTTP_ADDR": fmt.Sprintf("127.0.0.1:%d", freeTCPPort(t))})
	err := s.startServices(ctx, p, time.Second)
	require.ErrorContains(t, err, "identity did not report ready")
	require.NotContains(t, out.String(), "starting svc")
	_, running := pidfileAlive(s.pidfile("svc"))
	require.False(t, running)
}

// A build error must leave the old stack running, so the new binaries go to their own
// directory, emptied first; the swap then replaces bin whole and leaves no .old or .new behind.
func TestBuildAndSwapBin(t *testing.T) {
	ctx := t.Context()
	s, out := testStack(t)
	newBin := s.bin + ".new"
	require.NoError(t, os.MkdirAll(newBin, 0o755))
	require.NoError(t, os.WriteFile(filepath.Join(newBin, "stale"), nil, 0o755))
	require.NoError(t, s.build(ctx, newBin, nil))
	entries, err := os.ReadDir(newBin)
	require.NoError(t, err)
	require.Empty(t, entries, "no binary of an earlier build survives")
	require.Empty(t, out.String(), "nothing to build, nothing said")

	require.NoError(t, os.WriteFile(filepath.Join(s.bin, "old"), nil, 0o755))
	require.NoError(t, os.WriteFile(filepath.Join(newBin, "new"), nil, 0o755))
	require.NoError(t, os.WriteFile(s.bin+".old", nil, 0o644)) // left by an interrupted run
	require.NoError(t, s.swapBin(newBin))
	require.FileExists(t, filepath.Join(s.bin, "new"))
	require.NoFileExists(t, filepath.Join(s.bin, "old"))
	require.NoFileExists(t, s.bin+".old")
	require.NoDirExists(t, newBin)

	// The first run has no bin yet.
	require.NoError(t, os.RemoveAll(s.bin))
	require.NoError(t, os.MkdirAll(newBin, 0o755))
	require.NoError(t, s.swapBin(newBin))
	require.DirExists(t, s.bin)
}

func TestSplitIdentity(t *testing.T) {
	a, id, b := &service{name: "leads"}, &service{name: "identity"}, &service{name: "console"}
	first, rest := splitIdentity([]*service{a, id, b})
	require.Equal(t, []*service{id}, first)
	require.Equal(t, []*service{a, b}, rest, "the plan's order")
	first, rest = splitIdentity([]*service{a})
	require.Empty(t, first)
	require.Equal(t, []*service{a}, rest)
}
