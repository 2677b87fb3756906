package app_test

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"slices"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/bizassist/bizassist/libs/apperr"
	"github.com/bizassist/bizassist/services/console/internal/adapters/api"
	"github.com/bizassist/bizassist/services/console/internal/adapters/api/apitest"
	"github.com/bizassist/bizassist/services/console/internal/app"
	"github.com/bizassist/bizassist/services/console/internal/app/apptest"
	"github.com/bizassist/bizassist/services/console/internal/domain/session"
	"github.com/bizassist/bizassist/services/console/internal/domain/sheet"
)

const maxAge = 2 * time.Hour

// rateLimited is a refusal every route documents.
var rateLimited = apperr.New(apperr.KindRateLimited, apperr.CodeRateLimited, "too many requests").With("retryAfter", 3)

type world struct {
	app      app.Application
	fake     *apitest.API
	sessions *apptest.Sessions
	now      time.Time
	ctx      context.Context
}

// setup wires the use cases to the real API adapter over a fake API and an in-memory session
// store, with a fixed clock.
func setup(t *testing.T) *world {
	t.Helper()
	w := &world{fake: apitest.New(t), now: time.Now().UTC(), ctx: context.Background()}
	clock := func() time.Time { return w.now }
	w.sessions = apptest.NewSessions(clock)
	w.app = app.New(api.New(w.fake.Config()), w.sessions, maxAge, clock)
	return w
}

// signIn starts the owner's session.
func (w *world) signIn(t *testing.T) (session.Secret, session.Session) {
	t.Helper()
	secret, err := w.app.Accounts.SignIn(w.ctx, apitest.Email, apitest.Password)
	require.NoError(t, err)
	sess, err := w.app.Accounts.Resume(w.ctx, secret)
	require.NoError(t, err)
	return secret, sess
}

// signedIn is a world whose owner has signed in, and the owner's session.
func signedIn(t *testing.T) (*world, session.Session) {
	t.Helper()
	w := setup(t)
	_, sess := w.signIn(t)
	return w, sess
}

func TestSigningInStartsASessionBoundByMaxAge(t *testing.T) {
	t.Parallel()
	w := setup(t)
	secret, sess := w.signIn(t)
	require.Equal(t, apitest.Email, sess.Email)
	require.Equal(t, "growth", sess.Plan, "the verified token's plan")
	require.Equal(t, w.now.Add(maxAge), sess.ExpiresAt, "the token lives 24 h; the session at most maxAge")
	require.NotEmpty(t, sess.Token)

	_, err := w.app.Accounts.SignIn(w.ctx, apitest.Email, "not the password")
	require.True(t, app.Unauthenticated(err))
	require.Equal(t, 1, w.sessions.Len(), "a refused sign-in starts no session")

	require.NoError(t, w.app.Accounts.SignOut(w.ctx, secret))
	_, err = w.app.Accounts.Resume(w.ctx, secret)
	require.ErrorIs(t, err, app.ErrNoSession)
}

func TestSigningUpAndAcceptingAnInvitationSignIn(t *testing.T) {
	t.Parallel()
	w := setup(t)
	secret, err := w.app.Accounts.SignUp(w.ctx, "new@example.com", "a long passphrase", "New Co")
	require.NoError(t, err)
	sess, err := w.app.Accounts.Resume(w.ctx, secret)
	require.NoError(t, err)
	require.Equal(t, "free", sess.Plan)

	_, owner := w.signIn(t)
	inv, err := w.app.Clients.Invite(w.ctx, owner.Token, app.Invite{Email: "client@example.com", BusinessName: "Client Co", Plan: "growth"})
	require.NoError(t, err)
	secret, err = w.app.Accounts.AcceptInvitation(w.ctx, inv.InviteToken, "the client's passphrase")
	require.NoError(t, err)
	sess, err = w.app.Accounts.Resume(w.ctx, secret)
	require.NoError(t, err)
	require.Equal(t, "client@example.com", sess.Email)
	require.Equal(t, "growth", sess.Plan)
}

