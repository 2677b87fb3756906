package main

import (
	"context"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"time"
)

// replicaNameRE is a process of the stack as restart names it: a service, or <svc>.<n> for its
// n-th replica.
var replicaNameRE = regexp.MustCompile(`^([a-z]+)(\.[2-9])?$`)

// restart is make restart SVC=<name>: one service process (a replica with make up REPLICAS=2) is
// stopped (SIGTERM, so it drains) and started again on the current binary with the environment
// make up gave it (run/<name>.env), then waited for. The rest of the stack keeps running: with
// two replicas, the ingress sends the other one the requests meanwhile. A process already
// stopped (make drain) is only started.
func (s *stack) restart(ctx context.Context, name string, readyTimeout time.Duration) error {
	service, env, err := s.processOf("restart", name)
	if err != nil {
		return err
	}
	addr := env["HTTP_ADDR"].Value
	release, err := s.lock(2 * time.Minute)
	if err != nil {
		return err
	}
	defer release()
	s.say("restarting %s", name)
	// A process that had to be killed is started all the same: restarting is what was asked.
	if _, err := s.drain(ctx, name, addr); err != nil {
		return err
	}
	err = s.start(ctx, proc{
		pidfile: s.pidfile(name),
		log:     filepath.Join(s.logs, name+".log"),
		env:     s.processEnv(env),
		args:    []string{filepath.Join(s.bin, service), "serve"},
	})
	if err != nil {
		return err
	}
	url := "http://" + addr + "/readyz"
	if err := s.waitReady(ctx, url, []string{s.pidfile(name)}, readyTimeout); err != nil {
		s.tail(filepath.Join(s.logs, name+".log"), 20)
		return fmt.Errorf("%s did not come back ready on %s: %w", name, url, err)
	}
	s.say("%s is ready", name)
	return s.route(ctx, name, addr, true)
}

// processOf reads the environment make up gave the process name (leads, or leads.2) and returns
// its service; cmd names the command in errors.
func (s *stack) processOf(cmd, name string) (string, serviceEnv, error) {
	m := replicaNameRE.FindStringSubmatch(name)
	if m == nil {
		return "", nil, fmt.Errorf("%s %q: want a service (leads) or one of its replicas (leads.2)", cmd, name)
	}
	vars, err := readKV(s.envFile(name))
	if err != nil || len(vars) == 0 {
		return "", nil, fmt.Errorf("%s %s: no %s; did make up start it?", cmd, name, s.envFile(name))
	}
	env := serviceEnv{}
	for _, v := range vars {
		env[v.key] = envVar{Value: v.value}
	}
	if env["HTTP_ADDR"].Value == "" {
		return "", nil, fmt.Errorf("%s %s: %s sets no HTTP_ADDR", cmd, name, s.envFile(name))
	}
	return m[1], env, nil
}

// stopProcess is make drain SVC=<name> (see drain), under the stack's lock.
func (s *stack) stopProcess(ctx context.Context, name string) error {
	_, env, err := s.processOf("drain", name)
	if err != nil {
		return err
	}
	release, err := s.lock(2 * time.Minute)
	if err != nil {
		return err
	}
	defer release()
	s.say("draining %s", name)
	graceful, err := s.drain(ctx, name, env["HTTP_ADDR"].Value)
	if err == nil && !graceful {
		err = fmt.Errorf("%s did not exit within %s of SIGTERM and was killed", name, s.grace)
	}
	return err
}

// drain is make drain SVC=<name>: the ingress stops sending the process requests, as Kubernetes
// takes a terminating pod out of its Service's endpoints, and then it gets SIGTERM and drains.
// Without the first step nginx keeps opening connections to it until its listener closes, and a
// connection still in the listener's queue then is reset with its request sent, which nginx may
// not retry for a POST (the fault suite's rolling restart saw one 502 so). make restart puts it
// back once it is ready again. graceful reports whether SIGTERM alone stopped it.
func (s *stack) drain(ctx context.Context, name, addr string) (graceful bool, err error) {
	if err := s.route(ctx, name, addr, false); err != nil {
		return false, err
	}
	return s.stopPidfile(s.pidfile(name), name), nil
}

// route takes the process listening on addr out of the ingress's upstreams (on=false) or puts it
// back, and reloads nginx. A service with one process keeps it: there is nowhere else to send
// its requests.
func (s *stack) route(ctx context.Context, name, addr string, on bool) error {
	stack, err := readKV(filepath.Join(s.run, "stack.env"))
	if err != nil {
		return err
	}
	replicas := 1
	for _, v := range stack {
		if v.key == "REPLICAS" {
			replicas, _ = strconv.Atoi(v.value)
		}
	}
	if replicas < 2 {
		return nil
	}
	marker := filepath.Join(s.run, name+unroutedSuffix)
	if on {
		err = os.Remove(marker)
		if errors.Is(err, fs.ErrNotExist) {
			return nil
		}
	} else {
		err = writeFileAtomic(marker, []byte(addr), 0o644)
	}
	if err != nil {
		return err
	}
	c, err := loadChart(s.root)
	if err != nil {
		return err
	}
	c.routes.Replicas = replicas
	return s.ingress(ctx, c)
}

// restartArgs parses restart's one argument.
func restartArgs(cmd string, args []string) (string, error) {
	if len(args) != 1 || strings.TrimSpace(args[0]) == "" {
		return "", fmt.Errorf("usage: devstack %s <svc>[.<replica>] (make %s SVC=leads.2)", cmd, cmd)
	}
	return args[0], nil
}
