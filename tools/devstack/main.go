// Command devstack runs the local stack behind make up, make down and make reset: it builds the
// services, prepares PostgreSQL and the nginx ingress, and supervises one process per service
// (plus its dev-procs helpers) with pid files in .devstack/run and logs in .devstack/logs. Each
// service's environment is rendered from the same chart values Helm renders (see env.go).
//
//	go run ./tools/devstack up [-dry-run]
//	go run ./tools/devstack down
//	go run ./tools/devstack reset
package main

import (
	"context"
	"flag"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"syscall"
	"time"

	"github.com/bizassist/bizassist/tools/internal/devenv"
)

const usage = `usage: devstack up [-dry-run] | down | reset | restart <svc>[.<replica>] | drain <svc>[.<replica>]

  up       build and (re)start the stack behind https://127.0.0.1:8443; writes .devstack/env
           -dry-run prints the plan (services, ports, helpers, seeds, each environment and where
           each variable comes from) and changes nothing
  down     stop the services and the ingress (PostgreSQL, Redis and .devstack state stay)
  reset    down, drop the stack's database and Redis keys, remove .devstack
  restart  stop one service process (leads, or leads.2 with two replicas) and start it again
  drain    stop one service process: out of the ingress first (with two replicas), then SIGTERM;
           restart starts it and puts it back

Environment: DEVSTACK_SKIP="leads ..." leaves services out; DEVSTACK_READY_TIMEOUT (seconds, 60)
bounds each service's wait for /readyz; DEVSTACK_REPLICAS (1 or 2; make up REPLICAS=2) runs that
many processes of every service behind the ingress; DEVSTACK_PG_PORT (5432) and
DEVSTACK_REDIS_PORT (6379) point the stack at PostgreSQL and Redis on other loopback ports.
`

func main() {
	if err := run(os.Args[1:]); err != nil {
		fmt.Fprintf(os.Stderr, "error: %v\n", err)
		os.Exit(1)
	}
}

// closeInheritedOnExec marks every descriptor this process inherited above stderr close-on-exec.
// Go passes a child only what it is given, but an inherited descriptor without the flag (a
// `flock` lock held by the shell that ran make up, say) would otherwise stay open in every
// long-lived service and helper the stack starts, holding that lock until make down.
func closeInheritedOnExec() {
	entries, err := os.ReadDir("/proc/self/fd")
	if err != nil {
		return // not Linux: nothing is known to leak
	}
	for _, e := range entries {
		if fd, err := strconv.Atoi(e.Name()); err == nil && fd > 2 {
			syscall.CloseOnExec(fd)
		}
	}
}

func run(args []string) error {
	closeInheritedOnExec()
	if len(args) == 0 {
		fmt.Fprint(os.Stderr, usage)
		os.Exit(2)
	}
	root, err := devenv.Root(".")
	if err != nil {
		return err
	}
	if err := portsFromEnv(); err != nil {
		return err
	}
	// Go is where the repository's tooling installs it; the services' seeds build with it.
	if path := os.Getenv("PATH"); !slices.Contains(filepath.SplitList(path), goBin) {
		if err := os.Setenv("PATH", goBin+string(filepath.ListSeparator)+path); err != nil {
			return err
		}
	}
	s := newStack(root, os.Stdout, os.Stderr)
	// Ctrl-C reaches make, this program and the commands it waits for (one process group); the
	// services, in sessions of their own, keep running, as after any make up.
	ctx := context.Background()
	switch args[0] {
	case "up":
		fs := flag.NewFlagSet("up", flag.ExitOnError)
		dryRun := fs.Bool("dry-run", false, "print the plan and change nothing")
		if err := fs.Parse(args[1:]); err != nil {
			return err
		}
		opt, err := upOptionsFromEnv()
		if err != nil {
			return err
		}
		opt.dryRun = *dryRun
		return s.up(ctx, opt)
	case "down":
		return s.down(ctx)
	case "reset":
		return s.reset(ctx)
	case "drain":
		name, err := restartArgs("drain", args[1:])
		if err != nil {
			return err
		}
		return s.stopProcess(ctx, name)
	case "restart":
		name, err := restartArgs("restart", args[1:])
		if err != nil {
			return err
		}
		opt, err := upOptionsFromEnv()
		if err != nil {
			return err
		}
		return s.restart(ctx, name, opt.readyTimeout)
	default:
		fmt.Fprint(os.Stderr, usage)
		os.Exit(2)
	}
	return nil
}

const goBin = "/usr/local/go/bin"

// portsFromEnv applies DEVSTACK_PG_PORT and DEVSTACK_REDIS_PORT.
func portsFromEnv() error {
	for name, port := range map[string]*int{envPGPort: &pgPort, envRedisPort: &redisPort} {
		if v := os.Getenv(name); v != "" {
			n, err := strconv.Atoi(v)
			if err != nil || n < 1 || n > 65535 {
				return fmt.Errorf("%s=%q: want a TCP port", name, v)
			}
			*port = n
		}
	}
	return nil
}

// maxReplicas bounds DEVSTACK_REPLICAS: each replica is a process of every service on a machine
// the stack shares with its PostgreSQL.
const maxReplicas = 2

func upOptionsFromEnv() (upOptions, error) {
	opt := upOptions{
		skip:         map[string]bool{},
		readyTimeout: 60 * time.Second,
		replicas:     1,
		path:         os.Getenv("PATH"),
		home:         os.Getenv("HOME"),
	}
	if v := os.Getenv("DEVSTACK_REPLICAS"); v != "" {
		n, err := strconv.Atoi(v)
		if err != nil || n < 1 || n > maxReplicas {
			return opt, fmt.Errorf("DEVSTACK_REPLICAS=%q: want 1 to %d", v, maxReplicas)
		}
		opt.replicas = n
	}
	switch v := os.Getenv("DEVSTACK_REDIS"); v {
	case "", "single":
	case "cluster":
		opt.shape.redisCluster = true
	default:
		return opt, fmt.Errorf("REDIS=%q: want cluster, or nothing for the single node", v)
	}
	switch v := os.Getenv("DEVSTACK_PG_REPLICA"); v {
	case "", "0":
	case "1":
		opt.shape.pgReplica = true
	default:
		return opt, fmt.Errorf("PG_REPLICA=%q: want 1, or nothing for the primary alone", v)
	}
	var err error
	if opt.monitoring, err = monitoringOptionsFromEnv(); err != nil {
		return opt, err
	}
	for _, svc := range strings.Fields(os.Getenv("DEVSTACK_SKIP")) {
		opt.skip[svc] = true
	}
	if v := os.Getenv("DEVSTACK_READY_TIMEOUT"); v != "" {
		n, err := strconv.Atoi(v)
		if err != nil || n <= 0 {
			return opt, fmt.Errorf("DEVSTACK_READY_TIMEOUT=%q: want a number of seconds", v)
		}
		opt.readyTimeout = time.Duration(n) * time.Second
	}
	return opt, nil
}

// indentWriter indents every line by four spaces: the output of another checkout's stack being
// stopped, under the line that says so.
type indentWriter struct {
	w       io.Writer
	midLine bool
}

func indent(w io.Writer) io.Writer { return &indentWriter{w: w} }

func (iw *indentWriter) Write(p []byte) (int, error) {
	var b []byte
	for _, c := range p {
		if !iw.midLine {
			b = append(b, "    "...)
		}
		b = append(b, c)
		iw.midLine = c != '\n'
	}
	if _, err := iw.w.Write(b); err != nil {
		return 0, err
	}
	return len(p), nil
}
