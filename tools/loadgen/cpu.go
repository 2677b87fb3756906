package main

import (
	"bufio"
	"bytes"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"sort"
	"strconv"
	"strings"
	"syscall"
	"time"
)

// clockTick is the unit of /proc's CPU times (USER_HZ), 100 per second on every Linux that Go
// runs on without cgo to ask sysconf.
const clockTick = 10 * time.Millisecond

// Process groups the CPU meter reports besides the stack's services.
const (
	groupIngress    = "nginx"
	groupPostgres   = "postgres"
	groupRedis      = "redis"
	groupLoadgen    = "loadgen"
	groupMachine    = "machine"
	groupStackTotal = "stack"
)

// CPUMeter reads how much CPU time the stack's processes have used: each service (its pid file in
// .devstack/run), the ingress (nginx's pid file), PostgreSQL and Redis (found by name: they are
// the machine's, shared with anything else using them), this process, and the whole machine.
// A group's time is that of its process and every descendant, exited ones included (the
// children's times /proc keeps for each parent that reaped them).
type CPUMeter struct {
	runDir, nginxPidFile, procDir string
}

// NewCPUMeter meters the stack whose state is in devstackDir (.devstack).
func NewCPUMeter(devstackDir string) *CPUMeter {
	return &CPUMeter{
		runDir:       filepath.Join(devstackDir, "run"),
		nginxPidFile: filepath.Join(devstackDir, "nginx", "run", "nginx.pid"),
		procDir:      "/proc",
	}
}

// CPUSample is the CPU time each group used over an interval.
type CPUSample map[string]time.Duration

// CPUReading is cumulative CPU time at one moment, kept by root process so that a difference
// counts only processes it saw at both ends.
type CPUReading struct {
	roots            map[root]time.Duration // each root's subtree
	loadgen, machine time.Duration
}

// root is one top process of a group; its start time tells a reused pid from the process that
// had it before.
type root struct {
	group string
	pid   int
	start int64
}

// Sub returns the CPU each group used between earlier and r. A root that started in between
// counts from zero; one that exited in between (a killed Redis master, a PostgreSQL that was
// restarted) is left out, since its time since earlier went nowhere that /proc keeps, and
// counting its cumulative time as lost would make the group's figure negative.
func (r CPUReading) Sub(earlier CPUReading) CPUSample {
	d := CPUSample{}
	for k, v := range r.roots {
		d[k.group] += v - earlier.roots[k]
	}
	var total time.Duration
	for _, v := range d {
		total += v
	}
	d[groupStackTotal] = total
	d[groupLoadgen] = r.loadgen - earlier.loadgen
	d[groupMachine] = r.machine - earlier.machine
	return d
}

type procStat struct {
	pid, ppid int
	comm      string
	start     int64         // starttime, in clock ticks after boot
	own       time.Duration // utime + stime
	children  time.Duration // cutime + cstime: reaped descendants
}

// Sample reads every group's cumulative CPU time.
func (m *CPUMeter) Sample() (CPUReading, error) {
	procs, err := m.readProcs()
	if err != nil {
		return CPUReading{}, err
	}
	kids := map[int][]int{}
	for pid, p := range procs {
		kids[p.ppid] = append(kids[p.ppid], pid)
	}
	subtree := func(root int) time.Duration {
		var total time.Duration
		stack := []int{root}
		for len(stack) > 0 {
			pid := stack[len(stack)-1]
			stack = stack[:len(stack)-1]
			if p, ok := procs[pid]; ok {
				total += p.own + p.children
				stack = append(stack, kids[pid]...)
			}
		}
		return total
	}

	r := CPUReading{roots: map[root]time.Duration{}}
	add := func(group string, pid int) {
		if p, ok := procs[pid]; ok {
			r.roots[root{group, pid, p.start}] = subtree(pid)
		}
	}
	roots, err := m.stackRoots()
	if err != nil {
		return CPUReading{}, err
	}
	for group, pid := range roots {
		add(group, pid)
	}
	for pid, p := range procs {
		parent := procs[p.ppid].comm
		switch {
		case p.comm == "postgres" && parent != "postgres":
			add(groupPostgres, pid)
		case p.comm == "redis-server" && parent != "redis-server":
			add(groupRedis, pid)
		}
	}
	var self syscall.Rusage
	if err := syscall.Getrusage(syscall.RUSAGE_SELF, &self); err != nil {
		return CPUReading{}, err
	}
	r.loadgen = time.Duration(syscall.TimevalToNsec(self.Utime) + syscall.TimevalToNsec(self.Stime))
	if r.machine, err = m.machineBusy(); err != nil {
		return CPUReading{}, err
	}
	return r, nil
}

