package main

import (
	"bytes"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/http/httptest"
	"os"
	"os/exec"
	"os/signal"
	"path/filepath"
	"strings"
	"sync/atomic"
	"syscall"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/bizassist/bizassist/tools/internal/devenv"
)

// fakeEnv turns the test binary into a fake service: copied to <root>/.devstack/bin/<name> and
// started with this variable set, it does what its first argument says (see fake).
const fakeEnv = "DEVSTACK_TEST_FAKE"

func TestMain(m *testing.M) {
	if os.Getenv(fakeEnv) != "" {
		fake(os.Args[1:])
		return
	}
	os.Exit(m.Run())
}

// fake is a process of a test stack:
//
//	serve        print its environment and session, answer /readyz on $HTTP_ADDR until signalled
//	sleep        wait until signalled
//	ignore-term  ignore SIGTERM, then sleep
//	with-child   start a child (sleep) in its own process group, print the child's pid, then sleep
//	exit         exit at once with status 3
//	migrate      print "migrated" and exit 0, as a service's migrate does
func fake(args []string) {
	mode := "sleep"
	if len(args) > 0 {
		mode = args[0]
	}
	block := func() { select {} }
	switch mode {
	case "serve":
		sid, _, _ := syscall.RawSyscall(syscall.SYS_GETSID, 0, 0, 0)
		stdin, _ := os.Readlink("/proc/self/fd/0")
		fmt.Printf("pid=%d sid=%d stdin=%s\n", os.Getpid(), sid, stdin)
		for _, kv := range os.Environ() {
			fmt.Println("env " + kv)
		}
		http.HandleFunc("/readyz", func(w http.ResponseWriter, _ *http.Request) { w.WriteHeader(http.StatusOK) })
		srv := &http.Server{Addr: os.Getenv("HTTP_ADDR"), ReadHeaderTimeout: time.Second}
		if err := srv.ListenAndServe(); err != nil {
			fmt.Println(err)
			os.Exit(1)
		}
	case "sleep":
		block()
	case "ignore-term":
		signal.Ignore(syscall.SIGTERM)
		fmt.Println("ignoring SIGTERM")
		block()
	case "with-child":
		self, _ := os.Executable()
		child := exec.Command(self, "sleep")
		child.Env = os.Environ()
		if err := child.Start(); err != nil {
			fmt.Println(err)
			os.Exit(1)
		}
		fmt.Printf("child=%d\n", child.Process.Pid)
		block()
	case "exit":
		fmt.Println("exiting")
		os.Exit(3)
	case "migrate":
		fmt.Println("migrated")
		os.Exit(0)
	}
	os.Exit(2)
}

// testStack is a stack in a temporary checkout whose .devstack/bin holds the fake as each of
// names. Its processes are killed when the test ends, whatever happened.
func testStack(t *testing.T, names ...string) (*stack, *bytes.Buffer) {
	t.Helper()
	root := t.TempDir()
	out := &bytes.Buffer{}
	s := newStack(root, out, out)
	s.grace, s.poll = 5*time.Second, 20*time.Millisecond
	for _, d := range []string{s.bin, s.run, s.logs, s.state} {
		require.NoError(t, os.MkdirAll(d, 0o755))
	}
	self, err := os.Executable()
	require.NoError(t, err)
	exe, err := os.ReadFile(self)
	require.NoError(t, err)
	for _, name := range names {
		require.NoError(t, os.WriteFile(filepath.Join(s.bin, name), exe, 0o755))
	}
	t.Cleanup(func() {
		for _, p := range stackPids(root, true) {
			_ = syscall.Kill(p.pid, syscall.SIGKILL)
		}
	})
	return s, out
}

// freeTCPPort returns a loopback port nothing listens on.
func freeTCPPort(t *testing.T) int {
	t.Helper()
	l, err := net.Listen("tcp", "127.0.0.1:0")
	require.NoError(t, err)
	port := l.Addr().(*net.TCPAddr).Port
	require.NoError(t, l.Close())
	return port
}

