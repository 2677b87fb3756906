package postgres

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgxpool"

	"github.com/bizassist/bizassist/libs/pgkit"
	"github.com/bizassist/bizassist/services/analytics/internal/app"
	"github.com/bizassist/bizassist/services/analytics/internal/domain/health"
	"github.com/bizassist/bizassist/services/analytics/internal/domain/usage"
)

// recomputeLock serialises score updates across workers and replicas, so the tier an update
// compares against is never stale and an entry into critical is seen exactly once.
const recomputeLock int64 = 0x616e616c79746963 // "analytic"

// Health stores scores and their history.
type Health struct {
	pool *pgxpool.Pool
	// reads serves the score history, which tolerates replication lag (UseReplica).
	reads *pgkit.Reads
}

func NewHealth(pool *pgxpool.Pool) *Health {
	return &Health{pool: pool, reads: pgkit.PrimaryReads(pool)}
}

// UseReplica sends the score history's reads through reads (the read replica within its lag bound).
func (h *Health) UseReplica(reads *pgkit.Reads) { h.reads = reads }

func (h *Health) Update(ctx context.Context, ids []string, now time.Time, update func(context.Context, []app.AccountFacts) ([]app.ScoreUpdate, error)) error {
	// The marks are cleared, in a statement of their own, before the facts are read: a change
	// committed after this marks its account again. Clearing them inside the long recompute
	// transaction would hold up every usage write of these accounts until it commits.
	if _, err := h.pool.Exec(ctx, `DELETE FROM dirty_accounts WHERE account_id = ANY($1)`, ids); err != nil {
		return fmt.Errorf("clear dirty marks: %w", err)
	}
	alerts := 0
	err := pgkit.InTx(ctx, h.pool, func(tx pgx.Tx) error {
		if _, err := tx.Exec(ctx, `SELECT pg_advisory_xact_lock($1)`, recomputeLock); err != nil {
			return fmt.Errorf("lock recompute: %w", err)
		}
		facts, previous, err := gatherFacts(ctx, tx, ids, now)
		if err != nil {
			return err
		}
		updates, err := update(pgkit.WithTx(ctx, tx), facts)
		if err != nil {
			return err
		}
		alerts = 0
		for _, u := range updates {
			if u.Alert != nil {
				alerts++
			}
		}
		return storeScores(ctx, tx, updates, previous)
	})
	if err != nil {
		// Marked again so the next round retries them; were this to fail too, the sweep would.
		if _, markErr := h.pool.Exec(context.WithoutCancel(ctx), markDirtySQL, sortedUnique(ids), laneProjection); markErr != nil {
			err = errors.Join(err, fmt.Errorf("re-mark dirty accounts: %w", markErr))
		}
		return err
	}
	recomputed.Add(float64(len(ids)))
	criticalAlerts.Add(float64(alerts))
	return nil
}

// stored is the part of an account's current score that decides whether history grows.
type stored struct {
	score int
	tier  health.Tier
}

// gatherFacts reads what the health signals need about each account, over the windows of
// health.DaysAt(now), and the current score of the accounts that have one.
func gatherFacts(ctx context.Context, tx pgx.Tx, ids []string, now time.Time) ([]app.AccountFacts, map[string]stored, error) {
	days := health.DaysAt(now)
	limits, err := allPlanLimits(ctx, tx)
	if err != nil {
		return nil, nil, err
	}
	g, err := loadAccounts(ctx, tx, ids)
	if err != nil {
		return nil, nil, err
	}
	if err := addUsageFacts(ctx, tx, g, ids, days); err != nil {
		return nil, nil, err
	}
	if err := addMeteredUse(ctx, tx, g, ids, days, limits); err != nil {
		return nil, nil, err
	}
	if err := addActivityFacts(ctx, tx, g, ids, days); err != nil {
		return nil, nil, err
	}
	return g.facts, g.previous, nil
}

// gathered is the facts of a batch of accounts while they are read.
type gathered struct {
	facts    []app.AccountFacts
	plans    []string          // plans[i] is the plan of facts[i]
	index    map[string]int    // account id -> its position in facts
	previous map[string]stored // the current score of the accounts that have one
}

// of returns the facts of account id, or nil when it is not in the batch.
func (g *gathered) of(id string) *health.Facts {
	if i, ok := g.index[id]; ok {
		return &g.facts[i].Facts
	}
	return nil
}

