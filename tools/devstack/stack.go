package main

import (
	"bufio"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"time"
)

// The fixed addresses of the local stack: one stack per machine (docs/decisions.md).
const (
	httpsPort = 8443
	httpPort  = 8080
	pgHost    = "127.0.0.1"
	dbName    = "bizassist"
	redisHost = "127.0.0.1"
	// debugPortOffset puts each service's pprof listener (DEBUG_ADDR) above its HTTP port.
	debugPortOffset = 1000
)

// PostgreSQL's and Redis's ports: the machine's by default; DEVSTACK_PG_PORT and
// DEVSTACK_REDIS_PORT point the stack at other instances on loopback (the fault suite's private
// ones, which it may stop and restart). lib.sh reads the same variables.
const (
	envPGPort        = "DEVSTACK_PG_PORT"
	envRedisPort     = "DEVSTACK_REDIS_PORT"
	defaultPGPort    = 5432
	defaultRedisPort = 6379
)

var (
	pgPort    = defaultPGPort
	redisPort = defaultRedisPort
)

func redisAddr() string { return fmt.Sprintf("%s:%d", redisHost, redisPort) }
func redisURL() string  { return "redis://" + redisAddr() + "/0" }

// The scale-out shape (make up REDIS=cluster PG_REPLICA=1): the Redis Cluster that
// redis-cluster.sh starts and the replica pg-replica.sh starts (ports in lib.sh).
var redisClusterAddrs = []string{"127.0.0.1:7101", "127.0.0.1:7102", "127.0.0.1:7103", "127.0.0.1:7104", "127.0.0.1:7105", "127.0.0.1:7106"}

const pgReplicaPort = 5442

// shape is the stack's scale-out choices: DEVSTACK_REDIS=cluster, DEVSTACK_PG_REPLICA=1.
type shape struct{ redisCluster, pgReplica bool }

// serviceEnv is what the shape sets in svc's environment, over the local layer: the replica goes
// to the services whose chart takes it (optionalSecretEnv), as in a cluster.
func (sh shape) serviceEnv(svc string, takesReplica bool) map[string]string {
	env := map[string]string{}
	if sh.redisCluster {
		env["REDIS_URL"] = "redis://" + redisClusterAddrs[0]
		env["REDIS_CLUSTER_ADDRS"] = strings.Join(redisClusterAddrs, ",")
		// Each master has one replica: an event leaves the outbox only once both hold it.
		env["EVENTS_RELAY_MIN_REPLICAS"] = "1"
	}
	if sh.pgReplica && takesReplica {
		env["DATABASE_REPLICA_URL"] = fmt.Sprintf("postgres://%s@%s:%d/%s?sslmode=disable", svc, pgHost, pgReplicaPort, dbName)
	}
	return env
}

// stackEnv is what the shape adds to .devstack/env.
func (sh shape) stackEnv() []kv {
	var out []kv
	if sh.redisCluster {
		out = append(out, kv{"REDIS_CLUSTER_ADDRS", strings.Join(redisClusterAddrs, ",")})
	}
	if sh.pgReplica {
		out = append(out, kv{"PG_REPLICA_PORT", strconv.Itoa(pgReplicaPort)})
	}
	return out
}

// serviceOrder is the start order: identity first, since the others fetch its JWKS.
var serviceOrder = []string{"identity", "leads", "assistant", "analytics", "integrations", "console"}

// stack is one checkout's local stack: where its state lives, and where progress goes.
type stack struct {
	root  string // the checkout (the directory holding go.work)
	dir   string // root/.devstack
	bin   string // built binaries
	run   string // pid files and the environments the processes got
	logs  string
	state string // secrets and seed output, kept across runs
	tls   string
	nginx string

	out, errOut io.Writer
	// grace is how long a process has between SIGTERM and SIGKILL; poll is how often stops and
	// readiness are checked.
	grace, poll time.Duration
}

func newStack(root string, out, errOut io.Writer) *stack {
	dir := filepath.Join(root, ".devstack")
	return &stack{
		root: root, dir: dir,
		bin:   filepath.Join(dir, "bin"),
		run:   filepath.Join(dir, "run"),
		logs:  filepath.Join(dir, "logs"),
		state: filepath.Join(dir, "state"),
		tls:   filepath.Join(dir, "tls"),
		nginx: filepath.Join(dir, "nginx"),
		out:   out, errOut: errOut,
		grace: 10 * time.Second, poll: 250 * time.Millisecond,
	}
}

// say prints a step, note a detail under it: the `==> ` look of every make target.
func (s *stack) say(format string, args ...any) {
	fmt.Fprintf(s.out, "==> "+format+"\n", args...)
}

func (s *stack) note(format string, args ...any) {
	fmt.Fprintf(s.out, "    "+format+"\n", args...)
}

// tail prints the last n lines of a log to errOut, indented under the error that follows.
func (s *stack) tail(path string, n int) {
	f, err := os.Open(path)
	if err != nil {
		return
	}
	defer f.Close()
	var lines []string
	sc := bufio.NewScanner(f)
	sc.Buffer(make([]byte, 64*1024), 1024*1024)
	for sc.Scan() {
		lines = append(lines, sc.Text())
		if len(lines) > n {
			lines = lines[1:]
		}
	}
	for _, l := range lines {
		fmt.Fprintf(s.errOut, "    | %s\n", l)
	}
}

// lock takes .devstack/lock, so two make up or make down never run on one stack at once. With
// wait zero it fails at once when the lock is held. The lock goes with the process.
func (s *stack) lock(wait time.Duration) (release func(), err error) {
	f, err := os.OpenFile(filepath.Join(s.dir, "lock"), os.O_CREATE|os.O_WRONLY, 0o644) // close-on-exec, as every file Go opens
	if err != nil {
		return nil, err
	}
	deadline := time.Now().Add(wait)
	for {
		err := syscall.Flock(int(f.Fd()), syscall.LOCK_EX|syscall.LOCK_NB)
		if err == nil {
			return func() { f.Close() }, nil
		}
		if !errors.Is(err, syscall.EWOULDBLOCK) || !time.Now().Before(deadline) {
			f.Close()
			return nil, fmt.Errorf("another make up or make down is running on %s", s.dir)
		}
		time.Sleep(s.poll)
	}
}
