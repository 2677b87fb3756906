package main

import (
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"testing"
	"time"

	"github.com/stretchr/testify/require"
)

// selfMeter meters a stack whose only service ("svc") is this test process.
func selfMeter(t *testing.T) *CPUMeter {
	t.Helper()
	dir := t.TempDir()
	require.NoError(t, os.MkdirAll(filepath.Join(dir, "run"), 0o755))
	pid := strconv.Itoa(os.Getpid())
	require.NoError(t, os.WriteFile(filepath.Join(dir, "run", "svc.pid"), []byte(pid+" 12345\n"), 0o644))
	// A helper's pid file is not a service of its own.
	require.NoError(t, os.WriteFile(filepath.Join(dir, "run", "svc.proc.dns.pid"), []byte(pid+"\n"), 0o644))
	return NewCPUMeter(dir)
}

func TestCPUMeterCountsExitedChildren(t *testing.T) {
	m := selfMeter(t)
	before, err := m.Sample()
	require.NoError(t, err)
	// A child that burns CPU and exits: once reaped, its time is the parent's children's time.
	out, err := exec.Command("sh", "-c", `i=0; while [ $i -lt 300000 ]; do i=$((i+1)); done; cat /proc/$$/stat`).Output()
	require.NoError(t, err)
	child, err := parseStat(out)
	require.NoError(t, err)
	require.Positive(t, child.own, "the child spent CPU")

	after, err := m.Sample()
	require.NoError(t, err)
	d := after.Sub(before)
	require.NotContains(t, d, "svc.proc.dns")
	require.GreaterOrEqual(t, d["svc"], child.own, "the service's subtree includes its exited child")
	require.GreaterOrEqual(t, d[groupStackTotal], d["svc"])
	require.Positive(t, d[groupMachine])
	require.Equal(t, []string{groupIngress, "svc", groupPostgres, groupRedis, groupStackTotal, groupLoadgen, groupMachine}, cpuColumns(d))
}

// fakeProc writes a /proc of the given processes (pid, ppid, comm, start, utime in ticks).
func fakeProc(t *testing.T, dir string, procs ...procStat) {
	t.Helper()
	require.NoError(t, os.RemoveAll(dir))
	require.NoError(t, os.MkdirAll(dir, 0o755))
	require.NoError(t, os.WriteFile(filepath.Join(dir, "stat"), []byte("cpu 100 0 100 1000 0 0 0 0 0 0\n"), 0o644))
	for _, p := range procs {
		stat := fmt.Sprintf("%d (%s) S %d 1 1 0 -1 0 0 0 0 0 %d 0 0 0 20 0 1 0 %d 0 0\n",
			p.pid, p.comm, p.ppid, p.own/clockTick, p.start)
		require.NoError(t, os.MkdirAll(filepath.Join(dir, strconv.Itoa(p.pid)), 0o755))
		require.NoError(t, os.WriteFile(filepath.Join(dir, strconv.Itoa(p.pid), "stat"), []byte(stat), 0o644))
	}
}

// A Redis that another test (or the failover case) kills between two readings took its time
// with it; the CI run of stop 42 read the stack's total as -47.7 s because the meter counted it lost.
func TestAProcessThatExitedBetweenReadingsIsLeftOut(t *testing.T) {
	m := selfMeter(t)
	m.procDir = filepath.Join(t.TempDir(), "proc")
	svc := procStat{pid: os.Getpid(), ppid: 1, comm: "svc", start: 5, own: time.Second}
	redis := procStat{pid: 50, ppid: 1, comm: "redis-server", start: 7, own: 40 * time.Second}
	fork := procStat{pid: 51, ppid: 50, comm: "redis-server", start: 8, own: time.Second}
	fakeProc(t, m.procDir, svc, redis, fork)
	before, err := m.Sample()
	require.NoError(t, err)

	svc.own += 2 * time.Second
	// Pid 50 is killed; a new server takes its pid.
	fakeProc(t, m.procDir, svc, procStat{pid: 50, ppid: 1, comm: "redis-server", start: 90, own: 3 * time.Second})
	after, err := m.Sample()
	require.NoError(t, err)
	d := after.Sub(before)
	require.Equal(t, 2*time.Second, d["svc"])
	require.Equal(t, 3*time.Second, d[groupRedis], "the new server from zero, the killed one left out")
	require.Equal(t, 5*time.Second, d[groupStackTotal])
}

func TestCPUMeterNeedsAStack(t *testing.T) {
	_, err := NewCPUMeter(t.TempDir()).Sample()
	require.ErrorContains(t, err, "no running stack")
}

func TestParseStat(t *testing.T) {
	// comm may hold spaces and parentheses; utime..cstime are fields 14-17.
	p, err := parseStat([]byte("4242 (a) b (c) S 17 4242 4242 0 -1 4194560 100 0 0 0 250 50 7 3 20 0 1 0 100 0 0\n"))
	require.NoError(t, err)
	require.Equal(t, procStat{pid: 4242, ppid: 17, comm: "a) b (c", start: 100, own: 3 * time.Second, children: 100 * time.Millisecond}, p)

	_, err = parseStat([]byte("4242 (x) S 1 2"))
	require.Error(t, err)
}
