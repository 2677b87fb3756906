package app_test

import (
	"context"
	"errors"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/bizassist/bizassist/libs/apperr"
	"github.com/bizassist/bizassist/libs/ids"
	"github.com/bizassist/bizassist/services/integrations/internal/app"
	"github.com/bizassist/bizassist/services/integrations/internal/domain"
)

// unitOfWork stands in for the database's transactions: InTx runs fn with a ctx that carries a
// transaction and commits when fn succeeds; AfterCommit hooks run only then.
type unitOfWork struct {
	committed int
	hooks     []func()
}

type txKey struct{}

func (u *unitOfWork) InTx(ctx context.Context, fn func(ctx context.Context) error) error {
	if inTx(ctx) {
		return fn(ctx) // joined
	}
	u.hooks = nil
	if err := fn(context.WithValue(ctx, txKey{}, true)); err != nil {
		u.hooks = nil // rolled back: no hook runs
		return err
	}
	u.committed++
	for _, h := range u.hooks {
		h()
	}
	return nil
}

func (u *unitOfWork) AfterCommit(ctx context.Context, fn func()) error {
	if !inTx(ctx) {
		fn()
		return nil
	}
	u.hooks = append(u.hooks, fn)
	return nil
}

func inTx(ctx context.Context) bool { v, _ := ctx.Value(txKey{}).(bool); return v }

type fakeSubscribers []domain.Subscription

func (f fakeSubscribers) Subscribers(ctx context.Context, accountID, event string) ([]domain.Subscription, error) {
	if !inTx(ctx) {
		return nil, errors.New("subscribers read outside the unit of work")
	}
	var out []domain.Subscription
	for _, s := range f {
		if s.AccountID() == accountID && s.Event() == event && s.Status() == domain.SubscriptionActive {
			out = append(out, s)
		}
	}
	return out, nil
}

// added is one PlannedDeliveries.Add.
type added struct {
	msg     domain.Message
	targets []app.DeliveryTarget
	claim   time.Duration
}

type fakePlanned struct {
	added []added
	err   error
}

func (f *fakePlanned) Add(ctx context.Context, msg domain.Message, targets []app.DeliveryTarget, claim time.Duration) error {
	if !inTx(ctx) {
		return errors.New("deliveries added outside the unit of work")
	}
	f.added = append(f.added, added{msg, targets, claim})
	return f.err
}

type fakeJobs struct{ queued []app.DeliveryJob }

func (f *fakeJobs) Enqueue(ctx context.Context, jobs ...app.DeliveryJob) error {
	if !inTx(ctx) {
		return errors.New("jobs queued outside a transaction")
	}
	f.queued = append(f.queued, jobs...)
	return nil
}

// fakeDispatcher records what it is handed, and whether the planning transaction had committed
// by then.
type fakeDispatcher struct {
	uow          *unitOfWork
	stopping     bool
	lease        time.Duration
	until        time.Time
	dispatched   []app.DeliveryTarget
	beforeCommit bool
}

func (f *fakeDispatcher) Accepting() bool      { return !f.stopping }
func (f *fakeDispatcher) Lease() time.Duration { return f.lease }
func (f *fakeDispatcher) Dispatch(until time.Time, targets []app.DeliveryTarget) {
	f.until, f.dispatched = until, append(f.dispatched, targets...)
	f.beforeCommit = f.beforeCommit || f.uow.committed == 0
}

func subscription(t *testing.T, accountID, event, url string) domain.Subscription {
	t.Helper()
	sub, err := domain.NewSubscription(accountID, event, url, domain.TargetPolicy{}, now)
	require.NoError(t, err)
	return sub
}

