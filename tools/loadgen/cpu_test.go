package main

import (
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
	require.NotContains(t, before, "svc.proc.dns")
	// A child that burns CPU and exits: once reaped, its time is the parent's children's time.
	out, err := exec.Command("sh", "-c", `i=0; while [ $i -lt 300000 ]; do i=$((i+1)); done; cat /proc/$$/stat`).Output()
	require.NoError(t, err)
	child, err := parseStat(out)
	require.NoError(t, err)
	require.Positive(t, child.own, "the child spent CPU")

	after, err := m.Sample()
	require.NoError(t, err)
	d := after.Sub(before)
	require.GreaterOrEqual(t, d["svc"], child.own, "the service's subtree includes its exited child")
	require.GreaterOrEqual(t, d[groupStackTotal], d["svc"])
	require.Positive(t, d[groupMachine])
	require.Equal(t, []string{groupIngress, "svc", groupPostgres, groupRedis, groupStackTotal, groupLoadgen, groupMachine}, cpuColumns(after))
}

func TestCPUMeterNeedsAStack(t *testing.T) {
	_, err := NewCPUMeter(t.TempDir()).Sample()
	require.ErrorContains(t, err, "no running stack")
}

func TestParseStat(t *testing.T) {
	// comm may hold spaces and parentheses; utime..cstime are fields 14-17.
	p, err := parseStat([]byte("4242 (a) b (c) S 17 4242 4242 0 -1 4194560 100 0 0 0 250 50 7 3 20 0 1 0 100 0 0\n"))
	require.NoError(t, err)
	require.Equal(t, procStat{pid: 4242, ppid: 17, comm: "a) b (c", own: 3 * time.Second, children: 100 * time.Millisecond}, p)

	_, err = parseStat([]byte("4242 (x) S 1 2"))
	require.Error(t, err)
}
