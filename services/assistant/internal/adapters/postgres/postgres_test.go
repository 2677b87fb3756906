package postgres_test

import (
	"context"
	"fmt"
	"testing"
	"time"

	"github.com/jackc/pgx/v5/pgxpool"
	"github.com/stretchr/testify/require"

	"github.com/bizassist/bizassist/libs/events"
	"github.com/bizassist/bizassist/libs/pgkit/pgtest"
	"github.com/bizassist/bizassist/services/assistant/internal/adapters/postgres"
	"github.com/bizassist/bizassist/services/assistant/internal/app"
	"github.com/bizassist/bizassist/services/assistant/internal/domain"
	"github.com/bizassist/bizassist/services/assistant/migrations"
)

// setup returns a fresh assistant database and the current time at its precision.
func setup(t *testing.T) (*pgxpool.Pool, time.Time) {
	t.Helper()
	return pgtest.New(t, "assistant", events.Migrations, migrations.Source), time.Now().UTC().Truncate(time.Millisecond)
}

func TestSessionsRoundTripAndStayWithTheirAccount(t *testing.T) {
	t.Parallel()
	pool, now := setup(t)
	repo := postgres.NewSessions(pool)
	ctx := context.Background()

	s, err := domain.NewSession("acc_a", "", now)
	require.NoError(t, err)
	s.Advance(domain.State{Intent: domain.IntentFindLeads, Slots: domain.Slots{Vertical: "plumbing", Location: "Austin, TX"}, Facts: map[string]string{"top": "Barton Creek"}})
	turn := func(q, a string) []domain.Message {
		return []domain.Message{{Role: domain.RoleUser, Content: q, Tokens: 3, At: now}, {Role: domain.RoleAssistant, Content: a, Tokens: 5, At: now}}
	}
	feed := app.SourcedEvent{SourceID: "evt_r1", Event: domain.FeedEvent{Module: "Chat", EventType: "ChatConversation", Summary: "asked", At: now}}
	require.NoError(t, repo.Save(ctx, s, true, turn("q1", "a1"), feed))
	require.NoError(t, repo.Save(ctx, s, false, turn("q2", "a2")))

	got, history, err := repo.Load(ctx, "acc_a", s.ID(), 3)
	require.NoError(t, err)
	require.Equal(t, s.State(), got.State())
	require.Equal(t, []string{"a1", "q2", "a2"}, contents(history), "the newest messages, oldest first")

	_, _, err = repo.Load(ctx, "acc_b", s.ID(), 10)
	require.ErrorIs(t, err, domain.ErrSessionNotFound)
	other := domain.RestoreSession(s.ID(), "acc_b", domain.State{}, now)
	require.ErrorIs(t, repo.Save(ctx, other, false, turn("x", "y")), domain.ErrSessionNotFound)
	// Session ids are per account: another account may start its own session under the same id.
	require.NoError(t, repo.Save(ctx, other, true, turn("b1", "b2")))
	_, history, err = repo.Load(ctx, "acc_b", s.ID(), 10)
	require.NoError(t, err)
	require.Equal(t, []string{"b1", "b2"}, contents(history))
	_, history, err = repo.Load(ctx, "acc_a", s.ID(), 10)
	require.NoError(t, err)
	require.Equal(t, []string{"q1", "a1", "q2", "a2"}, contents(history), "untouched by the other account")

	var stored int
	require.NoError(t, pool.QueryRow(ctx, `SELECT count(*) FROM feed_events WHERE source_id = 'evt_r1'`).Scan(&stored))
	require.Equal(t, 1, stored, "the feed event is written with the turn")
}

func contents(ms []domain.Message) []string {
	out := make([]string, len(ms))
	for i, m := range ms {
		out[i] = m.Content
	}
	return out
}

func TestFeedKeepsTheWindowNewestFirstAndSkipsRepeats(t *testing.T) {
	t.Parallel()
	pool, now := setup(t)
	feed := postgres.NewFeed(pool)
	ctx := context.Background()
	ev := func(summary string, ago time.Duration) domain.FeedEvent {
		return domain.FeedEvent{Module: "Voice", EventType: "CallAnswered", Summary: summary, At: now.Add(-ago)}
	}
	n, err := feed.Add(ctx, []app.SourcedEvent{
		{SourceID: "evt_1", Event: ev("one hour", time.Hour)},
		{SourceID: "evt_1", Event: ev("repeat", time.Minute)},
		{Event: ev("two days", 48*time.Hour)},
		{Event: ev("a minute", time.Minute)},
	})
	require.NoError(t, err)
	require.Equal(t, 3, n)

	got, err := feed.Recent(ctx, now.Add(-domain.FeedWindow), 10, domain.FeedShare)
	require.NoError(t, err)
	require.Len(t, got, 2)
	require.Equal(t, "a minute", got[0].Summary)
	require.Equal(t, "one hour", got[1].Summary)
	require.Equal(t, now.Add(-time.Minute), got[0].At)
}

// One account's share of the feed is bounded; events seeded by hand belong to no account.
func TestFeedBoundsEachAccountsShare(t *testing.T) {
	t.Parallel()
	pool, now := setup(t)
	feed := postgres.NewFeed(pool)
	ctx := context.Background()
	var evs []app.SourcedEvent
	for i := range 8 {
		at := now.Add(-time.Duration(i) * time.Minute)
		evs = append(evs,
			app.SourcedEvent{SourceID: fmt.Sprint("spam_", i), AccountID: "acc_spam", Event: domain.FeedEvent{Module: "Voice", EventType: "CallAnswered", Summary: "spam", At: at}},
			app.SourcedEvent{Event: domain.FeedEvent{Module: "Voice", EventType: "CallAnswered", Summary: "seeded", At: at.Add(-time.Second)}})
	}
	evs = append(evs, app.SourcedEvent{SourceID: "other", AccountID: "acc_other", Event: domain.FeedEvent{Module: "Voice", EventType: "CallAnswered", Summary: "other", At: now.Add(-time.Hour)}})
	_, err := feed.Add(ctx, evs)
	require.NoError(t, err)

	got, err := feed.Recent(ctx, now.Add(-domain.FeedWindow), 50, 3)
	require.NoError(t, err)
	count := map[string]int{}
	for _, e := range got {
		count[e.Summary]++
	}
	require.Equal(t, map[string]int{"spam": 3, "seeded": 8, "other": 1}, count)
	require.Equal(t, now, got[0].At, "an account's newest events are the ones shown")
}

func TestAccountsKeepTheLatestPlan(t *testing.T) {
	t.Parallel()
	pool, now := setup(t)
	accounts := postgres.NewAccounts(pool)
	ctx := context.Background()
	s, err := accounts.Standing(ctx, "acc_new")
	require.NoError(t, err)
	require.False(t, s.Known)

	created := now.Add(-time.Hour)
	// The plan change arrives before the account's creation: the later plan stays.
	require.NoError(t, accounts.Save(ctx, "acc_new", "growth", now, time.Time{}))
	require.NoError(t, accounts.Save(ctx, "acc_new", "free", created, created))
	s, err = accounts.Standing(ctx, "acc_new")
	require.NoError(t, err)
	require.Equal(t, domain.Standing{Known: true, Plan: "growth", CreatedAt: created}, s)

	require.NoError(t, accounts.Disable(ctx, "acc_new"))
	require.NoError(t, accounts.Disable(ctx, "acc_never_seen"))
	for _, id := range []string{"acc_new", "acc_never_seen"} {
		s, err = accounts.Standing(ctx, id)
		require.NoError(t, err)
		require.True(t, s.Known && s.Disabled, id)
	}
}
