package app

import (
	"context"
	"fmt"

	"github.com/bizassist/bizassist/libs/apperr"
	"github.com/bizassist/bizassist/services/analytics/internal/domain/usage"
)

// ReserveUsageInput is a reservation request from the service that runs the feature.
type ReserveUsageInput struct {
	Feature string
	Count   int
	Action  string // optional
}

// Reservation is an admitted reservation and the allowance as it stands after it.
type Reservation struct {
	ID        string
	Feature   usage.Feature
	Allowance usage.Allowance
}

// ReserveUsage admits count uses of a metered feature against the account's current plan, or
// refuses them all, atomically: concurrent reservations cannot take the month past the limit.
// The admitted reservation is the usage record itself.
type ReserveUsage struct {
	Reservations Reservations
	Allowances   Allowances
	Accounts     Accounts
	UpgradeURL   string
	Now          Clock
}

func (h ReserveUsage) Handle(ctx context.Context, c Caller, in ReserveUsageInput) (Reservation, error) {
	now := h.Now()
	e, err := usage.NewReservation(c.AccountID, in.Feature, in.Count, in.Action, now)
	if err != nil {
		return Reservation{}, err
	}
	f := usage.Feature(e.Feature())
	plan, err := currentPlan(ctx, h.Accounts, c)
	if err != nil {
		return Reservation{}, err
	}
	limits, err := h.Allowances.Limits(ctx, plan)
	if err != nil {
		return Reservation{}, err
	}
	limit := usage.LimitOf(limits, f)
	from, to := usage.MonthOf(now)
	admitted := false
	used, err := h.Reservations.Reserve(ctx, e, from, to, func(used int) bool {
		admitted = usage.NewAllowance(used, limit).Admits(e.Count())
		return admitted
	})
	if err != nil {
		return Reservation{}, err
	}
	if !admitted {
		return Reservation{}, LimitReached(f, usage.NewAllowance(used, limit), h.UpgradeURL)
	}
	return Reservation{ID: e.ID(), Feature: f, Allowance: usage.NewAllowance(used+e.Count(), limit)}, nil
}

// LimitReached is the 402 refusal of a reservation: code <feature>_limit_reached with the
// allowance as it stands (nothing was recorded) and where to upgrade.
func LimitReached(f usage.Feature, a usage.Allowance, upgradeURL string) error {
	return apperr.QuotaExceeded(string(f)+"_limit_reached",
		fmt.Sprintf("the plan's monthly %s allowance is used up: %d of %d used, %d left", f, a.Used, a.Limit, a.Remaining())).
		With("feature", string(f)).With("used", a.Used).With("limit", a.Limit).
		With("remaining", a.Remaining()).With("upgradeUrl", upgradeURL)
}

// ReleaseUsage gives back a reservation of the current month when the work it paid for failed.
// Only the caller's own reservation is released; an unknown, foreign, older or already
// released id changes nothing.
type ReleaseUsage struct {
	Reservations Reservations
	Now          Clock
}

func (h ReleaseUsage) Handle(ctx context.Context, c Caller, reservationID string) (bool, error) {
	if reservationID == "" {
		return false, apperr.MissingField("reservationId")
	}
	from, to := usage.MonthOf(h.Now())
	return h.Reservations.Release(ctx, c.AccountID, reservationID, from, to)
}
