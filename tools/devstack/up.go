package main

import (
	"context"
	"crypto/rand"
	"encoding/base64"
	"encoding/hex"
	"errors"
	"fmt"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"time"

	"github.com/bizassist/bizassist/tools/routegen"
)

// upOptions are make up's knobs, from the command line and the environment.
type upOptions struct {
	dryRun       bool
	skip         map[string]bool // DEVSTACK_SKIP: services left out on purpose
	readyTimeout time.Duration   // DEVSTACK_READY_TIMEOUT, per service
	replicas     int             // DEVSTACK_REPLICAS: processes per service behind the ingress
	path, home   string          // passed on to every process
	shape        shape
	monitoring   monitoringOptions
}

// service is one service of the stack as make up plans it.
type service struct {
	name     string
	port     int
	env      serviceEnv
	helpers  []helper // services/<svc>/dev-procs
	seed     string   // services/<svc>/dev-seed.sh, relative to the checkout; empty without one
	replicas int      // processes behind the ingress, the first on port (routegen.ReplicaPort)
}

// replicaDrainDelay is HTTP_DRAIN_DELAY with several replicas: long enough for the ingress's
// pooled connections to a stopping replica to each carry one more response with Connection:
// close, so a rolling restart fails no request (one replica has no other to take over anyway).
const replicaDrainDelay = "1s"

// replica is one process of a service: its number (1 is the first), port and environment.
type replica struct {
	n    int
	port int
	env  serviceEnv
}

// replicaList lists svc's processes: the first with svc's environment, the others with their own
// HTTP and debug ports.
func (svc *service) replicaList() []replica {
	out := make([]replica, max(svc.replicas, 1))
	for i := range out {
		port := routegen.ReplicaPort(svc.port, i)
		env := serviceEnv{}
		for k, v := range svc.env {
			env[k] = v
		}
		if i > 0 {
			env.set(sourceReplica, map[string]string{
				"HTTP_ADDR":  fmt.Sprintf("127.0.0.1:%d", port),
				"DEBUG_ADDR": fmt.Sprintf("127.0.0.1:%d", port+debugPortOffset),
			})
		}
		out[i] = replica{n: i + 1, port: port, env: env}
	}
	return out
}

// name is how the stack's output, pid file and log call the replica: the service's name for the
// first, <svc>.<n> for the others.
func (r replica) name(svc string) string {
	if r.n == 1 {
		return svc
	}
	return fmt.Sprintf("%s.%d", svc, r.n)
}

// helper is one `name: command` line of services/<svc>/dev-procs, run with bash before the service.
type helper struct{ name, command string }

// plan is what make up is about to do, worked out before anything is stopped.
type plan struct {
	running    []*service
	absent     []string // services with a port but nothing built
	shape      shape
	monitoring bool // Prometheus and Alertmanager beside the services
}

// replicas is how many processes each service runs.
func (p *plan) replicas() int {
	if len(p.running) == 0 {
		return 1
	}
	return max(p.running[0].replicas, 1)
}

func (p *plan) runningNames() []string {
	out := make([]string, len(p.running))
	for i, svc := range p.running {
		out[i] = svc.name
	}
	return out
}

// up is make up: builds, (re)starts and seeds the stack; safe to run again at any time. Each
// phase below is one method, in the order that keeps the old stack running as long as possible.
func (s *stack) up(ctx context.Context, opt upOptions) error {
	started := time.Now()
	c, err := loadChart(s.root)
	if err != nil {
		return err
	}
	present, err := s.presentServices(opt.skip)
	if err != nil {
		return err
	}
	if opt.dryRun {
		return s.printPlan(c, present, opt)
	}
	release, err := s.lockStack()
	if err != nil {
		return err
	}
	defer release()

	secrets, err := s.prepareHost(ctx, c)
	if err != nil {
		return err
	}
	p, err := s.makePlan(c, present, secrets, opt)
	if err != nil {
		return err
	}
	var monitoringBins string
	if opt.monitoring.on {
		if monitoringBins, err = s.prepareMonitoring(ctx, p, opt.monitoring); err != nil {
			return err
		}
	}
	if err := s.buildAndSwap(ctx, p, present); err != nil {
		return err
	}
	c.routes.Replicas = opt.replicas
	// Every process starts anew, in the ingress: a drain's marker does not outlive it.
	for _, m := range s.unroutedMarkers() {
		_ = os.Remove(m)
	}
	if err := s.ingress(ctx, c); err != nil {
		return err
	}
	if err := s.startServices(ctx, p, opt.readyTimeout); err != nil {
		return err
	}
	if opt.monitoring.on {
		if err := s.startMonitoring(ctx, monitoringBins); err != nil {
			return err
		}
	}
	if err := s.seed(ctx, p, secrets); err != nil {
		return err
	}
	s.sayUp(p, secrets, started)
	return nil
}