// The dispatch decision: with a dispatcher that accepts work, each delivery is claimed for it and
// handed to it once the planning transaction commits, and no job is queued; without one, or while
// it stops, each delivery is queued as a job in that transaction, unclaimed.
func TestPlanningDecidesWhoMakesTheFirstAttempt(t *testing.T) {
	t.Parallel()
	for name, tc := range map[string]struct {
		dispatcher bool
		stopping   bool
		dispatched bool
	}{
		"a dispatcher that accepts work": {dispatcher: true, dispatched: true},
		"a stopping dispatcher":          {dispatcher: true, stopping: true},
		"no dispatcher":                  {},
	} {
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			a := subscription(t, "acc_1", domain.OutboundNewLead, "https://a.example/x")
			b := subscription(t, "acc_1", domain.OutboundNewLead, "https://b.example/x")
			subs := fakeSubscribers{a, b,
				subscription(t, "acc_2", domain.OutboundNewLead, "https://a.example/x"),
				subscription(t, "acc_1", domain.OutboundHealthCritical, "https://a.example/x")}
			uow, planned, jobs := &unitOfWork{}, &fakePlanned{}, &fakeJobs{}
			h := app.PlanDeliveries{Tx: uow, Subscribers: subs, Deliveries: planned, Jobs: jobs,
				AfterCommit: uow.AfterCommit, Now: func() time.Time { return now }}
			d := &fakeDispatcher{uow: uow, stopping: tc.stopping, lease: 45 * time.Second}
			if tc.dispatcher {
				h.Dispatcher = d
			}
			msg, err := domain.NewLeadMessage(domain.LeadWritten{LeadID: "lead_1", Name: "Ann", Email: "ann@example.com"})
			require.NoError(t, err)

			n, err := h.Plan(context.Background(), "acc_1", msg)
			require.NoError(t, err)
			require.Equal(t, 2, n, "one delivery per active subscription of the account to the event")
			require.Equal(t, 1, uow.committed)
			require.Len(t, planned.added, 1)
			add := planned.added[0]
			require.Equal(t, msg, add.msg)
			require.Len(t, add.targets, 2)
			for i, sub := range []domain.Subscription{a, b} {
				tg := add.targets[i]
				require.True(t, ids.Valid("msg", tg.DeliveryID), "the delivery id is its webhook-id")
				require.Equal(t, sub.ID(), tg.Subscription.ID())
				require.Equal(t, []byte(msg.Body), tg.Payload)
				require.Equal(t, now, tg.CreatedAt)
			}
			if tc.dispatched {
				require.Equal(t, 45*time.Second, add.claim, "claimed for as long as the dispatcher's lease")
				require.Empty(t, jobs.queued)
				require.Equal(t, add.targets, d.dispatched)
				require.Equal(t, now.Add(45*time.Second), d.until)
				require.False(t, d.beforeCommit, "handed over only once the deliveries are committed")
				return
			}
			require.Zero(t, add.claim, "not claimed: a job owns it")
			require.Empty(t, d.dispatched)
			require.Equal(t, []app.DeliveryJob{
				{DeliveryID: add.targets[0].DeliveryID, AccountID: "acc_1", SubscriptionID: add.targets[0].Subscription.ID()},
				{DeliveryID: add.targets[1].DeliveryID, AccountID: "acc_1", SubscriptionID: add.targets[1].Subscription.ID()}}, jobs.queued)
		})
	}
}

func TestPlanningWithoutSubscribersOrWithAFailedWriteDispatchesNothing(t *testing.T) {
	t.Parallel()
	msg, err := domain.NewLeadMessage(domain.LeadWritten{LeadID: "lead_1", Name: "Ann", Email: "ann@example.com"})
	require.NoError(t, err)
	sub := subscription(t, "acc_1", domain.OutboundNewLead, "https://a.example/x")
	for name, tc := range map[string]struct {
		subs    fakeSubscribers
		addErr  error
		wantErr bool
	}{
		"no subscriber":         {subs: fakeSubscribers{}},
		"the write fails":       {subs: fakeSubscribers{sub}, addErr: errors.New("database down"), wantErr: true},
		"a disabled subscriber": {subs: fakeSubscribers{domain.RehydrateSubscription(sub.ID(), "acc_1", sub.Event(), sub.HookURL(), sub.Secret(), domain.SubscriptionDisabled, now, nil)}},
	} {
		uow, planned, jobs := &unitOfWork{}, &fakePlanned{err: tc.addErr}, &fakeJobs{}
		d := &fakeDispatcher{uow: uow, lease: time.Minute}
		h := app.PlanDeliveries{Tx: uow, Subscribers: tc.subs, Deliveries: planned, Jobs: jobs, Dispatcher: d,
			AfterCommit: uow.AfterCommit, Now: func() time.Time { return now }}
		n, err := h.Plan(context.Background(), "acc_1", msg)
		require.Equal(t, tc.wantErr, err != nil, name)
		require.Zero(t, n, name)
		require.Empty(t, d.dispatched, name)
		require.Empty(t, jobs.queued, name)
	}
}