func TestChangingThePasswordEndsTheSessionAndAWrongOneKeepsIt(t *testing.T) {
	t.Parallel()
	w := setup(t)
	secret, sess := w.signIn(t)
	err := w.app.Accounts.ChangePassword(w.ctx, secret, sess, "wrong", "a new passphrase")
	var ae *app.APIError
	require.ErrorAs(t, err, &ae)
	require.Equal(t, "currentPassword", ae.Field)
	_, err = w.app.Accounts.Resume(w.ctx, secret)
	require.NoError(t, err, "a refused change keeps the session")

	require.NoError(t, w.app.Accounts.ChangePassword(w.ctx, secret, sess, apitest.Password, "a new passphrase"))
	_, err = w.app.Accounts.Resume(w.ctx, secret)
	require.ErrorIs(t, err, app.ErrNoSession)
}

func TestTheOverviewGathersEveryPanel(t *testing.T) {
	t.Parallel()
	w, sess := signedIn(t)
	for i := range 7 {
		w.fake.AddLeads(apitest.Lead{Name: fmt.Sprintf("Lead %d", i), Email: fmt.Sprintf("l%d@example.com", i)})
	}
	w.fake.AddHistory("", apitest.Point{At: w.now.Add(-72 * time.Hour), Score: 50, Tier: "at_risk"}, apitest.Point{At: w.now, Score: 72, Tier: "healthy"})

	o, err := w.app.Overview.Handle(w.ctx, sess)
	require.NoError(t, err)
	require.Equal(t, "growth", o.Plan)
	require.NoError(t, errors.Join(o.PlanErr, o.UsageErr, o.HealthErr, o.LeadsErr))
	require.Equal(t, []string{"chat", "lead_finder", "lead_scoring"}, features(o), "meters in a stable order")
	require.Equal(t, 72, o.Health.Score)
	require.Len(t, o.Leads, app.RecentLeads)
	require.Equal(t, "Lead 6", o.Leads[0].Name, "newest first")
	require.Equal(t, "Health score over the last 30 days: from 50 to 72.", o.Trend.Summary)
	require.Equal(t, app.StepAPIKey, o.NextStep)
}

func features(o app.Overview) []string {
	var out []string
	for _, m := range o.Usage.Meters {
		out = append(out, m.Feature)
	}
	return out
}

func TestAnOverviewPanelFailsAloneButARefusedTokenEndsIt(t *testing.T) {
	t.Parallel()
	w, sess := signedIn(t)
	w.fake.Refuse("GET /api/health-score/history", rateLimited)
	o, err := w.app.Overview.Handle(w.ctx, sess)
	require.NoError(t, err)
	require.Error(t, o.HealthErr, "the history's failure is the health panel's")
	require.NoError(t, errors.Join(o.UsageErr, o.LeadsErr, o.PlanErr))

	w.fake.Allow("GET /api/health-score/history")
	w.fake.Refuse("POST /api/auth", apperr.Unavailable("unavailable", "try again"))
	sess.Plan = "full_stack"
	o, err = w.app.Overview.Handle(w.ctx, sess)
	require.NoError(t, err)
	require.Equal(t, "full_stack", o.Plan, "the session's plan when identity cannot say")

	w.fake.Allow("POST /api/auth")
	w.fake.RevokeTokens()
	_, err = w.app.Overview.Handle(w.ctx, sess)
	require.True(t, app.Unauthenticated(err))
}