// lockStack makes .devstack's directories and takes its lock, so two make up/make down never
// work on one stack at once.
func (s *stack) lockStack() (release func(), err error) {
	for _, d := range []string{s.dir, s.run, s.logs, s.state} {
		if err := os.MkdirAll(d, 0o755); err != nil {
			return nil, err
		}
	}
	return s.lock(0)
}

// prepareHost brings what the services need but do not own (packages, TLS, secrets, the database
// and its roles) to the state the plan assumes; the old stack keeps running meanwhile.
func (s *stack) prepareHost(ctx context.Context, c *chart) (map[string]string, error) {
	if err := s.script(ctx, "deps.sh"); err != nil {
		return nil, err
	}
	if err := s.script(ctx, "tls.sh"); err != nil {
		return nil, err
	}
	secrets, err := s.ensureSecrets()
	if err != nil {
		return nil, err
	}
	if err := s.prepareDatabase(ctx, c.serviceNames()); err != nil {
		return nil, err
	}
	// The database keeps the key its secrets were sealed with; a new .devstack takes it.
	if secrets["ENCRYPTION_KEYS"], err = s.databaseEncryptionKeys(ctx, secrets["ENCRYPTION_KEYS"]); err != nil {
		return nil, err
	}
	return secrets, nil
}

// buildAndSwap builds into bin.new while the old binaries still run, so a build error leaves the
// old stack up; only then does it stop the old stack and put the new binaries in place.
func (s *stack) buildAndSwap(ctx context.Context, p *plan, present []string) error {
	newBin := s.bin + ".new"
	if err := s.build(ctx, newBin, present); err != nil {
		return err
	}
	p.keepBuilt(newBin)
	s.stop(false)
	return s.swapBin(newBin)
}

// build compiles the present services into dir, emptied first so no stale binary survives.
func (s *stack) build(ctx context.Context, dir string, present []string) error {
	if err := os.RemoveAll(dir); err != nil {
		return err
	}
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return err
	}
	if len(present) == 0 {
		return nil
	}
	s.say("building %s", strings.Join(present, " "))
	pkgs := make([]string, len(present))
	for i, svc := range present {
		pkgs[i] = "./services/" + svc + "/cmd/" + svc
	}
	if err := s.command(ctx, nil, "go", append([]string{"build", "-o", dir + "/"}, pkgs...)...).Run(); err != nil {
		return fmt.Errorf("go build failed: %w", err)
	}
	return nil
}

// swapBin replaces bin with newBin by renames, keeping the old one as bin.old until the new one is
// in place (the stack is stopped, so nothing runs from either).
func (s *stack) swapBin(newBin string) error {
	old := s.bin + ".old"
	if err := os.RemoveAll(old); err != nil {
		return err
	}
	if _, err := os.Stat(s.bin); err == nil {
		if err := os.Rename(s.bin, old); err != nil {
			return err
		}
	}
	if err := os.Rename(newBin, s.bin); err != nil {
		return err
	}
	return os.RemoveAll(old)
}

