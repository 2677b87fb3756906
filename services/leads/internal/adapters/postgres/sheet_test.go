package postgres

import (
	"context"
	"errors"
	"fmt"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/bizassist/bizassist/libs/events"
	"github.com/bizassist/bizassist/libs/ids"
	"github.com/bizassist/bizassist/services/leads/internal/domain/sheet"
)

func lead(t *testing.T, account, email, phone string) sheet.Lead {
	t.Helper()
	l, err := sheet.NewLead(ids.New("lead"), account, sheet.LeadInput{Name: "N", Email: email, Phone: phone}, time.Now())
	require.NoError(t, err)
	return l
}

// oneEventPerLead is the AfterAppend the app uses, reduced to counting.
func oneEventPerLead(ctx context.Context, added []sheet.Lead) ([]events.Envelope, error) {
	var envs []events.Envelope
	for _, l := range added {
		env, err := events.New(ctx, "lead.written", l.AccountID(), map[string]string{"leadId": l.ID()})
		if err != nil {
			return nil, err
		}
		envs = append(envs, env)
	}
	return envs, nil
}

func TestSheetAppendDeduplicatesPerAccount(t *testing.T) {
	t.Parallel()
	pool := newDB(t)
	ctx := context.Background()
	s := NewSheet(pool)

	added, err := s.Append(ctx, "acc_a", []sheet.Lead{
		lead(t, "acc_a", "ann@acme.com", phoneN(1)),
		lead(t, "acc_a", "bob@acme.com", ""),
		lead(t, "acc_a", "ANN@acme.com", ""), // same email, other case, same batch
	}, oneEventPerLead)
	require.NoError(t, err)
	require.Len(t, added, 2)

	added, err = s.Append(ctx, "acc_a", []sheet.Lead{
		lead(t, "acc_a", "carol@acme.com", phoneN(1)), // same phone as Ann
		lead(t, "acc_a", "dan@acme.com", phoneN(2)),
	}, oneEventPerLead)
	require.NoError(t, err)
	require.Len(t, added, 1)
	require.Equal(t, "dan@acme.com", added[0].Email())

	added, err = s.Append(ctx, "acc_b", []sheet.Lead{lead(t, "acc_b", "ann@acme.com", phoneN(1))}, oneEventPerLead)
	require.NoError(t, err)
	require.Len(t, added, 1, "another account's sheet is separate")

	require.Equal(t, 4, outboxCount(t, pool, "lead.written"), "one event per new row only")
}

func TestSheetAppendRollsBackWhenEventsFail(t *testing.T) {
	t.Parallel()
	pool := newDB(t)
	ctx := context.Background()
	s := NewSheet(pool)
	_, err := s.Append(ctx, "acc_a", []sheet.Lead{lead(t, "acc_a", "ann@acme.com", "")},
		func(context.Context, []sheet.Lead) ([]events.Envelope, error) { return nil, errors.New("boom") })
	require.Error(t, err)
	got, err := s.List(ctx, "acc_a", "", 10)
	require.NoError(t, err)
	require.Empty(t, got, "nothing half-written")
}

func TestSheetListPagesNewestFirst(t *testing.T) {
	t.Parallel()
	pool := newDB(t)
	ctx := context.Background()
	s := NewSheet(pool)
	var all []sheet.Lead
	for i := range 5 {
		all = append(all, lead(t, "acc_a", fmt.Sprintf("p%d@acme.com", i), ""))
		time.Sleep(2 * time.Millisecond) // ULIDs order by millisecond
	}
	_, err := s.Append(ctx, "acc_a", all, oneEventPerLead)
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