// loadAccounts reads the accounts in id order: who they are, their plan, tenure, last login and
// payment state, and their current score.
func loadAccounts(ctx context.Context, tx pgx.Tx, ids []string) (*gathered, error) {
	rows, err := tx.Query(ctx, `SELECT a.account_id, coalesce(a.owner_id, ''), a.email, a.business_name, `+effectivePlan+`,
			a.created_at, a.last_login_at, a.payment_status, a.payment_failures, h.score, h.tier
		FROM accounts a LEFT JOIN health_current h USING (account_id) LEFT JOIN accounts o ON o.account_id = a.owner_id
		WHERE a.account_id = ANY($1) ORDER BY a.account_id`, ids)
	if err != nil {
		return nil, fmt.Errorf("load accounts: %w", err)
	}
	g := &gathered{index: map[string]int{}, previous: map[string]stored{}}
	var (
		f     app.AccountFacts
		plan  string
		login *time.Time
		score *int32
		tier  *string
	)
	_, err = pgx.ForEachRow(rows, []any{&f.AccountID, &f.OwnerID, &f.Email, &f.BusinessName, &plan,
		&f.Facts.CreatedAt, &login, &f.Facts.Payment.Status, &f.Facts.Payment.Failures, &score, &tier}, func() error {
		a := f
		a.Facts.LastLoginAt = time.Time{}
		if login != nil {
			a.Facts.LastLoginAt = *login
		}
		a.PreviousTier, a.PreviousScore = "", 0
		if tier != nil {
			a.PreviousTier, a.PreviousScore = health.Tier(*tier), int(*score)
			g.previous[a.AccountID] = stored{score: int(*score), tier: a.PreviousTier}
		}
		g.index[a.AccountID] = len(g.facts)
		g.facts = append(g.facts, a)
		g.plans = append(g.plans, plan)
		return nil
	})
	if err != nil {
		return nil, fmt.Errorf("load accounts: %w", err)
	}
	return g, nil
}

// addUsageFacts counts, from the daily usage, the distinct features used in Window, the chat
// uses in ChatWindow (the assistant's reservations, chat's one source) and all uses in each of
// the two trend windows.
func addUsageFacts(ctx context.Context, tx pgx.Tx, g *gathered, ids []string, days health.Days) error {
	rows, err := tx.Query(ctx, `SELECT account_id,
			count(DISTINCT feature) FILTER (WHERE day >= $2),
			coalesce(sum(uses) FILTER (WHERE feature = 'chat' AND lane = $8 AND day >= $3), 0),
			coalesce(sum(uses) FILTER (WHERE day >= $4), 0),
			coalesce(sum(uses) FILTER (WHERE day >= $5 AND day < $4), 0)
		FROM usage_daily WHERE account_id = ANY($1) AND day >= $6 AND day <= $7
		GROUP BY account_id`, ids, days.Window, days.Chat, days.Recent, days.Prior, days.Earliest(), days.Today, laneReservation)
	if err != nil {
		return fmt.Errorf("load usage facts: %w", err)
	}
	var (
		id                                  string
		features, chatUses, inRecent, inPri int64
	)
	_, err = pgx.ForEachRow(rows, []any{&id, &features, &chatUses, &inRecent, &inPri}, func() error {
		if fa := g.of(id); fa != nil {
			fa.FeaturesUsed, fa.ChatUses, fa.UsageRecent, fa.UsagePrior = int(features), int(chatUses), int(inRecent), int(inPri)
		}
		return nil
	})
	if err != nil {
		return fmt.Errorf("load usage facts: %w", err)
	}
	return nil
}

// addMeteredUse sets, for every metered feature, each account's uses in Window against its
// plan's monthly limit.
func addMeteredUse(ctx context.Context, tx pgx.Tx, g *gathered, ids []string, days health.Days, limits map[string]map[usage.Feature]int) error {
	rows, err := tx.Query(ctx, `SELECT account_id, feature, sum(uses)::bigint FROM usage_daily
		WHERE account_id = ANY($1) AND day >= $2 AND day <= $3 AND feature = ANY($4) AND lane = $5
		GROUP BY account_id, feature`, ids, days.Window, days.Today, metered(), laneReservation)
	if err != nil {
		return fmt.Errorf("load metered use: %w", err)
	}
	used := map[string]map[usage.Feature]int{}
	var (
		id, feature string
		n           int64
	)
	_, err = pgx.ForEachRow(rows, []any{&id, &feature, &n}, func() error {
		if used[id] == nil {
			used[id] = map[usage.Feature]int{}
		}
		used[id][usage.Feature(feature)] = int(n)
		return nil
	})
	if err != nil {
		return fmt.Errorf("load metered use: %w", err)
	}
	for i := range g.facts {
		for _, mf := range usage.Metered {
			g.facts[i].Facts.Metered = append(g.facts[i].Facts.Metered,
				health.Metered{Used: used[g.facts[i].AccountID][mf], Limit: usage.LimitOf(limits[g.plans[i]], mf)})
		}
	}
	return nil
}