// startServices migrates every service, then starts identity alone and waits for it (the others
// fetch its JWKS when they start), then starts the rest together and waits for each.
func (s *stack) startServices(ctx context.Context, p *plan, readyTimeout time.Duration) error {
	for _, svc := range p.running {
		if err := s.migrate(ctx, svc); err != nil {
			return err
		}
	}
	first, rest := splitIdentity(p.running)
	for _, group := range [][]*service{first, rest} {
		for _, svc := range group {
			if err := s.startService(ctx, svc); err != nil {
				return err
			}
		}
		for _, svc := range group {
			if err := s.waitService(ctx, svc, readyTimeout); err != nil {
				return err
			}
		}
	}
	return nil
}

// splitIdentity separates identity, which every other service needs running, from the rest,
// keeping the plan's order in each.
func splitIdentity(services []*service) (identity, rest []*service) {
	for _, svc := range services {
		if svc.name == "identity" {
			identity = append(identity, svc)
		} else {
			rest = append(rest, svc)
		}
	}
	return identity, rest
}

// sayUp tells the developer what runs and how to reach it.
func (s *stack) sayUp(p *plan, secrets map[string]string, started time.Time) {
	fmt.Fprintln(s.out)
	if len(p.absent) > 0 {
		s.say("not running (no services/<svc>/cmd yet, or DEVSTACK_SKIP), their routes answer 503: %s", strings.Join(p.absent, " "))
	}
	list := strings.Join(p.runningNames(), " ")
	if list == "" {
		list = "none"
	}
	s.say("bizassist is up at https://127.0.0.1:%d (%ds; services: %s)", httpsPort, int(time.Since(started).Seconds()), list)
	s.note("console (the client dashboard): https://127.0.0.1:%d/  sign in as demo-growth@bizassist.local, password in DEMO_PASSWORD", httpsPort)
	s.note("settings: %s    logs: %s    stop: make down", filepath.Join(s.dir, "env"), s.logs)
	s.note("try: curl --cacert %s https://127.0.0.1:%d/api/auth \\", filepath.Join(s.tls, "ca.crt"), httpsPort)
	s.note("       -H 'Content-Type: application/json' \\")
	s.note(`       -d '{"email":"demo-growth@bizassist.local","password":"%s"}'`, secrets["DEMO_PASSWORD"])
}

// presentServices lists the services that exist as code: services/<svc>/cmd/<svc> with Go files,
// less those skipped.
func (s *stack) presentServices(skip map[string]bool) ([]string, error) {
	dirs, err := filepath.Glob(filepath.Join(s.root, "services", "*", "cmd", "*"))
	if err != nil {
		return nil, err
	}
	var out []string
	for _, dir := range dirs {
		svc := filepath.Base(dir)
		if filepath.Base(filepath.Dir(filepath.Dir(dir))) != svc {
			continue
		}
		if gos, _ := filepath.Glob(filepath.Join(dir, "*.go")); len(gos) == 0 {
			continue
		}
		if skip[svc] {
			s.note("skipping %s (DEVSTACK_SKIP)", svc)
			continue
		}
		out = append(out, svc)
	}
	return out, nil
}

// makePlan works out every service's environment, helpers and seed before anything is built or
// stopped: the services present as code run, the others with a port are absent.
func (s *stack) makePlan(c *chart, present []string, secrets map[string]string, opt upOptions) (*plan, error) {
	isPresent := map[string]bool{}
	for _, svc := range present {
		if _, ok := c.routes.LocalPorts[svc]; !ok {
			return nil, fmt.Errorf("services/%s has a cmd but no port in %s (ingress.localPorts)", svc, valuesFile)
		}
		isPresent[svc] = true
	}
	p := &plan{shape: opt.shape, monitoring: opt.monitoring.on}
	for _, name := range c.serviceNames() {
		if !isPresent[name] {
			p.absent = append(p.absent, name)
			continue
		}
		svc, err := s.planService(c, name, secrets, opt)
		if err != nil {
			return nil, err
		}
		p.running = append(p.running, svc)
	}
	return p, nil
}

// keepBuilt moves the services bin has no binary for to absent.
func (p *plan) keepBuilt(bin string) {
	var running []*service
	for _, svc := range p.running {
		if fi, err := os.Stat(filepath.Join(bin, svc.name)); err == nil && !fi.IsDir() {
			running = append(running, svc)
		} else {
			p.absent = append(p.absent, svc.name)
		}
	}
	p.running = running
}

