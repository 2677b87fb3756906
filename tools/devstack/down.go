package main

import (
	"bytes"
	"context"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"time"

	"github.com/redis/go-redis/v9"
)

// down is make down: stops the services, their helpers and the ingress. PostgreSQL, Redis and the
// state in .devstack (secrets, certificates, data) stay, so make up comes back to the same stack.
func (s *stack) down(ctx context.Context) error {
	// make builds this program into .devstack, so the stack's traces are its pid files and its
	// processes (which outlive rm -rf .devstack).
	if _, err := os.Stat(s.run); err != nil && len(stackPids(s.root, true)) == 0 {
		s.say("nothing to stop (no %s)", s.run)
		return nil
	}
	if err := os.MkdirAll(s.dir, 0o755); err != nil {
		return err
	}
	release, err := s.lock(2 * time.Minute)
	if err != nil {
		return err
	}
	defer release()
	s.say("stopping bizassist")
	s.stop(true)
	s.say("bizassist is down")
	return nil
}

// stop stops the services recorded in run/, then their helpers (which the services use), then
// any process of this stack whose pid file is gone (rm -rf .devstack while it ran); withNginx,
// the ingress too.
func (s *stack) stop(withNginx bool) {
	pidfiles, _ := filepath.Glob(filepath.Join(s.run, "*.pid"))
	var helpers []string
	for _, f := range pidfiles {
		name := strings.TrimSuffix(filepath.Base(f), ".pid")
		if strings.Contains(name, ".proc.") {
			helpers = append(helpers, f)
			continue
		}
		s.stopPidfile(f, name)
	}
	for _, f := range helpers {
		name := strings.TrimSuffix(filepath.Base(f), ".pid")
		s.stopPidfile(f, strings.Replace(name, ".proc.", " helper ", 1))
	}
	s.killPids("untracked processes of this stack", stackPids(s.root, false))
	if withNginx {
		s.stopNginx()
		s.killPids("an untracked ingress of this stack", stackPids(s.root, true))
	}
}

// reset is make reset: make down, then drop the stack's database and Redis keys and remove
// .devstack, so the next make up starts from nothing. Every clone on this machine shares them.
func (s *stack) reset(ctx context.Context) error {
	if err := s.down(ctx); err != nil {
		return err
	}
	if err := s.script(ctx, "deps.sh"); err != nil {
		return err
	}
	s.say("dropping database %s and the stack's Redis keys", dbName)
	if _, err := s.psqlAdmin(ctx, "", "-d", "postgres", "-c", "DROP DATABASE IF EXISTS "+dbName+" WITH (FORCE)"); err != nil {
		return err
	}
	if err := deleteRedisKeys(ctx, redisAddr(), "bizassist:*", "rate:rl:*"); err != nil {
		return err
	}
	s.say("removing %s", s.dir)
	return os.RemoveAll(s.dir)
}

func deleteRedisKeys(ctx context.Context, addr string, patterns ...string) error {
	rdb := redis.NewClient(&redis.Options{Addr: addr})
	defer rdb.Close()
	for _, pattern := range patterns {
		it := rdb.Scan(ctx, 0, pattern, 1000).Iterator()
		var batch []string
		for it.Next(ctx) {
			batch = append(batch, it.Val())
			if len(batch) == 1000 {
				if err := rdb.Unlink(ctx, batch...).Err(); err != nil {
					return err
				}
				batch = batch[:0]
			}
		}
		if err := it.Err(); err != nil {
			return fmt.Errorf("redis scan %s: %w", pattern, err)
		}
		if len(batch) > 0 {
			if err := rdb.Unlink(ctx, batch...).Err(); err != nil {
				return err
			}
		}
	}
	return nil
}

// prepareDatabase makes the database and, per service, a LOGIN role owning a schema of the same
// name with no grant on the others'. CREATE on the database is there because migrations run
// CREATE SCHEMA IF NOT EXISTS and CREATE EXTENSION (trusted ones, such as pg_trgm), which
// PostgreSQL checks against it even when the object exists. These are the grants charts/README.md
// documents ("Database roles"); pgtest.Restricted holds migration tests to them.
func (s *stack) prepareDatabase(ctx context.Context, services []string) error {
	s.say("preparing database %s: one role and one schema per service", dbName)
	out, err := s.psqlAdmin(ctx, "", "-d", "postgres", "-At", "-c", "SELECT 1 FROM pg_database WHERE datname = '"+dbName+"'")
	if err != nil {
		return err
	}
	if strings.TrimSpace(out) == "" {
		if _, err := s.psqlAdmin(ctx, "", "-d", "postgres", "-c", "CREATE DATABASE "+dbName); err != nil {
			return err
		}
	}
	_, err = s.psqlAdmin(ctx, databaseSQL(services), "-d", dbName, "-f", "-")
	return err
}

// databaseSQL is idempotent: roles and schemas are made when missing, grants repeated.
func databaseSQL(services []string) string {
	var b strings.Builder
	fmt.Fprintf(&b, "REVOKE ALL ON DATABASE %s FROM PUBLIC;\n", dbName)
	b.WriteString("REVOKE CREATE ON SCHEMA public FROM PUBLIC;\n")
	for _, svc := range services {
		fmt.Fprintf(&b, `DO $$ BEGIN
  IF NOT EXISTS (SELECT FROM pg_roles WHERE rolname = '%[1]s') THEN CREATE ROLE "%[1]s" LOGIN; END IF;
END $$;
GRANT CONNECT, CREATE ON DATABASE %[2]s TO "%[1]s";
CREATE SCHEMA IF NOT EXISTS "%[1]s" AUTHORIZATION "%[1]s";
`, svc, dbName)
	}
	return b.String()
}

// psqlAdmin runs psql as the PostgreSQL superuser, with stdin as its input, and returns its
// output: over TCP when trust allows it, otherwise through the postgres OS user's peer
// authentication.
func (s *stack) psqlAdmin(ctx context.Context, stdin string, args ...string) (string, error) {
	port := strconv.Itoa(pgPort)
	var cmd *exec.Cmd
	probe := exec.CommandContext(ctx, "psql", "-X", "-w", "-q", "-h", pgHost, "-p", port, "-U", "postgres", "-d", "postgres", "-c", "SELECT 1")
	if probe.Run() == nil {
		cmd = exec.CommandContext(ctx, "psql", append([]string{"-X", "-w", "-q", "-v", "ON_ERROR_STOP=1", "-h", pgHost, "-p", port, "-U", "postgres"}, args...)...)
	} else {
		cmd = asRoot(ctx, append([]string{"runuser", "-u", "postgres", "--", "psql", "-X", "-q", "-v", "ON_ERROR_STOP=1", "-p", port}, args...)...)
		cmd.Dir = "/" // the postgres user may not read the checkout
	}
	cmd.Env = append(os.Environ(), "PGOPTIONS=-c client_min_messages=warning")
	cmd.Stdin = strings.NewReader(stdin)
	var out bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, s.errOut
	if err := cmd.Run(); err != nil {
		return "", fmt.Errorf("psql %s: %w", strings.Join(args, " "), err)
	}
	return out.String(), nil
}

// asRoot runs a command as root, through sudo when this process is not root.
func asRoot(ctx context.Context, args ...string) *exec.Cmd {
	if os.Geteuid() == 0 {
		return exec.CommandContext(ctx, args[0], args[1:]...)
	}
	return exec.CommandContext(ctx, "sudo", args...)
}
