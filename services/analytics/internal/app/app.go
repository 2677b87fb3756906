// Package app holds the analytics use cases, one struct with a Handle method each, and the
// outbound interfaces they need; adapters implement those interfaces.
package app

import (
	"context"
	"time"

	"github.com/bizassist/bizassist/libs/contracts"
	"github.com/bizassist/bizassist/services/analytics/internal/domain/health"
	"github.com/bizassist/bizassist/services/analytics/internal/domain/usage"
)

// Application is analytics' use cases, one field each: what its ports, workers and command line
// call.
type Application struct {
	LogUsage     LogUsage
	CheckPQL     CheckPQL
	ReserveUsage ReserveUsage
	ReleaseUsage ReleaseUsage
	HealthScore  GetHealthScore
	PredictChurn PredictChurn
	Recompute    Recompute
	Worker       Worker
	SeedDemo     SeedDemo
	FitChurn     FitChurnModel
	Projections  Projections
	History      GetHealthHistory
}

// Clock tells the use cases the time; tests pass a clock they move by hand.
type Clock func() time.Time

// Caller is the authenticated account making a request, as its token describes it.
type Caller struct {
	AccountID string
	Email     string
	Plan      string
}

// Idempotency identifies a retryable request: its key and a fingerprint of what it asked for.
type Idempotency struct {
	Key         string
	Fingerprint []byte
}

// Logged is the durable result of recording a usage event.
type Logged struct {
	EventID string
	At      time.Time
	// Replayed is set when an Idempotency-Key's first result is answered again.
	Replayed bool
}

// UsageRecorder stores a usage event durably; with an Idempotency it returns the first result
// for the key, or a conflict when the key was used for a different request.
type UsageRecorder interface {
	Record(ctx context.Context, e usage.Event, idem *Idempotency) (Logged, error)
}

// Allowances reads what the PQL check reports.
type Allowances interface {
	// MonthlyUse sums each metered feature's use in [from, to).
	MonthlyUse(ctx context.Context, accountID string, from, to time.Time) (map[usage.Feature]int, error)
	// Limits returns each metered feature's monthly limit on plan; usage.Unlimited when none.
	Limits(ctx context.Context, plan string) (map[usage.Feature]int, error)
}

// Reservations stores reservations: usage events admitted against a monthly limit.
type Reservations interface {
	// Reserve counts the use of e's feature by e's account in [from, to) while holding a lock
	// that every reservation of the same account and feature takes, and stores e in the same
	// transaction when admit accepts that use. It returns the use before e.
	Reserve(ctx context.Context, e usage.Event, from, to time.Time, admit func(used int) bool) (int, error)
	// Release deletes the account's reservation id made in [from, to); false when there is none.
	Release(ctx context.Context, accountID, id string, from, to time.Time) (bool, error)
}

// Accounts is the account projection as the use cases see it.
type Accounts interface {
	// Ensure records an account first seen through its own request, so it is scored before its
	// account.created event arrives; a known account is left as it is.
	Ensure(ctx context.Context, c Caller, now time.Time) error
	// Plan returns the account's current plan from the projection; false when it is unknown.
	Plan(ctx context.Context, accountID string) (string, bool, error)
}

// AccountFacts is one account as the health recompute sees it.
type AccountFacts struct {
	AccountID    string
	OwnerID      string // empty for owners
	Email        string
	BusinessName string
	Facts        health.Facts
	// PreviousTier and PreviousScore are the last stored score; the tier is empty when there is none.
	PreviousTier  health.Tier
	PreviousScore int
}

// ScoreUpdate is a new score for one account and, when it just entered critical, the alert.
type ScoreUpdate struct {
	AccountID string
	Score     health.Score
	Alert     *CriticalAlert
}

// CriticalAlert is a client that just entered the critical tier, for its owner: what
// health.critical tells.
type CriticalAlert struct {
	OwnerID         string
	ClientAccountID string
	Email           string
	BusinessName    string
	Score           int
	Recommendation  string
	At              time.Time
}

// Outbox publishes events with the writes of the transaction ctx carries, so an event commits if
// and only if its change does.
type Outbox interface {
	Publish(ctx context.Context, evs ...contracts.Event) error
}

// AtRiskClient is one row of churn-predict.
type AtRiskClient struct {
	AccountID   string
	Email       string
	Business    string
	LastLoginAt time.Time // zero when never
	Score       health.Score
}

// HealthStore keeps scores and their history.
type HealthStore interface {
	// Update gathers the facts of ids as of now and stores what update returns in one
	// transaction that no other update of the same accounts can interleave with; the ctx update
	// gets carries it, so what update publishes commits with the scores.
	Update(ctx context.Context, ids []string, now time.Time, update func(context.Context, []AccountFacts) ([]ScoreUpdate, error)) error
	// Current returns an account's latest score; false when it was never scored.
	Current(ctx context.Context, accountID string) (health.Score, bool, error)
	// Unscored lists the owner's clients that have no score yet.
	Unscored(ctx context.Context, ownerID string) ([]string, error)
	// AtRisk returns the owner's clients with churn >= threshold, highest first, at most limit,
	// and how many there are in all.
	AtRisk(ctx context.Context, ownerID string, threshold, limit int) ([]AtRiskClient, int, error)
	// Dirty returns up to limit accounts whose facts changed since they were scored.
	Dirty(ctx context.Context, limit int) ([]string, error)
	// AccountsAfter pages through every account id in order.
	AccountsAfter(ctx context.Context, after string, limit int) ([]string, error)
}

// NewAccount is an account as account.created describes it; OwnerID is empty for owners.
type NewAccount struct {
	AccountID, OwnerID, Email, BusinessName, Plan string
	CreatedAt                                     time.Time
}

// Activity is a kind of dated activity the signals count.
type Activity string

const (
	ActivityLogin   Activity = "login"   // a day with a login: loginFrequency
	ActivityLead    Activity = "lead"    // a lead written: leadActivity
	ActivityInbound Activity = "inbound" // an inbound webhook event: integrationUse
)

// ChurnModels keeps the churn models fitted from observed cancellations.
type ChurnModels interface {
	// Current returns the newest fitted model; false when none was fitted yet.
	Current(ctx context.Context) (health.ChurnModel, bool, error)
	Save(ctx context.Context, m health.ChurnModel, churned, retained int, at time.Time) error
	// Samples are accounts' signals a horizon before they cancelled or before now.
	Samples(ctx context.Context, now time.Time, horizon time.Duration) ([]health.ChurnSample, error)
}
