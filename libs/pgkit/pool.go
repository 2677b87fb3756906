// Package pgkit holds the PostgreSQL plumbing services share: a pool bound to the service's own
// schema with explicit limits, transactions, and embedded versioned migrations.
package pgkit

import (
	"context"
	"errors"
	"fmt"
	"regexp"
	"strconv"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgconn"
	"github.com/jackc/pgx/v5/pgxpool"

	"github.com/bizassist/bizassist/libs/setting"
)

// Config says where the service's schema lives and how many connections it may hold.
type Config struct {
	URL              string        `env:"DATABASE_URL,required"`
	Schema           string        `env:"DATABASE_SCHEMA,required"`
	MaxConns         int32         `env:"DATABASE_MAX_CONNS" envDefault:"10"`
	MinConns         int32         `env:"DATABASE_MIN_CONNS" envDefault:"1"`
	ConnectTimeout   time.Duration `env:"DATABASE_CONNECT_TIMEOUT" envDefault:"5s"`
	StatementTimeout time.Duration `env:"DATABASE_STATEMENT_TIMEOUT" envDefault:"10s"`
	MaxConnLifetime  time.Duration `env:"DATABASE_MAX_CONN_LIFETIME" envDefault:"30m"`
}

var schemaName = regexp.MustCompile(`^[a-z_][a-z0-9_]{0,62}$`)

// Validate reports a config that cannot work.
func (c Config) Validate() error {
	if c.URL == "" {
		return errors.New("DATABASE_URL is required")
	}
	if !schemaName.MatchString(c.Schema) {
		return fmt.Errorf("DATABASE_SCHEMA %q must be a lower-case SQL identifier", c.Schema)
	}
	if c.MaxConns < 1 || c.MinConns < 0 || c.MinConns > c.MaxConns {
		return fmt.Errorf("DATABASE_MIN_CONNS (%d) and DATABASE_MAX_CONNS (%d) must satisfy 0 <= min <= max, max >= 1", c.MinConns, c.MaxConns)
	}
	return errors.Join(setting.Positive("DATABASE_CONNECT_TIMEOUT", c.ConnectTimeout),
		setting.Positive("DATABASE_STATEMENT_TIMEOUT", c.StatementTimeout))
}

// Open connects a pool whose sessions use the service's schema first on the search path.
func Open(ctx context.Context, cfg Config) (*pgxpool.Pool, error) {
	if err := cfg.Validate(); err != nil {
		return nil, err
	}
	pc, err := poolConfig(cfg)
	if err != nil {
		return nil, err
	}
	pool, err := pgxpool.NewWithConfig(ctx, pc)
	if err != nil {
		return nil, fmt.Errorf("connect postgres: %w", err)
	}
	pingCtx, cancel := context.WithTimeout(ctx, cfg.ConnectTimeout)
	defer cancel()
	if err := pool.Ping(pingCtx); err != nil {
		pool.Close()
		return nil, fmt.Errorf("ping postgres: %w", err)
	}
	return pool, nil
}

// poolConfig is the pool configuration of cfg: limits, timeouts, and sessions that use the
// service's schema first on the search path.
func poolConfig(cfg Config) (*pgxpool.Config, error) {
	pc, err := pgxpool.ParseConfig(cfg.URL)
	if err != nil {
		return nil, fmt.Errorf("parse DATABASE_URL: %w", err)
	}
	pc.MaxConns = cfg.MaxConns
	pc.MinConns = cfg.MinConns
	pc.MaxConnLifetime = cfg.MaxConnLifetime
	pc.ConnConfig.ConnectTimeout = cfg.ConnectTimeout
	pc.ConnConfig.RuntimeParams["search_path"] = cfg.Schema
	pc.ConnConfig.RuntimeParams["statement_timeout"] = strconv.FormatInt(cfg.StatementTimeout.Milliseconds(), 10)
	pc.ConnConfig.RuntimeParams["timezone"] = "UTC"
	return pc, nil
}

// Beginner is what InTx needs: a pool, or a connection.
type Beginner interface {
	Begin(ctx context.Context) (pgx.Tx, error)
}

// Querier runs statements: a pool, a connection or a transaction.
type Querier interface {
	Exec(ctx context.Context, sql string, args ...any) (pgconn.CommandTag, error)
	Query(ctx context.Context, sql string, args ...any) (pgx.Rows, error)
	QueryRow(ctx context.Context, sql string, args ...any) pgx.Row
}

type txKey struct{}

// WithTx returns a context carrying tx. Code that opens its work with InTx or Q joins tx instead
// of using its own connection, so work done on behalf of a caller that already holds a
// transaction (an event consumer recording the event as processed) commits or rolls back with it.
func WithTx(ctx context.Context, tx pgx.Tx) context.Context {
	return context.WithValue(ctx, txKey{}, tx)
}

// TxFrom returns the transaction ctx carries (WithTx), if any.
func TxFrom(ctx context.Context) (pgx.Tx, bool) {
	tx, ok := ctx.Value(txKey{}).(pgx.Tx)
	return tx, ok
}

// Transactor is the adapter behind an app layer's unit-of-work port, for app code that must not
// see pgx: InTx runs fn in one transaction (a savepoint when ctx already carries one, or with Join
// that transaction itself, as JoinTx) and hands fn a ctx carrying it, so repositories that use
// InTx or Q, and the events outbox, join it.
type Transactor struct {
	DB   Beginner
	Join bool // for units of work no caller recovers from: an event consumer's, say
}

