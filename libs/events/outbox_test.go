package events

import (
	"context"
	"encoding/json"
	"errors"
	"testing"

	"github.com/jackc/pgx/v5"
	"github.com/stretchr/testify/require"

	"github.com/bizassist/bizassist/libs/contracts"
	"github.com/bizassist/bizassist/libs/pgkit"
	"github.com/bizassist/bizassist/libs/pgkit/pgtest"
)

func TestOutboxPublishesInTheTransactionOfItsContext(t *testing.T) {
	t.Parallel()
	pool := pgtest.New(t, "svc", Migrations)
	ctx := context.Background()
	uow := pgkit.Transactor{DB: pool}
	outbox := func() int { return count(t, pool, "SELECT count(*) FROM outbox") }
	ev := contracts.Event{Type: "lead.written", AccountID: "acc_1", Data: map[string]string{"leadId": "lead_1"}}

	require.ErrorIs(t, Outbox{}.Publish(ctx, ev), ErrNoTransaction, "never apart from the write it announces")
	require.NoError(t, Outbox{}.Publish(ctx), "nothing to publish needs no transaction")

	boom := errors.New("the write failed")
	err := uow.InTx(ctx, func(ctx context.Context) error {
		require.NoError(t, Outbox{}.Publish(ctx, ev, ev))
		return boom
	})
	require.ErrorIs(t, err, boom)
	require.Zero(t, outbox(), "rolled back with the write")

	require.NoError(t, uow.InTx(ctx, func(ctx context.Context) error { return Outbox{}.Publish(ctx, ev) }))
	require.Equal(t, 1, outbox())
	var raw string
	require.NoError(t, pool.QueryRow(ctx, "SELECT payload::text FROM outbox").Scan(&raw))
	var env Envelope
	require.NoError(t, json.Unmarshal([]byte(raw), &env))
	require.Equal(t, "lead.written", env.Type)
	require.Equal(t, "acc_1", env.AccountID)
	require.JSONEq(t, `{"leadId":"lead_1"}`, string(env.Data))

	err = uow.InTx(ctx, func(ctx context.Context) error {
		return Outbox{}.Publish(ctx, contracts.Event{Type: "Not A Type", AccountID: "acc_1"})
	})
	require.Error(t, err)
}

// A batch sent outside a transaction is one implicit transaction: the queued events commit with
// the batch's other writes, and a failing statement anywhere in it leaves no event behind.
func TestOutboxQueueCommitsWithItsBatch(t *testing.T) {
	t.Parallel()
	pool := pgtest.New(t, "svc", Migrations, seenTable)
	ctx := context.Background()
	ev := contracts.Event{Type: "lead.written", AccountID: "acc_1", Data: map[string]string{"leadId": "lead_1"}}
	send := func(then string) error {
		b := &pgx.Batch{}
		b.Queue("INSERT INTO seen (event_id, type) VALUES ('e1', 'x')")
		require.NoError(t, Outbox{}.Queue(ctx, b, ev))
		b.Queue(then)
		return pool.SendBatch(ctx, b).Close()
	}

	require.Error(t, send("SELECT 1/0"))
	require.Zero(t, count(t, pool, "SELECT count(*) FROM outbox"), "rolled back with the failing statement after it")
	require.Zero(t, count(t, pool, "SELECT count(*) FROM seen"))

	require.NoError(t, send("SELECT 1"))
	require.Equal(t, 1, count(t, pool, "SELECT count(*) FROM outbox WHERE type = 'lead.written'"))
	require.Equal(t, 1, count(t, pool, "SELECT count(*) FROM seen"))
	require.Error(t, Outbox{}.Queue(ctx, &pgx.Batch{}), "an empty queue is a mistake")
}

func TestTypedDecodesTheContractType(t *testing.T) {
	t.Parallel()
	type payload struct {
		LeadID string `json:"leadId"`
	}
	var got payload
	h := Typed(func(_ context.Context, e Envelope, d payload) error {
		got = d
		require.Equal(t, "acc_1", e.AccountID)
		return nil
	})
	ok, err := New(context.Background(), "lead.written", "acc_1", payload{LeadID: "lead_1"})
	require.NoError(t, err)
	require.NoError(t, h(context.Background(), ok))
	require.Equal(t, "lead_1", got.LeadID)

	bad := ok
	bad.Data = json.RawMessage(`{"leadId": 7}`)
	require.Error(t, h(context.Background(), bad), "data that does not decode fails the handler")
	bad.Data = nil
	require.Error(t, h(context.Background(), bad))
}
