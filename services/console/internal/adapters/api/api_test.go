package api_test

import (
	"context"
	"errors"
	"io"
	"net/http"
	"net/http/httptest"
	"net/netip"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/bizassist/bizassist/libs/apperr"
	"github.com/bizassist/bizassist/services/console/internal/adapters/api"
	"github.com/bizassist/bizassist/services/console/internal/adapters/api/apitest"
	"github.com/bizassist/bizassist/services/console/internal/app"
	"github.com/bizassist/bizassist/services/console/internal/domain/dashboard"
)

// start returns the adapter against a fake API and a token of the owner.
func start(t *testing.T) (app.API, *apitest.API, string) {
	t.Helper()
	fake := apitest.New(t)
	return api.New(fake.Config()), fake, fake.Token(apitest.Email)
}

// refusal returns err as the API refusal it must be.
func refusal(t *testing.T, err error) *app.APIError {
	t.Helper()
	var ae *app.APIError
	require.True(t, errors.As(err, &ae), "want an *app.APIError, got %v", err)
	return ae
}

func TestEveryCallCarriesTheTokenAndTheBrowsersAddress(t *testing.T) {
	t.Parallel()
	calls, fake, tok := start(t)
	ctx := app.WithOrigin(context.Background(), netip.MustParseAddr("203.0.113.7"))

	_, err := calls.Identity.Keys(ctx, tok)
	require.NoError(t, err)
	_, err = calls.Leads.Sheet(ctx, tok, 5, "")
	require.NoError(t, err)
	_, err = calls.Analytics.Usage(context.Background(), tok) // no browser behind it
	require.NoError(t, err)

	for _, route := range []string{"GET /api/keys", "GET /api/leads"} {
		c := fake.Calls(route)
		require.Len(t, c, 1, route)
		require.Equal(t, "Bearer "+tok, c[0].Authorization, route)
		require.Equal(t, "203.0.113.7", c[0].ForwardedFor, route)
	}
	c := fake.Calls("GET /api/pql-check")
	require.Len(t, c, 1)
	require.Empty(t, c[0].ForwardedFor, "no address is made up")
}

func TestSignInVerifyAndSignUpGiveTheAccount(t *testing.T) {
	t.Parallel()
	calls, fake, _ := start(t)
	ctx := context.Background()

	auth, err := calls.Identity.SignIn(ctx, apitest.Email, apitest.Password)
	require.NoError(t, err)
	require.NotEmpty(t, auth.Token)
	require.Equal(t, apitest.Email, auth.Email)
	require.Equal(t, "growth", auth.Plan)
	require.Empty(t, fake.Calls("POST /api/auth")[0].Authorization, "sign-in sends no token")

	v, err := calls.Identity.Verify(ctx, auth.Token)
	require.NoError(t, err)
	require.Equal(t, auth.Token, v.Token)
	require.Equal(t, "growth", v.Plan)
	require.WithinDuration(t, time.Now().Add(24*time.Hour), v.ExpiresAt, time.Minute)

	_, err = calls.Identity.SignIn(ctx, apitest.Email, "wrong password")
	ae := refusal(t, err)
	require.Equal(t, http.StatusUnauthorized, ae.Status)
	require.Equal(t, "invalid_credentials", ae.Code)
	require.True(t, app.Unauthenticated(err))

	up, err := calls.Identity.SignUp(ctx, "new@example.com", "a long passphrase", "New Co")
	require.NoError(t, err)
	require.Equal(t, "free", up.Plan)
	_, err = calls.Identity.SignUp(ctx, "new@example.com", "a long passphrase", "New Co")
	require.Equal(t, "email_taken", refusal(t, err).Code)
}

