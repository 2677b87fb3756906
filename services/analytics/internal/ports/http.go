// Package ports is analytics' inbound side: the HTTP routes and the event handlers. ("Ports"
// here means inbound transport; the interfaces for outbound calls live in app.)
package ports

import (
	"cmp"
	"encoding/json"
	"net/http"

	"github.com/gorilla/mux"

	"github.com/bizassist/bizassist/libs/apperr"
	"github.com/bizassist/bizassist/libs/authjwt"
	"github.com/bizassist/bizassist/libs/httpx"
	"github.com/bizassist/bizassist/libs/idempotency"
	"github.com/bizassist/bizassist/libs/isotime"
	"github.com/bizassist/bizassist/libs/platform"
	"github.com/bizassist/bizassist/libs/ratelimit"
	"github.com/bizassist/bizassist/services/analytics/internal/app"
	"github.com/bizassist/bizassist/services/analytics/internal/domain/health"
	"github.com/bizassist/bizassist/services/analytics/internal/domain/usage"
)

// maxLogUsageBody leaves room for a 2 KB meta written with generous whitespace; the meta limit
// itself is checked on its compact encoding.
const maxLogUsageBody = 16 << 10

// maxReservationBody is far more than a reserve or release request needs.
const maxReservationBody = 1 << 10

// HTTP serves analytics' routes.
type HTTP struct {
	App app.Application
}

// Routes registers the public routes under /api behind the per-IP API rate limit and
// authentication, and the service-to-service routes under /internal behind authentication alone:
// leads and the assistant call those with the acting user's token, and charging the user's IP
// bucket for them would let the user's own public calls turn a feature's allowance check into a
// failure. The ingress routes /api paths only.
func (h *HTTP) Routes(r *mux.Router, mw platform.Middleware) {
	api := r.PathPrefix("/api").Subrouter()
	api.Use(mw.Limit(ratelimit.API), mw.Authenticated)
	api.Handle("/log-usage", authjwt.JSON(maxLogUsageBody, h.logUsage)).Methods(http.MethodPost)
	api.Handle("/health-score/history", authjwt.Handler(h.healthHistory)).Methods(http.MethodGet)
	internal := r.PathPrefix("/internal").Subrouter()
	internal.Use(mw.Authenticated)
	internal.Handle("/usage/reserve", authjwt.JSON(maxReservationBody, h.reserveUsage)).Methods(http.MethodPost)
	internal.Handle("/usage/release", authjwt.JSON(maxReservationBody, h.releaseUsage)).Methods(http.MethodPost)
	for _, sub := range []*mux.Router{api, internal} {
		sub.Handle("/pql-check", authjwt.Handler(h.pqlCheck)).Methods(http.MethodGet)
		sub.Handle("/health-score", authjwt.Handler(h.healthScore)).Methods(http.MethodGet)
		sub.Handle("/churn-predict", authjwt.Handler(h.churnPredict)).Methods(http.MethodGet)
	}
}

// callerOf is the caller as analytics' use cases know it.
func callerOf(c authjwt.Caller) app.Caller {
	return app.Caller{AccountID: c.AccountID, Email: c.Email, Plan: c.Plan}
}

type logUsageRequest struct {
	Feature string          `json:"feature"`
	Action  *string         `json:"action"`
	Meta    json.RawMessage `json:"meta"`
}

type logUsageResponse struct {
	Logged    bool   `json:"logged"`
	EventID   string `json:"eventId"`
	Timestamp string `json:"timestamp"`
}

func (h *HTTP) logUsage(w http.ResponseWriter, r *http.Request, c authjwt.Caller, req logUsageRequest) error {
	action, err := httpx.Optional("action", req.Action)
	if err != nil {
		return err
	}
	logged, err := h.App.LogUsage.Handle(r.Context(), callerOf(c), app.LogUsageInput{
		Feature: req.Feature, Action: action, Meta: req.Meta, IdempotencyKey: r.Header.Get("Idempotency-Key"),
	})
	if err != nil {
		return err
	}
	if logged.Replayed {
		w.Header().Set(idempotency.ReplayedHeader, "true")
	}
	httpx.Respond(w, http.StatusOK, logUsageResponse{Logged: true, EventID: logged.EventID, Timestamp: isotime.Format(logged.At)})
	return nil
}

