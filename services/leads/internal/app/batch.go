package app

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"time"

	"github.com/bizassist/bizassist/libs/apperr"
	"github.com/bizassist/bizassist/libs/events"
	"github.com/bizassist/bizassist/services/leads/internal/domain/sheet"
)

// MaxBatch is the most leads one batch call may score (spec 8).
const MaxBatch = 25

// CodeAllowanceExhausted refuses a batch the month's allowance cannot cover.
const CodeAllowanceExhausted = "batch_allowance_exhausted"

// ScoreBatch is POST /api/lead-quality-batch.
type ScoreBatch struct {
	Qualifier  Qualifier
	Allowances Allowances
	UpgradeURL string
	Now        func() time.Time
}

// BatchInput is the decoded request; Leads nil means the field was absent.
type BatchInput struct {
	AccountID, Plan string
	Leads           []LeadInput
}

// BatchScore is spec 2.5.
type BatchScore struct {
	Email     string `json:"email"`
	Score     int    `json:"score"`
	Qualified bool   `json:"qualified"`
}

// BatchResult is what the route returns.
type BatchResult struct {
	Scored    int
	Remaining int
	Results   []BatchScore
}

// Handle scores the whole batch, then spends the allowance for it and records the usage in one
// transaction, so a refused batch spends nothing and concurrent batches never overspend.
func (h ScoreBatch) Handle(ctx context.Context, in BatchInput) (BatchResult, error) {
	if err := validateBatch(in.Leads); err != nil {
		return BatchResult{}, err
	}
	assessed, err := h.Qualifier.AssessAll(ctx, in.Leads)
	if err != nil {
		return BatchResult{}, err
	}
	results := make([]BatchScore, len(in.Leads))
	for i, r := range assessed {
		results[i] = BatchScore{Email: strings.TrimSpace(in.Leads[i].Email), Score: r.Score, Qualified: r.Qualified}
	}

	now := h.Now()
	n := len(in.Leads)
	var remaining int
	err = h.Allowances.Update(ctx, in.AccountID, in.Plan, sheet.MonthOf(now), func(a *sheet.Allowance) ([]events.Envelope, error) {
		if err := a.Consume(n); err != nil {
			return nil, err
		}
		remaining = a.Remaining()
		usage, err := usageEvent(ctx, in.AccountID, "lead_scoring", "batch", n, now)
		return []events.Envelope{usage}, err
	})
	var exhausted *sheet.ExhaustedError
	if errors.As(err, &exhausted) {
		return BatchResult{}, apperr.QuotaExceeded(CodeAllowanceExhausted, exhausted.Error()+"; it resets at the start of next month (UTC), or upgrade for unlimited scoring").
			With("remaining", exhausted.Remaining).With("upgradeUrl", h.UpgradeURL)
	}
	if err != nil {
		return BatchResult{}, fmt.Errorf("spend batch allowance: %w", err)
	}
	return BatchResult{Scored: n, Remaining: remaining, Results: results}, nil
}

func validateBatch(leads []LeadInput) error {
	switch {
	case leads == nil:
		return apperr.MissingField("leads")
	case len(leads) == 0:
		return apperr.InvalidField("leads", "must contain at least one lead")
	case len(leads) > MaxBatch:
		return apperr.InvalidField("leads", fmt.Sprintf("at most %d leads per call, got %d", MaxBatch, len(leads)))
	}
	for i, l := range leads {
		field := fmt.Sprintf("leads[%d].", i)
		if strings.TrimSpace(l.Email) == "" {
			return apperr.MissingField(field + "email")
		}
		if err := checkLengths(l, field+"email", field+"businessName", field+"phone"); err != nil {
			return err
		}
	}
	return nil
}