func TestRefusalsKeepWhatTheEnvelopeSays(t *testing.T) {
	t.Parallel()
	createKey := func(c app.API, tok string) error {
		_, err := c.Identity.CreateKey(context.Background(), tok, "CRM")
		return err
	}
	find := func(c app.API, tok string) error {
		_, err := c.Leads.Find(context.Background(), tok, app.Find{Industry: "plumbing", Limit: 5})
		return err
	}
	atRisk := func(c app.API, tok string) error { _, err := c.Analytics.AtRisk(context.Background(), tok); return err }
	for name, tc := range map[string]struct {
		route string
		call  func(app.API, string) error
		err   error
		want  app.APIError
	}{
		"a field": {"POST /api/keys", createKey, apperr.InvalidField("name", "must be at most 100 characters"),
			app.APIError{Status: 400, Code: "invalid_field", Field: "name", Message: "name: must be at most 100 characters"}},
		"a spent allowance": {"POST /api/lead-finder", find,
			apperr.QuotaExceeded("lead_finder_limit_reached", "the month's searches are used up").
				With("upgradeUrl", apitest.UpgradeURL).With("remaining", 0).With("limit", 20),
			app.APIError{Status: 402, Code: "lead_finder_limit_reached", Message: "the month's searches are used up", UpgradeURL: apitest.UpgradeURL}},
		"a plan gate": {"GET /api/churn-predict", atRisk, apperr.Forbidden("plan_upgrade_required", "upgrade").With("upgradeUrl", apitest.UpgradeURL),
			app.APIError{Status: 403, Code: "plan_upgrade_required", Message: "upgrade", UpgradeURL: apitest.UpgradeURL}},
		"a rate limit": {"POST /api/keys", createKey, apperr.New(apperr.KindRateLimited, "rate_limited", "too many requests").With("retryAfter", 17),
			app.APIError{Status: 429, Code: "rate_limited", Message: "too many requests", RetryAfter: 17}},
		"a dependency down": {"POST /api/lead-finder", find, apperr.Unavailable("allowance_unavailable", "the allowance could not be checked"),
			app.APIError{Status: 503, Code: "allowance_unavailable", Message: "the allowance could not be checked"}},
	} {
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			calls, fake, tok := start(t)
			fake.Refuse(tc.route, tc.err)
			require.Equal(t, tc.want, *refusal(t, tc.call(calls, tok)))
		})
	}
}

func TestAnAnswerOutsideTheEnvelopeStillCarriesItsStatus(t *testing.T) {
	t.Parallel()
	calls, fake, tok := start(t)
	fake.RefuseRaw("GET /api/keys", http.StatusBadGateway, "text/html", "<html>bad gateway</html>")
	_, err := calls.Identity.Keys(context.Background(), tok)
	ae := refusal(t, err)
	require.Equal(t, http.StatusBadGateway, ae.Status)
	require.Equal(t, "Bad Gateway", ae.Message)
	require.False(t, app.Unauthenticated(err))
}

func TestARedirectIsNotFollowedWithTheToken(t *testing.T) {
	t.Parallel()
	elsewhere := make(chan string, 1)
	other := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		elsewhere <- r.Header.Get("Authorization")
	}))
	t.Cleanup(other.Close)
	redirector := httptest.NewServer(http.RedirectHandler(other.URL+"/steal", http.StatusFound))
	t.Cleanup(redirector.Close)
	fake := apitest.New(t)
	cfg := fake.Config()
	cfg.IdentityURL = redirector.URL

	_, err := api.New(cfg).Identity.Keys(context.Background(), "tok-secret")
	require.Equal(t, http.StatusFound, refusal(t, err).Status)
	select {
	case auth := <-elsewhere:
		t.Fatalf("the redirect was followed, with %q", auth)
	default:
	}
}

func TestTheSheetPagesByCursorNewestFirst(t *testing.T) {
	t.Parallel()
	calls, fake, tok := start(t)
	ctx := context.Background()
	var added []string
	for _, n := range []string{"Ann", "Bob", "Cy", "Di", "Ed"} {
		added = append(added, fake.AddLeads(apitest.Lead{Name: n, Email: strings.ToLower(n) + "@example.com", Source: "import"})[0].ID)
	}

	var names []string
	cursor := ""
	for range 3 {
		page, err := calls.Leads.Sheet(ctx, tok, 2, cursor)
		require.NoError(t, err)
		for _, l := range page.Leads {
			names = append(names, l.Name)
		}
		if cursor = page.NextCursor; cursor == "" {
			break
		}
	}
	require.Equal(t, []string{"Ed", "Di", "Cy", "Bob", "Ann"}, names)
	require.Empty(t, cursor, "the last page has no cursor")
	page, err := calls.Leads.Sheet(ctx, tok, 1, "")
	require.NoError(t, err)
	require.Equal(t, added[4], page.Leads[0].ID)
	require.Equal(t, "import", page.Leads[0].Source)
	require.False(t, page.Leads[0].CreatedAt.IsZero())
	require.Equal(t, "limit=1", fake.Calls("GET /api/leads")[3].Query)
}