// startFake starts the fake called name as a process of the stack, and returns its pid.
func startFake(t *testing.T, s *stack, name, mode string) int {
	t.Helper()
	require.NoError(t, s.start(t.Context(), proc{
		pidfile: s.pidfile(name), log: filepath.Join(s.logs, name+".log"),
		env: []string{fakeEnv + "=1"}, args: []string{filepath.Join(s.bin, name), mode},
	}))
	pid, ok := pidfileAlive(s.pidfile(name))
	require.True(t, ok)
	return pid
}

func fakeService(s *stack, name string, port int, helpers ...helper) *service {
	env := serviceEnv{}
	env.set(sourceLocal, map[string]string{
		fakeEnv: "1", "HTTP_ADDR": fmt.Sprintf("127.0.0.1:%d", port), "PATH": os.Getenv("PATH"), "ONLY": "this",
	})
	return &service{name: name, port: port, env: env, helpers: helpers}
}

// waitForLog waits until a process has written want to its log.
func waitForLog(t *testing.T, path, want string) {
	t.Helper()
	require.Eventually(t, func() bool {
		b, _ := os.ReadFile(path)
		return strings.Contains(string(b), want)
	}, 10*time.Second, 10*time.Millisecond)
}

func TestTailPrintsTheLastLines(t *testing.T) {
	s, out := testStack(t)
	path := filepath.Join(s.logs, "x.log")
	var b strings.Builder
	for i := 1; i <= 25; i++ {
		fmt.Fprintf(&b, "line %d\n", i)
	}
	require.NoError(t, os.WriteFile(path, []byte(b.String()), 0o644))
	s.tail(path, 20)
	lines := strings.Split(strings.TrimSuffix(out.String(), "\n"), "\n")
	require.Len(t, lines, 20)
	require.Equal(t, "    | line 6", lines[0])
	require.Equal(t, "    | line 25", lines[19])
}

func readLog(t *testing.T, path string) string {
	t.Helper()
	b, err := os.ReadFile(path)
	require.NoError(t, err)
	return string(b)
}

// A service starts in its own session with exactly its environment (and where the stack is),
// stdin from /dev/null and its output in its log; the previous log is kept as .log.1.
func TestStartServiceAndWaitReady(t *testing.T) {
	ctx := t.Context()
	s, out := testStack(t, "svc")
	log := filepath.Join(s.logs, "svc.log")
	require.NoError(t, os.WriteFile(log, []byte("previous run\n"), 0o644))
	svc := fakeService(s, "svc", freeTCPPort(t), helper{name: "dns", command: " $DEVSTACK_BIN/svc sleep"})

	require.NoError(t, s.startService(ctx, svc))
	require.NoError(t, s.waitService(ctx, svc, time.Minute))
	require.Contains(t, out.String(), "==> starting svc helper dns\n==> starting svc on 127.0.0.1:")
	require.Contains(t, out.String(), "    svc is ready\n")
	require.Equal(t, "previous run\n", readLog(t, log+".1"))

	pid, ok := pidfileAlive(s.pidfile("svc"))
	require.True(t, ok)
	start, _ := procStart(pid)
	got := readLog(t, log)
	require.Contains(t, got, fmt.Sprintf("pid=%d sid=%d stdin=/dev/null\n", pid, pid))
	var env []string
	for _, line := range strings.Split(got, "\n") {
		if v, ok := strings.CutPrefix(line, "env "); ok {
			env = append(env, v)
		}
	}
	require.ElementsMatch(t, append(svc.env.environ(), "DEVSTACK_DIR="+s.dir, "DEVSTACK_BIN="+s.bin), env)

	helperPid, ok := pidfileAlive(s.helperPidfile("svc", "dns"))
	require.True(t, ok)
	args, _ := cmdline(helperPid)
	require.Equal(t, filepath.Join(s.bin, "svc")+" sleep", args, "bash execs the helper's command")

	// Stopped: the service first, then its helper.
	out.Reset()
	s.stop(false)
	require.Equal(t, fmt.Sprintf("    stopping svc (pid %d)\n    stopping svc helper dns (pid %d)\n", pid, helperPid), out.String())
	require.NoFileExists(t, s.pidfile("svc"))
	require.NoFileExists(t, s.helperPidfile("svc", "dns"))
	require.False(t, pidStart{pid, start}.alive())
}

