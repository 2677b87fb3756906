package app

import (
	"context"
	"errors"
	"fmt"
	"log/slog"

	"github.com/bizassist/bizassist/libs/apperr"
)

// Metered features: analytics owns their monthly limits per plan and the month's usage.
const (
	FeatureLeadFinder  = "lead_finder"
	FeatureLeadScoring = "lead_scoring"
)

// Stable codes of allowance refusals; the batch keeps its own (CodeAllowanceExhausted).
const (
	CodeLeadFinderLimit      = "lead_finder_limit_reached"
	CodeAllowanceUnavailable = "allowance_unavailable"
)

// Allowances reserves units of the acting caller's monthly plan allowance with analytics, before
// the work is done; the reservation is the usage record (nothing else reports the use).
// credential is the caller's bearer token: analytics decides the plan from the account's current
// state, not from anything leads knows.
type Allowances interface {
	// Reserve takes count units of feature, all or nothing. It fails with *LimitReachedError
	// when the month's allowance cannot cover them, and with another error when it cannot tell.
	Reserve(ctx context.Context, credential string, r AllowanceRequest) (Reservation, error)
	// Release gives back a reservation whose work failed.
	Release(ctx context.Context, credential, reservationID string) error
}

// AllowanceRequest is what to reserve; Action labels the use in analytics (optional).
type AllowanceRequest struct {
	Feature, Action string
	Count           int
}

// Reservation is a granted reservation; Limit and Remaining mean nothing when Unlimited is set.
type Reservation struct {
	ID                     string
	Used, Limit, Remaining int
	Unlimited              bool
}

// LimitReachedError is a reservation refused for the month; nothing was reserved.
type LimitReachedError struct {
	Feature                string
	Used, Limit, Remaining int
	UpgradeURL             string
}

func (e *LimitReachedError) Error() string {
	return fmt.Sprintf("%s allowance: %d of %d used, %d left", e.Feature, e.Used, e.Limit, e.Remaining)
}

var errAllowanceUnavailable = apperr.Unavailable(CodeAllowanceUnavailable,
	"the plan allowance cannot be checked right now; nothing was done, try again shortly")

// limitError is the 402 of a refused reservation: code, message, what is left and where to
// upgrade (analytics' page, else ours).
func limitError(code, message string, limit *LimitReachedError, upgradeURL string) error {
	if limit.UpgradeURL != "" {
		upgradeURL = limit.UpgradeURL
	}
	return apperr.QuotaExceeded(code, message+"; it resets at the start of next month (UTC), or upgrade for more").
		With("remaining", limit.Remaining).With("limit", limit.Limit).With("upgradeUrl", upgradeURL)
}

// reserve asks for an allowance and says why not in the envelope's terms: refused is the
// feature's 402 (refusal builds its message and code), anything else refuses the work too (503),
// since an allowance nobody could check is not one to hand out.
func reserve(ctx context.Context, al Allowances, credential string, r AllowanceRequest,
	refusal func(*LimitReachedError) error) (Reservation, error) {
	res, err := al.Reserve(ctx, credential, r)
	var limit *LimitReachedError
	switch {
	case err == nil:
		return res, nil
	case errors.As(err, &limit):
		return Reservation{}, refusal(limit)
	case ctx.Err() != nil:
		return Reservation{}, ctx.Err()
	default:
		return Reservation{}, errAllowanceUnavailable.Wrap(err)
	}
}

// release gives a reservation back after the work failed. It runs even when the request was
// canceled (the allowance should not stay spent), bounded by the adapter's own timeout; a
// failure leaves the use counted, which errs towards the plan.
func release(ctx context.Context, al Allowances, credential string, res Reservation) {
	if err := al.Release(context.WithoutCancel(ctx), credential, res.ID); err != nil {
		slog.WarnContext(ctx, "allowance reservation not released", "reservationId", res.ID, "error", err)
	}
}
