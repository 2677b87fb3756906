package app

import (
	"context"
	"crypto/sha256"
	"encoding/json"

	"github.com/bizassist/bizassist/libs/apperr"
	"github.com/bizassist/bizassist/services/analytics/internal/domain/usage"
)

// LogUsageInput is a log-usage request.
type LogUsageInput struct {
	Feature        string
	Action         string
	Meta           json.RawMessage
	IdempotencyKey string // optional
}

// LogUsage records a usage event durably.
type LogUsage struct {
	Store UsageRecorder
	Now   Clock
}

// MaxIdempotencyKey bounds the Idempotency-Key header.
const MaxIdempotencyKey = 255

func (h LogUsage) Handle(ctx context.Context, c Caller, in LogUsageInput) (Logged, error) {
	if err := validKey(in.IdempotencyKey); err != nil {
		return Logged{}, err
	}
	e, err := usage.NewEvent(c.AccountID, in.Feature, in.Action, in.Meta, h.Now())
	if err != nil {
		return Logged{}, err
	}
	var idem *Idempotency
	if in.IdempotencyKey != "" {
		idem = &Idempotency{Key: in.IdempotencyKey, Fingerprint: fingerprint(e)}
	}
	return h.Store.Record(ctx, e, idem)
}

// validKey accepts an absent key or 1-255 visible ASCII characters.
func validKey(k string) error {
	if len(k) > MaxIdempotencyKey {
		return apperr.InvalidField("Idempotency-Key", "must be at most 255 characters")
	}
	for i := 0; i < len(k); i++ {
		if k[i] < 0x21 || k[i] > 0x7e {
			return apperr.InvalidField("Idempotency-Key", "must be visible ASCII characters without spaces")
		}
	}
	return nil
}

// fingerprint identifies what a request asked for, so reusing a key for something else is caught.
func fingerprint(e usage.Event) []byte {
	h := sha256.New()
	for _, part := range [][]byte{[]byte(e.Feature()), []byte(e.Action()), e.Meta()} {
		h.Write(part)
		h.Write([]byte{0})
	}
	return h.Sum(nil)
}

// ErrIdempotencyKeyReused is returned when a key comes back with a different request.
var ErrIdempotencyKeyReused = apperr.Conflict("idempotency_key_reused",
	"Idempotency-Key was already used for a different request")

// CheckPQLInput optionally narrows the check to one feature.
type CheckPQLInput struct {
	Feature string
}

// PQLStatus is the PQL check's answer.
type PQLStatus struct {
	usage.Status
	UpgradeURL string
}

// CheckPQL reports how close an account is to its plan's monthly allowances.
type CheckPQL struct {
	Allowances Allowances
	Accounts   Accounts
	UpgradeURL string
	Now        Clock
}

func (h CheckPQL) Handle(ctx context.Context, c Caller, in CheckPQLInput) (PQLStatus, error) {
	features := usage.Metered
	if in.Feature != "" {
		f, err := usage.ParseFeature(in.Feature)
		if err != nil {
			return PQLStatus{}, err
		}
		features = []usage.Feature{f}
	}
	plan, err := currentPlan(ctx, h.Accounts, c)
	if err != nil {
		return PQLStatus{}, err
	}
	limits, err := h.Allowances.Limits(ctx, plan)
	if err != nil {
		return PQLStatus{}, err
	}
	from, to := usage.MonthOf(h.Now())
	used, err := h.Allowances.MonthlyUse(ctx, c.AccountID, from, to)
	if err != nil {
		return PQLStatus{}, err
	}
	out := make(map[usage.Feature]usage.Allowance, len(features))
	for _, f := range features {
		out[f] = usage.NewAllowance(used[f], usage.LimitOf(limits, f))
	}
	return PQLStatus{Status: usage.NewStatus(out), UpgradeURL: h.UpgradeURL}, nil
}

// currentPlan prefers the projection, which follows plan changes, over the token's plan, which
// is as old as the token.
func currentPlan(ctx context.Context, accounts Accounts, c Caller) (string, error) {
	plan, ok, err := accounts.Plan(ctx, c.AccountID)
	if err != nil {
		return "", err
	}
	if !ok {
		return c.Plan, nil
	}
	return plan, nil
}
