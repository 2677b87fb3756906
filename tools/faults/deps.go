package main

import (
	"context"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"sort"
	"strconv"
	"strings"
	"time"
)

// privatePG is a PostgreSQL cluster of the suite's own, on its own port with its data under
// .devstack/faults, which the suite may stop and restart (the machine's is shared).
type privatePG struct {
	bin, dir, log string
	port          int
}

// pgBin is the newest PostgreSQL's server binaries (Debian keeps them off PATH).
func pgBin() (string, error) {
	dirs, _ := filepath.Glob("/usr/lib/postgresql/*/bin/pg_ctl")
	if len(dirs) == 0 {
		return "", fmt.Errorf("no /usr/lib/postgresql/*/bin/pg_ctl: is PostgreSQL installed (make deps)?")
	}
	sort.Slice(dirs, func(i, j int) bool { return versionOf(dirs[i]) < versionOf(dirs[j]) })
	return filepath.Dir(dirs[len(dirs)-1]), nil
}

func versionOf(path string) int {
	n, _ := strconv.Atoi(filepath.Base(filepath.Dir(filepath.Dir(path))))
	return n
}

// asPostgres runs a PostgreSQL server command as the postgres user when this process is root
// (the server refuses to run as root), as this user otherwise.
func asPostgres(ctx context.Context, name string, args ...string) *exec.Cmd {
	if os.Geteuid() == 0 {
		return exec.CommandContext(ctx, "runuser", append([]string{"-u", "postgres", "--", name}, args...)...)
	}
	return exec.CommandContext(ctx, name, args...)
}

func run(cmd *exec.Cmd) error {
	out, err := cmd.CombinedOutput()
	if err != nil {
		return fmt.Errorf("%s: %w\n%s", strings.Join(cmd.Args, " "), err, out)
	}
	return nil
}

// create makes a fresh cluster that trusts loopback, with a postgres superuser.
func (pg *privatePG) create(ctx context.Context) error {
	// The server must reach its data through every parent: those are made world-searchable.
	if err := os.MkdirAll(filepath.Dir(pg.dir), 0o755); err != nil {
		return err
	}
	if err := os.Mkdir(pg.dir, 0o700); err != nil {
		return err
	}
	if os.Geteuid() == 0 {
		if err := run(exec.CommandContext(ctx, "chown", "-R", "postgres:postgres", filepath.Dir(pg.dir))); err != nil {
			return err
		}
	}
	return run(asPostgres(ctx, filepath.Join(pg.bin, "initdb"), "-D", pg.dir, "-U", "postgres", "--auth=trust", "-E", "UTF8", "--no-sync"))
}

// start starts the cluster and waits until it accepts connections. fsync is off: the suite
// stops it cleanly, and its data is thrown away.
func (pg *privatePG) start(ctx context.Context) error {
	opts := fmt.Sprintf("-p %d -k %s -c listen_addresses=127.0.0.1 -c max_connections=300 -c fsync=off -c synchronous_commit=off", pg.port, pg.dir)
	if err := run(asPostgres(ctx, filepath.Join(pg.bin, "pg_ctl"), "-D", pg.dir, "-l", pg.log, "-w", "-t", "60", "-o", opts, "start")); err != nil {
		// pg_ctl says only "could not start server": the reason is in the server's log.
		tail(pg.log, 10)
		return err
	}
	return nil
}

// stop stops it with fast shutdown: sessions are terminated (SQLSTATE 57P01), as in a restart.
func (pg *privatePG) stop(ctx context.Context) error {
	return run(asPostgres(ctx, filepath.Join(pg.bin, "pg_ctl"), "-D", pg.dir, "-w", "-t", "60", "-m", "fast", "stop"))
}

// running says whether the cluster's postmaster runs.
func (pg *privatePG) running(ctx context.Context) bool {
	return asPostgres(ctx, filepath.Join(pg.bin, "pg_ctl"), "-D", pg.dir, "status").Run() == nil
}

// query runs one SQL statement as the superuser on database bizassist and returns its output.
func (pg *privatePG) query(ctx context.Context, sql string) (string, error) {
	out, err := exec.CommandContext(ctx, "psql", "-X", "-w", "-At", "-h", "127.0.0.1", "-p", strconv.Itoa(pg.port),
		"-U", "postgres", "-d", "bizassist", "-c", sql).CombinedOutput()
	if err != nil {
		return "", fmt.Errorf("psql %q: %w: %s", sql, err, out)
	}
	return strings.TrimSpace(string(out)), nil
}

// privateRedis is a Redis of the suite's own, without persistence like the local stack's, so a
// restart comes back empty.
type privateRedis struct {
	dir  string
	port int
}

func (r *privateRedis) start(ctx context.Context) error {
	if err := os.MkdirAll(r.dir, 0o755); err != nil {
		return err
	}
	err := run(exec.CommandContext(ctx, "redis-server", "--port", strconv.Itoa(r.port), "--bind", "127.0.0.1",
		"--save", "", "--appendonly", "no", "--daemonize", "yes", "--dir", r.dir,
		"--pidfile", filepath.Join(r.dir, "redis.pid"), "--logfile", filepath.Join(r.dir, "redis.log")))
	if err != nil {
		return err
	}
	deadline := time.Now().Add(10 * time.Second)
	for r.ping(ctx) != nil {
		if time.Now().After(deadline) {
			return fmt.Errorf("redis on port %d did not answer within 10s", r.port)
		}
		time.Sleep(100 * time.Millisecond)
	}
	return nil
}

func (r *privateRedis) ping(ctx context.Context) error {
	out, err := exec.CommandContext(ctx, "redis-cli", "-p", strconv.Itoa(r.port), "ping").Output()
	if err != nil {
		return fmt.Errorf("redis ping: %w", err)
	}
	if answer := strings.TrimSpace(string(out)); answer != "PONG" {
		return fmt.Errorf("redis ping: %s", answer)
	}
	return nil
}

// stop shuts Redis down without saving: its data is gone, as after a crash without persistence.
func (r *privateRedis) stop(ctx context.Context) error {
	if r.ping(ctx) != nil {
		return nil
	}
	_ = exec.CommandContext(ctx, "redis-cli", "-p", strconv.Itoa(r.port), "shutdown", "nosave").Run()
	deadline := time.Now().Add(10 * time.Second)
	for r.ping(ctx) == nil {
		if time.Now().After(deadline) {
			return fmt.Errorf("redis on port %d did not stop", r.port)
		}
		time.Sleep(100 * time.Millisecond)
	}
	return nil
}