func TestTheCSVIsStreamedAndARefusalIsTheEnvelope(t *testing.T) {
	t.Parallel()
	calls, fake, tok := start(t)
	fake.AddLeads(apitest.Lead{Name: "Ann", Email: "ann@example.com"})
	body, err := calls.Leads.ExportCSV(context.Background(), tok)
	require.NoError(t, err)
	csv, err := io.ReadAll(body)
	require.NoError(t, err)
	require.NoError(t, body.Close())
	require.True(t, strings.HasPrefix(string(csv), "id,name,email,"), string(csv))
	require.Contains(t, string(csv), "ann@example.com")

	fake.RevokeTokens()
	_, err = calls.Leads.ExportCSV(context.Background(), tok)
	require.True(t, app.Unauthenticated(err), "%v", err)
}

func TestTheFinderAndQualifyAnswerInAppTerms(t *testing.T) {
	t.Parallel()
	calls, fake, tok := start(t)
	ctx := context.Background()
	found, err := calls.Leads.Find(ctx, tok, app.Find{Industry: "plumbing", Limit: 2})
	require.NoError(t, err)
	require.Len(t, found, 2)
	require.Equal(t, "Owner 1", found[0].Name, "a found lead is named by its owner")
	require.Equal(t, "Plumbing Anywhere 1", found[0].BusinessName)
	require.Equal(t, 80, found[0].Score)
	require.JSONEq(t, `{"industry":"plumbing","limit":2}`, fake.Calls("POST /api/lead-finder")[0].Body, "no empty location is sent")

	_, err = calls.Leads.Find(ctx, tok, app.Find{Industry: "plumbing", Location: "Austin, TX", Limit: 0})
	require.Equal(t, "limit", refusal(t, err).Field)

	q, err := calls.Leads.Qualify(ctx, tok, "jo@acme.example", "", "+15125550100")
	require.NoError(t, err)
	require.Equal(t, app.Qualification{Score: 72, Qualified: true, Reasoning: "A business address with a working phone.",
		Signals: []string{"valid_email_syntax", "business_email"}}, q)
	require.Equal(t, "email=jo%40acme.example&phone=%2B15125550100", fake.Calls("GET /api/lead-qualify")[0].Query)
}

func TestUsageHealthAndHistoryAnswerInAppTerms(t *testing.T) {
	t.Parallel()
	calls, fake, tok := start(t)
	ctx := context.Background()
	fake.SetUsage("chat", 85, 100, 85, true)

	u, err := calls.Analytics.Usage(ctx, tok)
	require.NoError(t, err)
	require.True(t, u.NearLimit)
	require.Equal(t, apitest.UpgradeURL, u.UpgradeURL)
	dashboard.SortMeters(u.Meters)
	require.Equal(t, []dashboard.Meter{
		{Feature: "chat", Used: 85, Limit: 100, Pct: 85},
		{Feature: "lead_finder", Used: 3, Limit: 20, Pct: 15},
		{Feature: "lead_scoring", Unlimited: true},
	}, u.Meters)

	h, err := calls.Analytics.Health(ctx, tok)
	require.NoError(t, err)
	require.Equal(t, 72, h.Score)
	require.Equal(t, "healthy", h.Tier)
	require.Len(t, h.Signals, 10)

	day := time.Date(2026, 11, 20, 9, 0, 0, 0, time.UTC)
	fake.AddHistory("", apitest.Point{At: day, Score: 40, Tier: "at_risk"}, apitest.Point{At: day.Add(48 * time.Hour), Score: 75, Tier: "healthy"})
	ps, err := calls.Analytics.HealthHistory(ctx, tok, 30)
	require.NoError(t, err)
	require.Equal(t, []dashboard.ScorePoint{{At: day, Score: 40, Tier: "at_risk"}, {At: day.Add(48 * time.Hour), Score: 75, Tier: "healthy"}}, ps)
	require.Equal(t, "days=30", fake.Calls("GET /api/health-score/history")[0].Query)

	id := fake.AddClient(apitest.Client{Email: "c@example.com", BusinessName: "C"})
	fake.AddHistory(id, apitest.Point{At: day, Score: 20, Tier: "critical"})
	ps, signals, err := calls.Analytics.ClientHealth(ctx, tok, id, 30)
	require.NoError(t, err)
	require.Len(t, ps, 1)
	require.Equal(t, 20, signals["tenure"], "the latest point's signals")
	_, _, err = calls.Analytics.ClientHealth(ctx, tok, "acc_unknown", 30)
	require.Equal(t, http.StatusNotFound, refusal(t, err).Status)
}