func (s *stack) planService(c *chart, name string, secrets map[string]string, opt upOptions) (*service, error) {
	dir := filepath.Join(s.root, "services", name)
	devEnv, err := readKV(filepath.Join(dir, "dev.env"))
	if err != nil {
		return nil, err
	}
	env, err := c.localEnv(name, envInput{devEnv: devEnv, secrets: secrets, path: opt.path, home: opt.home, shape: opt.shape})
	if err != nil {
		return nil, err
	}
	helpers, err := readDevProcs(filepath.Join(dir, "dev-procs"))
	if err != nil {
		return nil, fmt.Errorf("services/%s/%w", name, err)
	}
	if opt.replicas > 1 {
		env.set(sourceReplica, replicaShare(env, opt.replicas))
	}
	svc := &service{name: name, port: c.routes.LocalPorts[name], env: env, helpers: helpers, replicas: max(opt.replicas, 1)}
	if _, err := os.Stat(filepath.Join(dir, "dev-seed.sh")); err == nil {
		svc.seed = filepath.Join("services", name, "dev-seed.sh")
	}
	return svc, nil
}

// replicaShare is what every replica of a service sets when it runs several: the drain delay,
// the rate limiter's share of each limit while Redis is away (as the charts set it from the
// replica count), and a share of the one-replica connection pool, since all replicas' pools meet
// at the machine's PostgreSQL (max_connections 100, which the charts' pools at REPLICAS=2 would
// pass under load).
func replicaShare(env serviceEnv, replicas int) map[string]string {
	vars := map[string]string{"HTTP_DRAIN_DELAY": replicaDrainDelay, "RATELIMIT_FALLBACK_REPLICAS": strconv.Itoa(replicas)}
	if n, err := strconv.Atoi(env["DATABASE_MAX_CONNS"].Value); err == nil {
		vars["DATABASE_MAX_CONNS"] = strconv.Itoa(max(2, (n+replicas-1)/replicas))
	}
	return vars
}

var helperNameRE = regexp.MustCompile(`^[A-Za-z0-9_-]+$`)

// readDevProcs reads `name: command` lines; the command is run by bash, so it may use the
// service's environment ($DEVSTACK_BIN/...).
func readDevProcs(path string) ([]helper, error) {
	lines, err := configLines(path)
	if err != nil {
		return nil, err
	}
	var out []helper
	for _, line := range lines {
		name, command, ok := strings.Cut(line, ":")
		if !ok || !helperNameRE.MatchString(name) {
			return nil, fmt.Errorf("dev-procs: want 'name: command', got: %s", line)
		}
		out = append(out, helper{name: name, command: command})
	}
	return out, nil
}

// printPlan is up -dry-run: the services, their ports, helpers, seeds and environments, with no
// build, no stop, no start and nothing written. Secrets show as <generated>.
func (s *stack) printPlan(c *chart, present []string, opt upOptions) error {
	fake := map[string]string{
		"DEMO_PASSWORD": "<generated>", "ADMIN_SECRET": "<generated>",
		"STRIPE_WEBHOOK_SECRET": "<generated>", "ENCRYPTION_KEYS": "local1:<generated>",
	}
	p, err := s.makePlan(c, present, fake, opt)
	if err != nil {
		return err
	}

	s.say("plan (dry run: nothing is built, stopped, started or written)")
	s.note("ingress: nginx on https://127.0.0.1:%d and http://127.0.0.1:%d, %d routes from %s", httpsPort, httpPort, len(c.routes.Routes), valuesFile)
	s.note("database: %s on %s:%d, one role and one schema per service; Redis %s", dbName, pgHost, pgPort, redisURL())
	s.note("state: %s", s.dir)
	for _, svc := range p.running {
		steps := []string{"migrate"}
		for _, h := range svc.helpers {
			steps = append(steps, fmt.Sprintf("helper %s (%s)", h.name, strings.TrimSpace(h.command)))
		}
		steps = append(steps, "serve", "wait for /readyz")
		if svc.seed != "" {
			steps = append(steps, "seed "+svc.seed)
		}
		var ports []string
		for _, r := range svc.replicaList() {
			ports = append(ports, fmt.Sprintf("127.0.0.1:%d", r.port))
		}
		s.say("%s on %s: %s", svc.name, strings.Join(ports, " and "), strings.Join(steps, ", "))
		for _, k := range svc.env.keys() {
			fmt.Fprintf(s.out, "    %-13s  %s=%s\n", svc.env[k].Source, k, svc.env[k].Value)
		}
	}
	if len(p.absent) > 0 {
		s.say("not running (no services/<svc>/cmd yet, or DEVSTACK_SKIP), their routes answer 503: %s", strings.Join(p.absent, " "))
	}
	if p.monitoring {
		s.say("monitoring: Prometheus on 127.0.0.1:%d scraping every process above every %s, the chart's rules (helm template); Alertmanager on 127.0.0.1:%d", prometheusPort, scrapeInterval, alertmanagerPort)
	}
	return nil
}

