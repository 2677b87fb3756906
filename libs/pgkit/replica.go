package pgkit

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"sync/atomic"
	"time"

	"github.com/jackc/pgx/v5/pgxpool"
	"github.com/prometheus/client_golang/prometheus"
	"github.com/prometheus/client_golang/prometheus/promauto"
)

// ReplicaConfig names an optional read replica (a hot standby streaming from the primary) for
// reads that tolerate a little lag. Without a URL every read goes to the primary.
type ReplicaConfig struct {
	URL string `env:"DATABASE_REPLICA_URL"`
	// MaxLag is the replication lag a read accepts; past it (or when the lag cannot be measured)
	// reads go to the primary until the replica catches up.
	MaxLag   time.Duration `env:"DATABASE_REPLICA_MAX_LAG" envDefault:"2s"`
	MaxConns int32         `env:"DATABASE_REPLICA_MAX_CONNS" envDefault:"10"`
}

// Validate reports a config that cannot work.
func (c ReplicaConfig) Validate() error {
	if c.URL == "" {
		return nil
	}
	if c.MaxLag <= 0 || c.MaxConns < 1 {
		return errors.New("DATABASE_REPLICA_MAX_LAG must be positive and DATABASE_REPLICA_MAX_CONNS at least 1")
	}
	return nil
}

// Recent remembers keys (accounts) that wrote lately, across every replica of a service.
type Recent interface {
	Mark(ctx context.Context, key string, ttl time.Duration) error
	Seen(ctx context.Context, key string) (bool, error)
}

// lagEvery is how often the replica's lag is measured.
const lagEvery = time.Second

// Reads routes lag-tolerant reads to the replica while its measured lag is within MaxLag, and to
// the primary otherwise. A key that wrote within the read-your-writes window (RecentWindow) reads
// from the primary, so a user sees their own write at once.
type Reads struct {
	primary, replica *pgxpool.Pool
	maxLag           time.Duration
	recent           Recent
	usable           atomic.Bool
	lag              atomic.Int64 // nanoseconds; -1 when it could not be measured
}

// Metric names are shared with the dashboards; keep them stable.
var (
	replicaLag = promauto.NewGauge(prometheus.GaugeOpts{
		Name: "bizassist_db_replica_lag_seconds",
		Help: "Replication lag of the read replica, measured every second; -1 when it cannot be measured.",
	})
	replicaReads = promauto.NewGauge(prometheus.GaugeOpts{
		Name: "bizassist_db_replica_in_use",
		Help: "1 while lag-tolerant reads go to the read replica, 0 while they go to the primary.",
	})
)

// PrimaryReads sends every read to the primary: the shape without a replica.
func PrimaryReads(primary *pgxpool.Pool) *Reads {
	return &Reads{primary: primary}
}

// OpenReplica connects the replica of cfg with the primary's schema and settings. The replica need
// not be up: until a measurement says it is within the bound, reads go to the primary.
func OpenReplica(ctx context.Context, db Config, cfg ReplicaConfig, primary *pgxpool.Pool, recent Recent) (*Reads, error) {
	if cfg.URL == "" {
		return PrimaryReads(primary), nil
	}
	if err := cfg.Validate(); err != nil {
		return nil, err
	}
	db.URL, db.MaxConns = cfg.URL, cfg.MaxConns
	db.MinConns = min(db.MinConns, db.MaxConns)
	pc, err := poolConfig(db)
	if err != nil {
		return nil, fmt.Errorf("DATABASE_REPLICA_URL: %w", err)
	}
	replica, err := pgxpool.NewWithConfig(ctx, pc)
	if err != nil {
		return nil, fmt.Errorf("connect replica: %w", err)
	}
	r := &Reads{primary: primary, replica: replica, maxLag: cfg.MaxLag, recent: recent}
	r.lag.Store(-1)
	return r, nil
}

// Close releases the replica pool (the primary belongs to its opener).
func (r *Reads) Close() {
	if r.replica != nil {
		r.replica.Close()
	}
}