// A helper that exits fails the wait at once, with the log's tail, instead of waiting out the
// timeout.
func TestWaitServiceNoticesAnExitedHelper(t *testing.T) {
	ctx := t.Context()
	s, out := testStack(t, "svc")
	svc := fakeService(s, "svc", freeTCPPort(t), helper{name: "dns", command: "$DEVSTACK_BIN/svc exit"})
	svc.env.set(sourceLocal, map[string]string{"HTTP_ADDR": fmt.Sprintf("127.0.0.1:%d", freeTCPPort(t))}) // never ready on svc.port
	require.NoError(t, s.startService(ctx, svc))
	waitForLog(t, filepath.Join(s.logs, "svc.log"), "pid=")
	err := s.waitService(ctx, svc, 30*time.Second)
	require.EqualError(t, err, fmt.Sprintf("svc (or one of its dev-procs helpers) exited; see %s*.log", filepath.Join(s.logs, "svc")))
	require.Equal(t, "exiting\n", readLog(t, filepath.Join(s.logs, "svc-dns.log")))
	require.Contains(t, out.String(), "    | pid=")
}

func TestWaitServiceTimesOut(t *testing.T) {
	ctx := t.Context()
	s, out := testStack(t, "svc")
	svc := fakeService(s, "svc", freeTCPPort(t))
	svc.env.set(sourceLocal, map[string]string{"HTTP_ADDR": fmt.Sprintf("127.0.0.1:%d", freeTCPPort(t))}) // never ready on svc.port
	require.NoError(t, s.startService(ctx, svc))
	waitForLog(t, filepath.Join(s.logs, "svc.log"), "pid=")
	err := s.waitService(ctx, svc, time.Second)
	require.EqualError(t, err, fmt.Sprintf("svc did not report ready on http://127.0.0.1:%d/readyz within 1s; see %s", svc.port, filepath.Join(s.logs, "svc.log")))
	require.Contains(t, out.String(), "    | pid=")
}

// Readiness is a status below 400 (a redirect counts, as with curl -f); anything else is polled again.
func TestWaitReady(t *testing.T) {
	ctx := t.Context()
	s, _ := testStack(t)
	var calls atomic.Int32
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if calls.Add(1) < 3 {
			w.WriteHeader(http.StatusServiceUnavailable)
			return
		}
		http.Redirect(w, r, "/elsewhere", http.StatusFound)
	}))
	defer srv.Close()
	require.NoError(t, s.waitReady(ctx, srv.URL+"/readyz", nil, time.Minute))
	require.Equal(t, int32(3), calls.Load())

	never := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, _ *http.Request) {
		w.WriteHeader(http.StatusServiceUnavailable)
	}))
	defer never.Close()
	require.ErrorIs(t, s.waitReady(ctx, never.URL, nil, 100*time.Millisecond), errNotReady)

	// A pid file whose process is gone.
	gone := filepath.Join(s.run, "gone.pid")
	require.NoError(t, os.WriteFile(gone, []byte("999999999 1\n"), 0o644))
	require.ErrorIs(t, s.waitReady(ctx, never.URL, []string{gone}, 30*time.Second), errExited)
}