// ensureSecrets makes the stack's secrets once and returns them. The database may outlive
// .devstack (another clone, rm -rf .devstack): the seeds converge on these values, so new
// secrets and old data agree after the run.
func (s *stack) ensureSecrets() (map[string]string, error) {
	path := filepath.Join(s.state, "secrets.env")
	if fi, err := os.Stat(path); err != nil || fi.Size() == 0 {
		s.say("generating local secrets in %s", s.state)
		lines := []kv{
			{"DEMO_PASSWORD", "demo-" + randomHex(8)},
			{"ADMIN_SECRET", randomHex(24)},
			{"STRIPE_WEBHOOK_SECRET", "whsec_" + randomHex(24)},
		}
		if err := writeKV(path, lines, 0o600); err != nil {
			return nil, err
		}
		if err := os.Remove(filepath.Join(s.state, "seed.env")); err != nil && !os.IsNotExist(err) {
			return nil, err
		}
	}
	lines, err := readKV(path)
	if err != nil {
		return nil, err
	}
	// The key that seals secrets at rest (libs/sealbox); added on its own so older state keeps the rest.
	if _, ok := kvMap(lines)["ENCRYPTION_KEYS"]; !ok {
		key := make([]byte, 32)
		if _, err := rand.Read(key); err != nil {
			return nil, err
		}
		lines = append(lines, kv{"ENCRYPTION_KEYS", "local1:" + base64.StdEncoding.EncodeToString(key)})
		if err := writeKV(path, lines, 0o600); err != nil {
			return nil, err
		}
	}
	return kvMap(lines), nil
}

// databaseEncryptionKeys returns the key set that sealed this database's secrets, recording
// proposed (this checkout's) when the database has none yet. The key lives with the data it
// protects, not with the checkout: a second clone or a new .devstack on the same database must
// open what the first one sealed, which a key of its own could not. The devstack schema belongs
// to the superuser; no service role can read it. The state file is brought in line so that
// .devstack agrees with what the services get.
func (s *stack) databaseEncryptionKeys(ctx context.Context, proposed string) (string, error) {
	const sql = `CREATE SCHEMA IF NOT EXISTS devstack;
REVOKE ALL ON SCHEMA devstack FROM PUBLIC;
CREATE TABLE IF NOT EXISTS devstack.settings (name text PRIMARY KEY, value text NOT NULL);
INSERT INTO devstack.settings (name, value) VALUES ('ENCRYPTION_KEYS', :'proposed') ON CONFLICT (name) DO NOTHING;
SELECT value FROM devstack.settings WHERE name = 'ENCRYPTION_KEYS';
`
	out, err := s.psqlAdmin(ctx, sql, "-d", dbName, "-At", "-v", "proposed="+proposed, "-f", "-")
	if err != nil {
		return "", err
	}
	keys := strings.TrimSpace(out)
	if keys == "" {
		return "", errors.New("devstack.settings holds no ENCRYPTION_KEYS")
	}
	if keys != proposed {
		path := filepath.Join(s.state, "secrets.env")
		lines, err := readKV(path)
		if err != nil {
			return "", err
		}
		for i := range lines {
			if lines[i].key == "ENCRYPTION_KEYS" {
				lines[i].value = keys
			}
		}
		if err := writeKV(path, lines, 0o600); err != nil {
			return "", err
		}
		s.note("using the encryption key recorded in database %s (it sealed the secrets stored there)", dbName)
	}
	return keys, nil
}