type allowanceJSON struct {
	Used      int  `json:"used"`
	Limit     *int `json:"limit"` // null when unlimited
	Pct       int  `json:"pct"`
	Unlimited bool `json:"unlimited"`
}

type pqlResponse struct {
	NearLimit    bool                     `json:"nearLimit"`
	UsagePercent int                      `json:"usagePercent"`
	Features     map[string]allowanceJSON `json:"features"`
	UpgradeURL   string                   `json:"upgradeUrl"`
}

func (h *HTTP) pqlCheck(w http.ResponseWriter, r *http.Request, c authjwt.Caller) error {
	q := r.URL.Query()
	feature := q.Get("feature")
	if q.Has("feature") && feature == "" {
		return apperr.InvalidField("feature", "must be one of chat, lead_scoring, lead_finder, or omitted")
	}
	s, err := h.App.CheckPQL.Handle(r.Context(), callerOf(c), app.CheckPQLInput{Feature: feature})
	if err != nil {
		return err
	}
	out := pqlResponse{NearLimit: s.NearLimit, UsagePercent: s.UsagePercent, UpgradeURL: s.UpgradeURL,
		Features: make(map[string]allowanceJSON, len(s.Features))}
	for f, a := range s.Features {
		out.Features[string(f)] = allowanceJSON{Used: a.Used, Limit: capOf(a, a.Limit), Pct: a.Pct, Unlimited: a.IsUnlimited()}
	}
	httpx.Respond(w, http.StatusOK, out)
	return nil
}

type reserveRequest struct {
	Feature string `json:"feature"`
	Count   *int   `json:"count"` // 1 when absent
	Action  string `json:"action"`
}

type reserveResponse struct {
	ReservationID string `json:"reservationId"`
	Feature       string `json:"feature"`
	Used          int    `json:"used"`
	Limit         *int   `json:"limit"`     // null when unlimited
	Remaining     *int   `json:"remaining"` // null when unlimited
	Unlimited     bool   `json:"unlimited"`
}

func (h *HTTP) reserveUsage(w http.ResponseWriter, r *http.Request, c authjwt.Caller, req reserveRequest) error {
	in := app.ReserveUsageInput{Feature: req.Feature, Count: 1, Action: req.Action}
	if req.Count != nil {
		in.Count = *req.Count
	}
	res, err := h.App.ReserveUsage.Handle(r.Context(), callerOf(c), in)
	if err != nil {
		return err
	}
	a := res.Allowance
	httpx.Respond(w, http.StatusOK, reserveResponse{ReservationID: res.ID, Feature: string(res.Feature),
		Used: a.Used, Limit: capOf(a, a.Limit), Remaining: capOf(a, a.Remaining()), Unlimited: a.IsUnlimited()})
	return nil
}

type releaseRequest struct {
	ReservationID string `json:"reservationId"`
}

type releaseResponse struct {
	Released bool `json:"released"`
}

func (h *HTTP) releaseUsage(w http.ResponseWriter, r *http.Request, c authjwt.Caller, req releaseRequest) error {
	released, err := h.App.ReleaseUsage.Handle(r.Context(), callerOf(c), req.ReservationID)
	if err != nil {
		return err
	}
	httpx.Respond(w, http.StatusOK, releaseResponse{Released: released})
	return nil
}

type healthResponse struct {
	Score     int            `json:"score"`
	Tier      health.Tier    `json:"tier"`
	Signals   map[string]int `json:"signals"`
	UpdatedAt string         `json:"updatedAt"`
}

