package app_test

import (
	"context"
	"errors"
	"fmt"
	"sync/atomic"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/bizassist/bizassist/libs/allowance"
	"github.com/bizassist/bizassist/libs/apperr"
	"github.com/bizassist/bizassist/libs/contracts"
	"github.com/bizassist/bizassist/libs/contracts/leadsevents"
	"github.com/bizassist/bizassist/services/leads/internal/app"
	"github.com/bizassist/bizassist/services/leads/internal/domain/qualify"
	"github.com/bizassist/bizassist/services/leads/internal/domain/sheet"
)

type fakeCatalog struct {
	app.Catalog
	vertical, text []app.Found
	textAsked      *app.SearchQuery
	err            error // every query fails with it when set
}

func (c *fakeCatalog) SearchVertical(_ context.Context, q app.SearchQuery) ([]app.Found, error) {
	if c.err != nil {
		return nil, c.err
	}
	return c.vertical[:min(len(c.vertical), q.Limit)], nil
}

func (c *fakeCatalog) SearchText(_ context.Context, q app.SearchQuery) ([]app.Found, error) {
	c.textAsked = &q
	return c.text[:min(len(c.text), q.Limit)], nil
}

func (c *fakeCatalog) MatchAll(_ context.Context, qs []app.MatchQuery) ([]app.Match, error) {
	if c.err != nil {
		return nil, c.err
	}
	out := make([]app.Match, len(qs))
	for i, q := range qs {
		out[i] = app.Match{Found: q.Domain == "acme.com", HasWebsite: q.Domain == "acme.com"}
	}
	return out, nil
}

// fakeSheet treats every lead as new; as the outbox and unit of work too, it keeps the events
// that would commit.
type fakeSheet struct {
	app.Sheet
	events []contracts.Event
	leads  map[string]sheet.Lead // by id, once appended
}

func (s *fakeSheet) Append(_ context.Context, _ string, leads []sheet.Lead) ([]sheet.Lead, error) {
	if s.leads == nil {
		s.leads = map[string]sheet.Lead{}
	}
	var added []sheet.Lead
	for _, l := range leads {
		if _, ok := s.leads[l.ID()]; !ok {
			s.leads[l.ID()] = l
			added = append(added, l)
		}
	}
	return added, nil
}

func (s *fakeSheet) Get(_ context.Context, _, id string) (sheet.Lead, bool, error) {
	l, ok := s.leads[id]
	return l, ok, nil
}

func (s *fakeSheet) Update(_ context.Context, l sheet.Lead) error {
	s.leads[l.ID()] = l
	return nil
}

func (s *fakeSheet) Publish(_ context.Context, evs ...contracts.Event) error {
	s.events = append(s.events, evs...)
	return nil
}

func (s *fakeSheet) InTx(ctx context.Context, fn func(context.Context) error) error {
	published := len(s.events)
	if err := fn(ctx); err != nil {
		s.events = s.events[:published]
		return err
	}
	return nil
}

func found(name string) app.Found {
	return app.Found{BusinessName: name, OwnerName: "O", Email: "o@" + name + ".com", Phone: "+15124723000", Source: "organic", Rank: 60}
}

// unlimited is fakeAllowances' limit for a feature without a cap.
const unlimited = -1

// fakeAllowances grants up to limit units (unlimited for no cap), or fails with err.
type fakeAllowances struct {
	limit, used int
	err         error
	reserved    []allowance.Request
	credentials []string
	released    []string
}

func (f *fakeAllowances) Reserve(_ context.Context, credential string, r allowance.Request) (allowance.Reservation, error) {
	if f.err != nil {
		return allowance.Reservation{}, f.err
	}
	if f.limit != unlimited && f.used+r.Count > f.limit {
		return allowance.Reservation{}, &allowance.LimitReached{Feature: r.Feature, Used: f.used, Limit: f.limit,
			Remaining: f.limit - f.used, UpgradeURL: "https://x.test/pricing"}
	}
	f.used += r.Count
	f.reserved = append(f.reserved, r)
	f.credentials = append(f.credentials, credential)
	res := allowance.Reservation{ID: fmt.Sprintf("evt_%d", len(f.reserved)), Used: f.used, Limit: f.limit, Remaining: f.limit - f.used}
	if f.limit == unlimited {
		res.Remaining, res.Unlimited = unlimited, true
	}
	return res, nil
}

