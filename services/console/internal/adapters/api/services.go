package api

import (
	"context"
	"io"
	"net/http"
	"net/url"
	"strconv"
	"time"

	"github.com/bizassist/bizassist/services/console/internal/app"
	"github.com/bizassist/bizassist/services/console/internal/domain/dashboard"
	"github.com/bizassist/bizassist/services/console/internal/domain/sheet"
)

type identity struct{ c client }

type authAnswer struct {
	Token     string    `json:"token"`
	Email     string    `json:"email"`
	Plan      string    `json:"plan"`
	ExpiresAt time.Time `json:"expiresAt"`
}

func (a authAnswer) auth() app.Auth {
	return app.Auth{Token: a.Token, Email: a.Email, Plan: a.Plan, ExpiresAt: a.ExpiresAt}
}

func (i identity) SignIn(ctx context.Context, email, password string) (app.Auth, error) {
	var out authAnswer
	err := i.c.do(ctx, http.MethodPost, "/api/auth", "", nil, map[string]string{"email": email, "password": password}, &out)
	return out.auth(), err
}

func (i identity) SignUp(ctx context.Context, email, password, businessName string) (app.Auth, error) {
	var out authAnswer
	err := i.c.do(ctx, http.MethodPost, "/api/accounts", "", nil,
		map[string]string{"email": email, "password": password, "businessName": businessName}, &out)
	return out.auth(), err
}

func (i identity) Verify(ctx context.Context, token string) (app.Auth, error) {
	var out authAnswer
	err := i.c.do(ctx, http.MethodPost, "/api/auth", token, nil, map[string]string{"action": "verify"}, &out)
	out.Token = token
	return out.auth(), err
}

func (i identity) ChangePassword(ctx context.Context, token, current, next string) error {
	return i.c.do(ctx, http.MethodPost, "/api/auth/password", token, nil,
		map[string]string{"currentPassword": current, "newPassword": next}, nil)
}

func (i identity) AcceptInvitation(ctx context.Context, inviteToken, password string) (app.Auth, error) {
	var out authAnswer
	err := i.c.do(ctx, http.MethodPost, "/api/invitations/accept", "", nil,
		map[string]string{"token": inviteToken, "password": password}, &out)
	return out.auth(), err
}

type keyJSON struct {
	ID         string     `json:"id"`
	Name       string     `json:"name"`
	Prefix     string     `json:"prefix"`
	Key        string     `json:"key"`
	CreatedAt  time.Time  `json:"createdAt"`
	LastUsedAt *time.Time `json:"lastUsedAt"`
}

func (i identity) Keys(ctx context.Context, token string) ([]app.APIKey, error) {
	var out struct {
		Keys []keyJSON `json:"keys"`
	}
	if err := i.c.do(ctx, http.MethodGet, "/api/keys", token, nil, nil, &out); err != nil {
		return nil, err
	}
	keys := make([]app.APIKey, len(out.Keys))
	for n, k := range out.Keys {
		keys[n] = app.APIKey{ID: k.ID, Name: k.Name, Prefix: k.Prefix, CreatedAt: k.CreatedAt, LastUsedAt: k.LastUsedAt}
	}
	return keys, nil
}

func (i identity) CreateKey(ctx context.Context, token, name string) (app.NewAPIKey, error) {
	var out keyJSON
	err := i.c.do(ctx, http.MethodPost, "/api/keys", token, nil, map[string]string{"name": name}, &out)
	return app.NewAPIKey{ID: out.ID, Name: out.Name, Key: out.Key}, err
}

func (i identity) DeleteKey(ctx context.Context, token, id string) error {
	return i.c.do(ctx, http.MethodDelete, "/api/keys/"+url.PathEscape(id), token, nil, nil, nil)
}

func (i identity) Clients(ctx context.Context, token string) ([]app.ClientAccount, error) {
	var out struct {
		Clients []struct {
			ID           string     `json:"id"`
			Email        string     `json:"email"`
			BusinessName string     `json:"businessName"`
			Status       string     `json:"status"`
			LastLogin    *time.Time `json:"lastLogin"`
			HealthScore  *int       `json:"healthScore"`
			Tier         string     `json:"tier"`
		} `json:"clients"`
	}
	if err := i.c.do(ctx, http.MethodGet, "/api/clients", token, nil, nil, &out); err != nil {
		return nil, err
	}
	cs := make([]app.ClientAccount, len(out.Clients))
	for n, c := range out.Clients {
		cs[n] = app.ClientAccount{ID: c.ID, Email: c.Email, BusinessName: c.BusinessName, Status: c.Status,
			Tier: c.Tier, LastLogin: c.LastLogin, HealthScore: c.HealthScore}
	}
	return cs, nil
}