func TestChurnPredictionAsksForEveryClient(t *testing.T) {
	t.Parallel()
	calls, fake, tok := start(t)
	fake.AddClient(apitest.Client{Email: "low@example.com", BusinessName: "Low", AtRisk: true, ChurnProbability: 5, AtRiskScore: 90, Recommendation: "keep going"})
	fake.AddClient(apitest.Client{Email: "high@example.com", BusinessName: "High", AtRisk: true, ChurnProbability: 80, AtRiskScore: 20, Recommendation: "call them"})
	cs, err := calls.Analytics.AtRisk(context.Background(), tok)
	require.NoError(t, err)
	require.Equal(t, []app.AtRiskClient{
		{Email: "high@example.com", BusinessName: "High", Recommendation: "call them", ChurnProbability: 80, HealthScore: 20},
		{Email: "low@example.com", BusinessName: "Low", Recommendation: "keep going", ChurnProbability: 5, HealthScore: 90},
	}, cs, "below the default threshold too")
	require.Equal(t, "limit=100&threshold=0", fake.Calls("GET /api/churn-predict")[0].Query)
}

func TestKeysClientsAndInvitationsRoundTrip(t *testing.T) {
	t.Parallel()
	calls, fake, tok := start(t)
	ctx := context.Background()

	k, err := calls.Identity.CreateKey(ctx, tok, "CRM")
	require.NoError(t, err)
	require.Regexp(t, `^bza_[0-9A-Za-z]{36}$`, k.Key)
	keys, err := calls.Identity.Keys(ctx, tok)
	require.NoError(t, err)
	require.Len(t, keys, 1)
	require.Equal(t, app.APIKey{ID: k.ID, Name: "CRM", Prefix: k.Key[:8], CreatedAt: keys[0].CreatedAt}, keys[0])
	require.Nil(t, keys[0].LastUsedAt)
	require.NoError(t, calls.Identity.DeleteKey(ctx, tok, k.ID))
	require.Equal(t, http.StatusNotFound, refusal(t, calls.Identity.DeleteKey(ctx, tok, k.ID)).Status)
	require.Equal(t, "/api/keys/"+k.ID, fake.Calls("DELETE /api/keys/{id}")[0].Path)

	inv, err := calls.Identity.InviteClient(ctx, tok, app.Invite{Email: "client@example.com", BusinessName: "Client Co"})
	require.NoError(t, err)
	require.NotEmpty(t, inv.InviteToken)
	require.JSONEq(t, `{"email":"client@example.com","businessName":"Client Co"}`, fake.Calls("POST /api/clients")[0].Body,
		"optional fields left empty are not sent")
	cs, err := calls.Identity.Clients(ctx, tok)
	require.NoError(t, err)
	require.Equal(t, []app.ClientAccount{{ID: inv.ID, Email: "client@example.com", BusinessName: "Client Co", Status: "invited"}}, cs)

	auth, err := calls.Identity.AcceptInvitation(ctx, inv.InviteToken, "the client's passphrase")
	require.NoError(t, err)
	require.Equal(t, "client@example.com", auth.Email)
	_, err = calls.Identity.AcceptInvitation(ctx, inv.InviteToken, "the client's passphrase")
	require.Equal(t, "invitation_invalid", refusal(t, err).Code, "an invitation is used once")
}

func TestAPasswordChangeRevokesTheTokens(t *testing.T) {
	t.Parallel()
	calls, _, tok := start(t)
	ctx := context.Background()
	ae := refusal(t, calls.Identity.ChangePassword(ctx, tok, "not it", "a new passphrase"))
	require.Equal(t, app.APIError{Status: 403, Code: "current_password_incorrect", Field: "currentPassword",
		Message: "the current password is incorrect"}, *ae)
	require.NoError(t, calls.Identity.ChangePassword(ctx, tok, apitest.Password, "a new passphrase"))
	_, err := calls.Identity.Verify(ctx, tok)
	require.True(t, app.Unauthenticated(err))
}

