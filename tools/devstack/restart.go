package main

import (
	"context"
	"fmt"
	"path/filepath"
	"regexp"
	"strings"
	"time"
)

// replicaNameRE is a process of the stack as restart names it: a service, or <svc>.<n> for its
// n-th replica.
var replicaNameRE = regexp.MustCompile(`^([a-z]+)(\.[2-9])?$`)

// restart is make restart SVC=<name>: one service process (a replica with make up REPLICAS=2) is
// stopped (SIGTERM, so it drains) and started again on the current binary with the environment
// make up gave it (run/<name>.env), then waited for. The rest of the stack keeps running: with
// two replicas, the ingress sends the other one the requests meanwhile.
func (s *stack) restart(ctx context.Context, name string, readyTimeout time.Duration) error {
	m := replicaNameRE.FindStringSubmatch(name)
	if m == nil {
		return fmt.Errorf("restart %q: want a service (leads) or one of its replicas (leads.2)", name)
	}
	vars, err := readKV(s.envFile(name))
	if err != nil || len(vars) == 0 {
		return fmt.Errorf("restart %s: no %s; did make up start it?", name, s.envFile(name))
	}
	env := serviceEnv{}
	for _, v := range vars {
		env[v.key] = envVar{Value: v.value}
	}
	addr := env["HTTP_ADDR"].Value
	if addr == "" {
		return fmt.Errorf("restart %s: %s sets no HTTP_ADDR", name, s.envFile(name))
	}
	release, err := s.lock(2 * time.Minute)
	if err != nil {
		return err
	}
	defer release()
	s.say("restarting %s", name)
	s.stopPidfile(s.pidfile(name), name)
	err = s.start(ctx, proc{
		pidfile: s.pidfile(name),
		log:     filepath.Join(s.logs, name+".log"),
		env:     s.processEnv(env),
		args:    []string{filepath.Join(s.bin, m[1]), "serve"},
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
	return nil
}

// restartArgs parses restart's one argument.
func restartArgs(args []string) (string, error) {
	if len(args) != 1 || strings.TrimSpace(args[0]) == "" {
		return "", fmt.Errorf("usage: devstack restart <svc>[.<replica>] (make restart SVC=leads.2)")
	}
	return args[0], nil
}