// A process that ignores SIGTERM is killed after the grace period; the whole process group goes.
func TestStopEscalatesAndReachesTheGroup(t *testing.T) {
	s, out := testStack(t, "stubborn", "parent")
	s.grace = 200 * time.Millisecond
	stubborn := startFake(t, s, "stubborn", "ignore-term")
	startFake(t, s, "parent", "with-child")
	stubbornStart, _ := procStart(stubborn)
	var child int
	require.Eventually(t, func() bool {
		log, _ := os.ReadFile(filepath.Join(s.logs, "parent.log"))
		_, err := fmt.Sscanf(string(log), "child=%d", &child)
		return err == nil && strings.Contains(readLog(t, filepath.Join(s.logs, "stubborn.log")), "ignoring SIGTERM")
	}, 10*time.Second, 10*time.Millisecond)
	childStart, ok := procStart(child)
	require.True(t, ok)

	s.stopPidfile(s.pidfile("stubborn"), "stubborn")
	require.Contains(t, out.String(), "    stubborn did not stop after SIGTERM; killing it\n")
	require.False(t, pidStart{stubborn, stubbornStart}.alive())

	s.stopPidfile(s.pidfile("parent"), "parent")
	require.Eventually(t, func() bool { return !(pidStart{child, childStart}).alive() }, 10*time.Second, 10*time.Millisecond,
		"the parent's child is in its process group and gets the SIGTERM too")
}

// A pid file names a process by pid and start time: a recycled pid is not the stack's.
func TestPidfileAlive(t *testing.T) {
	dir := t.TempDir()
	path := filepath.Join(dir, "self.pid")
	require.NoError(t, writePidfile(path, os.Getpid()))
	pid, ok := pidfileAlive(path)
	require.True(t, ok)
	require.Equal(t, os.Getpid(), pid)

	start, _ := procStart(os.Getpid())
	require.NoError(t, os.WriteFile(path, fmt.Appendf(nil, "%d %d\n", os.Getpid(), start+1), 0o644))
	_, ok = pidfileAlive(path)
	require.False(t, ok, "same pid, another start time")

	for _, bad := range []string{"", "garbage", "-1 0"} {
		require.NoError(t, os.WriteFile(path, []byte(bad), 0o644))
		_, ok = pidfileAlive(path)
		require.False(t, ok, bad)
	}
	_, ok = pidfileAlive(filepath.Join(dir, "missing.pid"))
	require.False(t, ok)

	// A zombie (exited, not reaped) is not running.
	cmd := exec.Command("sh", "-c", "exit 0")
	require.NoError(t, cmd.Start())
	defer func() { _ = cmd.Wait() }()
	require.Eventually(t, func() bool { _, ok := procStart(cmd.Process.Pid); return !ok }, 10*time.Second, 10*time.Millisecond)
}

// Processes of the stack whose pid files are gone are found by their command line and stopped.
func TestStopFindsUntrackedProcesses(t *testing.T) {
	s, out := testStack(t, "svc")
	pid := startFake(t, s, "svc", "sleep")
	require.NoError(t, os.RemoveAll(s.run))

	start, _ := procStart(pid)
	require.Equal(t, []pidStart{{pid, start}}, stackPids(s.root, false))
	s.stop(false)
	require.Equal(t, fmt.Sprintf("    stopping untracked processes of this stack (pid %d)\n", pid), out.String())
	require.Empty(t, stackPids(s.root, false))
}

func TestListenersFindTheHolder(t *testing.T) {
	ctx := t.Context()
	l, err := net.Listen("tcp", "127.0.0.1:0")
	require.NoError(t, err)
	defer l.Close()
	port := l.Addr().(*net.TCPAddr).Port
	require.True(t, portOpen(ctx, port))
	require.Equal(t, []int{os.Getpid()}, listeners(port))
	require.NoError(t, l.Close())
	require.False(t, portOpen(ctx, port))
	require.Empty(t, listeners(port))
}