// Planning inside the caller's unit of work (the consumer's transaction) joins it: the hand-over
// waits for that transaction's commit.
func TestPlanningJoinsTheCallersTransaction(t *testing.T) {
	t.Parallel()
	uow, planned, jobs := &unitOfWork{}, &fakePlanned{}, &fakeJobs{}
	d := &fakeDispatcher{uow: uow, lease: time.Minute}
	h := app.PlanDeliveries{Tx: uow, Subscribers: fakeSubscribers{subscription(t, "acc_1", domain.OutboundNewLead, "https://a.example/x")},
		Deliveries: planned, Jobs: jobs, Dispatcher: d, AfterCommit: uow.AfterCommit, Now: func() time.Time { return now }}
	msg, err := domain.NewLeadMessage(domain.LeadWritten{LeadID: "lead_1", Name: "Ann", Email: "ann@example.com"})
	require.NoError(t, err)
	require.NoError(t, uow.InTx(context.Background(), func(ctx context.Context) error {
		_, err := h.Plan(ctx, "acc_1", msg)
		require.Empty(t, d.dispatched, "not before the consumer's transaction commits")
		return err
	}))
	require.Len(t, d.dispatched, 1)
	require.Equal(t, 1, uow.committed, "one transaction: the caller's")
}

type fakeClaims struct {
	jobs []app.DeliveryJob
	err  error
}

func (f fakeClaims) EndClaims(ctx context.Context, _ []string) ([]app.DeliveryJob, error) {
	if !inTx(ctx) {
		return nil, errors.New("claims ended outside the unit of work")
	}
	return f.jobs, f.err
}

func (f fakeClaims) EndExpiredClaims(ctx context.Context, _ int) ([]app.DeliveryJob, error) {
	return f.EndClaims(ctx, nil)
}

// What a dispatcher will not attempt is queued as jobs in the transaction that ends the claims;
// when ending them fails, nothing is queued.
func TestHandOverQueuesAJobPerClaimEnded(t *testing.T) {
	t.Parallel()
	ended := []app.DeliveryJob{{DeliveryID: "msg_1", AccountID: "acc_1"}, {DeliveryID: "msg_2", AccountID: "acc_2"}}
	for name, hand := range map[string]func(app.HandOver) (int, error){
		"claimed": func(h app.HandOver) (int, error) { return h.Claimed(context.Background(), []string{"msg_1", "msg_2"}) },
		"expired": func(h app.HandOver) (int, error) { return h.Expired(context.Background(), 100) },
	} {
		jobs := &fakeJobs{}
		n, err := hand(app.HandOver{Tx: &unitOfWork{}, Claims: fakeClaims{jobs: ended}, Jobs: jobs})
		require.NoError(t, err, name)
		require.Equal(t, 2, n, name)
		require.Equal(t, ended, jobs.queued, name)

		jobs = &fakeJobs{}
		_, err = hand(app.HandOver{Tx: &unitOfWork{}, Claims: fakeClaims{err: errors.New("database down")}, Jobs: jobs})
		require.Error(t, err, name)
		require.Empty(t, jobs.queued, name)
	}
}

type fakeLog struct {
	job app.DeliveryJob
	err error
}

func (f fakeLog) Attempts(context.Context, string, string, int) ([]app.Attempt, error) {
	return nil, nil
}

func (f fakeLog) Reopen(ctx context.Context, _, _ string) (app.DeliveryJob, error) {
	if !inTx(ctx) {
		return app.DeliveryJob{}, errors.New("reopened outside the unit of work")
	}
	return f.job, f.err
}

// A replay reopens the delivery and queues its job in one transaction; a pending delivery is a
// conflict, another account's is not found.
func TestReplayQueuesTheReopenedDelivery(t *testing.T) {
	t.Parallel()
	job := app.DeliveryJob{DeliveryID: "msg_1", AccountID: "acc_1"}
	for name, tc := range map[string]struct {
		log    fakeLog
		refuse bool
		kind   apperr.Kind
	}{
		"finished":          {log: fakeLog{job: job}},
		"pending":           {log: fakeLog{err: app.ErrPending}, refuse: true, kind: apperr.KindConflict},
		"another account's": {log: fakeLog{err: app.ErrNotFound}, refuse: true, kind: apperr.KindNotFound},
	} {
		jobs := &fakeJobs{}
		err := app.Hooks{Deliveries: tc.log, Tx: &unitOfWork{}, Jobs: jobs}.Replay(context.Background(), "acc_1", "msg_1")
		if tc.refuse {
			require.Equal(t, tc.kind, apperr.KindOf(err), name)
			require.Empty(t, jobs.queued, name)
			continue
		}
		require.NoError(t, err, name)
		require.Equal(t, []app.DeliveryJob{job}, jobs.queued, name)
	}
}