func (t Transactor) InTx(ctx context.Context, fn func(ctx context.Context) error) error {
	begin := InTx
	if t.Join {
		begin = JoinTx
	}
	return begin(ctx, t.DB, func(tx pgx.Tx) error { return fn(WithTx(ctx, tx)) })
}

// Q returns the transaction carried by ctx, or db when there is none.
func Q(ctx context.Context, db Querier) Querier {
	if tx, ok := TxFrom(ctx); ok {
		return tx
	}
	return db
}

// InTx runs fn in one transaction, committing when fn returns nil and rolling back otherwise.
// When ctx carries a transaction (WithTx), fn runs in a savepoint of it instead, and the outer
// transaction's owner decides the final commit.
func InTx(ctx context.Context, db Beginner, fn func(pgx.Tx) error) (err error) {
	outer, nested := TxFrom(ctx)
	if nested {
		db = outer // pgx begins a savepoint inside a transaction
	}
	begun, err := db.Begin(ctx)
	if err != nil {
		return fmt.Errorf("begin: %w", err)
	}
	return run(ctx, &hookedTx{Tx: begun}, outer, fn)
}

// InTxWith is InTx for a transaction whose first statements are known before it begins: they
// are sent in one batch behind the BEGIN, so beginning costs no round trip of its own. read gets
// their results, in the order first queued them; then fn goes on in the transaction, which
// commits when it returns nil. ctx must not carry a transaction already.
func InTxWith(ctx context.Context, pool *pgxpool.Pool, first *pgx.Batch, read func(pgx.BatchResults) error, fn func(pgx.Tx) error) error {
	if _, nested := TxFrom(ctx); nested {
		return errors.New("pgkit: InTxWith begins its own transaction, and ctx carries one already")
	}
	b := &pgx.Batch{}
	b.BeginTx(pgx.TxOptions{})
	b.QueuedQueries = append(b.QueuedQueries, first.QueuedQueries...)
	results := pool.SendBatch(ctx, b)
	tx := results.Tx()
	_, err := results.Exec() // the BEGIN
	if err == nil {
		err = read(results)
	}
	if closeErr := results.Close(); err == nil {
		err = closeErr
	}
	if err != nil {
		_ = tx.Rollback(context.WithoutCancel(ctx)) // closed already when the BEGIN failed
		return err
	}
	return run(ctx, &hookedTx{Tx: tx}, nil, fn)
}

// run runs fn in tx, begun inside outer when that is not nil, and commits unless fn or work
// joined to tx failed; hooks run once the outermost transaction has committed.
func run(ctx context.Context, tx *hookedTx, outer pgx.Tx, fn func(pgx.Tx) error) (err error) {
	defer func() {
		if err != nil {
			_ = tx.Rollback(context.WithoutCancel(ctx))
		}
	}()
	if err = fn(tx); err != nil {
		return err
	}
	if tx.failed != nil {
		return fmt.Errorf("commit refused: work joined to this transaction failed: %w", tx.failed)
	}
	if err = tx.Commit(ctx); err != nil {
		return fmt.Errorf("commit: %w", err)
	}
	if parent, ok := outer.(*hookedTx); ok {
		parent.afterCommit = append(parent.afterCommit, tx.afterCommit...) // the savepoint is in; its work commits with the outer
		return nil
	}
	for _, hook := range tx.afterCommit {
		hook()
	}
	return nil
}

// JoinTx is InTx, but when ctx carries a transaction fn runs in it rather than in a savepoint of
// it. A savepoint costs two round trips and a subtransaction, which turns the row locks it takes
// into multixacts that every later reader of those rows must resolve. Without one there is nothing
// to roll fn's work back to, so when fn fails the transaction can no longer commit: use JoinTx
// where no caller recovers from a failure and carries on in the same transaction.
func JoinTx(ctx context.Context, db Beginner, fn func(pgx.Tx) error) error {
	outer, ok := TxFrom(ctx)
	if !ok {
		return InTx(ctx, db, fn)
	}
	err := fn(outer)
	if hooked, ok := outer.(*hookedTx); ok && err != nil && hooked.failed == nil {
		hooked.failed = err
	}
	return err
}

// hookedTx is a transaction begun by InTx, with the work to do once it has committed.
type hookedTx struct {
	pgx.Tx
	afterCommit []func()
	failed      error // a JoinTx in it failed: it must not commit
}

// AfterCommit runs fn once the transaction ctx carries has committed, and never if it rolls back
// (a savepoint's hooks go with the savepoint); with no transaction in ctx, the caller's writes are
// already committed and fn runs at once. Hooks are for work that must not see uncommitted rows,
// such as handing them to another process or goroutine; they run in the committer's goroutine, so
// they must not block. ctx must carry a transaction begun by InTx or Transactor.
func AfterCommit(ctx context.Context, fn func()) error {
	tx, ok := TxFrom(ctx)
	if !ok {
		fn()
		return nil
	}
	hooked, ok := tx.(*hookedTx)
	if !ok {
		return errors.New("pgkit.AfterCommit: the transaction in ctx was not begun by pgkit.InTx")
	}
	hooked.afterCommit = append(hooked.afterCommit, fn)
	return nil
}
