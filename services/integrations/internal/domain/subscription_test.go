package domain_test

import (
	"net/netip"
	"strings"
	"testing"
	"time"

	standardwebhooks "github.com/standard-webhooks/standard-webhooks/libraries/go"
	"github.com/stretchr/testify/require"

	"github.com/bizassist/bizassist/libs/apperr"
	"github.com/bizassist/bizassist/libs/ids"
	"github.com/bizassist/bizassist/services/integrations/internal/domain"
)

func TestNewSubscription(t *testing.T) {
	t.Parallel()
	sub, err := domain.NewSubscription("acc_1", "new_lead", "https://hooks.example.com/x?y=1", domain.TargetPolicy{}, time.Now())
	require.NoError(t, err)
	require.True(t, ids.Valid("hook", sub.ID()))
	require.Equal(t, domain.SubscriptionActive, sub.Status())
	_, err = standardwebhooks.NewWebhook(sub.Secret())
	require.NoError(t, err, "the secret must be a valid Standard Webhooks secret")
	require.True(t, strings.HasPrefix(sub.Secret(), "whsec_"))
}

func TestNewSubscriptionRejectsBadInput(t *testing.T) {
	t.Parallel()
	local := domain.TargetPolicy{AllowHTTP: true, Allow: []netip.Prefix{netip.MustParsePrefix("127.0.0.0/8")}}
	cases := []struct {
		name, event, url string
		policy           domain.TargetPolicy
		field            string
	}{
		{"unknown event", "new_order", "https://a.example/x", domain.TargetPolicy{}, "event"},
		{"inbound-only event", "contact_form", "https://a.example/x", domain.TargetPolicy{}, "event"},
		{"missing event", "", "https://a.example/x", domain.TargetPolicy{}, "event"},
		{"missing url", "new_lead", "", domain.TargetPolicy{}, "hookUrl"},
		{"relative url", "new_lead", "/hooks", domain.TargetPolicy{}, "hookUrl"},
		{"not a url", "new_lead", "https//nope", domain.TargetPolicy{}, "hookUrl"},
		{"http when not allowed", "new_lead", "http://a.example/x", domain.TargetPolicy{}, "hookUrl"},
		{"ftp", "new_lead", "ftp://a.example/x", local, "hookUrl"},
		{"credentials", "new_lead", "https://u:p@a.example/x", domain.TargetPolicy{}, "hookUrl"},
		{"loopback literal", "new_lead", "https://127.0.0.1/x", domain.TargetPolicy{}, "hookUrl"},
		{"metadata literal", "new_lead", "https://169.254.169.254/latest", local, "hookUrl"},
		// issue 37, item 10: IDNA turns full-width digits into the address they spell.
		{"full-width metadata literal", "new_lead", "https://１６９.２５４.１６９.２５４/latest", local, "hookUrl"},
		{"full-width private literal", "new_lead", "https://１０.０.０.１/hook", local, "hookUrl"},
		{"mapped loopback", "new_lead", "https://[::ffff:127.0.0.1]/x", domain.TargetPolicy{}, "hookUrl"},
		{"localhost", "new_lead", "https://localhost/x", domain.TargetPolicy{}, "hookUrl"},
		{"bad port", "new_lead", "https://a.example:99999/x", domain.TargetPolicy{}, "hookUrl"},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			_, err := domain.NewSubscription("acc_1", tc.event, tc.url, tc.policy, time.Now())
			var e *apperr.Error
			require.ErrorAs(t, err, &e)
			require.Equal(t, apperr.KindInvalid, e.Kind)
			require.Equal(t, tc.field, e.Field)
		})
	}
}

func TestLocalPolicyAcceptsHTTPToLoopback(t *testing.T) {
	t.Parallel()
	local := domain.TargetPolicy{AllowHTTP: true, Allow: []netip.Prefix{netip.MustParsePrefix("127.0.0.0/8")}}
	_, err := domain.NewSubscription("acc_1", "health_score.critical", "http://127.0.0.1:9999/hook", local, time.Now())
	require.NoError(t, err)
}