func (i identity) InviteClient(ctx context.Context, token string, in app.Invite) (app.Invitation, error) {
	body := map[string]string{"email": in.Email, "businessName": in.BusinessName}
	for k, v := range map[string]string{"ownerName": in.OwnerName, "phone": in.Phone, "plan": in.Plan} {
		if v != "" {
			body[k] = v
		}
	}
	var out struct {
		ID              string    `json:"id"`
		Plan            string    `json:"plan"`
		InviteToken     string    `json:"inviteToken"`
		InviteExpiresAt time.Time `json:"inviteExpiresAt"`
	}
	err := i.c.do(ctx, http.MethodPost, "/api/clients", token, nil, body, &out)
	return app.Invitation{ID: out.ID, Plan: out.Plan, InviteToken: out.InviteToken, ExpiresAt: out.InviteExpiresAt}, err
}

type analytics struct{ c client }

func (a analytics) Usage(ctx context.Context, token string) (app.Usage, error) {
	var out struct {
		NearLimit  bool   `json:"nearLimit"`
		UpgradeURL string `json:"upgradeUrl"`
		Features   map[string]struct {
			Used      int  `json:"used"`
			Limit     int  `json:"limit"`
			Pct       int  `json:"pct"`
			Unlimited bool `json:"unlimited"`
		} `json:"features"`
	}
	if err := a.c.do(ctx, http.MethodGet, "/api/pql-check", token, nil, nil, &out); err != nil {
		return app.Usage{}, err
	}
	u := app.Usage{NearLimit: out.NearLimit, UpgradeURL: out.UpgradeURL}
	for name, f := range out.Features {
		u.Meters = append(u.Meters, dashboard.Meter{Feature: name, Used: f.Used, Limit: f.Limit, Pct: f.Pct, Unlimited: f.Unlimited})
	}
	return u, nil
}

func (a analytics) Health(ctx context.Context, token string) (app.Health, error) {
	var out struct {
		Score     int            `json:"score"`
		Tier      string         `json:"tier"`
		Signals   map[string]int `json:"signals"`
		UpdatedAt time.Time      `json:"updatedAt"`
	}
	err := a.c.do(ctx, http.MethodGet, "/api/health-score", token, nil, nil, &out)
	return app.Health{Score: out.Score, Tier: out.Tier, Signals: out.Signals, UpdatedAt: out.UpdatedAt}, err
}

// historyAnswer is GET /api/health-score/history.
type historyAnswer struct {
	Points []struct {
		At      time.Time      `json:"at"`
		Score   int            `json:"score"`
		Tier    string         `json:"tier"`
		Signals map[string]int `json:"signals"`
	} `json:"points"`
}

func (a analytics) history(ctx context.Context, token string, q url.Values) (historyAnswer, error) {
	var out historyAnswer
	err := a.c.do(ctx, http.MethodGet, "/api/health-score/history", token, q, nil, &out)
	return out, err
}

func (a analytics) HealthHistory(ctx context.Context, token string, days int) ([]dashboard.ScorePoint, error) {
	out, err := a.history(ctx, token, url.Values{"days": {strconv.Itoa(days)}})
	if err != nil {
		return nil, err
	}
	ps := make([]dashboard.ScorePoint, len(out.Points))
	for n, p := range out.Points {
		ps[n] = dashboard.ScorePoint{At: p.At, Score: p.Score, Tier: p.Tier}
	}
	return ps, nil
}

func (a analytics) ClientHealth(ctx context.Context, token, clientID string, days int) ([]dashboard.ScorePoint, map[string]int, error) {
	out, err := a.history(ctx, token, url.Values{"days": {strconv.Itoa(days)}, "clientId": {clientID}})
	if err != nil {
		return nil, nil, err
	}
	ps := make([]dashboard.ScorePoint, len(out.Points))
	var signals map[string]int
	for n, p := range out.Points {
		ps[n] = dashboard.ScorePoint{At: p.At, Score: p.Score, Tier: p.Tier}
		signals = p.Signals
	}
	return ps, signals, nil
}