func (f *fakeAllowances) Release(_ context.Context, _ string, id string) error {
	f.released = append(f.released, id)
	return nil
}

func TestFindLeadsFillsFromTextOnlyWhatVerticalsLeave(t *testing.T) {
	t.Parallel()
	cat := &fakeCatalog{vertical: []app.Found{found("a"), found("b")}, text: []app.Found{found("c"), found("d"), found("e")}}
	sh := &fakeSheet{}
	al := &fakeAllowances{limit: unlimited}
	find := app.FindLeads{Catalog: cat, Tx: sh, Sheet: sh, Outbox: sh, Allowances: al, Now: time.Now}
	limit := 3
	got, err := find.Handle(context.Background(),
		app.FindLeadsInput{AccountID: "acc_1", Credential: "tok", Industry: "Plumbers", Location: "Austin, TX", Limit: &limit})
	require.NoError(t, err)
	require.Equal(t, []string{"a", "b", "c"}, names(got.Found))
	require.Equal(t, 1, cat.textAsked.Limit)
	require.Equal(t, []string{"plumbing"}, cat.textAsked.Verticals)
	require.Contains(t, cat.textAsked.TextTerms, "plumber")

	require.Equal(t, []allowance.Request{{Feature: "lead_finder", Action: "search", Count: 1}}, al.reserved)
	require.Equal(t, []string{"tok"}, al.credentials, "reserved with the caller's own token")
	require.Len(t, sh.events, 3, "one lead.written each; the reservation is the usage record")
	require.Equal(t, leadsevents.LeadWritten, sh.events[0].Type)
	written := sh.events[0].Data.(leadsevents.LeadWrittenData)
	require.Equal(t, "o@a.com", written.Email)
	require.Equal(t, "acc_1", sh.events[0].AccountID)

	cat.textAsked = nil
	limit = 2
	_, err = find.Handle(context.Background(), app.FindLeadsInput{AccountID: "acc_1", Industry: "plumbers", Limit: &limit})
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

// countingResolver counts the DNS questions asked.
type countingResolver struct{ n atomic.Int64 }

func (r *countingResolver) MX(context.Context, string) qualify.Outcome {
	r.n.Add(1)
	return qualify.Yes
}

func (r *countingResolver) Resolves(context.Context, string) qualify.Outcome {
	r.n.Add(1)
	return qualify.Yes
}

func TestFindLeadsRefusedOrFailedSearchesSpendNothing(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	in := app.FindLeadsInput{AccountID: "acc_1", Credential: "tok", Industry: "plumbers"}
	sh := &fakeSheet{}

	al := &fakeAllowances{limit: 0}
	cat := &fakeCatalog{vertical: []app.Found{found("a")}}
	_, err := app.FindLeads{Catalog: cat, Tx: sh, Sheet: sh, Outbox: sh, Allowances: al, UpgradeURL: "https://ours.test", Now: time.Now}.Handle(ctx, in)
	var ae *apperr.Error
	require.ErrorAs(t, err, &ae)
	require.Equal(t, apperr.KindQuotaExceeded, ae.Kind)
	require.Equal(t, app.CodeLeadFinderLimit, ae.Code)
	require.Equal(t, map[string]any{"remaining": 0, "limit": 0, "upgradeUrl": "https://x.test/pricing"}, ae.Details)

	// The search fails after the reservation: the use is given back.
	al = &fakeAllowances{limit: 20}
	cat.err = errors.New("database gone")
	_, err = app.FindLeads{Catalog: cat, Tx: sh, Sheet: sh, Outbox: sh, Allowances: al, Now: time.Now}.Handle(ctx, in)
	require.ErrorIs(t, err, cat.err)
	require.Equal(t, []string{"evt_1"}, al.released)

	// Bad input never reaches the allowance.
	_, err = app.FindLeads{Catalog: cat, Tx: sh, Sheet: sh, Outbox: sh, Allowances: al, Now: time.Now}.Handle(ctx, app.FindLeadsInput{Credential: "tok"})
	require.Equal(t, apperr.CodeMissingField, apperr.CodeOf(err))
	require.Len(t, al.reserved, 1)
	_, err = app.FindLeads{Catalog: cat, Tx: sh, Sheet: sh, Outbox: sh, Allowances: al, Now: time.Now}.Handle(ctx,
		app.FindLeadsInput{Credential: "tok", Industry: "plumbers", Location: "Austin TX 787"})
	require.Equal(t, apperr.CodeInvalidField, apperr.CodeOf(err))
	require.Len(t, al.reserved, 1, "a refused location is not charged")

	// A search that finds nothing delivered nothing: the use is given back.
	al = &fakeAllowances{limit: 20}
	empty := &fakeCatalog{}
	got, err := app.FindLeads{Catalog: empty, Tx: sh, Sheet: sh, Outbox: sh, Allowances: al, Now: time.Now}.Handle(ctx, in)
	require.NoError(t, err)
	require.Empty(t, got)
	require.Equal(t, []string{"evt_1"}, al.released, "an empty search was charged")
}

func TestAllowanceThatCannotBeCheckedRefusesTheWork(t *testing.T) {
	t.Parallel()
	down := &fakeAllowances{err: errors.New("connection refused")}
	dns := &countingResolver{}
	cat := &fakeCatalog{vertical: []app.Found{found("a")}}
	sh := &fakeSheet{}

	_, err := app.FindLeads{Catalog: cat, Tx: sh, Sheet: sh, Outbox: sh, Allowances: down, Now: time.Now}.Handle(context.Background(),
		app.FindLeadsInput{Credential: "tok", Industry: "plumbers"})
	require.Equal(t, apperr.KindUnavailable, apperr.KindOf(err))
	require.Equal(t, allowance.CodeUnavailable, apperr.CodeOf(err))
	require.Empty(t, sh.events, "no search ran")

	_, err = app.ScoreBatch{Qualifier: app.Qualifier{Catalog: cat, Resolver: dns}, Allowances: down}.Handle(context.Background(),
		app.BatchInput{Credential: "tok", Leads: []app.LeadInput{{Email: "ann@acme.com"}}})
	require.Equal(t, allowance.CodeUnavailable, apperr.CodeOf(err))
	require.Zero(t, dns.n.Load())

	// A caller that went away is not an outage.
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	_, err = app.FindLeads{Catalog: cat, Tx: sh, Sheet: sh, Outbox: sh, Allowances: &fakeAllowances{err: context.Canceled}, Now: time.Now}.Handle(ctx,
		app.FindLeadsInput{Credential: "tok", Industry: "plumbers"})
	require.ErrorIs(t, err, context.Canceled)
	require.Equal(t, apperr.KindInternal, apperr.KindOf(err))
}

func TestScoreBatchReservesAllOrNothingBeforeScoring(t *testing.T) {
	t.Parallel()
	al := &fakeAllowances{limit: 25, used: 23}
	dns := &countingResolver{}
	h := app.ScoreBatch{Qualifier: app.Qualifier{Catalog: &fakeCatalog{}, Resolver: dns}, Allowances: al, UpgradeURL: "https://ours.test"}
	leads := []app.LeadInput{{Email: "ann@acme.com"}, {Email: "bob@other.com"}}

	res, err := h.Handle(context.Background(), app.BatchInput{Credential: "tok", Leads: leads})
	require.NoError(t, err)
	require.Equal(t, 2, res.Scored)
	require.Equal(t, 0, res.Remaining)
	require.False(t, res.Unlimited)
	require.Greater(t, res.Results[0].Score, res.Results[1].Score, "the catalog match counts")
	require.Equal(t, []allowance.Request{{Feature: "lead_scoring", Action: "batch", Count: 2}}, al.reserved)
	asked := dns.n.Load()
	require.Positive(t, asked)

	_, err = h.Handle(context.Background(), app.BatchInput{Credential: "tok", Leads: leads[:1]})
	var ae *apperr.Error
	require.ErrorAs(t, err, &ae)
	require.Equal(t, apperr.KindQuotaExceeded, ae.Kind)
	require.Equal(t, app.CodeAllowanceExhausted, ae.Code)
	require.Equal(t, 0, ae.Details["remaining"])
	require.Equal(t, 25, ae.Details["limit"])
	require.Equal(t, "https://x.test/pricing", ae.Details["upgradeUrl"], "analytics' pricing page")
	require.Equal(t, asked, dns.n.Load(), "a refused batch is not scored")

	uncapped := app.ScoreBatch{Qualifier: h.Qualifier, Allowances: &fakeAllowances{limit: unlimited}}
	res, err = uncapped.Handle(context.Background(), app.BatchInput{Credential: "tok", Leads: leads})
	require.NoError(t, err)
	require.True(t, res.Unlimited)

	// Scoring fails after the reservation (our catalog): the reservation is given back.
	al = &fakeAllowances{limit: 25}
	failing := app.ScoreBatch{Qualifier: app.Qualifier{Catalog: &fakeCatalog{err: errors.New("database gone")}, Resolver: dns}, Allowances: al}
	_, err = failing.Handle(context.Background(), app.BatchInput{Credential: "tok", Leads: leads})
	require.Error(t, err)
	require.Equal(t, []string{"evt_1"}, al.released)
}

func TestRecordInboundLeadDropsWhatCanNeverBeValid(t *testing.T) {
	t.Parallel()
	sh := &fakeSheet{}
	h := app.RecordInboundLead{Tx: sh, Sheet: sh, Outbox: sh, Now: time.Now}
	good := app.InboundLeadCommand{EventID: "evt_1", AccountID: "acc_owner", InboundID: "svc_1", Name: "Erin", Email: "erin@acme.com"}
	require.NoError(t, h.Handle(context.Background(), good))
	require.Len(t, sh.events, 1)
	w := sh.events[0].Data.(leadsevents.LeadWrittenData)
	require.Equal(t, "webhook", w.Source)
	require.Equal(t, "svc_1", w.InboundID)
	require.Equal(t, "acc_owner", sh.events[0].AccountID)

	bad := app.InboundLeadCommand{EventID: "evt_2", AccountID: "acc_owner", Name: "X", Email: "nope"}
	require.NoError(t, h.Handle(context.Background(), bad), "not retried")
	require.Len(t, sh.events, 1)
}

// Issue 26 finding 2: an inbound "030 1234567" from a German sender was delivered as phone "".
func TestRecordInboundLeadReadsPhonesWithTheSendersCountry(t *testing.T) {
	t.Parallel()
	for _, c := range []struct {
		phone  string
		extras map[string]string
		want   string
	}{
		{"030 1234567", map[string]string{"country": "DE"}, "+49301234567"},
		{"0049 30 1234567", nil, "+49301234567"},
		{"512-472-3999", map[string]string{"country": "US"}, "+15124723999"},
		{"030 1234567", nil, ""},
	} {
		sh := &fakeSheet{}
		h := app.RecordInboundLead{Tx: sh, Sheet: sh, Outbox: sh, Now: time.Now}
		require.NoError(t, h.Handle(context.Background(), app.InboundLeadCommand{EventID: "evt_1", AccountID: "acc_owner",
			Name: "Erin", Email: "erin@acme.com", Phone: c.phone, Extras: c.extras}))
		require.Equal(t, c.want, sh.events[0].Data.(leadsevents.LeadWrittenData).Phone, c.phone)
	}
}
