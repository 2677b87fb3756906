package postgres

import (
	"context"
	"errors"
	"fmt"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/bizassist/bizassist/libs/contracts"
	"github.com/bizassist/bizassist/libs/events"
	"github.com/bizassist/bizassist/libs/pgkit"
	"github.com/bizassist/bizassist/services/leads/internal/domain/sheet"
)

func lead(t *testing.T, account, email, phone string) sheet.Lead {
	t.Helper()
	l, err := sheet.NewLead(account, sheet.LeadInput{Name: "N", Email: email, Phone: phone}, time.Now())
	require.NoError(t, err)
	return l
}

func TestSheetAppendDeduplicatesPerAccount(t *testing.T) {
	t.Parallel()
	pool := newDB(t)
	ctx := context.Background()
	s := NewSheet(pool, pgkit.PrimaryReads(pool))

	added, err := s.Append(ctx, "acc_a", []sheet.Lead{
		lead(t, "acc_a", "ann@acme.com", phoneN(1)),
		lead(t, "acc_a", "bob@acme.com", ""),
		lead(t, "acc_a", "ANN@acme.com", ""), // same email, other case, same batch
	})
	require.NoError(t, err)
	require.Len(t, added, 2)

	added, err = s.Append(ctx, "acc_a", []sheet.Lead{
		lead(t, "acc_a", "carol@acme.com", phoneN(1)), // same phone as Ann: another person
		lead(t, "acc_a", "Ann@Acme.com", phoneN(2)),   // Ann again, any case
	})
	require.NoError(t, err)
	require.Len(t, added, 1)
	require.Equal(t, "carol@acme.com", added[0].Email(), "a shared phone does not merge two people")

	added, err = s.Append(ctx, "acc_b", []sheet.Lead{lead(t, "acc_b", "ann@acme.com", phoneN(1))})
	require.NoError(t, err)
	require.Len(t, added, 1, "another account's sheet is separate")
}

func TestSheetKeepsNotesAndExtras(t *testing.T) {
	t.Parallel()
	pool := newDB(t)
	ctx := context.Background()
	s := NewSheet(pool, pgkit.PrimaryReads(pool))
	l, err := sheet.NewLead("acc_a", sheet.LeadInput{Email: "ann@acme.com", Notes: "call after 5",
		Extras: map[string]string{"utm_source": "spring", "company_size": "11-50"}}, time.Now())
	require.NoError(t, err)
	_, err = s.Append(ctx, "acc_a", []sheet.Lead{l})
	require.NoError(t, err)
	got, err := s.List(ctx, "acc_a", "", 10)
	require.NoError(t, err)
	require.Len(t, got, 1)
	require.Equal(t, "call after 5", got[0].Notes())
	require.Equal(t, map[string]string{"utm_source": "spring", "company_size": "11-50"}, got[0].Extras())
}

func TestSheetAppendJoinsTheUnitOfWork(t *testing.T) {
	t.Parallel()
	pool := newDB(t)
	ctx := context.Background()
	s := NewSheet(pool, pgkit.PrimaryReads(pool))
	uow := pgkit.Transactor{DB: pool}
	ev := contracts.Event{Type: "lead.written", AccountID: "acc_a"}

	err := uow.InTx(ctx, func(ctx context.Context) error {
		added, err := s.Append(ctx, "acc_a", []sheet.Lead{lead(t, "acc_a", "ann@acme.com", "")})
		require.NoError(t, err)
		require.Len(t, added, 1)
		require.NoError(t, events.Outbox{}.Publish(ctx, ev))
		return errors.New("boom")
	})
	require.Error(t, err)
	got, err := s.List(ctx, "acc_a", "", 10)
	require.NoError(t, err)
	require.Empty(t, got, "nothing half-written")
	require.Zero(t, outboxCount(t, pool, "lead.written"))

	require.NoError(t, uow.InTx(ctx, func(ctx context.Context) error {
		if _, err := s.Append(ctx, "acc_a", []sheet.Lead{lead(t, "acc_a", "ann@acme.com", "")}); err != nil {
			return err
		}
		return events.Outbox{}.Publish(ctx, ev)
	}))
	got, err = s.List(ctx, "acc_a", "", 10)
	require.NoError(t, err)
	require.Len(t, got, 1)
	require.Equal(t, 1, outboxCount(t, pool, "lead.written"))
}

func TestSheetListPagesNewestFirst(t *testing.T) {
	t.Parallel()
	pool := newDB(t)
	ctx := context.Background()
	s := NewSheet(pool, pgkit.PrimaryReads(pool))
	var all []sheet.Lead
	first := time.Date(2026, 3, 1, 12, 0, 0, 0, time.UTC)
	for i := range 5 {
		// Created a second apart: the sheet pages by creation time.
		l, err := sheet.NewLead("acc_a", sheet.LeadInput{Name: "N", Email: fmt.Sprintf("p%d@acme.com", i)}, first.Add(time.Duration(i)*time.Second))
		require.NoError(t, err)
		all = append(all, l)
	}
	_, err := s.Append(ctx, "acc_a", all)
	require.NoError(t, err)

	page, err := s.List(ctx, "acc_a", "", 3)
	require.NoError(t, err)
	require.Equal(t, []string{all[4].ID(), all[3].ID(), all[2].ID()}, leadIDs(page))
	page, err = s.List(ctx, "acc_a", page[2].ID(), 3)
	require.NoError(t, err)
	require.Equal(t, []string{all[1].ID(), all[0].ID()}, leadIDs(page))

	var exported []string
	require.NoError(t, s.Each(ctx, "acc_a", func(l sheet.Lead) error { exported = append(exported, l.ID()); return nil }))
	require.Len(t, exported, 5)
}

func leadIDs(ls []sheet.Lead) []string {
	out := make([]string, len(ls))
	for i, l := range ls {
		out[i] = l.ID()
	}
	return out
}