// addActivityFacts counts, from the daily activity, the days with a login, the leads written and
// the inbound webhook events in Window.
func addActivityFacts(ctx context.Context, tx pgx.Tx, g *gathered, ids []string, days health.Days) error {
	rows, err := tx.Query(ctx, `SELECT account_id,
			count(*) FILTER (WHERE kind = 'login'),
			coalesce(sum(n) FILTER (WHERE kind = 'lead'), 0),
			coalesce(sum(n) FILTER (WHERE kind = 'inbound'), 0)
		FROM activity_daily WHERE account_id = ANY($1) AND day >= $2 AND day <= $3
		GROUP BY account_id`, ids, days.Window, days.Today)
	if err != nil {
		return fmt.Errorf("load activity facts: %w", err)
	}
	var (
		id                        string
		loginDays, leads, inbound int64
	)
	_, err = pgx.ForEachRow(rows, []any{&id, &loginDays, &leads, &inbound}, func() error {
		if fa := g.of(id); fa != nil {
			fa.LoginDays, fa.LeadsWritten, fa.InboundEvents = int(loginDays), int(leads), int(inbound)
		}
		return nil
	})
	if err != nil {
		return fmt.Errorf("load activity facts: %w", err)
	}
	return nil
}

func allPlanLimits(ctx context.Context, tx pgx.Tx) (map[string]map[usage.Feature]int, error) {
	rows, err := tx.Query(ctx, `SELECT plan, feature, coalesce(monthly_limit, $1) FROM plan_limits`, usage.Unlimited)
	if err != nil {
		return nil, fmt.Errorf("plan limits: %w", err)
	}
	out := map[string]map[usage.Feature]int{}
	var (
		plan, feature string
		limit         int32
	)
	_, err = pgx.ForEachRow(rows, []any{&plan, &feature, &limit}, func() error {
		if out[plan] == nil {
			out[plan] = map[usage.Feature]int{}
		}
		out[plan][usage.Feature(feature)] = int(limit)
		return nil
	})
	if err != nil {
		return nil, fmt.Errorf("plan limits: %w", err)
	}
	return out, nil
}

func storeScores(ctx context.Context, tx pgx.Tx, updates []app.ScoreUpdate, previous map[string]stored) error {
	if len(updates) == 0 {
		return nil
	}
	var (
		ids, tiers, signals []string
		scores, churns      []int32
		ats                 []time.Time
		changed             []bool
	)
	for _, u := range updates {
		raw, err := json.Marshal(u.Score.Signals)
		if err != nil {
			return fmt.Errorf("encode signals: %w", err)
		}
		p, had := previous[u.AccountID]
		ids = append(ids, u.AccountID)
		tiers = append(tiers, string(u.Score.Tier))
		signals = append(signals, string(raw))
		scores = append(scores, int32(u.Score.Value)) //nolint:gosec // 0-100
		churns = append(churns, int32(u.Score.Churn)) //nolint:gosec // 0-100
		ats = append(ats, u.Score.ComputedAt)
		changed = append(changed, !had || p.score != u.Score.Value || p.tier != u.Score.Tier)
	}
	if _, err := tx.Exec(ctx, `INSERT INTO health_current (account_id, score, tier, churn, signals, computed_at)
		SELECT id, score, tier, churn, signals::jsonb, at
		FROM unnest($1::text[], $2::int[], $3::text[], $4::int[], $5::text[], $6::timestamptz[])
			AS r(id, score, tier, churn, signals, at)
		ON CONFLICT (account_id) DO UPDATE SET score = excluded.score, tier = excluded.tier,
			churn = excluded.churn, signals = excluded.signals, computed_at = excluded.computed_at`,
		ids, scores, tiers, churns, signals, ats); err != nil {
		return fmt.Errorf("store current scores: %w", err)
	}
	if _, err := tx.Exec(ctx, `INSERT INTO health_scores (account_id, score, tier, churn, signals, computed_at)
		SELECT id, score, tier, churn, signals::jsonb, at
		FROM unnest($1::text[], $2::int[], $3::text[], $4::int[], $5::text[], $6::timestamptz[], $7::bool[])
			AS r(id, score, tier, churn, signals, at, changed)
		WHERE changed`, ids, scores, tiers, churns, signals, ats, changed); err != nil {
		return fmt.Errorf("store score history: %w", err)
	}
	return nil
}