func (a analytics) AtRisk(ctx context.Context, token string) ([]app.AtRiskClient, error) {
	var out struct {
		Clients []struct {
			Email            string `json:"email"`
			BusinessName     string `json:"businessName"`
			ChurnProbability int    `json:"churnProbability"`
			HealthScore      int    `json:"healthScore"`
			Recommendation   string `json:"recommendation"`
		} `json:"clients"`
	}
	// Every client, not only those over the default threshold: the page ranks them all.
	q := url.Values{"threshold": {"0"}, "limit": {"100"}}
	if err := a.c.do(ctx, http.MethodGet, "/api/churn-predict", token, q, nil, &out); err != nil {
		return nil, err
	}
	cs := make([]app.AtRiskClient, len(out.Clients))
	for n, c := range out.Clients {
		cs[n] = app.AtRiskClient{Email: c.Email, BusinessName: c.BusinessName, ChurnProbability: c.ChurnProbability,
			HealthScore: c.HealthScore, Recommendation: c.Recommendation}
	}
	return cs, nil
}

type leads struct{ c client }

type leadJSON struct {
	ID           string    `json:"id"`
	Name         string    `json:"name"`
	Email        string    `json:"email"`
	Phone        string    `json:"phone"`
	BusinessName string    `json:"businessName"`
	OwnerName    string    `json:"ownerName"`
	Source       string    `json:"source"`
	Score        int       `json:"score"`
	CreatedAt    time.Time `json:"createdAt"`
}

func (l leadJSON) lead() sheet.Lead {
	name := l.Name
	if name == "" {
		name = l.OwnerName
	}
	return sheet.Lead{ID: l.ID, Name: name, Email: l.Email, Phone: l.Phone, BusinessName: l.BusinessName,
		Source: l.Source, Score: l.Score, CreatedAt: l.CreatedAt}
}

func (l leads) Sheet(ctx context.Context, token string, limit int, cursor string) (app.SheetPage, error) {
	q := url.Values{"limit": {strconv.Itoa(limit)}}
	if cursor != "" {
		q.Set("cursor", cursor)
	}
	var out struct {
		Leads      []leadJSON `json:"leads"`
		NextCursor *string    `json:"nextCursor"`
	}
	if err := l.c.do(ctx, http.MethodGet, "/api/leads", token, q, nil, &out); err != nil {
		return app.SheetPage{}, err
	}
	p := app.SheetPage{Leads: make([]sheet.Lead, len(out.Leads))}
	for n, ld := range out.Leads {
		p.Leads[n] = ld.lead()
	}
	if out.NextCursor != nil {
		p.NextCursor = *out.NextCursor
	}
	return p, nil
}

func (l leads) ExportCSV(ctx context.Context, token string) (io.ReadCloser, error) {
	resp, err := l.c.send(ctx, http.MethodGet, "/api/leads/export.csv", token, nil, nil)
	if err != nil {
		return nil, err
	}
	return resp.Body, nil
}

func (l leads) Find(ctx context.Context, token string, in app.Find) ([]sheet.Lead, error) {
	body := map[string]any{"industry": in.Industry, "limit": in.Limit}
	if in.Location != "" {
		body["location"] = in.Location
	}
	var out struct {
		Leads []leadJSON `json:"leads"`
	}
	if err := l.c.do(ctx, http.MethodPost, "/api/lead-finder", token, nil, body, &out); err != nil {
		return nil, err
	}
	ls := make([]sheet.Lead, len(out.Leads))
	for n, ld := range out.Leads {
		ls[n] = ld.lead()
	}
	return ls, nil
}

func (l leads) Qualify(ctx context.Context, token, email, businessName, phone string) (app.Qualification, error) {
	q := url.Values{"email": {email}}
	if businessName != "" {
		q.Set("businessName", businessName)
	}
	if phone != "" {
		q.Set("phone", phone)
	}
	var raw struct {
		Score     int      `json:"score"`
		Qualified bool     `json:"qualified"`
		Reasoning string   `json:"reasoning"`
		Signals   []string `json:"signals"`
	}
	if err := l.c.do(ctx, http.MethodGet, "/api/lead-qualify", token, q, nil, &raw); err != nil {
		return app.Qualification{}, err
	}
	return app.Qualification{Score: raw.Score, Qualified: raw.Qualified, Reasoning: raw.Reasoning, Signals: raw.Signals}, nil
}

