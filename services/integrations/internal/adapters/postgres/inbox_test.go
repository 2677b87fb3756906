package postgres_test

import (
	"context"
	"sync"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/bizassist/bizassist/libs/contracts"
	"github.com/bizassist/bizassist/libs/ids"
	"github.com/bizassist/bizassist/services/integrations/internal/adapters/postgres"
	"github.com/bizassist/bizassist/services/integrations/internal/app"
	"github.com/bizassist/bizassist/services/integrations/internal/domain"
)

func newInbox(t *testing.T) (*postgres.Inbox, func(sql string, args ...any) int) {
	t.Helper()
	pool, sqlInt := newDB(t)
	return postgres.NewInbox(pool), sqlInt
}

func record(key string, hash byte) app.InboundRecord {
	return app.InboundRecord{ID: ids.New("svc"), AccountID: "acc_1", Event: domain.InboundNewLead,
		Fields: map[string]string{"name": "x", "email": "x@example.com"}, IdempotencyKey: key,
		BodyHash: []byte{hash}, ReceivedAt: time.Now().UTC()}
}

// accept stores rec as ReceiveInbound does, with its inbound.new_lead event.
func accept(store *postgres.Inbox, rec app.InboundRecord, since time.Time) (app.Accepted, error) {
	return store.Accept(context.Background(), rec, since, contracts.Event{Type: "inbound.new_lead", AccountID: rec.AccountID,
		Data: map[string]string{"inboundId": rec.ID}})
}

// Copies of one delivery arriving at once (a sender retrying on a timeout) store one record.
func TestConcurrentCopiesOfOneInboundEventStoreOneRecord(t *testing.T) {
	t.Parallel()
	for name, key := range map[string]string{"by idempotency key": "k-1", "by body": ""} {
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			store, sqlInt := newInbox(t)
			var wg sync.WaitGroup
			results := make(chan app.InboundRecord, 8)
			created := make(chan bool, 8)
			for range 8 {
				wg.Add(1)
				go func() {
					defer wg.Done()
					rec := record(key, 7)
					acc, err := accept(store, rec, time.Now().Add(-time.Hour))
					require.NoError(t, err)
					results <- acc.Stored
					created <- acc.Created
				}()
			}
			wg.Wait()
			close(results)
			close(created)
			first := (<-results).ID
			for r := range results {
				require.Equal(t, first, r.ID)
			}
			n := 0
			for c := range created {
				if c {
					n++
				}
			}
			require.Equal(t, 1, n)
			require.Equal(t, 1, sqlInt(`SELECT count(*) FROM inbox`))
			require.Equal(t, 1, sqlInt(`SELECT count(*) FROM outbox WHERE type = 'inbound.new_lead'`))
		})
	}
}

func TestTheSameBodyAfterTheWindowIsANewEvent(t *testing.T) {
	t.Parallel()
	store, sqlInt := newInbox(t)
	old := record("", 9)
	old.ReceivedAt = time.Now().Add(-25 * time.Hour)
	acc, err := accept(store, old, time.Now().Add(-48*time.Hour))
	require.NoError(t, err)
	require.True(t, acc.Created)
	acc, err = accept(store, record("", 9), time.Now().Add(-24*time.Hour))
	require.NoError(t, err)
	require.True(t, acc.Created)
	require.Equal(t, 2, sqlInt(`SELECT count(*) FROM inbox`))

	within := record("", 9)
	acc, err = accept(store, within, time.Now().Add(-24*time.Hour))
	require.NoError(t, err)
	require.False(t, acc.Created, "within the window of the newer one it is a copy")
	require.NotEqual(t, within.ID, acc.Stored.ID)
	require.Equal(t, 2, sqlInt(`SELECT count(*) FROM inbox`))
	require.Equal(t, 2, sqlInt(`SELECT count(*) FROM outbox`))

	keyed := record("k-9", 9)
	acc, err = accept(store, keyed, time.Now().Add(-24*time.Hour))
	require.NoError(t, err)
	require.True(t, acc.Created, "a key makes the record its own event, whatever its body")
}

// What integrations knows of a lead's fields: a new lead has its defaults where its fields say
// nothing, an inbound repeat's newer values win, a late lead.written (of a search's lead,
// consumed after a repeat was accepted) only fills gaps.
func TestKnownLeadFieldsMerge(t *testing.T) {
	t.Parallel()
	store, _ := newInbox(t)
	since := time.Now().Add(-time.Hour)
	first := record("", 1)
	first.LeadID, first.LeadFields, first.LeadDefaults = "lead_1", map[string]string{"name": "Ann"}, map[string]string{"source": "webhook"}
	acc, err := accept(store, first, since)
	require.NoError(t, err)
	require.False(t, acc.Merged)
	require.Empty(t, acc.Known)

	repeat := record("", 2)
	repeat.LeadID, repeat.LeadFields = "lead_1", map[string]string{"name": "Ann Lee", "notes": "n"}
	acc, err = accept(store, repeat, since)
	require.NoError(t, err)
	require.True(t, acc.Merged)
	require.Equal(t, map[string]string{"name": "Ann", "source": "webhook"}, acc.Known)

	added, err := store.KnowLead(context.Background(), first.AccountID, "lead_1", map[string]string{"name": "Ann", "phone": "+15124723000", "source": "webhook"})
	require.NoError(t, err)
	require.False(t, added)

	third := record("", 3)
	third.LeadID, third.LeadFields = "lead_1", map[string]string{}
	acc, err = accept(store, third, since)
	require.NoError(t, err)
	require.Equal(t, map[string]string{"name": "Ann Lee", "notes": "n", "phone": "+15124723000", "source": "webhook"}, acc.Known)
}

// Storing a new_lead makes its lead known: the first record of an email creates the lead, a
// later one (another body) merges into it. A record the database refuses leaves nothing behind.
func TestAcceptMakesTheLeadKnownInTheSameTransaction(t *testing.T) {
	t.Parallel()
	store, sqlInt := newInbox(t)
	since := time.Now().Add(-time.Hour)
	for _, step := range []struct {
		name            string
		body            byte
		created, merged bool
	}{
		{"the first record", 1, true, false},
		{"the same lead again", 2, true, true},
		{"a copy merges nothing: it is not stored", 2, false, false},
	} {
		rec := record("", step.body)
		rec.LeadID = "lead_1"
		acc, err := accept(store, rec, since)
		require.NoError(t, err, step.name)
		require.Equal(t, step.created, acc.Created, step.name)
		require.Equal(t, step.merged, acc.Merged, step.name)
	}
	require.Equal(t, 1, sqlInt(`SELECT count(*) FROM known_leads`))

	stranger := record("", 3)
	stranger.AccountID, stranger.LeadID = "acc_unknown", "lead_2"
	_, err := accept(store, stranger, since)
	require.Error(t, err, "an account this service does not know")
	require.Zero(t, sqlInt(`SELECT count(*) FROM known_leads WHERE lead_id = 'lead_2'`))
	require.Equal(t, 2, sqlInt(`SELECT count(*) FROM inbox`))
	require.Equal(t, 2, sqlInt(`SELECT count(*) FROM outbox`))
}