func TestTheOverviewSuggestsOneNextStep(t *testing.T) {
	t.Parallel()
	for name, tc := range map[string]struct {
		nearLimit, leads, leadsFail bool
		want                        app.NextStep
	}{
		"near a limit, before anything":    {nearLimit: true, leads: false, want: app.StepUpgrade},
		"no lead yet":                      {want: app.StepFindLeads},
		"leads":                            {leads: true, want: app.StepAPIKey},
		"the sheet could not be read":      {leadsFail: true, want: app.StepAPIKey},
		"near a limit, with leads too":     {nearLimit: true, leads: true, want: app.StepUpgrade},
		"no lead and the sheet unreadable": {leads: false, leadsFail: true, want: app.StepAPIKey},
	} {
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			w, sess := signedIn(t)
			w.fake.SetUsage("chat", 90, 100, 90, tc.nearLimit)
			if tc.leads {
				w.fake.AddLeads(apitest.Lead{Name: "Ann", Email: "ann@example.com"})
			}
			if tc.leadsFail {
				w.fake.Refuse("GET /api/leads", rateLimited)
			}
			o, err := w.app.Overview.Handle(w.ctx, sess)
			require.NoError(t, err)
			require.Equal(t, tc.want, o.NextStep)
		})
	}
}

func TestClientsAreMergedWithTheirChurnPredictionAndRankedByRisk(t *testing.T) {
	t.Parallel()
	w, sess := signedIn(t)
	listed := 55
	w.fake.AddClient(apitest.Client{Email: "calm@example.com", BusinessName: "Calm", HealthScore: &listed, Tier: "at_risk",
		AtRisk: true, ChurnProbability: 10, AtRiskScore: 90, Recommendation: "keep going"})
	w.fake.AddClient(apitest.Client{Email: "Risky@Example.com", AtRiskEmail: "risky@example.com", BusinessName: "Risky",
		AtRisk: true, ChurnProbability: 85, AtRiskScore: 15, Recommendation: "call them this week"})
	w.fake.AddClient(apitest.Client{Email: "new@example.com", BusinessName: "New", Status: "invited"})

	cs, err := w.app.Clients.List(w.ctx, sess.Token)
	require.NoError(t, err)
	require.Len(t, cs, 3)
	require.Equal(t, []string{"Risky", "Calm", "New"}, []string{cs[0].BusinessName, cs[1].BusinessName, cs[2].BusinessName})
	require.Equal(t, 85, *cs[0].ChurnProbability, "matched by email in any case")
	require.Equal(t, "call them this week", cs[0].Recommendation)
	require.Equal(t, 15, *cs[0].HealthScore, "analytics' score when identity has none")
	require.Equal(t, 55, *cs[1].HealthScore, "identity's score when it has one")
	require.Nil(t, cs[2].ChurnProbability)

	w.fake.Refuse("GET /api/churn-predict", apperr.Forbidden("plan_upgrade_required", "upgrade").With("upgradeUrl", apitest.UpgradeURL))
	_, err = w.app.Clients.List(w.ctx, sess.Token)
	var ae *app.APIError
	require.ErrorAs(t, err, &ae)
	require.Equal(t, http.StatusForbidden, ae.Status, "the page says why it cannot rank")
}

func TestAClientsPageHasItsTrendAndSignals(t *testing.T) {
	t.Parallel()
	w, sess := signedIn(t)
	id := w.fake.AddClient(apitest.Client{Email: "c@example.com", BusinessName: "Client Co"})
	w.fake.AddHistory(id, apitest.Point{At: w.now.Add(-24 * time.Hour), Score: 25, Tier: "critical"})

	d, err := w.app.Clients.Client(w.ctx, sess.Token, id)
	require.NoError(t, err)
	require.Equal(t, "Client Co", d.Client.BusinessName)
	require.Equal(t, 25, d.Signals["loginRecency"])
	require.Equal(t, "Health score over the last 30 days: steady at 25.", d.Trend.Summary)

	_, err = w.app.Clients.Client(w.ctx, sess.Token, "acc_someone_elses")
	require.ErrorIs(t, err, app.ErrNotFound)

	w.fake.Refuse("GET /api/health-score/history", rateLimited)
	d, err = w.app.Clients.Client(w.ctx, sess.Token, id)
	require.Error(t, err)
	require.Equal(t, "Client Co", d.Client.BusinessName, "the client is still shown")
}

