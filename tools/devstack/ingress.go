package main

import (
	"context"
	_ "embed"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"syscall"
	"time"

	"github.com/bizassist/bizassist/tools/routegen"
)

// nginxTemplate is rendered over the route table of charts/bizassist/values.yaml, so the local
// nginx and the Kubernetes Ingress route the same paths to the same services.
//
//go:embed nginx.conf.tmpl
var nginxTemplate string

// unroutedSuffix names the marker file, run/<process>.unrouted holding its address, of a process
// that make drain or make restart took out of the ingress's upstreams.
const unroutedSuffix = ".unrouted"

// unroutedMarkers lists the marker files of the processes out of the ingress.
func (s *stack) unroutedMarkers() []string {
	markers, _ := filepath.Glob(filepath.Join(s.run, "*"+unroutedSuffix)) // the pattern is valid
	return markers
}

// renderNginx is the stack's nginx config.
func (s *stack) renderNginx(c *chart, ipv6 bool) ([]byte, error) {
	on := "off"
	if ipv6 {
		on = "on"
	}
	vars := map[string]string{
		"Prefix":    s.nginx,
		"LogDir":    s.logs,
		"HTTPPort":  strconv.Itoa(httpPort),
		"HTTPSPort": strconv.Itoa(httpsPort),
		"IPv6":      on,
		"CertFile":  filepath.Join(s.tls, "server.crt"),
		"KeyFile":   filepath.Join(s.tls, "server.key"),
		// make bench loads from here with hundreds of requests in flight; the per-address
		// connection bound is for clients.
		"ExemptCIDR": benchExemptIP + "/32",
	}
	// "down:<port>" marks a replica the template renders as down.
	for _, m := range s.unroutedMarkers() {
		addr, err := os.ReadFile(m)
		if err != nil {
			return nil, err
		}
		if _, port, ok := strings.Cut(string(addr), ":"); ok {
			vars["down:"+port] = "1"
		}
	}
	return routegen.Render(nginxTemplate, c.routes, vars)
}

// hasIPv6Loopback says whether the host has ::1, so nginx listens there too.
func hasIPv6Loopback() bool {
	b, err := os.ReadFile("/proc/net/if_inet6")
	if err != nil {
		return false
	}
	for _, line := range strings.Split(string(b), "\n") {
		if strings.HasPrefix(line, strings.Repeat("0", 31)+"1 ") {
			return true
		}
	}
	return false
}

// ingress renders the nginx config and starts the stack's own nginx, or reloads it when it
// runs already. The system nginx, if any, is left alone.
func (s *stack) ingress(ctx context.Context, c *chart) error {
	conf := filepath.Join(s.nginx, "nginx.conf")
	for _, d := range []string{filepath.Join(s.nginx, "run"), filepath.Join(s.nginx, "tmp"), s.logs} {
		if err := os.MkdirAll(d, 0o755); err != nil {
			return err
		}
	}
	s.say("rendering the ingress config from %s", valuesFile)
	out, err := s.renderNginx(c, hasIPv6Loopback())
	if err != nil {
		return err
	}
	if err := writeFileAtomic(conf+".next", out, 0o644); err != nil {
		return err
	}
	nginx := func(args ...string) *exec.Cmd {
		return s.command(ctx, nil, "nginx", append([]string{"-p", s.nginx + "/", "-e", filepath.Join(s.logs, "nginx-error.log")}, args...)...)
	}
	if err := nginx("-t", "-q", "-c", conf+".next").Run(); err != nil {
		return fmt.Errorf("the rendered nginx config %s.next does not pass nginx -t", conf)
	}
	if err := os.Rename(conf+".next", conf); err != nil {
		return err
	}

	if pid, ok := s.nginxPid(); ok {
		s.say("reloading the ingress (nginx pid %d)", pid)
		if err := nginx("-c", conf, "-s", "reload").Run(); err != nil {
			return fmt.Errorf("nginx reload: %w", err)
		}
	} else {
		if err := s.freePort(ctx, httpPort, "the ingress"); err != nil {
			return err
		}
		if err := s.freePort(ctx, httpsPort, "the ingress"); err != nil {
			return err
		}
		s.say("starting the ingress on https://127.0.0.1:%d and http://127.0.0.1:%d", httpsPort, httpPort)
		if err := nginx("-c", conf).Run(); err != nil {
			return fmt.Errorf("nginx: %w", err)
		}
	}
	if !s.waitFor(10*time.Second, func() bool { return portOpen(ctx, httpsPort) }) {
		return fmt.Errorf("the ingress on 127.0.0.1:%d did not come up within 10s", httpsPort)
	}
	return nil
}

// nginxPid returns the pid of this stack's nginx master when it runs.
func (s *stack) nginxPid() (int, bool) {
	b, err := os.ReadFile(filepath.Join(s.nginx, "run", "nginx.pid"))
	if err != nil {
		return 0, false
	}
	pid, err := strconv.Atoi(strings.TrimSpace(string(b)))
	if err != nil {
		return 0, false
	}
	args, ok := cmdline(pid)
	if !ok || !strings.Contains(args, filepath.Join(s.nginx, "nginx.conf")) {
		return 0, false
	}
	if _, running := procStart(pid); !running {
		return 0, false
	}
	return pid, true
}

// stopNginx stops this stack's nginx: QUIT (finish the requests in flight), TERM after 10 s.
func (s *stack) stopNginx() {
	pid, ok := s.nginxPid()
	if !ok {
		return
	}
	s.note("stopping the ingress (nginx pid %d)", pid)
	_ = syscall.Kill(pid, syscall.SIGQUIT)
	if !s.waitFor(s.grace, func() bool { _, ok := s.nginxPid(); return !ok }) {
		_ = syscall.Kill(pid, syscall.SIGTERM)
	}
}

var stackDirRE = regexp.MustCompile(`(/[^ ]*)/\.devstack/(bin/|nginx/nginx\.conf)`)

// freePort makes sure nothing listens on port. A bizassist stack of another checkout (only one
// can run per machine) is stopped; anything else is an error naming the process.
func (s *stack) freePort(ctx context.Context, port int, what string) error {
	if !portOpen(ctx, port) {
		return nil
	}
	holders := listeners(port)
	dir := ""
	for _, pid := range holders {
		if args, ok := cmdline(pid); ok {
			if m := stackDirRE.FindStringSubmatch(args); m != nil {
				dir = m[1]
			}
		}
	}
	if dir != "" && dir != s.root {
		s.say("port %d is held by the bizassist stack in %s; stopping it", port, dir)
		other := newStack(dir, indent(s.out), indent(s.errOut))
		other.grace, other.poll = s.grace, s.poll
		if err := other.down(ctx); err != nil {
			return fmt.Errorf("stopping the stack in %s: %w", dir, err)
		}
	}
	if dir != "" && portOpen(ctx, port) {
		s.killPids("the stack of "+dir, stackPids(dir, true))
	}
	if !portOpen(ctx, port) {
		return nil
	}
	for _, pid := range listeners(port) {
		args, _ := cmdline(pid)
		fmt.Fprintf(s.errOut, "    pid %d: %s\n", pid, args)
	}
	return fmt.Errorf("port %d for %s is taken by a process that is not part of a bizassist stack", port, what)
}
