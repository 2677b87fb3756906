// Package allowance reserves units of a caller's monthly plan allowance with analytics, which owns
// the limits and the month's usage, before the work they pay for is done: POST
// /internal/usage/reserve and /internal/usage/release (services/analytics/README.md), with the
// acting caller's own token so that analytics decides the plan from the account's current state.
// The reservation is the usage record: nothing else reports the use. This package holds the
// terms and the policy (no I/O, so a service's app may use it); reserveapi is the client.
package allowance

import (
	"context"
	"errors"
	"fmt"
	"log/slog"

	"github.com/bizassist/bizassist/libs/apperr"
)

// Metered features; analytics knows their limits per plan.
const (
	FeatureChat        = "chat"
	FeatureLeadFinder  = "lead_finder"
	FeatureLeadScoring = "lead_scoring"
)

// CodeUnavailable refuses work whose allowance nobody could check.
const CodeUnavailable = "allowance_unavailable"

// Request asks for Count units of Feature, all or nothing; Action labels the use in analytics.
type Request struct {
	Feature string `json:"feature"`
	Count   int    `json:"count"`
	Action  string `json:"action,omitempty"`
}

// Reservation is a granted reservation; Limit and Remaining mean nothing when Unlimited is set.
type Reservation struct {
	ID        string `json:"reservationId"`
	Used      int    `json:"used"`
	Limit     int    `json:"limit"`
	Remaining int    `json:"remaining"`
	Unlimited bool   `json:"unlimited"`
}

// LimitReached is a reservation refused for the month; nothing was reserved.
type LimitReached struct {
	Feature    string `json:"feature"`
	Used       int    `json:"used"`
	Limit      int    `json:"limit"`
	Remaining  int    `json:"remaining"`
	UpgradeURL string `json:"upgradeUrl"`
}

func (e *LimitReached) Error() string {
	return fmt.Sprintf("%s allowance: %d of %d used, %d left", e.Feature, e.Used, e.Limit, e.Remaining)
}

// Refusal is the 402 a service answers for e: its own code and message, what is left, and where
// to upgrade (analytics' page when it named one, else upgradeURL).
func (e *LimitReached) Refusal(code, message, upgradeURL string) *apperr.Error {
	if e.UpgradeURL != "" {
		upgradeURL = e.UpgradeURL
	}
	return apperr.QuotaExceeded(code, message).
		With("remaining", e.Remaining).With("limit", e.Limit).With("upgradeUrl", upgradeURL)
}

// Reserver is the port the metering services' applications hold: reserveapi.Client, or a test's.
type Reserver interface {
	// Reserve takes units of an allowance. It fails with *LimitReached when the month's allowance
	// cannot cover them, and with another error when the answer is unknown.
	Reserve(ctx context.Context, token string, r Request) (Reservation, error)
	// Release gives back a reservation whose work failed.
	Release(ctx context.Context, token, reservationID string) error
}

// Reserve asks r for req on behalf of token's caller and says why not in the envelope's terms: a
// spent allowance is refused's error (the feature's own 402); any other failure refuses the work
// too (503 allowance_unavailable), since an allowance nobody could check is not one to hand out,
// and a caller who could make that call fail would otherwise bypass it.
func Reserve(ctx context.Context, r Reserver, token string, req Request, refused func(*LimitReached) error) (Reservation, error) {
	res, err := r.Reserve(ctx, token, req)
	var spent *LimitReached
	switch {
	case err == nil:
		return res, nil
	case errors.As(err, &spent):
		return Reservation{}, refused(spent)
	case ctx.Err() != nil:
		return Reservation{}, ctx.Err()
	default:
		slog.WarnContext(ctx, "allowance could not be reserved", "feature", req.Feature, "error", err)
		return Reservation{}, apperr.Unavailable(CodeUnavailable,
			"the plan allowance cannot be checked right now; nothing was done, try again shortly").Wrap(err)
	}
}

// Release gives res back after the work it paid for failed or found nothing. It runs even when
// the request was canceled (the allowance should not stay spent), bounded by the client's own
// timeout; a failure leaves the use counted, which errs towards the plan.
func Release(ctx context.Context, r Reserver, token string, res Reservation) {
	if err := r.Release(context.WithoutCancel(ctx), token, res.ID); err != nil {
		slog.WarnContext(ctx, "allowance reservation not released", "reservationId", res.ID, "error", err)
	}
}