func TestWebhooksSplitRESTHooksFromPaymentForwarding(t *testing.T) {
	t.Parallel()
	w, sess := signedIn(t)
	w.fake.AddSubscription("https://crm.example/hook", "new_lead")
	w.fake.AddSubscription("https://books.example/pay", "invoice.paid")
	w.fake.AddSubscription("https://books.example/pay", "invoice.payment_failed")

	wh, err := w.app.Webhooks.Load(w.ctx, sess.Token)
	require.NoError(t, err)
	require.Len(t, wh.Hooks, 1)
	require.Equal(t, "new_lead", wh.Hooks[0].Event)
	require.Len(t, wh.Payments, 2)
	require.Equal(t, "https://books.example/pay", wh.PaymentURL)
}

func TestOptingInPaymentsMakesTheFormsChoiceTheAccounts(t *testing.T) {
	t.Parallel()
	w, sess := signedIn(t)
	w.fake.AddSubscription("https://crm.example/hook", "new_lead")
	w.fake.AddSubscription("https://old.example/pay", "invoice.paid")
	w.fake.AddSubscription("https://new.example/pay", "customer.subscription.deleted")

	err := w.app.Webhooks.OptInPayments(w.ctx, sess.Token, "https://new.example/pay",
		[]string{"invoice.paid", "checkout.session.completed", "new_lead"})
	require.NoError(t, err)
	got := w.fake.Subscriptions()
	slices.Sort(got)
	require.Equal(t, []string{
		"checkout.session.completed https://new.example/pay",
		"invoice.paid https://new.example/pay",
		"new_lead https://crm.example/hook",
	}, got, "chosen events move to the new URL, others stop; a REST hook is not touched nor made by the form")

	require.NoError(t, w.app.Webhooks.OptInPayments(w.ctx, sess.Token, "https://new.example/pay", nil))
	require.Equal(t, []string{"new_lead https://crm.example/hook"}, w.fake.Subscriptions(), "choosing none turns forwarding off")

	w.fake.Refuse("POST /api/ext-webhook/subscribe", apperr.InvalidField("hookUrl", "must be an absolute https URL"))
	err = w.app.Webhooks.OptInPayments(w.ctx, sess.Token, "http://x", []string{"invoice.paid"})
	var ae *app.APIError
	require.ErrorAs(t, err, &ae)
	require.Equal(t, "hookUrl", ae.Field)
}

func TestASubscriptionsDeliveries(t *testing.T) {
	t.Parallel()
	w, sess := signedIn(t)
	id := w.fake.AddSubscription("https://crm.example/hook", "new_lead")
	w.fake.AddAttempt(id, apitest.Attempt{DeliveryID: "msg_1", Event: "new_lead", At: w.now, Error: "timeout", LatencyMs: 10000})

	d, err := w.app.Webhooks.Deliveries(w.ctx, sess.Token, id)
	require.NoError(t, err)
	require.Equal(t, id, d.Sub.ID)
	require.Len(t, d.Attempts, 1)
	require.NoError(t, w.app.Webhooks.Replay(w.ctx, sess.Token, "msg_1"))

	_, err = w.app.Webhooks.Deliveries(w.ctx, sess.Token, "hook_unknown")
	require.ErrorIs(t, err, app.ErrNotFound)
}

// withLeads is the owner's session over a sheet of n leads named Lead 0 (oldest) to Lead n-1
// (newest).
func withLeads(t *testing.T, n int) (*world, session.Session) {
	t.Helper()
	w, sess := signedIn(t)
	ls := make([]apitest.Lead, n)
	for i := range ls {
		ls[i] = apitest.Lead{Name: fmt.Sprintf("Lead %d", i), Email: fmt.Sprintf("l%d@example.com", i), BusinessName: "Biz"}
	}
	w.fake.AddLeads(ls...)
	return w, sess
}