// stackRoots maps each service (run/<svc>.pid, helpers excluded) and the ingress to its pid.
func (m *CPUMeter) stackRoots() (map[string]int, error) {
	roots := map[string]int{}
	files, err := filepath.Glob(filepath.Join(m.runDir, "*.pid"))
	if err != nil {
		return nil, err
	}
	for _, f := range files {
		name := strings.TrimSuffix(filepath.Base(f), ".pid")
		if strings.Contains(name, ".proc.") {
			continue // a service's helper (a local stand-in), not the service
		}
		if pid, ok := readPid(f); ok {
			roots[name] = pid
		}
	}
	if pid, ok := readPid(m.nginxPidFile); ok {
		roots[groupIngress] = pid
	}
	if len(roots) == 0 {
		return nil, fmt.Errorf("no running stack in %s (run make up)", filepath.Dir(m.runDir))
	}
	return roots, nil
}

// readPid reads the first field of a pid file ("pid" or devstack's "pid starttime").
func readPid(path string) (int, bool) {
	b, err := os.ReadFile(path)
	if err != nil {
		return 0, false
	}
	fields := strings.Fields(string(b))
	if len(fields) == 0 {
		return 0, false
	}
	pid, err := strconv.Atoi(fields[0])
	return pid, err == nil
}

func (m *CPUMeter) readProcs() (map[int]procStat, error) {
	entries, err := os.ReadDir(m.procDir)
	if err != nil {
		return nil, err
	}
	procs := map[int]procStat{}
	for _, e := range entries {
		pid, err := strconv.Atoi(e.Name())
		if err != nil {
			continue
		}
		raw, err := os.ReadFile(filepath.Join(m.procDir, e.Name(), "stat"))
		if err != nil {
			continue // exited since the listing
		}
		p, err := parseStat(raw)
		if err != nil {
			return nil, fmt.Errorf("%s/%d/stat: %w", m.procDir, pid, err)
		}
		procs[pid] = p
	}
	return procs, nil
}

// parseStat reads proc(5)'s stat line: "pid (comm) state ppid ... utime stime cutime cstime ...".
// comm may hold spaces and parentheses, so the fields are counted from its last ')'.
func parseStat(raw []byte) (procStat, error) {
	open, end := bytes.IndexByte(raw, '('), bytes.LastIndexByte(raw, ')')
	if open < 0 || end < open {
		return procStat{}, errors.New("no (comm)")
	}
	pid, err := strconv.Atoi(string(bytes.TrimSpace(raw[:open])))
	if err != nil {
		return procStat{}, err
	}
	f := strings.Fields(string(raw[end+1:]))
	// f[0] is field 3 (state): ppid is field 4, utime..cstime fields 14-17, starttime field 22.
	if len(f) < 20 {
		return procStat{}, errors.New("too few fields")
	}
	start, err := strconv.ParseInt(f[19], 10, 64)
	if err != nil {
		return procStat{}, err
	}
	n := make([]int64, 4)
	for i := range n {
		if n[i], err = strconv.ParseInt(f[11+i], 10, 64); err != nil {
			return procStat{}, err
		}
	}
	ppid, err := strconv.Atoi(f[1])
	if err != nil {
		return procStat{}, err
	}
	return procStat{
		pid: pid, ppid: ppid, comm: string(raw[open+1 : end]), start: start,
		own:      time.Duration(n[0]+n[1]) * clockTick,
		children: time.Duration(n[2]+n[3]) * clockTick,
	}, nil
}

// machineBusy is the whole machine's non-idle CPU time from /proc/stat's cpu line.
func (m *CPUMeter) machineBusy() (time.Duration, error) {
	f, err := os.Open(filepath.Join(m.procDir, "stat"))
	if err != nil {
		return 0, err
	}
	defer f.Close()
	sc := bufio.NewScanner(f)
	if !sc.Scan() {
		return 0, errors.New("/proc/stat is empty")
	}
	fields := strings.Fields(sc.Text())
	if len(fields) < 9 || fields[0] != "cpu" {
		return 0, fmt.Errorf("/proc/stat: unexpected first line %q", sc.Text())
	}
	var busy int64
	// user nice system idle iowait irq softirq steal: all but idle and iowait.
	for i, v := range fields[1:9] {
		if i == 3 || i == 4 {
			continue
		}
		n, err := strconv.ParseInt(v, 10, 64)
		if err != nil {
			return 0, err
		}
		busy += n
	}
	return time.Duration(busy) * clockTick, nil
}

// cpuColumns orders a breakdown: the ingress, the services by name, the shared servers, the sum
// of those, then this process and the machine.
func cpuColumns(s CPUSample) []string {
	fixed := map[string]bool{groupIngress: true, groupPostgres: true, groupRedis: true,
		groupStackTotal: true, groupLoadgen: true, groupMachine: true}
	var services []string
	for g := range s {
		if !fixed[g] {
			services = append(services, g)
		}
	}
	sort.Strings(services)
	cols := append([]string{groupIngress}, services...)
	return append(cols, groupPostgres, groupRedis, groupStackTotal, groupLoadgen, groupMachine)
}