func randomHex(n int) string {
	b := make([]byte, n)
	if _, err := rand.Read(b); err != nil {
		panic(err) // crypto/rand does not fail on Linux
	}
	return hex.EncodeToString(b)
}

// script runs one of the shell steps next to this program (deps.sh, tls.sh).
func (s *stack) script(ctx context.Context, name string) error {
	cmd := s.command(ctx, nil, filepath.Join(s.root, "tools", "devstack", name))
	cmd.Stdin = os.Stdin // sudo may ask for a password
	if err := cmd.Run(); err != nil {
		return fmt.Errorf("tools/devstack/%s failed: %w", name, err)
	}
	return nil
}

// command prepares a command in the checkout with env (nil: this process's environment) and
// this process's output. Under make, s.out and s.errOut are the terminal's files, passed on as
// they are: a daemon the command starts (nginx, redis-server) may keep them open, which a pipe
// would turn into a Wait that never returns.
func (s *stack) command(ctx context.Context, env []string, name string, args ...string) *exec.Cmd {
	cmd := exec.CommandContext(ctx, name, args...)
	cmd.Dir = s.root
	cmd.Env = env
	cmd.Stdout, cmd.Stderr = s.out, s.errOut
	return cmd
}

func (s *stack) envFile(svc string) string { return filepath.Join(s.run, svc+".env") }

// migrate writes the service's environment to run/<svc>.env (for people and bench-seed.sh) and
// runs `<svc> migrate` with it.
func (s *stack) migrate(ctx context.Context, svc *service) error {
	if err := writeFileAtomic(s.envFile(svc.name), []byte(strings.Join(svc.env.environ(), "\n")+"\n"), 0o600); err != nil {
		return err
	}
	s.say("migrating %s", svc.name)
	log := filepath.Join(s.logs, svc.name+"-migrate.log")
	if err := s.runLogged(ctx, log, svc.env.environ(), filepath.Join(s.bin, svc.name), "migrate"); err != nil {
		s.tail(log, 20)
		return fmt.Errorf("migrating %s failed; see %s", svc.name, log)
	}
	return nil
}

// runLogged runs a command to completion with exactly env, its output to log.
func (s *stack) runLogged(ctx context.Context, log string, env []string, name string, args ...string) error {
	f, err := os.OpenFile(log, os.O_CREATE|os.O_WRONLY|os.O_TRUNC, 0o644)
	if err != nil {
		return err
	}
	defer f.Close()
	cmd := exec.CommandContext(ctx, name, args...)
	cmd.Dir, cmd.Env = s.root, env
	cmd.Stdout, cmd.Stderr = f, f
	return cmd.Run()
}

// processEnv is what a service and its helpers run with: its environment and where the stack is.
func (s *stack) processEnv(env serviceEnv) []string {
	return append(env.environ(), "DEVSTACK_DIR="+s.dir, "DEVSTACK_BIN="+s.bin)
}

func (s *stack) pidfile(svc string) string { return filepath.Join(s.run, svc+".pid") }

func (s *stack) helperPidfile(svc, name string) string {
	return filepath.Join(s.run, svc+".proc."+name+".pid")
}

