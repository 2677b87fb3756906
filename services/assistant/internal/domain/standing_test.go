package domain_test

import (
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/bizassist/bizassist/services/assistant/internal/domain"
)

func TestOnlyAccountsInGoodStandingAreQuoted(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		name     string
		standing domain.Standing
		want     bool
	}{
		{"never heard of", domain.Standing{}, false},
		{"a new free account", domain.Standing{Known: true, Plan: "free", CreatedAt: now.Add(-time.Hour)}, false},
		{"a free account past probation", domain.Standing{Known: true, Plan: "free", CreatedAt: now.Add(-domain.QuoteProbation)}, true},
		{"a free account whose creation is not known", domain.Standing{Known: true, Plan: "free"}, false},
		{"a new paid account", domain.Standing{Known: true, Plan: "growth", CreatedAt: now}, true},
		{"full stack", domain.Standing{Known: true, Plan: "full_stack"}, true},
		{"a plan it does not know", domain.Standing{Known: true, Plan: "platinum", CreatedAt: now}, false},
		{"a disabled paid account", domain.Standing{Known: true, Plan: "growth", CreatedAt: now, Disabled: true}, false},
	} {
		require.Equal(t, tc.want, tc.standing.MayQuote(now), tc.name)
	}
}

func TestWithoutCustomerTextKeepsLabels(t *testing.T) {
	t.Parallel()
	fields := domain.WithoutCustomerText("the service", "ContactFormReceived", map[string]any{"subject": "quote", "text": "free money"})
	ev, err := domain.NewFeedEvent("the service", "ContactFormReceived", now, fields)
	require.NoError(t, err)
	require.Equal(t, "Contact form received (quote request)", ev.Summary)
	_, err = domain.NewFeedEvent("Voice", "CallAnswered", now, domain.WithoutCustomerText("Voice", "CallAnswered", map[string]any{"callerPhone": "5"}))
	require.Error(t, err, "a field outside the template is still refused")
}
