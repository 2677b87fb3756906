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
			h := app.Deliver{Store: store, Attempts: store, Sender: fakeSender{tc.res}, Policy: policy, Now: func() time.Time { return now }}
			answered := 0
			next, err := h.Handle(context.Background(), "msg_1", func() {
				answered++
				require.Empty(t, store.recorded, "the hold on the receiver ends before the attempt is recorded")
			})
			require.NoError(t, err)
			tc.check(t, next)
			require.Equal(t, 1, answered)
			require.Len(t, store.recorded, 1, "every attempt is recorded")
			require.Nil(t, store.recorded[0].Requeue, "a queued job retries itself")
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
		h := app.Deliver{Store: store, Attempts: store, Sender: fakeSender{app.SendResult{StatusCode: 200}}, Policy: policy, Now: func() time.Time { return now }}
		next, err := h.Handle(context.Background(), "msg_1", func() {})
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
		h := app.Deliver{Store: store, Attempts: store, Sender: fakeSender{res}, Policy: policy, Now: func() time.Time { return now }}
		next, err := h.Handle(context.Background(), "msg_1", func() {})
		require.NoError(t, err)
		require.Error(t, next.Retry)
		require.Equal(t, want, store.recorded[0].Error)
	}
}

// A dispatched first attempt has no job behind it: one that must be tried again queues its own.
func TestADispatchedAttemptQueuesItsRetry(t *testing.T) {
	t.Parallel()
	for name, tc := range map[string]struct {
		target   app.DeliveryTarget
		res      app.SendResult
		requeued bool
		failures int
		after    [2]time.Duration // the retry is due within this range from now
	}{
		"delivered":      {target(time.Minute, nil, domain.SubscriptionActive), app.SendResult{StatusCode: 200}, false, 0, [2]time.Duration{}},
		"failed":         {target(time.Minute, nil, domain.SubscriptionActive), app.SendResult{StatusCode: 500}, true, 1, [2]time.Duration{policy.Base / 2, policy.Base}},
		"throttled":      {target(time.Minute, nil, domain.SubscriptionActive), app.SendResult{StatusCode: 429, RetryAfter: "120"}, true, 0, [2]time.Duration{2 * time.Minute, 2 * time.Minute}},
		"given up":       {target(73*time.Hour, nil, domain.SubscriptionActive), app.SendResult{StatusCode: 500}, false, 0, [2]time.Duration{}},
		"410 is not one": {target(time.Minute, nil, domain.SubscriptionActive), app.SendResult{StatusCode: 410}, false, 0, [2]time.Duration{}},
	} {
		store := &fakeDeliveries{}
		h := app.Deliver{Store: store, Attempts: store, Sender: fakeSender{tc.res}, Policy: policy, Now: func() time.Time { return now }}
		_, err := h.Attempt(context.Background(), tc.target, func() {})
		require.NoError(t, err, name)
		require.Len(t, store.recorded, 1, name)
		job := store.recorded[0].Requeue
		if !tc.requeued {
			require.Nil(t, job, name)
			continue
		}
		require.NotNil(t, job, name)
		require.Equal(t, app.DeliveryJob{DeliveryID: "msg_1", AccountID: "acc_1", SubscriptionID: tc.target.Subscription.ID(), At: job.At, Failures: tc.failures}, *job, name)
		require.GreaterOrEqual(t, job.At.Sub(now), tc.after[0], name)
		require.LessOrEqual(t, job.At.Sub(now), tc.after[1], name)
	}
}
