package app

import (
	"context"
	"fmt"
	"strings"

	"github.com/bizassist/bizassist/libs/allowance"
	"github.com/bizassist/bizassist/libs/apperr"
)

// MaxBatch is the most leads one batch call may score (spec 8).
const MaxBatch = 25

// CodeAllowanceExhausted refuses a batch the month's allowance cannot cover.
const CodeAllowanceExhausted = "batch_allowance_exhausted"

// ScoreBatch is POST /api/lead-quality-batch: each lead scored is one lead_scoring use.
type ScoreBatch struct {
	Qualifier  Qualifier
	Allowances allowance.Reserver
	UpgradeURL string
}

// BatchInput is the decoded request; Leads nil means the field was absent. Credential is the
// caller's bearer token, for the allowance.
type BatchInput struct {
	Credential string
	Leads      []LeadInput
}

// BatchScore is spec 2.5.
type BatchScore struct {
	Email     string `json:"email"`
	Score     int    `json:"score"`
	Qualified bool   `json:"qualified"`
}

// BatchResult is what the route returns; Remaining means nothing when Unlimited is set.
type BatchResult struct {
	Scored    int
	Remaining int
	Unlimited bool
	Results   []BatchScore
}

// Handle reserves the whole batch first, all or nothing, and only then scores it: a refused batch
// costs no DNS question, and concurrent batches never overspend (the reservation is atomic). A
// batch that fails after the reservation gives it back.
func (h ScoreBatch) Handle(ctx context.Context, in BatchInput) (BatchResult, error) {
	if err := validateBatch(in.Leads); err != nil {
		return BatchResult{}, err
	}
	n := len(in.Leads)
	res, err := allowance.Reserve(ctx, h.Allowances, in.Credential, allowance.Request{Feature: allowance.FeatureLeadScoring, Action: "batch", Count: n},
		func(l *allowance.LimitReached) error {
			return limitError(CodeAllowanceExhausted,
				fmt.Sprintf("the monthly batch allowance has %d scores left; this batch needs %d", l.Remaining, n), l, h.UpgradeURL)
		})
	if err != nil {
		return BatchResult{}, err
	}
	assessed, err := h.Qualifier.AssessAll(ctx, in.Leads)
	if err != nil {
		allowance.Release(ctx, h.Allowances, in.Credential, res)
		return BatchResult{}, err
	}
	results := make([]BatchScore, n)
	for i, r := range assessed {
		results[i] = BatchScore{Email: strings.TrimSpace(in.Leads[i].Email), Score: r.Score, Qualified: r.Qualified}
	}
	return BatchResult{Scored: n, Remaining: res.Remaining, Unlimited: res.Unlimited, Results: results}, nil
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
