package app

import (
	"context"
	"fmt"
	"log/slog"
	"time"

	"github.com/bizassist/bizassist/libs/contracts"
	"github.com/bizassist/bizassist/libs/contracts/analyticsevents"
	"github.com/bizassist/bizassist/libs/isotime"
	"github.com/bizassist/bizassist/services/analytics/internal/domain/health"
)

// Recompute scores accounts from their current facts, stores the scores, raises
// health.critical for each client that has just entered the critical tier, and tells identity
// (health.scored) each client's score whenever it or its tier changed.
type Recompute struct {
	Store  HealthStore
	Models ChurnModels
	Outbox Outbox
	Now    Clock
}

func (h Recompute) Handle(ctx context.Context, ids []string) error {
	if len(ids) == 0 {
		return nil
	}
	model, fitted, err := h.Models.Current(ctx)
	if err != nil {
		return err
	}
	if !fitted {
		model = health.DefaultChurnModel
	}
	now := h.Now()
	return h.Store.Update(ctx, ids, now, func(ctx context.Context, accounts []AccountFacts) ([]ScoreUpdate, error) {
		out := make([]ScoreUpdate, 0, len(accounts))
		var evs []contracts.Event
		for _, a := range accounts {
			u := score(a, now, model)
			out = append(out, u)
			if u.Alert != nil {
				evs = append(evs, healthCritical(*u.Alert))
			}
			if a.OwnerID != "" && (a.PreviousTier != u.Score.Tier || a.PreviousScore != u.Score.Value) {
				evs = append(evs, healthScored(a.OwnerID, u))
			}
		}
		if len(evs) == 0 {
			return out, nil
		}
		return out, h.Outbox.Publish(ctx, evs...)
	})
}

// healthCritical is the health.critical event of an alert; its envelope names the owner.
func healthCritical(a CriticalAlert) contracts.Event {
	return contracts.Event{Type: analyticsevents.HealthCritical, AccountID: a.OwnerID, Data: analyticsevents.HealthCriticalData{
		ClientAccountID: a.ClientAccountID, Email: a.Email, BusinessName: a.BusinessName, Score: a.Score,
		Recommendation: a.Recommendation, At: isotime.Of(a.At),
	}}
}

// healthScored tells identity a client's new score; its envelope names the owner.
func healthScored(ownerID string, u ScoreUpdate) contracts.Event {
	return contracts.Event{Type: analyticsevents.HealthScored, AccountID: ownerID, Data: analyticsevents.HealthScoredData{
		AccountID: u.AccountID, Score: u.Score.Value, Tier: string(u.Score.Tier), At: isotime.Of(u.Score.ComputedAt),
	}}
}

func score(a AccountFacts, now time.Time, model health.ChurnModel) ScoreUpdate {
	s := health.Evaluate(a.Facts, now, model)
	u := ScoreUpdate{AccountID: a.AccountID, Score: s}
	// Only clients raise the alert: it goes to the owner who looks after them.
	if a.OwnerID != "" && health.EntersCritical(a.PreviousTier, s.Tier) {
		u.Alert = &CriticalAlert{
			OwnerID: a.OwnerID, ClientAccountID: a.AccountID, Email: a.Email, BusinessName: a.BusinessName,
			Score: s.Value, Recommendation: health.Recommendation(s.Signals), At: now,
		}
	}
	return u
}

// GetHealthScore returns the caller's latest score, scoring the account first if it never was.
type GetHealthScore struct {
	Store     HealthStore
	Accounts  Accounts
	Recompute Recompute
	Now       Clock
}

func (h GetHealthScore) Handle(ctx context.Context, c Caller) (health.Score, error) {
	s, ok, err := h.Store.Current(ctx, c.AccountID)
	if err != nil || ok {
		return s, err
	}
	if err := h.Accounts.Ensure(ctx, c, h.Now()); err != nil {
		return health.Score{}, err
	}
	if err := h.Recompute.Handle(ctx, []string{c.AccountID}); err != nil {
		return health.Score{}, err
	}
	s, ok, err = h.Store.Current(ctx, c.AccountID)
	if err == nil && !ok {
		err = fmt.Errorf("account %s has no score after recompute", c.AccountID)
	}
	return s, err
}

// Worker keeps scores current: every DirtyEvery it rescores the accounts whose facts changed
// (so a burst of events costs one recompute), and every SweepEvery it rescores every account,
// so that scores also move when nothing happens.
type Worker struct {
	Store      HealthStore
	Recompute  Recompute
	DirtyEvery time.Duration
	SweepEvery time.Duration
	BatchSize  int
}

// Run works until ctx is done. It sweeps once at start too: a service restarted more often than
// SweepEvery would otherwise never let quiet accounts drift.
func (w Worker) Run(ctx context.Context) error {
	dirty := time.NewTicker(w.DirtyEvery)
	defer dirty.Stop()
	sweep := time.NewTicker(w.SweepEvery)
	defer sweep.Stop()
	w.sweep(ctx)
	for {
		select {
		case <-ctx.Done():
			return nil
		case <-dirty.C:
			if _, err := w.RecomputeDirty(ctx); err != nil && ctx.Err() == nil {
				slog.ErrorContext(ctx, "recompute dirty accounts", "error", err)
			}
		case <-sweep.C:
			w.sweep(ctx)
		}
	}
}

func (w Worker) sweep(ctx context.Context) {
	n, err := w.RecomputeAll(ctx)
	switch {
	case err != nil && ctx.Err() == nil:
		slog.ErrorContext(ctx, "health sweep", "error", err, "accounts", n)
	case err == nil:
		slog.InfoContext(ctx, "health sweep done", "accounts", n)
	}
}

// RecomputeDirty rescores the accounts marked dirty, a batch at a time, until a batch comes
// back short (what is marked meanwhile waits for the next tick).
func (w Worker) RecomputeDirty(ctx context.Context) (int, error) {
	total := 0
	for {
		ids, err := w.Store.Dirty(ctx, w.BatchSize)
		if err != nil || len(ids) == 0 {
			return total, err
		}
		if err := w.Recompute.Handle(ctx, ids); err != nil {
			return total, err
		}
		total += len(ids)
		if len(ids) < w.BatchSize {
			return total, nil
		}
	}
}

// RecomputeAll rescores every account, a batch at a time, and returns how many it scored.
func (w Worker) RecomputeAll(ctx context.Context) (int, error) {
	total, after := 0, ""
	for {
		ids, err := w.Store.AccountsAfter(ctx, after, w.BatchSize)
		if err != nil || len(ids) == 0 {
			return total, err
		}
		if err := w.Recompute.Handle(ctx, ids); err != nil {
			return total, err
		}
		total += len(ids)
		after = ids[len(ids)-1]
	}
}
