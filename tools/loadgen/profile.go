package main

import (
	"bufio"
	"context"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"os"
	"os/exec"
	"path/filepath"
	"runtime/pprof"
	"sort"
	"strconv"
	"strings"
	"sync"
	"text/tabwriter"
	"time"

	"github.com/redis/go-redis/v9"

	"github.com/bizassist/bizassist/libs/rediskit"

	"github.com/bizassist/bizassist/tools/internal/devenv"
)

// Profiler records, around one scenario, where the work went: PostgreSQL's commits, WAL and row
// changes and scans per table, Redis's calls per command and, when it has a directory, a CPU
// profile of every service (from its DEBUG_ADDR) and of the load generator itself (its receivers
// count as machine CPU), written there.
type Profiler struct {
	dir      string            // "" for counts only
	debug    map[string]string // service -> its DEBUG_ADDR
	database string
	rdb      redis.UniversalClient
}

// NewProfiler profiles the stack whose state is in devstackDir (CPU profiles into dir unless it
// is empty), reading each service's DEBUG_ADDR and the database from the environments make up
// gave the services.
func NewProfiler(dir, devstackDir string, redisCfg rediskit.Config) (*Profiler, error) {
	if dir != "" {
		if err := os.MkdirAll(dir, 0o755); err != nil {
			return nil, err
		}
	}
	rdb, err := rediskit.Open(redisCfg)
	if err != nil {
		return nil, fmt.Errorf("the env file's Redis: %w", err)
	}
	p := &Profiler{dir: dir, debug: map[string]string{}, rdb: rdb}
	runDir := filepath.Join(devstackDir, "run")
	files, err := filepath.Glob(filepath.Join(runDir, "*.env"))
	if err != nil {
		return nil, err
	}
	for _, f := range files {
		svc := strings.TrimSuffix(filepath.Base(f), ".env")
		if strings.Contains(svc, ".") {
			continue // a helper's environment
		}
		env, err := devenv.Load(f)
		if err != nil {
			return nil, err
		}
		if a := env["DEBUG_ADDR"]; a != "" {
			p.debug[svc] = a
		}
		if u, err := url.Parse(env["DATABASE_URL"]); err == nil && p.database == "" {
			p.database = strings.TrimPrefix(u.Path, "/")
		}
	}
	if p.database == "" || (dir != "" && len(p.debug) == 0) {
		return nil, fmt.Errorf("no service environment in %s names DATABASE_URL and DEBUG_ADDR (run make up)", runDir)
	}
	return p, nil
}

// counters are cumulative server-side counts by name, e.g. "pg commits" or "redis xadd".
type counters map[string]int64

// Start snapshots the counters and starts the services' CPU profiles for d (when the profiler has
// a directory); stop, called when the scenario ends, collects the profiles and returns the
// counters' increase.
func (p *Profiler) Start(ctx context.Context, name string, d time.Duration) (stop func() (counters, error), err error) {
	before, err := p.snapshot(ctx)
	if err != nil {
		return nil, err
	}
	var wg sync.WaitGroup
	errs := make(chan error, len(p.debug))
	self, err := p.profileSelf(name)
	if err != nil {
		return nil, err
	}
	for svc, addr := range p.debug {
		if p.dir == "" {
			break
		}
		wg.Add(1)
		go func() {
			defer wg.Done()
			path := filepath.Join(p.dir, name+"."+svc+".pprof")
			if err := fetchProfile(ctx, "http://"+addr+"/debug/pprof/profile?seconds="+strconv.Itoa(max(int(d.Seconds()), 1)), path); err != nil {
				errs <- fmt.Errorf("%s profile: %w", svc, err)
			}
		}()
	}
	return func() (counters, error) {
		wg.Wait()
		if err := self(); err != nil {
			return nil, err
		}
		close(errs)
		for err := range errs {
			return nil, err
		}
		after, err := p.snapshot(ctx)
		if err != nil {
			return nil, err
		}
		delta := counters{}
		for k, v := range after {
			if v-before[k] != 0 {
				delta[k] = v - before[k]
			}
		}
		return delta, nil
	}, nil
}