func (h *HTTP) healthScore(w http.ResponseWriter, r *http.Request, c authjwt.Caller) error {
	s, err := h.App.HealthScore.Handle(r.Context(), callerOf(c))
	if err != nil {
		return err
	}
	signals := make(map[string]int, len(health.Signals))
	for _, sig := range health.Signals {
		signals[string(sig)] = s.Signals[sig]
	}
	httpx.Respond(w, http.StatusOK, healthResponse{Score: s.Value, Tier: s.Tier, Signals: signals, UpdatedAt: isotime.Format(s.ComputedAt)})
	return nil
}

type historyPoint struct {
	At      string         `json:"at"`
	Score   int            `json:"score"`
	Tier    health.Tier    `json:"tier"`
	Signals map[string]int `json:"signals"`
}

type historyResponse struct {
	AccountID string         `json:"accountId"`
	Days      int            `json:"days"`
	Points    []historyPoint `json:"points"`
}

// healthHistory is the score history behind a trend chart: the caller's, or with clientId one
// of its clients'.
func (h *HTTP) healthHistory(w http.ResponseWriter, r *http.Request, c authjwt.Caller) error {
	q := app.HistoryQuery{Caller: callerOf(c), ClientID: r.URL.Query().Get("clientId"), Days: 30}
	if err := httpx.QueryInt(r.URL.Query(), "days", &q.Days); err != nil {
		return err
	}
	points, err := h.App.History.Handle(r.Context(), q)
	if err != nil {
		return err
	}
	out := historyResponse{AccountID: cmp.Or(q.ClientID, c.AccountID), Days: q.Days, Points: make([]historyPoint, len(points))}
	for i, p := range points {
		signals := make(map[string]int, len(health.Signals))
		for _, sig := range health.Signals {
			signals[string(sig)] = p.Signals[sig]
		}
		out.Points[i] = historyPoint{At: isotime.Format(p.At), Score: p.Score, Tier: p.Tier, Signals: signals}
	}
	httpx.Respond(w, http.StatusOK, out)
	return nil
}

type churnClient struct {
	Email            string  `json:"email"`
	BusinessName     string  `json:"businessName"`
	ChurnProbability int     `json:"churnProbability"`
	HealthScore      int     `json:"healthScore"`
	LastLogin        *string `json:"lastLogin"` // null when the client never logged in
	Recommendation   string  `json:"recommendation"`
}

type churnResponse struct {
	AtRisk  int           `json:"atRisk"`
	Clients []churnClient `json:"clients"`
}

func (h *HTTP) churnPredict(w http.ResponseWriter, r *http.Request, c authjwt.Caller) error {
	q := r.URL.Query()
	in := app.PredictChurnInput{Threshold: app.DefaultChurnThreshold, Limit: app.DefaultChurnLimit}
	if err := httpx.QueryInt(q, "threshold", &in.Threshold); err != nil {
		return err
	}
	if err := httpx.QueryInt(q, "limit", &in.Limit); err != nil {
		return err
	}
	report, err := h.App.PredictChurn.Handle(r.Context(), callerOf(c), in)
	if err != nil {
		return err
	}
	out := churnResponse{AtRisk: report.AtRisk, Clients: make([]churnClient, 0, len(report.Clients))}
	for _, cl := range report.Clients {
		row := churnClient{Email: cl.Email, BusinessName: cl.BusinessName, ChurnProbability: cl.ChurnProbability,
			HealthScore: cl.HealthScore, Recommendation: cl.Recommendation}
		if !cl.LastLogin.IsZero() {
			s := isotime.Format(cl.LastLogin)
			row.LastLogin = &s
		}
		out.Clients = append(out.Clients, row)
	}
	httpx.Respond(w, http.StatusOK, out)
	return nil
}

// capOf is n of a limited allowance, or null for an unlimited one: "unlimited" has no number.
func capOf(a usage.Allowance, n int) *int {
	if a.IsUnlimited() {
		return nil
	}
	return &n
}
