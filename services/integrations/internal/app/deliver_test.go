package app_test

import (
	"context"
	"errors"
	"net/http"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/bizassist/bizassist/services/integrations/internal/app"
	"github.com/bizassist/bizassist/services/integrations/internal/domain"
)

type fakeDeliveries struct {
	target   app.DeliveryTarget
	err      error
	recorded []app.AttemptRecord
}

func (f *fakeDeliveries) Target(context.Context, string) (app.DeliveryTarget, error) {
	return f.target, f.err
}

func (f *fakeDeliveries) Record(_ context.Context, r app.AttemptRecord) error {
	f.recorded = append(f.recorded, r)
	return nil
}

type fakeSender struct{ res app.SendResult }

func (f fakeSender) Send(context.Context, domain.Subscription, string, []byte) app.SendResult {
	return f.res
}

var (
	now    = time.Date(2026, 3, 1, 12, 0, 0, 0, time.UTC)
	policy = domain.RetryPolicy{Base: time.Second, Cap: time.Minute, GiveUpAfter: 72 * time.Hour, DisableAfter: 72 * time.Hour}
)

func target(createdAgo time.Duration, failingFor *time.Duration, status domain.SubscriptionStatus) app.DeliveryTarget {
	var since *time.Time
	if failingFor != nil {
		t := now.Add(-*failingFor)
		since = &t
	}
	sub := domain.RehydrateSubscription("hook_1", "acc_1", "new_lead", "https://h.example/x", domain.NewSigningSecret(), status, now.Add(-time.Hour), since)
	return app.DeliveryTarget{DeliveryID: "msg_1", CreatedAt: now.Add(-createdAgo), Payload: []byte(`{}`), Subscription: sub}
}

func ptr(d time.Duration) *time.Duration { return &d }

func TestDeliverDecidesWhatComesNext(t *testing.T) {
	t.Parallel()
	cases := []struct {
		name    string
		target  app.DeliveryTarget
		res     app.SendResult
		check   func(t *testing.T, next app.Next)
		disable bool
		giveUp  bool
	}{
		{"2xx is done", target(time.Minute, ptr(time.Hour), domain.SubscriptionActive), app.SendResult{StatusCode: 204},
			func(t *testing.T, n app.Next) { require.True(t, n.Done) }, false, false},
		{"410 is done", target(time.Minute, nil, domain.SubscriptionActive), app.SendResult{StatusCode: http.StatusGone},
			func(t *testing.T, n app.Next) { require.True(t, n.Done) }, false, false},
		{"503 with Retry-After snoozes", target(time.Minute, nil, domain.SubscriptionActive), app.SendResult{StatusCode: 503, RetryAfter: "120"},
			func(t *testing.T, n app.Next) { require.Equal(t, 2*time.Minute, n.SnoozeFor) }, false, false},
		{"500 retries", target(time.Minute, ptr(time.Hour), domain.SubscriptionActive), app.SendResult{StatusCode: 500},
			func(t *testing.T, n app.Next) { require.ErrorContains(t, n.Retry, "500") }, false, false},
		{"a refused connection retries", target(time.Minute, nil, domain.SubscriptionActive), app.SendResult{Err: errors.New("connection refused")},
			func(t *testing.T, n app.Next) { require.ErrorContains(t, n.Retry, "refused") }, false, false},
		{"past the window gives up", target(73*time.Hour, ptr(time.Hour), domain.SubscriptionActive), app.SendResult{StatusCode: 500},
			func(t *testing.T, n app.Next) { require.Error(t, n.GiveUp) }, false, true},
		{"failing for three days disables", target(time.Minute, ptr(72*time.Hour), domain.SubscriptionActive), app.SendResult{StatusCode: 500},
			func(t *testing.T, n app.Next) { require.Error(t, n.GiveUp) }, true, true},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			store := &fakeDeliveries{target: tc.target}
			h := app.Deliver{Store: store, Sender: fakeSender{tc.res}, Policy: policy, Now: func() time.Time { return now }}
			next, err := h.Handle(context.Background(), "msg_1")
			require.NoError(t, err)
			tc.check(t, next)
			require.Len(t, store.recorded, 1, "every attempt is recorded")
			require.Equal(t, tc.disable, store.recorded[0].Disable)
			require.Equal(t, tc.giveUp, store.recorded[0].GiveUp)
			require.Equal(t, tc.res.StatusCode, store.recorded[0].StatusCode)
		})
	}
}

func TestDeliverSkipsWhatIsGoneOrDisabled(t *testing.T) {
	t.Parallel()
	for name, store := range map[string]*fakeDeliveries{
		"gone":     {err: app.ErrNotFound},
		"disabled": {target: target(time.Minute, ptr(time.Hour), domain.SubscriptionDisabled)},
	} {
		h := app.Deliver{Store: store, Sender: fakeSender{app.SendResult{StatusCode: 200}}, Policy: policy, Now: func() time.Time { return now }}
		next, err := h.Handle(context.Background(), "msg_1")
		require.NoError(t, err, name)
		require.True(t, next.Done, name)
		require.Empty(t, store.recorded, name)
	}
}

// The attempt log keeps the generic description; the detail (addresses) stays with operators.
func TestAttemptsAreLoggedInGenericWords(t *testing.T) {
	t.Parallel()
	for want, res := range map[string]app.SendResult{
		"HTTP 500":            {StatusCode: 500},
		"HTTP 429":            {StatusCode: 429},
		"address not allowed": {Err: errors.New("dial tcp 10.0.0.7:443: address is not a public unicast address"), Failure: domain.FailureAddressNotAllowed},
		"connection failed":   {Err: errors.New("read tcp 10.0.0.7:443: connection reset by peer")},
	} {
		store := &fakeDeliveries{target: target(time.Minute, nil, domain.SubscriptionActive)}
		h := app.Deliver{Store: store, Sender: fakeSender{res}, Policy: policy, Now: func() time.Time { return now }}
		next, err := h.Handle(context.Background(), "msg_1")
		require.NoError(t, err)
		require.Error(t, next.Retry)
		require.Equal(t, want, store.recorded[0].Error)
	}
}