// RecentWindow is how long after a write its key reads from the primary: a write committed within
// MaxLag of its mark is on the replica by then, since the replica serves reads only while its
// lag, measured at most lagEvery ago, is within MaxLag.
func (r *Reads) RecentWindow() time.Duration { return 2*r.maxLag + lagEvery }

// Pool is where a lag-tolerant read goes now: the replica when it is within the bound.
func (r *Reads) Pool() *pgxpool.Pool {
	if r.replica != nil && r.usable.Load() {
		return r.replica
	}
	return r.primary
}

// For is Pool for a read that must see key's own recent writes (Wrote): the primary while key
// wrote within RecentWindow, or when that cannot be told.
func (r *Reads) For(ctx context.Context, key string) *pgxpool.Pool {
	p := r.Pool()
	if p == r.primary || r.recent == nil {
		return p
	}
	if seen, err := r.recent.Seen(ctx, key); err != nil || seen {
		return r.primary
	}
	return p
}

// Wrote marks key as having written, before or in the transaction of the write.
func (r *Reads) Wrote(ctx context.Context, key string) {
	if r.replica == nil || r.recent == nil {
		return
	}
	if err := r.recent.Mark(ctx, key, r.RecentWindow()); err != nil {
		// Not fatal: the replica lags MaxLag at most, the window's bound anyway.
		slog.WarnContext(ctx, "pgkit: mark a recent write", "err", err)
	}
}

// Lag is the last measured replication lag, and whether reads go to the replica.
func (r *Reads) Lag() (time.Duration, bool) {
	return time.Duration(r.lag.Load()), r.replica != nil && r.usable.Load()
}

// Run measures the replica's lag every second until ctx ends. Without a replica it returns at
// once.
func (r *Reads) Run(ctx context.Context) error {
	if r.replica == nil {
		return nil
	}
	t := time.NewTicker(lagEvery)
	defer t.Stop()
	var marks []walMark
	for {
		marks = r.sample(ctx, marks)
		select {
		case <-ctx.Done():
			return nil
		case <-t.C:
		}
	}
}

// walMark is the primary's WAL position at a moment.
type walMark struct {
	at  time.Time
	lsn int64
}

// lagHorizon is how far back positions of the primary are remembered: a replica further behind
// is not measured, only known to be past any sensible bound.
const lagHorizon = time.Minute

// sample measures the lag once and returns the primary positions to keep for the next call. It
// needs no privilege: the replica holds the primary's state as of the latest remembered moment
// whose WAL position it has replayed, so its lag is at most the age of that moment. A replica
// that stopped receiving (primary unreachable, streaming broken) ages out of the bound.
func (r *Reads) sample(ctx context.Context, marks []walMark) []walMark {
	ctx, cancel := context.WithTimeout(ctx, lagEvery)
	defer cancel()
	const lsnSQL = "SELECT (%s - '0/0'::pg_lsn)::bigint"
	now := time.Now()
	var primary, replayed int64
	err := r.primary.QueryRow(ctx, fmt.Sprintf(lsnSQL, "pg_current_wal_lsn()")).Scan(&primary)
	if err == nil {
		marks = append(marks, walMark{at: now, lsn: primary})
		err = r.replica.QueryRow(ctx, fmt.Sprintf(lsnSQL, "coalesce(pg_last_wal_replay_lsn(), '0/0')")).Scan(&replayed)
	}
	for len(marks) > 0 && now.Sub(marks[0].at) > lagHorizon {
		marks = marks[1:]
	}
	lag := time.Duration(-1)
	if err == nil {
		for i := len(marks) - 1; i >= 0; i-- {
			if marks[i].lsn <= replayed {
				lag = time.Since(marks[i].at)
				break
			}
		}
	}
	usable := lag >= 0 && lag <= r.maxLag
	if was := r.usable.Swap(usable); was != usable {
		slog.InfoContext(ctx, "pgkit: replica reads", "replica", usable, "lag", lag, "maxLag", r.maxLag, "err", err)
	}
	r.lag.Store(int64(lag))
	replicaLag.Set(lag.Seconds())
	if lag < 0 {
		replicaLag.Set(-1)
	}
	replicaReads.Set(0)
	if usable {
		replicaReads.Set(1)
	}
	return marks
}
