package main

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"time"

	"github.com/bizassist/bizassist/tools/internal/devenv"
	"github.com/bizassist/bizassist/tools/internal/webhook"
)

// Where the rate-limited clients dial from: not the bench address, which the per-IP limit
// exempts, nor one of the e2e suites'. clientSourceIP is the load's; overLimitSourceIP the quiet
// run's client that goes over its limit.
const (
	clientSourceIP    = "127.0.0.31"
	overLimitSourceIP = "127.0.0.32"
)

// suite is one run: the checkout, the private instances, the stack's client and the receiver.
type suite struct {
	root, dir string // the checkout; root/.devstack/faults
	runID     string
	pg        *privatePG
	redis     *privateRedis
	c         *stackClient
	hooks     *hooks
	receiver  *webhook.Receiver
	// mon watches the stack's Prometheus (make up MONITORING=1) for the whole run; full is the
	// full-stack demo account's API, for the normal mix of requests.
	extraEnv    []string // what make up gets besides the instances' ports
	mon         *monitor
	stopWatch   context.CancelFunc
	closeAlerts func()
	full        webhook.API
	// overLimitClient is the growth account from overLimitSourceIP.
	overLimitClient webhook.API
	// growthEmail and password sign the growth demo account in (the overload row's sign-in).
	growthEmail, password string
	started               time.Time
}

func newSuite(pgPort, redisPort int) (*suite, error) {
	root, err := devenv.Root(".")
	if err != nil {
		return nil, err
	}
	bin, err := pgBin()
	if err != nil {
		return nil, err
	}
	dir := filepath.Join(root, ".devstack", "faults")
	return &suite{
		root: root, dir: dir,
		pg:    &privatePG{bin: bin, dir: filepath.Join(dir, "pg"), log: filepath.Join(dir, "pg.log"), port: pgPort},
		redis: &privateRedis{dir: filepath.Join(dir, "redis"), port: redisPort},
		hooks: newHooks(),
	}, nil
}

func (s *suite) say(format string, args ...any)  { fmt.Printf("==> "+format+"\n", args...) }
func (s *suite) note(format string, args ...any) { fmt.Printf("    "+format+"\n", args...) }

// stackEnv is the environment that points the stack's tools at the private instances.
func (s *suite) stackEnv() []string {
	env := append(os.Environ(), "DEVSTACK_PG_PORT="+strconv.Itoa(s.pg.port), "DEVSTACK_REDIS_PORT="+strconv.Itoa(s.redis.port))
	return append(env, s.extraEnv...)
}

// start makes fresh private instances, runs make up REPLICAS=2 on them, signs in as the growth
// demo account and subscribes the receiver for new_lead.
func (s *suite) start(ctx context.Context) error {
	// Prometheus starts empty too: alerts and windows see only this run.
	for _, dir := range []string{s.dir, filepath.Join(s.root, ".devstack", "monitoring")} {
		if err := os.RemoveAll(dir); err != nil {
			return err
		}
	}
	s.say("private PostgreSQL on 127.0.0.1:%d and Redis on 127.0.0.1:%d (%s)", s.pg.port, s.redis.port, s.dir)
	if err := s.pg.create(ctx); err != nil {
		return err
	}
	if err := s.pg.start(ctx); err != nil {
		return err
	}
	if err := s.redis.start(ctx); err != nil {
		return err
	}
	s.mon = newMonitor()
	alertURL, closeAlerts, err := s.mon.serveReceiver()
	if err != nil {
		return err
	}
	s.closeAlerts = closeAlerts
	s.say("make up REPLICAS=2 MONITORING=1 on them, Alertmanager to %s, %s after %s (log: %s)", alertURL, firedAlert, firedAlertFor, filepath.Join(s.dir, "up.log"))
	s.extraEnv = []string{"DEVSTACK_ALERT_WEBHOOK=" + alertURL, "DEVSTACK_ALERT_FOR=" + firedAlert + "=" + firedAlertFor}
	if err := s.make(ctx, "up.log", "up", "REPLICAS=2", "MONITORING=1"); err != nil {
		return err
	}
	s.started = time.Now()
	env, err := devenv.Load(filepath.Join(s.root, ".devstack", "env"))
	if err != nil {
		return err
	}
	if err := s.mon.connect(env["PROMETHEUS_URL"]); err != nil {
		return err
	}
	wctx, stopWatch := context.WithCancel(context.WithoutCancel(ctx))
	s.stopWatch = stopWatch
	go s.mon.watch(wctx)
	// The bench source address is exempt from the per-IP API limit, so the load is never 429.
	tr, err := devenv.Transport(env["CA_CERT"], env["BENCH_SOURCE_IP"])
	if err != nil {
		return err
	}
	hc := &http.Client{Transport: tr, Timeout: 15 * time.Second}
	s.growthEmail, s.password = env["DEMO_GROWTH_EMAIL"], env["DEMO_PASSWORD"]
	token, err := login(ctx, hc, env["BASE_URL"], s.growthEmail, s.password)
	if err != nil {
		return err
	}
	s.c = &stackClient{hc: hc, base: env["BASE_URL"], extSecret: env["EXT_SECRET"], runID: s.runID,
		api: webhook.API{HC: hc, Base: env["BASE_URL"], Token: token}}
	for ip, api := range map[string]*webhook.API{clientSourceIP: &s.c.client, overLimitSourceIP: &s.overLimitClient} {
		tr, err := devenv.Transport(env["CA_CERT"], ip)
		if err != nil {
			return err
		}
		*api = webhook.API{HC: &http.Client{Transport: tr, Timeout: 15 * time.Second}, Base: env["BASE_URL"], Token: token}
	}
	fullToken, err := login(ctx, hc, env["BASE_URL"], env["DEMO_FULL_STACK_EMAIL"], env["DEMO_PASSWORD"])
	if err != nil {
		return err
	}
	s.full = webhook.API{HC: hc, Base: env["BASE_URL"], Token: fullToken}
	if s.receiver, err = webhook.NewReceiver("127.0.0.1:0", s.hooks.handle); err != nil {
		return err
	}
	_, err = s.c.api.Subscribe(ctx, s.receiver, "new_lead")
	return err
}