// A port held by something that is not a bizassist stack is an error naming the process.
func TestFreePortRefusesAStranger(t *testing.T) {
	ctx := t.Context()
	s, out := testStack(t)
	l, err := net.Listen("tcp", "127.0.0.1:0")
	require.NoError(t, err)
	defer l.Close()
	port := l.Addr().(*net.TCPAddr).Port
	err = s.freePort(ctx, port, "the ingress")
	require.EqualError(t, err, fmt.Sprintf("port %d for the ingress is taken by a process that is not part of a bizassist stack", port))
	require.Contains(t, out.String(), fmt.Sprintf("    pid %d: ", os.Getpid()))
	require.NoError(t, s.freePort(ctx, freeTCPPort(t), "nothing"))
}

// A port held by the stack of another checkout: that stack is stopped (its own lock taken, its
// output indented), and the port is free.
func TestFreePortStopsAnotherCheckoutsStack(t *testing.T) {
	ctx := t.Context()
	other, _ := testStack(t, "svc")
	port := freeTCPPort(t)
	svc := fakeService(other, "svc", port)
	require.NoError(t, other.startService(ctx, svc))
	require.NoError(t, other.waitService(ctx, svc, time.Minute))
	pid, _ := pidfileAlive(other.pidfile("svc"))

	s, out := testStack(t)
	require.NoError(t, s.freePort(ctx, port, "svc"))
	require.False(t, portOpen(ctx, port))
	require.Equal(t, fmt.Sprintf(`==> port %d is held by the bizassist stack in %s; stopping it
    ==> stopping bizassist
        stopping svc (pid %d)
    ==> bizassist is down
`, port, other.root, pid), out.String())
}

func TestLockIsExclusive(t *testing.T) {
	s, _ := testStack(t)
	release, err := s.lock(0)
	require.NoError(t, err)
	other := newStack(s.root, io.Discard, io.Discard)
	other.poll = 10 * time.Millisecond
	_, err = other.lock(50 * time.Millisecond)
	require.EqualError(t, err, "another make up or make down is running on "+s.dir)

	// Processes started while it is held do not inherit the lock.
	cmd := exec.Command("sleep", "60")
	require.NoError(t, cmd.Start())
	defer func() { _ = cmd.Process.Kill(); _ = cmd.Wait() }()
	release()
	again, err := other.lock(0)
	require.NoError(t, err, "the lock went with its holder, not to the child")
	again()
}

func TestReadDevProcs(t *testing.T) {
	path := filepath.Join(t.TempDir(), "dev-procs")
	require.NoError(t, os.WriteFile(path, []byte("# comment\n\ndns: $DEVSTACK_BIN/leads dns-serve\nsmtp:mailpit --listen 127.0.0.1:1025\n"), 0o644))
	got, err := readDevProcs(path)
	require.NoError(t, err)
	require.Equal(t, []helper{{"dns", " $DEVSTACK_BIN/leads dns-serve"}, {"smtp", "mailpit --listen 127.0.0.1:1025"}}, got)

	for _, bad := range []string{"no colon here", "bad name: x", ": x"} {
		require.NoError(t, os.WriteFile(path, []byte(bad+"\n"), 0o644))
		_, err := readDevProcs(path)
		require.ErrorContains(t, err, "want 'name: command', got: "+bad)
	}
	none, err := readDevProcs(filepath.Join(t.TempDir(), "missing"))
	require.NoError(t, err)
	require.Empty(t, none)
}

func TestIndentWriter(t *testing.T) {
	var b bytes.Buffer
	w := indent(&b)
	_, _ = io.WriteString(w, "a\nb")
	_, _ = io.WriteString(w, "c\n\nd\n")
	require.Equal(t, "    a\n    bc\n    \n    d\n", b.String())
}