func (h *Health) Current(ctx context.Context, accountID string) (health.Score, bool, error) {
	var (
		score, churn int32
		tier         string
		signals      []byte
		at           time.Time
	)
	err := h.pool.QueryRow(ctx, `SELECT score, tier, churn, signals, computed_at FROM health_current
		WHERE account_id = $1`, accountID).Scan(&score, &tier, &churn, &signals, &at)
	if errors.Is(err, pgx.ErrNoRows) {
		return health.Score{}, false, nil
	}
	if err != nil {
		return health.Score{}, false, fmt.Errorf("current score: %w", err)
	}
	var v health.Values
	if err := json.Unmarshal(signals, &v); err != nil {
		return health.Score{}, false, fmt.Errorf("decode signals: %w", err)
	}
	return health.Restore(v, int(score), health.Tier(tier), int(churn), at.UTC()), true, nil
}

func (h *Health) Unscored(ctx context.Context, ownerID string) ([]string, error) {
	rows, err := h.pool.Query(ctx, `SELECT a.account_id FROM accounts a
		WHERE a.owner_id = $1 AND NOT EXISTS (SELECT 1 FROM health_current h WHERE h.account_id = a.account_id)
		ORDER BY a.account_id`, ownerID)
	if err != nil {
		return nil, fmt.Errorf("unscored clients: %w", err)
	}
	ids, err := pgx.CollectRows(rows, pgx.RowTo[string])
	if err != nil {
		return nil, fmt.Errorf("unscored clients: %w", err)
	}
	return ids, nil
}

func (h *Health) AtRisk(ctx context.Context, ownerID string, threshold, limit int) ([]app.AtRiskClient, int, error) {
	rows, err := h.pool.Query(ctx, `SELECT a.account_id, a.email, a.business_name, a.last_login_at,
			h.score, h.tier, h.churn, h.signals, h.computed_at, count(*) OVER ()
		FROM accounts a JOIN health_current h USING (account_id)
		WHERE a.owner_id = $1 AND h.churn >= $2
		ORDER BY h.churn DESC, h.score, a.account_id
		LIMIT $3`, ownerID, threshold, limit)
	if err != nil {
		return nil, 0, fmt.Errorf("at-risk clients: %w", err)
	}
	var (
		out          []app.AtRiskClient
		total        int64
		c            app.AtRiskClient
		login        *time.Time
		score, churn int32
		tier         string
		signals      []byte
		at           time.Time
	)
	_, err = pgx.ForEachRow(rows, []any{&c.AccountID, &c.Email, &c.Business, &login, &score, &tier, &churn, &signals, &at, &total}, func() error {
		var v health.Values
		if err := json.Unmarshal(signals, &v); err != nil {
			return fmt.Errorf("decode signals: %w", err)
		}
		row := c
		row.LastLoginAt = time.Time{}
		if login != nil {
			row.LastLoginAt = login.UTC()
		}
		row.Score = health.Restore(v, int(score), health.Tier(tier), int(churn), at.UTC())
		out = append(out, row)
		return nil
	})
	if err != nil {
		return nil, 0, fmt.Errorf("at-risk clients: %w", err)
	}
	return out, int(total), nil
}

func (h *Health) Dirty(ctx context.Context, limit int) ([]string, error) {
	return h.ids(ctx, `SELECT account_id FROM dirty_accounts GROUP BY account_id ORDER BY min(marked_at), account_id LIMIT $1`, limit)
}

func (h *Health) AccountsAfter(ctx context.Context, after string, limit int) ([]string, error) {
	return h.ids(ctx, `SELECT account_id FROM accounts WHERE account_id > $2 ORDER BY account_id LIMIT $1`, limit, after)
}

func (h *Health) ids(ctx context.Context, sql string, args ...any) ([]string, error) {
	rows, err := h.pool.Query(ctx, sql, args...)
	if err != nil {
		return nil, fmt.Errorf("list accounts: %w", err)
	}
	ids, err := pgx.CollectRows(rows, pgx.RowTo[string])
	if err != nil {
		return nil, fmt.Errorf("list accounts: %w", err)
	}
	return ids, nil
}