// profileSelf starts the load generator's CPU profile (when the profiler has a directory); stop
// writes it.
func (p *Profiler) profileSelf(name string) (stop func() error, err error) {
	if p.dir == "" {
		return func() error { return nil }, nil
	}
	f, err := os.Create(filepath.Join(p.dir, name+".loadgen.pprof"))
	if err != nil {
		return nil, err
	}
	if err := pprof.StartCPUProfile(f); err != nil {
		f.Close()
		return nil, err
	}
	return func() error {
		pprof.StopCPUProfile()
		return f.Close()
	}, nil
}

func fetchProfile(ctx context.Context, url, path string) error {
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, url, nil)
	if err != nil {
		return err
	}
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		return err
	}
	defer resp.Body.Close()
	if resp.StatusCode != http.StatusOK {
		return fmt.Errorf("status %d", resp.StatusCode)
	}
	f, err := os.Create(path)
	if err != nil {
		return err
	}
	if _, err := io.Copy(f, resp.Body); err != nil {
		f.Close()
		return err
	}
	return f.Close()
}

// pgCounters is what PostgreSQL's statistics views say about the stack's database: transactions,
// WAL (records, bytes, flushes) and rows written per table.
const pgCounters = `
SELECT 'pg commits', xact_commit FROM pg_stat_database WHERE datname = current_database()
UNION ALL SELECT 'pg rollbacks', xact_rollback FROM pg_stat_database WHERE datname = current_database()
UNION ALL SELECT 'pg wal records', wal_records FROM pg_stat_wal
UNION ALL SELECT 'pg wal bytes', wal_bytes::bigint FROM pg_stat_wal
UNION ALL SELECT 'pg wal syncs', wal_sync FROM pg_stat_wal
UNION ALL SELECT 'pg rows ' || schemaname || '.' || relname, n_tup_ins + n_tup_upd + n_tup_del FROM pg_stat_user_tables
UNION ALL SELECT 'pg scans ' || schemaname || '.' || relname, coalesce(seq_scan, 0) + coalesce(idx_scan, 0) FROM pg_stat_user_tables`

// Vacuum runs VACUUM (ANALYZE) over the stack's database, as pgbench does before each run: a
// machine's PostgreSQL may run without autovacuum (this one's CI configuration does), and the
// dead rows of earlier runs would otherwise be measured as this one's work. A production
// database's autovacuum keeps them down.
func (p *Profiler) Vacuum(ctx context.Context) error {
	out, err := exec.CommandContext(ctx, "psql", "-X", "-w", "-q", "-h", "127.0.0.1", "-U", "postgres",
		"-d", p.database, "-c", "VACUUM (ANALYZE)").CombinedOutput()
	if err != nil {
		return fmt.Errorf("vacuum %s: %w: %s", p.database, err, strings.TrimSpace(string(out)))
	}
	return nil
}

func (p *Profiler) snapshot(ctx context.Context) (counters, error) {
	c := counters{}
	// The statistics views lag by up to stats_fetch_consistency's snapshot; a fresh psql session
	// reads the current values.
	out, err := exec.CommandContext(ctx, "psql", "-X", "-w", "-At", "-F", "\t", "-h", "127.0.0.1", "-U", "postgres",
		"-d", p.database, "-c", pgCounters).Output()
	if err != nil {
		return nil, fmt.Errorf("psql (PostgreSQL statistics): %w", err)
	}
	sc := bufio.NewScanner(strings.NewReader(string(out)))
	for sc.Scan() {
		k, v, ok := strings.Cut(sc.Text(), "\t")
		n, err := strconv.ParseInt(v, 10, 64)
		if !ok || err != nil {
			return nil, fmt.Errorf("psql printed %q", sc.Text())
		}
		c[k] = n
	}
	// Summed over the masters of a cluster; a node that does not answer (killed by a fault case)
	// is left out rather than failing the run.
	var mu sync.Mutex
	_ = rediskit.ForEachMaster(ctx, p.rdb, func(ctx context.Context, node *redis.Client) error {
		info, err := node.Info(ctx, "commandstats").Result()
		if err != nil {
			return nil
		}
		mu.Lock()
		defer mu.Unlock()
		for _, line := range strings.Split(info, "\n") {
			// cmdstat_xadd:calls=12,usec=34,...
			name, rest, ok := strings.Cut(strings.TrimSpace(line), ":calls=")
			if !ok {
				continue
			}
			calls, _, _ := strings.Cut(rest, ",")
			n, err := strconv.ParseInt(calls, 10, 64)
			if err != nil {
				continue
			}
			c["redis "+strings.TrimPrefix(name, "cmdstat_")] += n
		}
		return nil
	})
	return c, nil
}

