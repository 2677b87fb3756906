package main

import (
	"bufio"
	"context"
	"fmt"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"time"
)

// proc is a long-running process of the stack: a service or one of its dev-procs helpers.
type proc struct {
	pidfile string
	log     string
	env     []string
	args    []string // the command and its arguments
}

// start runs p in its own session (so the stack outlives make, and a stop reaches p's children
// through the process group), with exactly p.env, stdin from /dev/null, stdout and stderr to
// p.log (the previous run's log kept as .log.1), and records it in p.pidfile.
func (s *stack) start(ctx context.Context, p proc) error {
	if _, err := os.Stat(p.log); err == nil {
		if err := os.Rename(p.log, p.log+".1"); err != nil {
			return err
		}
	}
	logf, err := os.OpenFile(p.log, os.O_CREATE|os.O_WRONLY|os.O_TRUNC, 0o644)
	if err != nil {
		return err
	}
	// p outlives this process: nothing here may cancel it.
	cmd := exec.CommandContext(context.WithoutCancel(ctx), p.args[0], p.args[1:]...)
	cmd.Env = p.env
	cmd.Dir = s.root
	cmd.Stdout, cmd.Stderr = logf, logf
	cmd.SysProcAttr = &syscall.SysProcAttr{Setsid: true}
	err = cmd.Start()
	logf.Close()
	if err != nil {
		return fmt.Errorf("start %s: %w", strings.Join(p.args, " "), err)
	}
	if err := writePidfile(p.pidfile, cmd.Process.Pid); err != nil {
		signalGroup(cmd.Process.Pid, syscall.SIGKILL)
		_ = cmd.Wait()
		return err
	}
	// Reaps p should it exit while this process runs; otherwise p outlives it.
	go func() { _ = cmd.Wait() }()
	return nil
}

// procStart returns a process's start time (clock ticks since boot, /proc/<pid>/stat field 22)
// and whether it runs: a zombie has exited, even when its parent never reaps it. The start time
// tells a recycled pid from the process a pid file recorded.
func procStart(pid int) (uint64, bool) {
	b, err := os.ReadFile(fmt.Sprintf("/proc/%d/stat", pid))
	if err != nil {
		return 0, false
	}
	stat := string(b)
	i := strings.LastIndex(stat, ") ") // the command name may hold spaces and parentheses
	if i < 0 {
		return 0, false
	}
	f := strings.Fields(stat[i+2:]) // f[0] is field 3, the state
	if len(f) < 20 || f[0] == "Z" || f[0] == "X" {
		return 0, false
	}
	start, err := strconv.ParseUint(f[19], 10, 64)
	return start, err == nil
}

// A pid file holds "pid starttime", so that a recycled pid is never mistaken for the stack's.
func writePidfile(path string, pid int) error {
	start, _ := procStart(pid)
	return os.WriteFile(path, fmt.Appendf(nil, "%d %d\n", pid, start), 0o644)
}

// pidfileAlive returns the pid recorded in path when that process still runs.
func pidfileAlive(path string) (int, bool) {
	b, err := os.ReadFile(path)
	if err != nil {
		return 0, false
	}
	var pid int
	var start uint64
	if _, err := fmt.Sscanf(string(b), "%d %d", &pid, &start); err != nil || pid <= 0 {
		return 0, false
	}
	now, ok := procStart(pid)
	return pid, ok && now == start
}

// signalGroup signals pid's process group, or pid alone when it leads none.
func signalGroup(pid int, sig syscall.Signal) {
	if err := syscall.Kill(-pid, sig); err != nil {
		_ = syscall.Kill(pid, sig)
	}
}

// waitFor polls cond until it holds or d has passed, and says which.
func (s *stack) waitFor(d time.Duration, cond func() bool) bool {
	deadline := time.Now().Add(d)
	for {
		if cond() {
			return true
		}
		if !time.Now().Before(deadline) {
			return false
		}
		time.Sleep(s.poll)
	}
}

// stopPidfile stops the process group recorded in path, SIGTERM first and SIGKILL after the
// grace period, and removes path. It reports whether SIGTERM alone was enough.
func (s *stack) stopPidfile(path, name string) (graceful bool) {
	graceful = true
	if pid, ok := pidfileAlive(path); ok {
		s.note("stopping %s (pid %d)", name, pid)
		gone := func() bool { _, ok := pidfileAlive(path); return !ok }
		signalGroup(pid, syscall.SIGTERM)
		if !s.waitFor(s.grace, gone) {
			s.note("%s did not stop after SIGTERM; killing it", name)
			graceful = false
			signalGroup(pid, syscall.SIGKILL)
			s.waitFor(s.grace, gone)
		}
	}
	_ = os.Remove(path)
	return graceful
}