type assistant struct{ c client }

func (a assistant) Chat(ctx context.Context, token, message, sessionID string) (app.Reply, error) {
	body := map[string]string{"message": message}
	if sessionID != "" {
		body["sessionId"] = sessionID
	}
	var out struct {
		Reply     string `json:"reply"`
		SessionID string `json:"sessionId"`
	}
	err := a.c.do(ctx, http.MethodPost, "/api/chat", token, nil, body, &out)
	return app.Reply{Reply: out.Reply, SessionID: out.SessionID}, err
}

type integrations struct{ c client }

type subscriptionJSON struct {
	ID        string    `json:"id"`
	HookURL   string    `json:"hookUrl"`
	Event     string    `json:"event"`
	Status    string    `json:"status"`
	CreatedAt time.Time `json:"createdAt"`
	Secret    string    `json:"secret"`
}

func (s subscriptionJSON) subscription() app.Subscription {
	return app.Subscription{ID: s.ID, HookURL: s.HookURL, Event: s.Event, Status: s.Status, CreatedAt: s.CreatedAt, Secret: s.Secret}
}

func (i integrations) Subscriptions(ctx context.Context, token string) ([]app.Subscription, error) {
	var out struct {
		Subscriptions []subscriptionJSON `json:"subscriptions"`
	}
	if err := i.c.do(ctx, http.MethodGet, "/api/ext-webhook/subscriptions", token, nil, nil, &out); err != nil {
		return nil, err
	}
	ss := make([]app.Subscription, len(out.Subscriptions))
	for n, s := range out.Subscriptions {
		ss[n] = s.subscription()
	}
	return ss, nil
}

func (i integrations) Subscribe(ctx context.Context, token, hookURL, event string) (app.Subscription, error) {
	var out subscriptionJSON
	err := i.c.do(ctx, http.MethodPost, "/api/ext-webhook/subscribe", token, nil,
		map[string]string{"hookUrl": hookURL, "event": event}, &out)
	return out.subscription(), err
}

func (i integrations) Unsubscribe(ctx context.Context, token, id string) error {
	return i.c.do(ctx, http.MethodDelete, "/api/ext-webhook/subscriptions/"+url.PathEscape(id), token, nil, nil, nil)
}

func (i integrations) Attempts(ctx context.Context, token, subscriptionID string) ([]app.Attempt, error) {
	var out struct {
		Attempts []struct {
			DeliveryID  string    `json:"deliveryId"`
			Event       string    `json:"event"`
			AttemptedAt time.Time `json:"attemptedAt"`
			StatusCode  *int      `json:"statusCode"`
			LatencyMs   int       `json:"latencyMs"`
			Error       string    `json:"error"`
		} `json:"attempts"`
	}
	path := "/api/ext-webhook/subscriptions/" + url.PathEscape(subscriptionID) + "/deliveries"
	if err := i.c.do(ctx, http.MethodGet, path, token, nil, nil, &out); err != nil {
		return nil, err
	}
	as := make([]app.Attempt, len(out.Attempts))
	for n, a := range out.Attempts {
		as[n] = app.Attempt{DeliveryID: a.DeliveryID, Event: a.Event, AttemptedAt: a.AttemptedAt,
			StatusCode: a.StatusCode, LatencyMs: a.LatencyMs, Error: a.Error}
	}
	return as, nil
}

func (i integrations) Replay(ctx context.Context, token, deliveryID string) error {
	return i.c.do(ctx, http.MethodPost, "/api/ext-webhook/deliveries/"+url.PathEscape(deliveryID)+"/replay", token, nil, nil, nil)
}

func (i integrations) RotateSecret(ctx context.Context, token string) (string, error) {
	var out struct {
		Secret string `json:"secret"`
	}
	err := i.c.do(ctx, http.MethodPost, "/api/ext-webhook/secret/rotate", token, nil, nil, &out)
	return out.Secret, err
}