func TestSubscriptionsDeliveriesAndTheSecret(t *testing.T) {
	t.Parallel()
	calls, fake, tok := start(t)
	ctx := context.Background()

	sub, err := calls.Integrations.Subscribe(ctx, tok, "https://example.com/hook", "new_lead")
	require.NoError(t, err)
	require.True(t, strings.HasPrefix(sub.Secret, "whsec_"), "the secret is shown on creation")
	again, err := calls.Integrations.Subscribe(ctx, tok, "https://example.com/hook", "new_lead")
	require.NoError(t, err)
	require.Equal(t, sub.ID, again.ID)
	require.Empty(t, again.Secret, "and only then")
	_, err = calls.Integrations.Subscribe(ctx, tok, "http://example.com/hook", "new_lead")
	require.Equal(t, "hookUrl", refusal(t, err).Field)

	subs, err := calls.Integrations.Subscriptions(ctx, tok)
	require.NoError(t, err)
	require.Len(t, subs, 1)
	require.Equal(t, "active", subs[0].Status)

	ok := 204
	fake.AddAttempt(sub.ID, apitest.Attempt{DeliveryID: "msg_1", Event: "new_lead", At: time.Now(), Error: "timeout", LatencyMs: 5000})
	fake.AddAttempt(sub.ID, apitest.Attempt{DeliveryID: "msg_2", Event: "new_lead", At: time.Now(), StatusCode: &ok, LatencyMs: 12})
	as, err := calls.Integrations.Attempts(ctx, tok, sub.ID)
	require.NoError(t, err)
	require.Len(t, as, 2)
	require.Equal(t, 204, *as[0].StatusCode)
	require.Empty(t, as[0].Error)
	require.Nil(t, as[1].StatusCode)
	require.Equal(t, "timeout", as[1].Error)
	require.NoError(t, calls.Integrations.Replay(ctx, tok, "msg_1"))
	require.Equal(t, http.StatusNotFound, refusal(t, calls.Integrations.Replay(ctx, tok, "msg_unknown")).Status)

	secret, err := calls.Integrations.RotateSecret(ctx, tok)
	require.NoError(t, err)
	require.NotEmpty(t, secret)

	require.NoError(t, calls.Integrations.Unsubscribe(ctx, tok, sub.ID))
	require.Empty(t, fake.Subscriptions())
}

func TestChatContinuesTheSession(t *testing.T) {
	t.Parallel()
	calls, fake, tok := start(t)
	r, err := calls.Assistant.Chat(context.Background(), tok, "hello", "")
	require.NoError(t, err)
	require.Equal(t, "You said: hello", r.Reply)
	require.NotEmpty(t, r.SessionID)
	_, err = calls.Assistant.Chat(context.Background(), tok, "and again", r.SessionID)
	require.NoError(t, err)
	c := fake.Calls("POST /api/chat")
	require.JSONEq(t, `{"message":"hello"}`, c[0].Body, "no empty session id is sent")
	require.JSONEq(t, `{"message":"and again","sessionId":"`+r.SessionID+`"}`, c[1].Body)
}

func TestConfigNeedsAbsoluteURLsAndATimeout(t *testing.T) {
	t.Parallel()
	good := api.Config{IdentityURL: "http://identity:8080", LeadsURL: "http://leads:8080", AssistantURL: "https://assistant",
		AnalyticsURL: "http://analytics:8080", IntegrationsURL: "http://integrations:8080", Timeout: time.Second}
	require.NoError(t, good.Validate())
	for name, mutate := range map[string]func(*api.Config){
		"relative":    func(c *api.Config) { c.LeadsURL = "/leads" },
		"no scheme":   func(c *api.Config) { c.IdentityURL = "identity:8080" },
		"ftp":         func(c *api.Config) { c.AnalyticsURL = "ftp://analytics" },
		"empty":       func(c *api.Config) { c.IntegrationsURL = "" },
		"no timeout":  func(c *api.Config) { c.Timeout = 0 },
		"no host":     func(c *api.Config) { c.AssistantURL = "http://" },
		"unparseable": func(c *api.Config) { c.IdentityURL = "http://[::1" },
	} {
		c := good
		mutate(&c)
		require.Error(t, c.Validate(), name)
	}
}