// pidStart is a running process as seen at one moment.
type pidStart struct {
	pid   int
	start uint64
}

func (p pidStart) alive() bool {
	now, ok := procStart(p.pid)
	return ok && now == p.start
}

// killPids stops processes found without a pid file: SIGTERM, SIGKILL after the grace period.
func (s *stack) killPids(name string, procs []pidStart) {
	if len(procs) == 0 {
		return
	}
	pids := make([]string, len(procs))
	for i, p := range procs {
		pids[i] = strconv.Itoa(p.pid)
	}
	s.note("stopping %s (pid %s)", name, strings.Join(pids, " "))
	for _, p := range procs {
		_ = syscall.Kill(p.pid, syscall.SIGTERM)
	}
	allGone := func() bool {
		for _, p := range procs {
			if p.alive() {
				return false
			}
		}
		return true
	}
	if s.waitFor(s.grace, allGone) {
		return
	}
	for _, p := range procs {
		if p.alive() {
			_ = syscall.Kill(p.pid, syscall.SIGKILL)
		}
	}
	s.waitFor(s.grace, allGone)
}

// cmdline is a process's command line, arguments joined by spaces.
func cmdline(pid int) (string, bool) {
	b, err := os.ReadFile(fmt.Sprintf("/proc/%d/cmdline", pid))
	if err != nil {
		return "", false
	}
	return strings.TrimSpace(strings.ReplaceAll(string(b), "\x00", " ")), true
}

// allPids lists the processes of the machine.
func allPids() []int {
	entries, _ := os.ReadDir("/proc")
	var pids []int
	for _, e := range entries {
		if pid, err := strconv.Atoi(e.Name()); err == nil {
			pids = append(pids, pid)
		}
	}
	return pids
}

// stackPids finds the processes run from root/.devstack whatever the pid files say: its binaries,
// the dev-procs helpers (which run $DEVSTACK_BIN/... too) and, withNginx, its nginx master.
func stackPids(root string, withNginx bool) []pidStart {
	binDir := filepath.Join(root, ".devstack", "bin") + "/"
	nginxConf := filepath.Join(root, ".devstack", "nginx", "nginx.conf")
	self := os.Getpid()
	var out []pidStart
	for _, pid := range allPids() {
		if pid == self {
			continue
		}
		args, ok := cmdline(pid)
		if !ok || !(strings.Contains(args, binDir) || withNginx && strings.Contains(args, nginxConf)) {
			continue
		}
		if start, ok := procStart(pid); ok {
			out = append(out, pidStart{pid, start})
		}
	}
	return out
}

// portOpen says whether something accepts TCP connections on 127.0.0.1:port.
func portOpen(ctx context.Context, port int) bool {
	d := net.Dialer{Timeout: time.Second}
	c, err := d.DialContext(ctx, "tcp", net.JoinHostPort("127.0.0.1", strconv.Itoa(port)))
	if err != nil {
		return false
	}
	c.Close()
	return true
}

// listeners returns the processes with a socket listening on TCP port (any address, IPv4 or
// IPv6). Processes of other users are found only when running as root.
func listeners(port int) []int {
	inodes := map[string]bool{}
	for _, table := range []string{"/proc/net/tcp", "/proc/net/tcp6"} {
		for inode := range listenInodes(table, port) {
			inodes[inode] = true
		}
	}
	if len(inodes) == 0 {
		return nil
	}
	var out []int
	for _, pid := range allPids() {
		fds, err := os.ReadDir(fmt.Sprintf("/proc/%d/fd", pid))
		if err != nil {
			continue
		}
		for _, fd := range fds {
			link, err := os.Readlink(fmt.Sprintf("/proc/%d/fd/%s", pid, fd.Name()))
			if err == nil && strings.HasPrefix(link, "socket:[") && inodes[strings.TrimSuffix(link[len("socket:["):], "]")] {
				out = append(out, pid)
				break
			}
		}
	}
	return out
}

// listenInodes reads a /proc/net/tcp table: the socket inodes in state LISTEN on port.
func listenInodes(table string, port int) map[string]bool {
	out := map[string]bool{}
	f, err := os.Open(table)
	if err != nil {
		return out
	}
	defer f.Close()
	sc := bufio.NewScanner(f)
	sc.Scan() // header
	for sc.Scan() {
		// sl local_address rem_address st tx_queue:rx_queue tr:tm->when retrnsmt uid timeout inode
		f := strings.Fields(sc.Text())
		if len(f) < 10 || f[3] != "0A" {
			continue
		}
		_, hexPort, ok := strings.Cut(f[1], ":")
		if p, err := strconv.ParseUint(hexPort, 16, 16); ok && err == nil && int(p) == port {
			out[f[9]] = true
		}
	}
	return out
}