// make runs a make target in the checkout with the private instances' ports, output to a log;
// on failure the log's tail is printed.
func (s *suite) make(ctx context.Context, log string, args ...string) error {
	f, err := os.Create(filepath.Join(s.dir, log))
	if err != nil {
		return err
	}
	defer f.Close()
	cmd := exec.CommandContext(ctx, "make", append([]string{"--no-print-directory", "-C", s.root}, args...)...)
	cmd.Env, cmd.Stdout, cmd.Stderr = s.stackEnv(), f, f
	if err := cmd.Run(); err != nil {
		tail(f.Name(), 25)
		return fmt.Errorf("make %s: %w (see %s)", strings.Join(args, " "), err, f.Name())
	}
	return nil
}

// restart restarts one process of the stack (make restart SVC=name) and waits for it.
func (s *suite) restart(ctx context.Context, name string) error {
	return s.make(ctx, "restart-"+name+".log", "restart", "SVC="+name)
}

// cleanup stops the stack and the private instances and removes their data, whatever happened.
func (s *suite) cleanup() {
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	s.say("stopping the stack (make down) and the private PostgreSQL and Redis")
	if s.receiver != nil {
		_ = s.receiver.Close()
	}
	if s.stopWatch != nil {
		s.stopWatch()
	}
	if s.closeAlerts != nil {
		s.closeAlerts()
	}
	if err := s.make(ctx, "down.log", "down"); err != nil {
		fmt.Fprintf(os.Stderr, "faults: %v\n", err)
	}
	if s.pg.running(ctx) {
		if err := s.pg.stop(ctx); err != nil {
			fmt.Fprintf(os.Stderr, "faults: %v\n", err)
		}
	}
	if err := s.redis.stop(ctx); err != nil {
		fmt.Fprintf(os.Stderr, "faults: %v\n", err)
	}
	_ = os.RemoveAll(s.pg.dir)
	_ = os.RemoveAll(s.redis.dir)
}

// pid is the running process of the stack named name (leads, leads.2), from its pid file.
func (s *suite) pid(name string) (int, error) {
	b, err := os.ReadFile(filepath.Join(s.root, ".devstack", "run", name+".pid"))
	if err != nil {
		return 0, err
	}
	var pid int
	if _, err := fmt.Sscanf(string(b), "%d", &pid); err != nil || pid <= 0 {
		return 0, fmt.Errorf("%s.pid: no pid", name)
	}
	return pid, nil
}

// signal sends sig to the named processes of the stack.
func (s *suite) signal(sig syscall.Signal, names ...string) error {
	for _, name := range names {
		pid, err := s.pid(name)
		if err != nil {
			return err
		}
		if err := syscall.Kill(pid, sig); err != nil {
			return fmt.Errorf("signal %s (pid %d): %w", name, pid, err)
		}
	}
	return nil
}

// sheetEmails lists this run's leads in the growth account's sheet (leads' schema).
func (s *suite) sheetEmails(ctx context.Context) (map[string]int, error) {
	out, err := s.pg.query(ctx, fmt.Sprintf("SELECT email FROM leads.sheet_leads WHERE email LIKE 'fault-%s-%%'", s.runID))
	if err != nil {
		return nil, err
	}
	got := map[string]int{}
	sc := bufio.NewScanner(strings.NewReader(out))
	for sc.Scan() {
		if e := strings.TrimSpace(sc.Text()); e != "" {
			got[e]++
		}
	}
	return got, nil
}

func login(ctx context.Context, hc *http.Client, base, email, password string) (string, error) {
	body, _ := json.Marshal(map[string]string{"email": email, "password": password})
	req, err := http.NewRequestWithContext(ctx, http.MethodPost, base+"/api/auth", bytes.NewReader(body))
	if err != nil {
		return "", err
	}
	req.Header.Set("Content-Type", "application/json")
	resp, err := hc.Do(req)
	if err != nil {
		return "", err
	}
	defer resp.Body.Close()
	var out struct {
		Token string `json:"token"`
	}
	if err := json.NewDecoder(resp.Body).Decode(&out); err != nil || out.Token == "" {
		return "", fmt.Errorf("sign in as %s: status %d", email, resp.StatusCode)
	}
	return out.Token, nil
}

// tail prints a log's last n lines, indented.
func tail(path string, n int) {
	b, err := os.ReadFile(path)
	if err != nil {
		return
	}
	lines := strings.Split(strings.TrimRight(string(b), "\n"), "\n")
	for _, l := range lines[max(0, len(lines)-n):] {
		fmt.Fprintf(os.Stderr, "    | %s\n", l)
	}
}