// startService starts the service's helpers, then each replica of the service, each in its own
// session.
func (s *stack) startService(ctx context.Context, svc *service) error {
	for _, r := range svc.replicaList() {
		if err := s.freePort(ctx, r.port, r.name(svc.name)); err != nil {
			return err
		}
	}
	env := s.processEnv(svc.env)
	for _, h := range svc.helpers {
		s.say("starting %s helper %s", svc.name, h.name)
		err := s.start(ctx, proc{
			pidfile: s.helperPidfile(svc.name, h.name),
			log:     filepath.Join(s.logs, svc.name+"-"+h.name+".log"),
			env:     env,
			args:    []string{"bash", "-c", "exec " + h.command},
		})
		if err != nil {
			return err
		}
	}
	for _, r := range svc.replicaList() {
		s.say("starting %s on 127.0.0.1:%d", r.name(svc.name), r.port)
		if r.n > 1 { // the first's is written by migrate
			if err := writeFileAtomic(s.envFile(r.name(svc.name)), []byte(strings.Join(r.env.environ(), "\n")+"\n"), 0o600); err != nil {
				return err
			}
		}
		err := s.start(ctx, proc{
			pidfile: s.pidfile(r.name(svc.name)),
			log:     filepath.Join(s.logs, r.name(svc.name)+".log"),
			env:     s.processEnv(r.env),
			args:    []string{filepath.Join(s.bin, svc.name), "serve"},
		})
		if err != nil {
			return err
		}
	}
	return nil
}

var (
	errExited   = errors.New("exited")
	errNotReady = errors.New("not ready")
)

// waitService waits for every replica's /readyz, and fails at once when one of them or a helper
// exits.
func (s *stack) waitService(ctx context.Context, svc *service, timeout time.Duration) error {
	for _, r := range svc.replicaList() {
		name := r.name(svc.name)
		pidfiles := []string{s.pidfile(name)}
		for _, h := range svc.helpers {
			pidfiles = append(pidfiles, s.helperPidfile(svc.name, h.name))
		}
		url := fmt.Sprintf("http://127.0.0.1:%d/readyz", r.port)
		err := s.waitReady(ctx, url, pidfiles, timeout)
		if err == nil {
			s.note("%s is ready", name)
			continue
		}
		s.tail(filepath.Join(s.logs, name+".log"), 20)
		if errors.Is(err, errExited) {
			return fmt.Errorf("%s (or one of its dev-procs helpers) exited; see %s*.log", name, filepath.Join(s.logs, svc.name))
		}
		return fmt.Errorf("%s did not report ready on %s within %ds; see %s", name, url, int(timeout.Seconds()), filepath.Join(s.logs, name+".log"))
	}
	return nil
}

// waitReady polls url until it answers with a status below 400, for at most timeout. It returns
// errExited as soon as a process recorded in pidfiles no longer runs.
func (s *stack) waitReady(ctx context.Context, url string, pidfiles []string, timeout time.Duration) error {
	client := &http.Client{
		Timeout: 2 * time.Second,
		// Like curl -f without -L: a redirect is an answer.
		CheckRedirect: func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse },
	}
	deadline := time.Now().Add(timeout)
	for {
		for _, f := range pidfiles {
			if _, ok := pidfileAlive(f); !ok {
				return errExited
			}
		}
		if ready(ctx, client, url) {
			return nil
		}
		if !time.Now().Before(deadline) {
			return errNotReady
		}
		time.Sleep(s.poll)
	}
}

func ready(ctx context.Context, client *http.Client, url string) bool {
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, url, nil)
	if err != nil {
		return false
	}
	resp, err := client.Do(req)
	if err != nil {
		return false
	}
	resp.Body.Close()
	return resp.StatusCode < 400
}

