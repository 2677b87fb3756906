package apitest

import (
	"net/http"
	"slices"
	"strconv"

	"github.com/bizassist/bizassist/libs/apperr"
	"github.com/bizassist/bizassist/libs/httpx"
)

// analytics: usage, the health score and its history, churn prediction.

func (a *API) pqlCheck(w http.ResponseWriter, r *http.Request, _ string) {
	a.mu.Lock()
	defer a.mu.Unlock()
	features, top := map[string]any{}, 0
	for name, u := range a.usage {
		var limit any = u.limit
		if u.limit < 0 {
			limit = nil
		} else {
			top = max(top, u.pct)
		}
		features[name] = map[string]any{"used": u.used, "limit": limit, "pct": u.pct, "unlimited": u.limit < 0}
	}
	httpx.Respond(w, http.StatusOK, map[string]any{"nearLimit": a.nearLimit, "usagePercent": top, "features": features, "upgradeUrl": UpgradeURL})
}

func signals(score int) map[string]int {
	s := map[string]int{}
	for _, n := range []string{"loginRecency", "loginFrequency", "featureAdoption", "chatEngagement", "leadActivity",
		"usageTrend", "planUtilisation", "integrationUse", "paymentHealth", "tenure"} {
		s[n] = score
	}
	return s
}

func (a *API) healthScore(w http.ResponseWriter, r *http.Request, _ string) {
	a.mu.Lock()
	h := a.health
	a.mu.Unlock()
	httpx.Respond(w, http.StatusOK, map[string]any{"score": h.Score, "tier": h.Tier, "signals": signals(h.Score), "updatedAt": ts(a.now())})
}

func (a *API) healthHistory(w http.ResponseWriter, r *http.Request, _ string) {
	q := r.URL.Query()
	days, err := strconv.Atoi(q.Get("days"))
	if err != nil || days < 1 || days > 90 {
		httpx.Fail(w, r, apperr.InvalidField("days", "must be a whole number from 1 to 90"))
		return
	}
	id := q.Get("clientId")
	a.mu.Lock()
	known := id == "" || slices.ContainsFunc(a.clients, func(c Client) bool { return c.ID == id })
	ps := a.history[id]
	a.mu.Unlock()
	if !known {
		httpx.Fail(w, r, apperr.NotFound(apperr.CodeNotFound, "no such client"))
		return
	}
	out := []map[string]any{}
	for _, p := range ps {
		out = append(out, map[string]any{"at": ts(p.At), "score": p.Score, "tier": p.Tier, "signals": signals(p.Score)})
	}
	httpx.Respond(w, http.StatusOK, map[string]any{"accountId": cmpOr(id, "acc_owner"), "days": days, "points": out})
}

func (a *API) churn(w http.ResponseWriter, r *http.Request, email string) {
	q := r.URL.Query()
	threshold, _ := strconv.Atoi(cmpOr(q.Get("threshold"), "60"))
	limit, _ := strconv.Atoi(cmpOr(q.Get("limit"), "10"))
	a.mu.Lock()
	defer a.mu.Unlock()
	if a.accounts[email].plan == "free" {
		httpx.Fail(w, r, apperr.Forbidden("plan_upgrade_required", "churn prediction needs the growth or full_stack plan").With("upgradeUrl", UpgradeURL))
		return
	}
	var at []Client
	for _, c := range a.clients {
		if c.AtRisk && c.ChurnProbability >= threshold {
			at = append(at, c)
		}
	}
	slices.SortStableFunc(at, func(x, y Client) int { return y.ChurnProbability - x.ChurnProbability })
	out := []map[string]any{}
	for _, c := range at[:min(limit, len(at))] {
		out = append(out, map[string]any{"email": cmpOr(c.AtRiskEmail, c.Email), "businessName": c.BusinessName,
			"churnProbability": c.ChurnProbability, "healthScore": c.AtRiskScore, "lastLogin": nil, "recommendation": c.Recommendation})
	}
	httpx.Respond(w, http.StatusOK, map[string]any{"atRisk": len(at), "clients": out})
}