// sheetPage is the page of the sheet that q and cursor ask for.
func (w *world) sheetPage(t *testing.T, sess session.Session, q sheet.Query, cursor string) app.Sheet {
	t.Helper()
	s, err := w.app.Leads.Sheet(w.ctx, sess.Token, q, cursor)
	require.NoError(t, err)
	return s
}

func TestBrowsingTheSheetIsOneAPIPageByCursor(t *testing.T) {
	t.Parallel()
	w, sess := withLeads(t, 30)

	s := w.sheetPage(t, sess, sheet.NewQuery("", "", 1), "")
	require.Len(t, s.Leads, sheet.PageSize)
	require.Equal(t, "Lead 29", s.Leads[0].Name)
	require.NotEmpty(t, s.NextCursor)
	require.Zero(t, s.Scanned, "nothing is scanned")

	s = w.sheetPage(t, sess, sheet.NewQuery("", "newest", 1), s.NextCursor)
	require.Len(t, s.Leads, 5)
	require.Empty(t, s.NextCursor)
	require.Len(t, w.fake.Calls("GET /api/leads"), 2)
}

func TestASearchReadsTheNewestLeadsAndPagesThemHere(t *testing.T) {
	t.Parallel()
	w, sess := withLeads(t, 320)

	s := w.sheetPage(t, sess, sheet.NewQuery("lead 1", "oldest", 2), "ignored")
	require.Equal(t, sheet.ScanLimit, s.Scanned, "only the newest leads are searched")
	// Lead 20 to Lead 319 are scanned, of which Lead 100 to Lead 199 match.
	require.Equal(t, 100, s.Matched)
	require.Equal(t, "Lead 125", s.Leads[0].Name, "oldest first, second page")
	require.Equal(t, 3, s.Next)
	require.Equal(t, 1, s.Prev)
	calls := w.fake.Calls("GET /api/leads")
	require.Len(t, calls, 3, "three pages of a hundred")
	require.Equal(t, "limit=100", calls[0].Query, "a search starts at the newest lead, whatever the cursor")
}

func TestASearchOfASmallSheetReadsItOnce(t *testing.T) {
	t.Parallel()
	w, sess := withLeads(t, 3)
	s := w.sheetPage(t, sess, sheet.NewQuery("", "name", 1), "")
	require.Equal(t, 3, s.Scanned)
	require.Equal(t, []string{"Lead 0", "Lead 1", "Lead 2"}, []string{s.Leads[0].Name, s.Leads[1].Name, s.Leads[2].Name})
	require.Len(t, w.fake.Calls("GET /api/leads"), 1)

	w.fake.RevokeTokens()
	_, err := w.app.Leads.Sheet(w.ctx, sess.Token, sheet.NewQuery("x", "", 1), "")
	require.True(t, app.Unauthenticated(err))
}

func TestAChatTurnIsKeptInTheSession(t *testing.T) {
	t.Parallel()
	w := setup(t)
	secret, sess := w.signIn(t)
	require.NoError(t, w.app.Chat.Handle(w.ctx, secret, &sess, "hello"))
	require.NoError(t, w.app.Chat.Handle(w.ctx, secret, &sess, "and again"))
	kept, err := w.app.Accounts.Resume(w.ctx, secret)
	require.NoError(t, err)
	require.Equal(t, []session.Turn{{Message: "hello", Reply: "You said: hello"}, {Message: "and again", Reply: "You said: and again"}}, kept.Chat)
	calls := w.fake.Calls("POST /api/chat")
	require.Contains(t, calls[1].Body, kept.ChatSession, "the conversation continues")

	w.fake.Refuse("POST /api/chat", apperr.QuotaExceeded("chat_limit_reached", "used up").With("upgradeUrl", apitest.UpgradeURL))
	require.Error(t, w.app.Chat.Handle(w.ctx, secret, &sess, "one more"))
	kept, err = w.app.Accounts.Resume(w.ctx, secret)
	require.NoError(t, err)
	require.Len(t, kept.Chat, 2, "a refused turn is not kept")
}