// countRow is one scenario's server-side counts, to be divided by its units.
type countRow struct {
	name, unit string
	units      int
	c          counters
}

// reportCounts prints, per unit of work, what PostgreSQL and Redis did: commits (every
// transaction, read-only ones included), rows written, table scans (index or sequential), WAL
// bytes, and Redis commands with the three most frequent.
func reportCounts(w io.Writer, rows []countRow) error {
	if len(rows) == 0 {
		return nil
	}
	fmt.Fprintln(w)
	fmt.Fprintln(w, "PostgreSQL and Redis work per unit (the servers are the machine's: other clients' work is counted too)")
	tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', tabwriter.AlignRight)
	fmt.Fprintln(tw, "scenario\tper\tpg commits\tpg rows written\tpg scans\tpg WAL bytes\tredis commands\tmost frequent\t")
	for _, r := range rows {
		if r.units == 0 {
			fmt.Fprintf(tw, "%s\t%s\t-\t-\t-\t-\t-\t\t\n", r.name, r.unit)
			continue
		}
		per := func(v int64) float64 { return float64(v) / float64(r.units) }
		var rowsWritten, scans, redisCalls int64
		var cmds []string
		for k, v := range r.c {
			switch {
			case strings.HasPrefix(k, "pg rows "):
				rowsWritten += v
			case strings.HasPrefix(k, "pg scans "):
				scans += v
			case strings.HasPrefix(k, "redis "):
				redisCalls += v
				cmds = append(cmds, k)
			}
		}
		sort.Slice(cmds, func(i, j int) bool { return r.c[cmds[i]] > r.c[cmds[j]] })
		var top []string
		for _, k := range cmds[:min(3, len(cmds))] {
			top = append(top, fmt.Sprintf("%s %.2f", strings.TrimPrefix(k, "redis "), per(r.c[k])))
		}
		fmt.Fprintf(tw, "%s\t%s\t%.2f\t%.2f\t%.2f\t%.0f\t%.2f\t%s\t\n", r.name, r.unit, per(r.c["pg commits"]),
			per(rowsWritten), per(scans), per(r.c["pg wal bytes"]), per(redisCalls), strings.Join(top, ", "))
	}
	return tw.Flush()
}

// writeCounts saves every counter of a scenario per unit, largest first, next to its profiles.
func (p *Profiler) writeCounts(name, unit string, units int, c counters) error {
	if p.dir == "" {
		return nil
	}
	keys := make([]string, 0, len(c))
	for k := range c {
		keys = append(keys, k)
	}
	sort.Slice(keys, func(i, j int) bool { return c[keys[i]] > c[keys[j]] })
	var b strings.Builder
	fmt.Fprintf(&b, "%s: server-side counts per %s (%d)\n", name, unit, units)
	tw := tabwriter.NewWriter(&b, 0, 0, 2, ' ', tabwriter.AlignRight)
	for _, k := range keys {
		fmt.Fprintf(tw, "%s\t%.2f\t\n", k, float64(c[k])/float64(max(units, 1)))
	}
	if err := tw.Flush(); err != nil {
		return err
	}
	return os.WriteFile(filepath.Join(p.dir, name+".counts.txt"), []byte(b.String()), 0o644)
}