// stackEnv is .devstack/env's content: the stack's settings, then what the seeds reported.
func (s *stack) stackEnv(p *plan, secrets map[string]string) ([]kv, error) {
	lines := []kv{
		{"BASE_URL", fmt.Sprintf("https://127.0.0.1:%d", httpsPort)},
		{"HTTP_URL", fmt.Sprintf("http://127.0.0.1:%d", httpPort)},
		{"CONSOLE_URL", fmt.Sprintf("https://127.0.0.1:%d/", httpsPort)},
		{"CA_CERT", filepath.Join(s.tls, "ca.crt")},
		{"REDIS_URL", redisURL()},
		{"DEMO_PASSWORD", secrets["DEMO_PASSWORD"]},
		{"DEMO_FREE_EMAIL", "demo-free@bizassist.local"},
		{"DEMO_GROWTH_EMAIL", "demo-growth@bizassist.local"},
		{"DEMO_FULL_STACK_EMAIL", "demo-fullstack@bizassist.local"},
		{"ADMIN_SECRET", secrets["ADMIN_SECRET"]},
		{"STRIPE_WEBHOOK_SECRET", secrets["STRIPE_WEBHOOK_SECRET"]},
		{"BENCH_SOURCE_IP", benchExemptIP},
		{"SERVICES_RUNNING", strings.Join(p.runningNames(), " ")},
		{"SERVICES_ABSENT", strings.Join(p.absent, " ")},
		{"REPLICAS", strconv.Itoa(p.replicas())},
	}
	lines = append(lines, p.shape.stackEnv()...)
	if p.monitoring {
		lines = append(lines, kv{"PROMETHEUS_URL", fmt.Sprintf("http://127.0.0.1:%d", prometheusPort)},
			kv{"ALERTMANAGER_URL", fmt.Sprintf("http://127.0.0.1:%d", alertmanagerPort)})
	}
	seeded, err := readKV(filepath.Join(s.state, "seed.env"))
	if err != nil {
		return nil, err
	}
	return append(lines, seeded...), nil
}

// writeEnv writes the stack's settings twice: run/stack.env literally (for the seeds'
// environment) and .devstack/env shell-quoted (for people and tests).
func (s *stack) writeEnv(lines []kv) error {
	if err := writeKV(filepath.Join(s.run, "stack.env"), lines, 0o600); err != nil {
		return err
	}
	var b strings.Builder
	b.WriteString("# Written by make up; source it: set -a; . .devstack/env; set +a\n")
	for _, p := range lines {
		b.WriteString(p.key + "=" + shellQuote(p.value) + "\n")
	}
	return writeFileAtomic(filepath.Join(s.dir, "env"), []byte(b.String()), 0o600)
}

// shellQuote single-quotes v for sh.
func shellQuote(v string) string {
	return "'" + strings.ReplaceAll(v, "'", `'\''`) + "'"
}

// seed writes .devstack/env, then runs each services/<svc>/dev-seed.sh with it, the service's
// environment and DEVSTACK_ENV_OUT, a file whose KEY=value lines are kept in state/seed.env (so a
// value printed only once survives later runs) and merged into .devstack/env.
func (s *stack) seed(ctx context.Context, p *plan, secrets map[string]string) error {
	lines, err := s.stackEnv(p, secrets)
	if err != nil {
		return err
	}
	if err := s.writeEnv(lines); err != nil {
		return err
	}
	for _, svc := range p.running {
		if svc.seed == "" {
			continue
		}
		s.say("seeding %s", svc.name)
		out := filepath.Join(s.run, svc.name+".seed.out")
		if err := os.WriteFile(out, nil, 0o600); err != nil {
			return err
		}
		env := make([]string, 0, len(lines)+len(svc.env)+3)
		for _, p := range lines {
			env = append(env, p.key+"="+p.value)
		}
		env = append(append(env, s.processEnv(svc.env)...), "DEVSTACK_ENV_OUT="+out)
		log := filepath.Join(s.logs, svc.name+"-seed.log")
		if err := s.runLogged(ctx, log, env, "bash", svc.seed); err != nil {
			s.tail(log, 20)
			return fmt.Errorf("%s failed; see %s", svc.seed, log)
		}
		if err := s.mergeSeedOutput(out); err != nil {
			return err
		}
		if lines, err = s.stackEnv(p, secrets); err != nil {
			return err
		}
		if err := s.writeEnv(lines); err != nil {
			return err
		}
	}
	return nil
}

// mergeSeedOutput folds a seed's KEY=value lines into state/seed.env, newer values winning.
func (s *stack) mergeSeedOutput(out string) error {
	path := filepath.Join(s.state, "seed.env")
	old, err := readKV(path)
	if err != nil {
		return err
	}
	add, err := readKV(out)
	if err != nil {
		return err
	}
	return writeKV(path, mergeKV(old, add), 0o600)
}