// What .devstack/env holds, sh reads back, and so does devenv (the tests' reader).
func TestShellQuoteRoundTrips(t *testing.T) {
	value := `p@ss 'w"ord' $HOME \n`
	env, err := devenv.Parse(strings.NewReader("V=" + shellQuote(value) + "\n"))
	require.NoError(t, err)
	require.Equal(t, value, env["V"])
	out, err := exec.Command("sh", "-c", "V="+shellQuote(value)+"; printf %s \"$V\"").Output()
	require.NoError(t, err)
	require.Equal(t, value, string(out))
	require.Equal(t, "'it'\\''s'", shellQuote("it's"))
}

// make down with no stack says so; after rm -rf .devstack it still finds the stack's processes.
func TestDown(t *testing.T) {
	ctx := t.Context()
	var out bytes.Buffer
	empty := newStack(t.TempDir(), &out, &out)
	require.NoError(t, empty.down(ctx))
	require.Equal(t, "==> nothing to stop (no "+empty.run+")\n", out.String())

	s, log := testStack(t, "svc")
	pid := startFake(t, s, "svc", "sleep")
	require.NoError(t, os.RemoveAll(s.dir))
	require.NoError(t, s.down(ctx))
	require.Equal(t, fmt.Sprintf("==> stopping bizassist\n    stopping untracked processes of this stack (pid %d)\n==> bizassist is down\n", pid), log.String())
	require.Empty(t, stackPids(s.root, true))
}

// A descriptor inherited without close-on-exec (a flock held by make's shell) must not reach the
// services: devstack marks every descriptor above stderr close-on-exec before it starts any.
func TestInheritedDescriptorsAreClosedOnExec(t *testing.T) {
	fd, err := syscall.Open(filepath.Join(t.TempDir(), "lock"), syscall.O_CREAT|syscall.O_RDWR, 0o600)
	require.NoError(t, err)
	defer syscall.Close(fd)
	flags := func() int {
		r, _, errno := syscall.Syscall(syscall.SYS_FCNTL, uintptr(fd), syscall.F_GETFD, 0)
		require.Zero(t, errno)
		return int(r)
	}
	require.Zero(t, flags()&syscall.FD_CLOEXEC, "opened without close-on-exec, as an inherited lock is")
	closeInheritedOnExec()
	require.NotZero(t, flags()&syscall.FD_CLOEXEC)
}

// Two replicas start on their own ports and each is waited for; make restart SVC=svc.2 replaces
// the second with a new process on the environment make up recorded, leaving the first alone.
func TestReplicasStartAndOneRestarts(t *testing.T) {
	ctx := t.Context()
	s, out := testStack(t, "svc")
	port := freeTCPPort(t)
	for portOpen(ctx, port+100) {
		port = freeTCPPort(t)
	}
	svc := fakeService(s, "svc", port)
	svc.replicas = 2
	require.NoError(t, s.startService(ctx, svc))
	require.NoError(t, s.waitService(ctx, svc, time.Minute))
	require.Contains(t, out.String(), fmt.Sprintf("==> starting svc.2 on 127.0.0.1:%d\n", port+100))
	require.Contains(t, out.String(), "    svc.2 is ready\n")
	first, ok := pidfileAlive(s.pidfile("svc"))
	require.True(t, ok)
	second, ok := pidfileAlive(s.pidfile("svc.2"))
	require.True(t, ok)

	require.NoError(t, s.restart(ctx, "svc.2", time.Minute))
	again, ok := pidfileAlive(s.pidfile("svc.2"))
	require.True(t, ok)
	require.NotEqual(t, second, again)
	require.True(t, portOpen(ctx, port+100), "the new svc.2 answers on its port")
	still, ok := pidfileAlive(s.pidfile("svc"))
	require.True(t, ok && still == first, "the first replica keeps running")

	require.ErrorContains(t, s.restart(ctx, "svc", time.Minute), "did make up start it?", "make up's migrate step writes the first replica's environment")
	require.ErrorContains(t, s.restart(ctx, "svc.two", time.Minute), "want a service")
}
