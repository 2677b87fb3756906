package app_test

import (
	"context"
	"encoding/json"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/stretchr/testify/require"

	"github.com/bizassist/bizassist/libs/apperr"
	"github.com/bizassist/bizassist/libs/events"
	"github.com/bizassist/bizassist/services/leads/internal/app"
	"github.com/bizassist/bizassist/services/leads/internal/domain/qualify"
	"github.com/bizassist/bizassist/services/leads/internal/domain/sheet"
)

type fakeCatalog struct {
	app.Catalog
	vertical, text []app.Found
	textAsked      *app.SearchQuery
}

func (c *fakeCatalog) SearchVertical(_ context.Context, q app.SearchQuery) ([]app.Found, error) {
	return c.vertical[:min(len(c.vertical), q.Limit)], nil
}

func (c *fakeCatalog) SearchText(_ context.Context, q app.SearchQuery) ([]app.Found, error) {
	c.textAsked = &q
	return c.text[:min(len(c.text), q.Limit)], nil
}

func (c *fakeCatalog) MatchAll(_ context.Context, qs []app.MatchQuery) ([]app.Match, error) {
	out := make([]app.Match, len(qs))
	for i, q := range qs {
		out[i] = app.Match{Found: q.Domain == "acme.com", HasWebsite: q.Domain == "acme.com"}
	}
	return out, nil
}

// fakeSheet treats every lead as new and keeps the events it would commit.
type fakeSheet struct {
	app.Sheet
	events []events.Envelope
}

func (s *fakeSheet) Append(ctx context.Context, _ string, leads []sheet.Lead, after app.AfterAppend) ([]sheet.Lead, error) {
	envs, err := after(ctx, leads)
	s.events = append(s.events, envs...)
	return leads, err
}

func (s *fakeSheet) AppendTx(ctx context.Context, _ pgx.Tx, acc string, leads []sheet.Lead, after app.AfterAppend) ([]sheet.Lead, error) {
	return s.Append(ctx, acc, leads, after)
}

func found(name string) app.Found {
	return app.Found{BusinessName: name, OwnerName: "O", Email: "o@" + name + ".com", Phone: "+15124723000", Source: "organic", Rank: 60}
}

func TestFindLeadsFillsFromTextOnlyWhatVerticalsLeave(t *testing.T) {
	t.Parallel()
	cat := &fakeCatalog{vertical: []app.Found{found("a"), found("b")}, text: []app.Found{found("c"), found("d"), found("e")}}
	sh := &fakeSheet{}
	limit := 3
	got, err := app.FindLeads{Catalog: cat, Sheet: sh, Now: time.Now}.Handle(context.Background(),
		app.FindLeadsInput{AccountID: "acc_1", Industry: "Plumbers", Location: "Austin, TX", Limit: &limit})
	require.NoError(t, err)
	require.Equal(t, []string{"a", "b", "c"}, names(got))
	require.Equal(t, 1, cat.textAsked.Limit)
	require.Equal(t, []string{"plumbing"}, cat.textAsked.Verticals)
	require.Contains(t, cat.textAsked.TextTerms, "plumber")

	require.Len(t, sh.events, 4, "three lead.written and one usage.recorded")
	require.Equal(t, "usage.recorded", sh.events[3].Type)
	var usage app.UsageRecorded
	require.NoError(t, json.Unmarshal(sh.events[3].Data, &usage))
	require.Equal(t, "lead_finder", usage.Feature)
	require.Equal(t, 1, usage.Count)
	var written app.LeadWritten
	require.NoError(t, json.Unmarshal(sh.events[0].Data, &written))
	require.Equal(t, "o@a.com", written.Email)
	require.Equal(t, "acc_1", sh.events[0].AccountID)

	cat.textAsked = nil
	limit = 2
	_, err = app.FindLeads{Catalog: cat, Sheet: sh, Now: time.Now}.Handle(context.Background(),
		app.FindLeadsInput{AccountID: "acc_1", Industry: "plumbers", Limit: &limit})
	require.NoError(t, err)
	require.Nil(t, cat.textAsked, "a full page from the verticals needs no text search")
}

func names(fs []app.Found) []string {
	out := make([]string, len(fs))
	for i, f := range fs {
		out[i] = f.BusinessName
	}
	return out
}

type fixedResolver struct{ o qualify.Outcome }

func (r fixedResolver) MX(context.Context, string) qualify.Outcome       { return r.o }
func (r fixedResolver) Resolves(context.Context, string) qualify.Outcome { return r.o }

// memAllowances is one account's allowance without a database.
type memAllowances struct {
	used   int
	limit  *int
	events []events.Envelope
}

func (m *memAllowances) Update(_ context.Context, _, _ string, month time.Time, fn func(*sheet.Allowance) ([]events.Envelope, error)) error {
	a := sheet.RebuildAllowance(m.used, m.limit)
	envs, err := fn(a)
	if err != nil {
		return err
	}
	m.used = a.Used()
	m.events = append(m.events, envs...)
	return nil
}

func TestScoreBatchSpendsAllOrNothing(t *testing.T) {
	t.Parallel()
	limit := 25
	al := &memAllowances{used: 23, limit: &limit}
	h := app.ScoreBatch{Qualifier: app.Qualifier{Catalog: &fakeCatalog{}, Resolver: fixedResolver{qualify.Yes}},
		Allowances: al, UpgradeURL: "https://x.test/pricing", Now: time.Now}
	leads := []app.LeadInput{{Email: "ann@acme.com"}, {Email: "bob@other.com"}}

	res, err := h.Handle(context.Background(), app.BatchInput{AccountID: "acc_1", Plan: "free", Leads: leads})
	require.NoError(t, err)
	require.Equal(t, 2, res.Scored)
	require.Equal(t, 0, res.Remaining)
	require.Greater(t, res.Results[0].Score, res.Results[1].Score, "the catalog match counts")
	require.Len(t, al.events, 1)

	_, err = h.Handle(context.Background(), app.BatchInput{AccountID: "acc_1", Plan: "free", Leads: leads[:1]})
	var ae *apperr.Error
	require.ErrorAs(t, err, &ae)
	require.Equal(t, apperr.KindQuotaExceeded, ae.Kind)
	require.Equal(t, app.CodeAllowanceExhausted, ae.Code)
	require.Equal(t, 0, ae.Details["remaining"])
	require.Equal(t, "https://x.test/pricing", ae.Details["upgradeUrl"])
	require.Equal(t, 25, al.used)
	require.Len(t, al.events, 1, "a refused batch records no usage")
}

func TestRecordInboundLeadDropsWhatCanNeverBeValid(t *testing.T) {
	t.Parallel()
	sh := &fakeSheet{}
	h := app.RecordInboundLead{Sheet: sh, Now: time.Now}
	good, err := events.New(context.Background(), app.EventInboundLead, "acc_owner", app.InboundLead{Name: "Erin", Email: "erin@acme.com"})
	require.NoError(t, err)
	require.NoError(t, h.Handle(context.Background(), nil, good))
	require.Len(t, sh.events, 1)
	var w app.LeadWritten
	require.NoError(t, json.Unmarshal(sh.events[0].Data, &w))
	require.Equal(t, "webhook", w.Source)
	require.Equal(t, "acc_owner", sh.events[0].AccountID)

	bad, err := events.New(context.Background(), app.EventInboundLead, "acc_owner", app.InboundLead{Name: "X", Email: "nope"})
	require.NoError(t, err)
	require.NoError(t, h.Handle(context.Background(), nil, bad), "not retried")
	require.Len(t, sh.events, 1)
}
